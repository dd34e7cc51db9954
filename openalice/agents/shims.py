"""Live CLI shims: ``<workspace>/.alice/bin/{alice,alice-inbox,alice-schedule}``.

Each shim is a small ``/bin/sh`` script that runs the toolkit's own tool with
``OPENALICE_SHIM_CONFIG`` naming the workspace's harness config
(:data:`HARNESS_CONFIG`), so the tool refuses what the config disables
(:mod:`openalice.harness.gate`).  Every child's ``PATH`` has the directory
first (:func:`.base.run_path`, and every adapter keeps it first through the
agent's login shell), so an agent's ``alice`` is this workspace's ``alice``.

The shims live here, with the child environment that puts them first, not in
the harness: the runner rewrites them before every headless run and the
harness writes them on upgrade, so both reach them without the runner
importing the harness (whose upgrades ask the runner which runs are live).

Shims hold absolute paths (the toolkit's tool directory, the workspace), so
they are machine-local: git-excluded, and rewritten when they no longer
match (:func:`ensure`, called before every headless run).  With them come the
shells' start-up files that keep them first (:mod:`.shellrc`, in ``.alice/bin/.shell/``).  A shim whose
target is gone says how to fix it and exits 3.
"""

from __future__ import annotations

import os
from pathlib import Path

from openalice.core import fs
from openalice.core.errors import InvalidInput
from openalice.core.tools import tools_dir

from . import shellrc

__all__ = ["WORKSPACE_BIN", "HARNESS_CONFIG", "SHIMMED_TOOLS", "shim_dir", "render", "ensure", "problems"]

# The directory of the shims, first on every child's PATH (.base.run_path).
WORKSPACE_BIN = ".alice/bin"
# The workspace's harness config (parsed by openalice.harness.config, which
# stays free of imports because the gate reads it on every shimmed command):
# the file each shim names, so its name is kept beside the shims.
HARNESS_CONFIG = ".alice/alice-harness-config.json"
SHIMMED_TOOLS = ("alice", "alice-inbox", "alice-schedule")


def shim_dir(root: os.PathLike | str) -> Path:
    return Path(root) / WORKSPACE_BIN


def toolkit_dir() -> Path:
    return tools_dir()


def render(root: os.PathLike | str, tool: str, target_dir: os.PathLike | str | None = None) -> bytes:
    target = Path(target_dir or toolkit_dir()) / tool
    config = Path(root) / HARNESS_CONFIG
    return f"""#!/bin/sh
# OpenAlice workspace shim (written by the toolkit; rewritten before every headless run).
# Runs the toolkit's {tool} under this workspace's harness config ({HARNESS_CONFIG}).
target={shellrc.sh_quote(str(target))}
if [ ! -x "$target" ]; then
  echo "{tool}: error: the OpenAlice tool this shim runs is missing: $target" >&2
  echo "{tool}: hint: reinstall the toolkit, then rewrite the shims with 'alice-harness upgrade --apply' in this workspace (a headless run also rewrites them)" >&2
  exit 3
fi
OPENALICE_SHIM_CONFIG={shellrc.sh_quote(str(config))}
export OPENALICE_SHIM_CONFIG
exec "$target" "$@"
""".encode("utf-8")


def problems(root: os.PathLike | str) -> list[str]:
    """What is wrong with the workspace's shims (empty: all present and current)."""
    out = []
    directory = shim_dir(root)
    for tool in SHIMMED_TOOLS:
        path = directory / tool
        try:
            current = path.read_bytes() if not path.is_symlink() else None
        except OSError:
            current = None
        if current is None:
            out.append(f"{WORKSPACE_BIN}/{tool} is missing")
        elif current != render(root, tool):
            out.append(f"{WORKSPACE_BIN}/{tool} is out of date")
        elif not os.access(path, os.X_OK):
            out.append(f"{WORKSPACE_BIN}/{tool} is not executable")
        elif not os.access(toolkit_dir() / tool, os.X_OK):
            out.append(f"{WORKSPACE_BIN}/{tool}: its target {toolkit_dir() / tool} is missing")
    return out + shellrc.problems(root)


def ensure(root: os.PathLike | str) -> list[str]:
    """Write the shims that are missing or out of date; the paths written."""
    directory = shim_dir(root)
    written = []
    for tool in SHIMMED_TOOLS:
        path = directory / tool
        wanted = render(root, tool)
        try:
            if not path.is_symlink() and path.read_bytes() == wanted and os.access(path, os.X_OK):
                continue
        except OSError:
            pass
        fs.ensure_dir(directory, 0o755, root=root)
        if path.is_symlink() or path.is_dir():
            raise InvalidInput("is not a regular file; remove it so the shim can be written", file=path,
                               code="shim_blocked")
        fs.atomic_write_bytes(path, wanted, mode=0o755, dir_mode=0o755, root=root)
        written.append(f"{WORKSPACE_BIN}/{tool}")
    return written + shellrc.ensure(root)
