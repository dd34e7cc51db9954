"""Argument parsing and error handling for a verb (imported lazily)."""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, TextIO

from openalice.core import output
from openalice.core.errors import AliceError, OperationalError, UsageError

from ._run import Tool, debug_enabled

__all__ = ["ArgumentParser", "Context", "dispatch", "common_parent", "add_verb", "int_in_range"]


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` (exit 2) instead of exiting,
    so ``--json`` callers get the error envelope."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        message = _redact_unrecognized(message)
        raise UsageError(message, code="usage",
                         details={"usage": self.format_usage().strip(),
                                  "hint": f"see '{self.prog} --help'"})


def _redact_unrecognized(message: str) -> str:
    """argparse echoes stray arguments; one of them may be a secret typed in
    the wrong place (``credential add x --vendor v sk-...``).  Keep flags,
    hide values."""
    prefix = "unrecognized arguments: "
    if not message.startswith(prefix):
        return message
    shown = [a if a.startswith("-") and "=" not in a else "<value>" for a in message[len(prefix):].split()]
    return prefix + " ".join(shown) + " (values are not echoed)"


@dataclass
class Context:
    """What a verb handler gets besides its parsed arguments."""

    prog: str
    json: bool = False
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    now_override: str | None = None

    def now(self) -> datetime:
        from openalice.core import clock

        if self.now_override:
            return clock.parse_instant(self.now_override, field="--now")
        return clock.now()

    def emit(self, data: Any, human: Callable[[Any], str] | str | None = None) -> None:
        output.emit(data, json_mode=self.json, human=human, stream=self.stdout)

    def warn(self, message: str) -> None:
        output.warn(message, prog=self.prog, stream=self.stderr)

    def info(self, message: str) -> None:
        """A human note on stderr (kept off stdout so --json stays one document)."""
        self.stderr.write(message.rstrip("\n") + "\n")


def common_parent() -> ArgumentParser:
    parent = ArgumentParser(add_help=False)
    parent.add_argument("--json", action="store_true", help="print exactly one JSON document on stdout")
    return parent


def add_verb(sub: Any, name: str, handler: Callable[[argparse.Namespace, Context], Any], *,
             common: ArgumentParser, help: str, description: str | None = None,
             examples: str | None = None) -> ArgumentParser:
    """Register one verb: a subparser with the common flags and ``handler``."""
    epilog = f"examples:\n{examples.rstrip()}\n" if examples else None
    parser = sub.add_parser(name, parents=[common], help=help,
                            description=description or help, epilog=epilog)
    parser.set_defaults(handler=handler)
    return parser


def int_in_range(low: int, high: int, note: str = "") -> Callable[[str], int]:
    """An argparse ``type`` for an integer in ``low..high`` (a clear usage error otherwise)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low}-{high}" + (f" ({note})" if note else ""))
        return value

    return parse


def _first_verb(args: list[str]) -> str | None:
    for arg in args:
        if not arg.startswith("-"):
            return arg
    return None


def dispatch(tool: Tool, args: list[str]) -> int:
    json_mode = "--json" in args
    try:
        verb = _first_verb(args)
        if verb is None:
            raise UsageError(f"no command given; see '{tool.name} --help'", code="usage")
        module_name = tool.verbs.get(verb)
        if module_name is None:
            close = difflib.get_close_matches(verb, list(tool.verbs), n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"see '{tool.name} --help'"
            raise UsageError(f"unknown command '{verb}'", code="unknown_command",
                             details={"hint": hint})
        module = importlib.import_module(module_name)
        parser = ArgumentParser(prog=tool.name, add_help=True)
        parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
        sub = parser.add_subparsers(dest="verb", metavar="COMMAND", required=True)
        module.register(sub, common_parent())
        ns = parser.parse_args(args)
        ctx = Context(prog=tool.name, json=bool(getattr(ns, "json", False)),
                      now_override=getattr(ns, "now", None))
        handler = getattr(ns, "handler", None)
        if handler is None:
            raise UsageError(f"'{verb}' needs a subcommand; see '{tool.name} {verb} --help'",
                             code="usage")
        result = handler(ns, ctx)
        return 0 if result is None else int(result)
    except SystemExit as exc:  # argparse --help
        return exc.code if isinstance(exc.code, int) else 0
    except AliceError as err:
        output.emit_error(err, json_mode=json_mode, prog=tool.name)
        return err.exit_code
    except KeyboardInterrupt:
        sys.stderr.write(f"{tool.name}: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stay quiet like other Unix tools.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 1
    except Exception as exc:  # a bug: never a raw traceback unless asked for
        if debug_enabled():
            import traceback

            traceback.print_exc()
        err = OperationalError(f"internal error: {exc.__class__.__name__}: {exc}", code="internal",
                               details={"hint": "set OPENALICE_DEBUG=1 for a traceback"})
        output.emit_error(err, json_mode=json_mode, prog=tool.name)
        return 1
