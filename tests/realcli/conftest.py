"""Fixtures for running the real agent CLIs against the loopback fake model server.

The CLIs come from ``scripts/setup-agent-clis`` (installed under
``.agent-clis/``, or ``$AGENT_CLIS_DIR``).  When that directory has never been
set up, the first test that needs a CLI runs the script once.  Then:

- ``UNAVAILABLE`` marker (npm missing / registry unreachable): the tests SKIP,
  quoting the marker, and the terminal summary says so in a section of its own;
- ``FAILED`` marker, or a required CLI (claude, codex) missing although the
  registry was reached: the tests FAIL;
- an optional CLI (opencode, pi) left out on purpose (``AGENT_CLIS``): skip.

Each test gets its own HOME/CODEX_HOME/PI_CODING_AGENT_DIR/XDG dirs under
tmp_path.  As root, CLIs run inside a private network namespace where only
loopback is up and the fake server listens there too (``netns.py``), so a
test cannot reach anything but 127.0.0.1; elsewhere only the environment
knobs in ``agents.QUIET_ENV`` keep the CLIs quiet.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .agents import DRIVERS, Driver, Turn, isolated_env, run_turn
from .fake_model_server import FakeModelServer
from .netns import LoopbackNetns

REPO = Path(__file__).resolve().parents[2]
SETUP = REPO / "scripts" / "setup-agent-clis"
REQUIRED = ("claude", "codex")
SETUP_TIMEOUT = 1200
TURN_TIMEOUT = float(os.environ.get("REALCLI_TURN_TIMEOUT", "90"))


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
_isolation: str = ""
_notes: list[str] = []


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
        _notes.append(ran)
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


@pytest.fixture(scope="session")
def loopback_netns():
    """A private loopback-only network namespace, or None where it cannot be made."""
    global _isolation
    ns, why = (None, "not root") if os.geteuid() != 0 else LoopbackNetns.create()
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


def pytest_terminal_summary(terminalreporter):
    if _state is None:
        return
    write = terminalreporter.write_line
    terminalreporter.section("real agent CLIs")
    if _state.status == "unavailable":
        write(f"SKIPPED LOUDLY: real agent CLIs unavailable: {_state.reason}", yellow=True, bold=True)
    elif _state.status == "failed":
        write(f"FAILED: real agent CLIs: {_state.reason}", red=True, bold=True)
    else:
        write(f"installed: {' '.join(f'{k}={v}' for k, v in sorted(_state.installed.items()))}")
        write(f"isolation: {_isolation or 'n/a'}")
    for note in _notes:
        write(note)
