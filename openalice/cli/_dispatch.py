"""Argument parsing and error handling for a verb (imported lazily)."""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, TextIO

from openalice.core import output
from openalice.core.errors import UsageError

from ._run import Tool

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
            return clock.parse_clock(self.now_override, field="--now")
        return clock.now()

    _pending: list = field(default_factory=list, repr=False)
    _failure: tuple[str, str] | None = field(default=None, repr=False)

    def emit(self, data: Any, human: Callable[[Any], str] | str | None = None) -> None:
        """The result: human text now, or (``--json``) the document, written by
        :meth:`finish` once the exit code is known."""
        if self.json:
            self._pending.append(data)
            return
        output.emit(data, json_mode=False, human=human, stream=self.stdout)

    def failing(self, code: str, message: str) -> None:
        """Name what a non-zero exit that still prints its result means: the
        ``"error"`` member the result document gets with ``--json``."""
        self._failure = (code, message)

    def finish(self, exit_code: int) -> int:
        """Write the ``--json`` document by the one rule
        (:func:`openalice.core.output.json_document`)."""
        if not self.json:
            return exit_code
        pending, self._pending = self._pending, []
        for earlier in pending[:-1]:
            self.stdout.write(output.to_json(earlier) + "\n")
        last = pending[-1] if pending else None
        code, message = self._failure or (None, None)
        document = output.json_document(last, exit_code, code=code, message=message)
        if document is not None and (pending or exit_code != 0):
            self.stdout.write(output.to_json(document) + "\n")
        return exit_code

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


def dispatch(tool: Tool, args: list[str], *, json_mode: bool) -> int:
    """Parse ``args`` and run the verb's handler.  Errors propagate to the one
    top-level handler (:func:`openalice.cli._run.run`)."""
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
    ctx = Context(prog=tool.name, json=json_mode, now_override=getattr(ns, "now", None))
    handler = getattr(ns, "handler", None)
    if handler is None:
        raise UsageError(f"'{verb}' needs a subcommand; see '{tool.name} {verb} --help'",
                         code="usage")
    result = handler(ns, ctx)
    return ctx.finish(0 if result is None else int(result))
