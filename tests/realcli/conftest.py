"""Fixtures for running the real agent CLIs against the loopback fake model server.

Installation state and skip/fail rules: ``clis.py``.  Each test gets its own
HOME/CODEX_HOME/PI_CODING_AGENT_DIR/XDG dirs under tmp_path.  As root, the CLIs
run inside a private network namespace where only loopback is up, and the fake
server listens there too (``netns.py``), so a test cannot reach anything but
127.0.0.1; elsewhere only the environment knobs in ``agents.QUIET_ENV`` keep
the CLIs quiet.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import summary

from . import clis
from .agents import DRIVERS, Driver, Turn, isolated_env, run_turn
from .clis import cli_path
from .fake_model_server import FakeModelServer
from .netns import LoopbackNetns

TURN_TIMEOUT = float(os.environ.get("REALCLI_TURN_TIMEOUT", "90"))
_isolation = ""


@pytest.fixture(scope="session")
def loopback_netns():
    """A private loopback-only network namespace, or None where it cannot be made."""
    global _isolation
    if os.environ.get("REALCLI_NETNS") == "0":
        ns, why = None, "REALCLI_NETNS=0"
    elif os.geteuid() != 0:
        ns, why = None, "not root"
    else:
        ns, why = LoopbackNetns.create()
    _isolation = ("private network namespace (only 127.0.0.1 reachable)" if ns else
                  f"environment knobs only; no network namespace: {why}")
    yield ns
    if ns is not None:
        ns.close()


@pytest.fixture
def fake_server(loopback_netns, tmp_path):
    with FakeModelServer(netns=loopback_netns, log_path=tmp_path / "requests.jsonl") as server:
        yield server


class AgentRun:
    """One CLI, its isolated home and work dir, wired to ``server``."""

    def __init__(self, driver: Driver, exe: str, server: FakeModelServer, root: Path, netns) -> None:
        self.driver = driver
        self.exe = exe
        self.server = server
        self.workdir = root / "work"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env = isolated_env(root)
        driver.configure(self.env, server.url)
        self.netns = netns

    def turn(self, prompt: str, *, effort: str | None = None, model: str | None = None,
             resume: str | None = None, timeout: float = TURN_TIMEOUT) -> Turn:
        argv, stdin = self.driver.turn(
            self.exe, model=model or self.driver.model, effort=effort or self.driver.efforts[0],
            prompt=prompt, workdir=self.workdir, server_url=self.server.url, resume=resume)
        return run_turn(argv, env=self.env, cwd=self.workdir, stdin=stdin, timeout=timeout,
                        wrap=self.netns.wrap if self.netns else None)


@pytest.fixture(params=list(DRIVERS))
def agent(request, fake_server, loopback_netns, tmp_path) -> AgentRun:
    """Parametrized over claude, codex, opencode, pi."""
    name = request.param
    return AgentRun(DRIVERS[name], cli_path(name), fake_server, tmp_path / name, loopback_netns)


def pytest_sessionfinish(session):
    """The summary of the real CLIs (printed by tests/conftest.py, relayed from the
    workers under pytest-xdist)."""
    state = clis._state
    if state is None:
        return
    section = summary.section("real agent CLIs")
    if state.status == "unavailable":
        section.append((f"SKIPPED LOUDLY: real agent CLIs unavailable: {state.reason}",
                        {"yellow": True, "bold": True}))
    elif state.status == "failed":
        section.append((f"FAILED: real agent CLIs: {state.reason}", {"red": True, "bold": True}))
    else:
        section.append((f"installed: {' '.join(f'{k}={v}' for k, v in sorted(state.installed.items()))}", {}))
        section.append((f"isolation: {_isolation or 'n/a'}", {}))
    section.extend((note, {}) for note in clis.notes)
