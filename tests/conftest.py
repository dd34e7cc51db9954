"""Shared fixtures.

Every test runs with ``OPENALICE_HOME``, ``HARNESS_HOME`` and ``HOME`` pointing
into its own temp dir (autouse), so nothing ever touches the real home.  The
``cli`` fixture runs the tools' ``main(argv)`` in this process
(``tests/helpers/cli.py``); ``cli_process``, ``cli.process(...)``, a test marked
``@pytest.mark.process`` or ``OPENALICE_TEST_CLI=process`` run the *installed*
tools as subprocesses (the console scripts beside ``sys.executable``, else the
``bin/`` launchers).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import summary
from tests.helpers.cli import TOOLS as TOOL_MODULES
from tests.helpers.cli import Cli, Result, tool_path  # noqa: F401  (Result, tool_path: imported from here)

REPO = Path(__file__).resolve().parent.parent
TOOLS = tuple(TOOL_MODULES)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: the controller prints
        workeroutput["summary_sections"] = {title: [list(line) for line in lines]
                                            for title, lines in summary.SECTIONS.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    summary.merge({title: [tuple(line) for line in lines] for title, lines in
                   getattr(node, "workeroutput", {}).get("summary_sections", {}).items()})


def pytest_terminal_summary(terminalreporter):
    for title, lines in summary.SECTIONS.items():
        if lines:
            terminalreporter.section(title)
            for text, markup in lines:
                terminalreporter.write_line(text, **markup)


@pytest.fixture(autouse=True)
def restored_process_state():
    """Whatever a test does to this process's environment and cwd (the reliability
    suite's ``Machine.enter()`` sets ``OPENALICE_TEST_LAUNCH=none``, ``PATH`` and the
    cwd for its in-process calls) is undone after it, so no later test inherits it:
    a leaked ``OPENALICE_TEST_LAUNCH=none`` once left every later scheduled run
    admitted and never launched."""
    env, cwd = dict(os.environ), os.getcwd()
    yield
    os.chdir(cwd)
    for key in set(os.environ) - set(env):
        del os.environ[key]
    for key, value in env.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


@pytest.fixture(autouse=True)
def isolated_homes(restored_process_state, tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("homes")
    homes = {
        "OPENALICE_HOME": base / "openalice",
        "HARNESS_HOME": base / "harness",
        "HOME": base / "user",
    }
    for var, path in homes.items():
        path.mkdir()
        monkeypatch.setenv(var, str(path))
    for var in ("ALICE_NOW", "ALICE_RUN_ID", "ALICE_RESUME_ID", "ALICE_WORKSPACE_ID",
                "HARNESS_CATALOG", "NO_COLOR", "OPENALICE_TEST_LAUNCH"):
        monkeypatch.delenv(var, raising=False)
    return homes


def _fixture_env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


@pytest.fixture
def cli(request, isolated_homes) -> Cli:
    """The tools, run in this process (``tests/helpers/cli.py``); as subprocesses
    for a test marked ``@pytest.mark.process`` or under ``OPENALICE_TEST_CLI=process``.
    ``cli.process(...)`` is one call as a subprocess whatever the mode."""
    return Cli(_fixture_env(), process=request.node.get_closest_marker("process") is not None)


@pytest.fixture
def cli_process(isolated_homes) -> Cli:
    """The tools as subprocesses: for a test whose point is the process boundary."""
    return Cli(_fixture_env(), process=True)


@pytest.fixture
def workspace(tmp_path, cli):
    """A registered blank workspace at tmp_path/ws; returns its path."""
    path = tmp_path / "ws"
    result = cli("alice", "workspace", "init", str(path), "--label", "Test WS", "--json")
    assert result.returncode == 0, result
    return path


AGENT_EXECUTABLES = ("claude", "codex", "opencode", "pi")


@pytest.fixture
def agent_stubs(tmp_path_factory, monkeypatch) -> Path:
    """Executables named like the four agent CLIs, first on PATH.

    The scanner does not admit a run whose agent is not installed
    (``openalice.issues.readiness``); tests of scheduling that never start an
    agent (a fake launcher, ``OPENALICE_TEST_LAUNCH=none``) use these so the
    agent counts as installed.  Each stub fails loudly if it is ever run.
    """
    bin_dir = tmp_path_factory.mktemp("agent-stubs")
    for name in AGENT_EXECUTABLES:
        stub = bin_dir / name
        stub.write_text(f"#!/bin/sh\necho 'stub {name}: this test runs no agent' >&2\nexit 97\n")
        stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return bin_dir
