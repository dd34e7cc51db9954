"""Argument parsing and error handling for a verb (imported lazily)."""

from __future__ import annotations

import importlib
import sys

from openalice.core import output
from openalice.core.errors import UsageError

from ._args import SUPPRESS, type_error  # argparse's value and error, without importing it
from ._run import Tool

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: typing and datetime cost start-up time
    from datetime import datetime
    from typing import Any, Callable, TextIO

__all__ = ["Context", "dispatch", "add_verb", "shared_options", "int_in_range", "workspace_option", "SUPPRESS"]


def __getattr__(name: str):
    # lazy: argparse is imported only when the quick parser (._args) declines
    if name in ("ArgumentParser", "common_parent"):
        # lazy: start-up imports only sys and os; the rest waits until it is needed
        from . import _parsers

        return getattr(_parsers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Context:
    """What a verb handler gets besides its parsed arguments.  (A plain
    class: ``dataclasses`` imports ``inspect``, which alone costs more than a
    read verb's whole work.)"""

    def __init__(self, prog: str, json: bool = False, stdout: TextIO | None = None,
                 stderr: TextIO | None = None, stdin: TextIO | None = None,
                 now_override: str | None = None) -> None:
        self.prog = prog
        self.json = json
        self.stdout = sys.stdout if stdout is None else stdout
        self.stderr = sys.stderr if stderr is None else stderr
        self.stdin = sys.stdin if stdin is None else stdin
        self.now_override = now_override
        self._pending: list = []
        self._failure: tuple[str, str] | None = None

    def __repr__(self) -> str:
        return f"Context(prog={self.prog!r}, json={self.json!r})"

    def now(self) -> datetime:
        # lazy: start-up imports only sys and os; the rest waits until it is needed
        from openalice.core import clock

        if self.now_override:
            return clock.parse_clock(self.now_override, field="--now")
        return clock.now()

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


def shared_options(common: Any) -> Any:
    """A parent parser for options that several verbs share, built on
    ``common`` and of its kind (the quick parser's recorder, or argparse)."""
    # lazy: start-up imports only sys and os; the rest waits until it is needed
    from . import _args

    if isinstance(common, _args.RecordingParser):
        return _args.RecordingParser(parents=[common])
    from ._parsers import ArgumentParser  # lazy: argparse only for help, errors and unusual forms

    return ArgumentParser(add_help=False, parents=[common])


def add_verb(sub: Any, name: str, handler: Callable[[Any, Context], Any], *,
             common: Any, help: str, description: str | None = None,
             examples: str | None = None) -> Any:
    """Register one verb: a subparser with the common flags and ``handler``."""
    epilog = f"examples:\n{examples.rstrip()}\n" if examples else None
    parser = sub.add_parser(name, parents=[common], help=help,
                            description=description or help, epilog=epilog)
    parser.set_defaults(handler=handler)
    return parser


def workspace_option(p: Any, *, from_run: bool = True) -> None:
    """``--workspace PATH|ID``, the workspace a verb acts on (``from_run``: a headless run's is the default)."""
    default = "the run's, else the one containing the cwd" if from_run else "the one containing the cwd"
    p.add_argument("--workspace", metavar="PATH|ID", help=f"the workspace (default: {default})")


def int_in_range(low: int, high: int, note: str = "") -> Callable[[str], int]:
    """An argparse ``type`` for an integer in ``low..high`` (a clear usage error otherwise)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise type_error(f"not an integer: {text!r}") from None
        if not low <= value <= high:
            raise type_error(f"must be {low}-{high}" + (f" ({note})" if note else ""))
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
        import difflib  # lazy: only a mistyped verb needs it

        close = difflib.get_close_matches(verb, list(tool.verbs), n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"see '{tool.name} --help'"
        raise UsageError(f"unknown command '{verb}'", code="unknown_command",
                         details={"hint": hint})
    module = importlib.import_module(module_name)
    # lazy: start-up imports only sys and os; the rest waits until it is needed
    from . import _args

    ns = _args.parse(module.register, args)
    if ns is None:  # help, a usage error or an unusual form: argparse's own words
        from ._parsers import parse_args  # lazy: argparse only for help, errors and unusual forms

        ns = parse_args(tool, module, args)
    ns.raw_args = list(args)  # what came after `--` is the verb's to read (alice session open -- ARGS)
    ctx = Context(prog=tool.name, json=json_mode, now_override=getattr(ns, "now", None))
    handler = getattr(ns, "handler", None)
    if handler is None:
        raise UsageError(f"'{verb}' needs a subcommand; see '{tool.name} {verb} --help'",
                         code="usage")
    result = handler(ns, ctx)
    return ctx.finish(0 if result is None else int(result))
