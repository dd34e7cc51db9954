"""Fixtures for the Studio tests: the toy app in a registered workspace, and a
guarantee that no process a test started (supervisor, app, proxy) outlives it.

Every process the toolkit starts inherits ``OPENALICE_HOME``, which the autouse
fixture points at a temp dir of this test alone; :func:`leftovers` finds the
live (non-zombie) processes whose environment names it.  That is the "no
process of a generation survives" check, made from ``/proc``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parent.parent / "fixtures" / "studio_app"


def _environ_has(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return needle in fh.read().split(b"\0")
    except OSError:
        return False


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    return raw[raw.rfind(b")") + 2:].split()[0].decode()


def leftovers(home: str | None = None) -> list[int]:
    """Live processes started under this test's OPENALICE_HOME (zombies are dead)."""
    needle = f"OPENALICE_HOME={home or os.environ['OPENALICE_HOME']}".encode()
    me = os.getpid()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != me and _state(int(name)) not in (None, "Z", "X") \
                and _environ_has(int(name), needle):
            found.append(int(name))
    return sorted(found)


def alive(pid: int) -> bool:
    """Running, per /proc (a zombie is not running)."""
    return _state(pid) not in (None, "Z", "X")


def wait_until(predicate, timeout: float = 20.0, what: str = "condition"):
    """Wait for a condition the code under test brings about (never a timing assertion)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def no_process_left_behind(isolated_homes):
    """After each test: kill whatever is left (so a failing test leaks nothing), and fail if
    anything was."""
    yield
    home = str(isolated_homes["OPENALICE_HOME"])
    left = leftovers(home)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert left == [], f"processes left running after the test: {left}"


@pytest.fixture
def toy_app(tmp_path, cli):
    """A registered workspace holding the toy Studio (its wrapper forks the server and exits)."""
    root = tmp_path / "toy"
    shutil.copytree(APP, root)
    manifest = json.loads((root / "harness.json").read_text())
    manifest["capabilities"]["studio"]["command"][0] = sys.executable
    (root / "harness.json").write_text(json.dumps(manifest, indent=2))
    r = cli("alice", "workspace", "init", str(root), "--label", "toy", "--json")
    assert r.returncode == 0, r
    return root


@pytest.fixture
def harness(cli, toy_app):
    """``harness("studio", "start", ...)``: alice-harness run inside the toy workspace, as a
    process (docs/conventions.md, "CLI tests"): Studio's leases, supervisor and proxy
    records name the pid of the command that wrote them, and a stale holder is killed."""

    def run(*args, env=None, timeout=60):
        return cli.process("alice-harness", *args, cwd=toy_app, env=env, timeout=timeout)

    return run
