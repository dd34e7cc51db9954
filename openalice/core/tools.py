"""Where the toolkit's own executables are, for a process that starts one.

The runner puts this directory first on a headless child's ``PATH`` (so an
agent calling ``alice inbox push`` gets this installation), and the web
gateway runs the tools from it.  Installed, the console scripts sit beside the
running interpreter; in a checkout, the ``bin/`` launchers.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

__all__ = ["TOOL_MODULES", "tools_dir", "tool_argv"]

# The module whose main() each tool runs: the last resort when neither the
# console script nor the launcher exists (a bare `python -m`).
TOOL_MODULES = {
    "alice": "openalice.cli.alice",
    "alice-schedule": "openalice.cli.schedule",
    "alice-inbox": "openalice.cli.inbox",
    "alice-harness": "openalice.cli.harness",
    "harness-adapter": "openalice.cli.adapter",
}


@lru_cache(maxsize=1)
def tools_dir() -> Path:
    """The console scripts beside the running interpreter when installed,
    else the checkout's ``bin/``."""
    beside = Path(sys.executable).parent
    if (beside / "alice").exists():
        return beside
    checkout_bin = Path(__file__).resolve().parent.parent.parent / "bin"
    if (checkout_bin / "alice").exists():
        return checkout_bin
    return beside


def tool_argv(name: str) -> list[str]:
    """The argv prefix that runs tool ``name`` of this installation."""
    if name not in TOOL_MODULES:
        raise ValueError(f"unknown tool {name!r}")
    path = tools_dir() / name
    if path.exists():
        return [str(path)]
    return [sys.executable, "-m", TOOL_MODULES[name]]
