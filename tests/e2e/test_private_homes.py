"""Issue 16 point 2: homes are private from the first write.

Whatever command is the first on a machine, under umask 000 or 022, every
directory it creates under ``OPENALICE_HOME`` and ``HARNESS_HOME`` (the homes
themselves included) is 0700 and every file it writes there has no group or
other bits."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import tool_path

NOW = "2026-11-30T09:00:00Z"

# Commands that can be the first one run on a machine, each from nothing.
FIRST_COMMANDS = [
    ("alice", "credential", "add", "k1", "--vendor", "openrouter"),
    ("harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY"),
    ("alice", "workspace", "init", "{ws}"),
    ("alice-schedule", "scan"),
    ("alice-inbox", "list"),
    ("alice", "doctor"),
    ("harness-adapter", "enable", "claude"),
    ("harness-adapter", "health", "claude"),
    ("alice", "models", "list"),
    ("alice-schedule", "runs"),
]


# Of those, the ones that must write (the others may read an empty home and
# write nothing: no surprise writes).
WRITERS = {("alice", "credential"), ("harness-adapter", "set-secret"), ("alice", "workspace"),
           ("harness-adapter", "enable")}


def run_first(tmp_path: Path, umask: int, argv: tuple) -> tuple[Path, Path, subprocess.CompletedProcess]:
    base = tmp_path / f"machine-{umask:03o}"
    oa, hh = base / "openalice", base / "harness"
    ws = base / "ws"
    words = [tool_path(argv[0])] + [a.format(ws=ws) for a in argv[1:]]
    env = {**os.environ, "OPENALICE_HOME": str(oa), "HARNESS_HOME": str(hh),
           "HOME": str(base / "user"), "ALICE_NOW": NOW}
    env.pop("PYTHONPATH", None)
    script = f"umask {umask:03o}; exec {' '.join(shlex.quote(w) for w in words)}"
    proc = subprocess.run(["sh", "-c", script], input="sk-first-write-canary\n", text=True,
                          capture_output=True, env=env, timeout=120)
    return oa, hh, proc


def loose(home: Path) -> list[str]:
    """Everything under ``home`` (itself included) that others could use."""
    found = []
    if not home.exists():
        return found
    for path in [home, *home.rglob("*")]:
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            continue
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISDIR(st.st_mode) and mode != 0o700:
            found.append(f"{oct(mode)} {path}/")
        elif not stat.S_ISDIR(st.st_mode) and mode & 0o077:
            found.append(f"{oct(mode)} {path}")
    return found


@pytest.mark.parametrize("umask", [0o000, 0o022])
@pytest.mark.parametrize("argv", FIRST_COMMANDS, ids=lambda a: " ".join(a[:3]))
def test_the_first_command_leaves_both_homes_private(tmp_path, umask, argv):
    oa, hh, proc = run_first(tmp_path, umask, argv)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    if argv[:2] in WRITERS:
        assert proc.returncode == 0, proc.stderr
        assert oa.exists() or hh.exists(), (argv, proc.stderr)  # it did write something
    assert loose(oa) + loose(hh) == [], (argv, proc.returncode, proc.stderr)
