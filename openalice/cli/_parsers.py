"""The :mod:`argparse` side of verb parsing (imported only when
:func:`openalice.cli._args.parse` declines: help, usage errors, unusual forms)."""

from __future__ import annotations

import argparse
from typing import Any

from openalice.core.errors import UsageError

from ._run import Tool

__all__ = ["ArgumentParser", "build_parser", "common_parent", "parse_args", "parse_with"]


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


def common_parent() -> ArgumentParser:
    parent = ArgumentParser(add_help=False)
    parent.add_argument("--json", action="store_true", help="print exactly one JSON document on stdout")
    return parent


def parse_args(tool: Tool, module: Any, args: list[str]) -> argparse.Namespace:
    """``args`` parsed by argparse from the declarations of ``module.register``."""
    return parse_with(build_parser(tool, module), args)


def build_parser(tool: Tool, module: Any) -> argparse.ArgumentParser:
    """The argparse parser of one verb module (reusable: parsing changes nothing in it)."""
    parser = ArgumentParser(prog=tool.name, add_help=True)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="verb", metavar="COMMAND", required=True)
    module.register(sub, common_parent())
    return parser


def parse_with(parser: argparse.ArgumentParser, args: list[str]) -> argparse.Namespace:
    """``args`` parsed by a parser of :func:`build_parser`."""
    return parser.parse_args(_attach_dashed_values(parser, args))


def _attach_dashed_values(parser: argparse.ArgumentParser, args: list[str]) -> list[str]:
    """``--every -5m`` as ``--every=-5m``: argparse takes a value that starts with
    ``-`` for an option and says "expected one argument", where the value's own
    check would say what is wrong with it ("not a duration").  Joined only when the
    option takes one value and the next word is no option of the tool."""
    takes_value: set[str] = set()
    options: set[str] = set()
    pending = [parser]
    while pending:
        for action in pending.pop()._actions:
            if isinstance(action, argparse._SubParsersAction):
                pending.extend(action.choices.values())
                continue
            options.update(action.option_strings)
            if action.option_strings and action.nargs is None and action.const is None \
                    and not isinstance(action, argparse._StoreConstAction):
                takes_value.update(s for s in action.option_strings if s.startswith("--"))
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out.extend(args[i:])
            break
        following = args[i + 1] if i + 1 < len(args) else None
        if (arg in takes_value and following is not None and following.startswith("-")
                and following not in ("-", "--") and following.split("=", 1)[0] not in options):
            out.append(f"{arg}={following}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out
