"""Where the real agent CLIs are, and whether a test may use them.

``scripts/setup-agent-clis`` installs them under ``.agent-clis/`` (or
``$AGENT_CLIS_DIR``) and leaves a STAMP, or a marker saying why not.  When the
directory has never been set up, ``install_state()`` runs the script once.
Then ``cli_path(name)``:

- ``UNAVAILABLE`` marker (npm missing / registry unreachable): pytest.skip with
  the marker's reason (conftest also prints it in the terminal summary);
- ``FAILED`` marker, or a required CLI (claude, codex) missing although the
  registry was reached: pytest.fail;
- an optional CLI (opencode, pi) left out on purpose (``AGENT_CLIS``): skip.

Other suites (the scheduler's end-to-end test) import this module directly.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .agents import DRIVERS

__all__ = ["REPO", "SETUP", "REQUIRED", "InstallState", "agent_clis_dir", "install_state",
           "cli_path", "notes"]

REPO = Path(__file__).resolve().parents[2]
SETUP = REPO / "scripts" / "setup-agent-clis"
REQUIRED = ("claude", "codex")
SETUP_TIMEOUT = 1200


def agent_clis_dir() -> Path:
    return Path(os.environ.get("AGENT_CLIS_DIR") or REPO / ".agent-clis")


@dataclass
class InstallState:
    status: str                  # "ready" | "unavailable" | "failed"
    reason: str = ""
    installed: dict[str, str] = field(default_factory=dict)   # name -> pinned spec
    bindir: Path | None = None
    setup_ran: str = ""


_state: InstallState | None = None
notes: list[str] = []


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def install_state() -> InstallState:
    """What setup-agent-clis left behind (running it once if it never ran)."""
    global _state
    if _state is not None:
        return _state
    root = agent_clis_dir()
    ran = ""
    if not any((root / name).exists() for name in ("STAMP", "UNAVAILABLE", "FAILED")):
        try:
            proc = subprocess.run([str(SETUP)], capture_output=True, text=True,
                                  timeout=SETUP_TIMEOUT, env={**os.environ, "AGENT_CLIS_DIR": str(root)})
            ran = f"ran {SETUP.name} (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"
        except (OSError, subprocess.TimeoutExpired) as exc:
            ran = f"could not run {SETUP}: {exc}"
        notes.append(ran)
    unavailable, failed, stamp = (_read(root / n) for n in ("UNAVAILABLE", "FAILED", "STAMP"))
    if unavailable:
        _state = InstallState("unavailable", unavailable, setup_ran=ran)
    elif failed:
        _state = InstallState("failed", failed, setup_ran=ran)
    elif not stamp:
        _state = InstallState("failed", f"{root} has no STAMP after setup ({ran or 'setup not run'})",
                              setup_ran=ran)
    else:
        installed = dict(item.split("=", 1) for item in stamp.split() if "=" in item)
        _state = InstallState("ready", installed=installed, bindir=root / "node_modules" / ".bin",
                              setup_ran=ran)
    return _state


def cli_path(name: str) -> str:
    """The installed executable of CLI ``name``; skips or fails as the module doc says."""
    state = install_state()
    if state.status == "unavailable":
        pytest.skip(f"real agent CLIs unavailable: {state.reason}")
    if state.status == "failed":
        pytest.fail(f"real agent CLIs failed to install: {state.reason}", pytrace=False)
    if name not in state.installed:
        if name in REQUIRED:
            pytest.fail(f"{name} is required but not in {agent_clis_dir()}/STAMP", pytrace=False)
        pytest.skip(f"{name} not installed (left out of AGENT_CLIS)")
    exe = state.bindir / DRIVERS[name].bin
    if not os.access(exe, os.X_OK):
        pytest.fail(f"{name}: {exe} is missing although setup reported {state.installed[name]}",
                    pytrace=False)
    return str(exe)
