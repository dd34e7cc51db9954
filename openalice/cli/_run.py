"""The tool runner: static ``--help``/``--version``, then lazy dispatch.

Only ``sys`` and ``os`` are imported here; everything else waits until a verb
is actually run.
"""

from __future__ import annotations

import os
import sys

from openalice import __version__

__all__ = ["Tool", "run", "shim_refusal"]


class Tool:
    """A command-line tool.

    ``verbs`` maps each verb (or verb group) to the module that registers it
    with ``register(subparsers, common)``; the module is imported only when
    that verb is used.  (A plain class: ``dataclasses`` would cost more
    start-up time than everything else ``--help`` does.)
    """

    __slots__ = ("name", "help", "verbs")

    def __init__(self, name: str, help: str, verbs: dict[str, str] | None = None) -> None:
        self.name = name
        self.help = help
        self.verbs = dict(verbs or {})


def run(tool: Tool, argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        sys.stderr.write(tool.help)
        return 2
    if args[0] in ("-h", "--help", "help") and len(args) == 1:
        sys.stdout.write(tool.help)
        return 0
    if args[0] in ("-V", "--version") and len(args) == 1:
        sys.stdout.write(f"{tool.name} {__version__}\n")
        return 0
    refused = shim_refusal(tool.name, args)
    if refused is not None:
        return refused
    from . import _dispatch

    return _dispatch.dispatch(tool, args)


def shim_refusal(name: str, args: list[str]) -> int | None:
    """Started through a workspace shim (``<ws>/.alice/bin/``): that
    workspace's harness config decides whether this command may run."""
    shim_config = os.environ.pop("OPENALICE_SHIM_CONFIG", None)
    if shim_config is None:
        return None
    from openalice.harness.gate import refuse

    return refuse(name, args, shim_config)


def debug_enabled() -> bool:
    return bool(os.environ.get("OPENALICE_DEBUG"))
