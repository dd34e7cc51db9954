"""Shared fixtures.

Every test runs with ``OPENALICE_HOME``, ``HARNESS_HOME`` and ``HOME`` pointing
into its own temp dir (autouse), so nothing ever touches the real home.  The
``cli`` fixture runs the *installed* tools as subprocesses (the console scripts
beside ``sys.executable``), falling back to the ``bin/`` launchers only when
the suite runs outside an environment where the project is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TOOLS = ("alice", "alice-schedule", "alice-inbox", "alice-harness", "harness-adapter")


def tool_path(name: str) -> str:
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found:
        return found
    return str(REPO / "bin" / name)


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


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    argv: list

    def json(self):
        try:
            return json.loads(self.stdout)
        except ValueError as exc:
            raise AssertionError(f"stdout is not one JSON document: {exc}\n{self.stdout!r}\n"
                                 f"stderr: {self.stderr}") from None

    def __repr__(self) -> str:
        return (f"Result(rc={self.returncode}, argv={self.argv})\n--- stdout\n{self.stdout}"
                f"\n--- stderr\n{self.stderr}")


class Cli:
    """Runs the installed tools: ``cli("alice", "workspace", "list", "--json")``."""

    def __init__(self, env: dict) -> None:
        self.env = env

    def __call__(self, tool: str, *args: str, input: str | bytes | None = None, cwd=None,
                 env: dict | None = None, timeout: float = 60) -> Result:
        argv = [tool_path(tool), *map(str, args)]
        full_env = {**self.env, **(env or {})}
        full_env = {k: v for k, v in full_env.items() if v is not None}
        text = not isinstance(input, bytes)
        proc = subprocess.run(argv, input=input, capture_output=True, cwd=cwd, env=full_env,
                              timeout=timeout, text=text)
        out, err = proc.stdout, proc.stderr
        if not text:
            out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
        return Result(proc.returncode, out, err, argv)


@pytest.fixture
def cli(isolated_homes) -> Cli:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return Cli(env)


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
