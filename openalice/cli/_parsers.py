"""The :mod:`argparse` side of verb parsing (imported only when
:func:`openalice.cli._args.parse` declines: help, usage errors, unusual forms)."""

from __future__ import annotations

import argparse
from typing import Any

from openalice.core.errors import UsageError

from ._run import Tool

__all__ = ["ArgumentParser", "common_parent", "parse_args"]


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
    parser = ArgumentParser(prog=tool.name, add_help=True)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="verb", metavar="COMMAND", required=True)
    module.register(sub, common_parent())
    return parser.parse_args(args)
