"""Colour for states and errors on a terminal only (docs/conventions.md § Output).

Each tool runs on a pseudo-terminal from the stdlib ``pty`` module: there the states
of ``issue list``/``board``, ``runs``, ``health``, ``doctor`` and the error lines are
coloured; with ``NO_COLOR``, ``--no-color``, ``TERM=dumb``, ``--json`` or a pipe nothing is."""

from __future__ import annotations

import io
import json
import os
import pty

import pytest

from openalice.core import colour, output
from tests.conftest import tool_path

ESC = "\x1b["


def on_pty(argv: list[str], env: dict, cwd=None) -> tuple[int, str]:
    """Run ``argv`` with stdout and stderr on a pseudo-terminal; (exit code, what it showed)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child
        try:
            if cwd:
                os.chdir(cwd)
            os.execve(tool_path(argv[0]), argv, env)
        finally:
            os._exit(127)
    shown = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), shown.decode("utf-8", "replace")


@pytest.fixture
def env(cli):
    full = {k: v for k, v in cli.env.items() if k not in ("NO_COLOR",)}
    full["TERM"] = "xterm"
    return full


@pytest.fixture
def issue(cli, workspace):
    r = cli("alice", "issue", "create", "--title", "Nightly \x1b[31mred\x1b[0m", "--every", "5m",
            "--body", "b", cwd=workspace)
    assert r.returncode == 0, r
    return workspace


VIEWS = [("alice", "issue", "list"), ("alice", "issue", "board"), ("alice-schedule", "health"),
         ("alice", "doctor")]


def test_states_are_coloured_on_a_terminal(env, issue):
    for argv in VIEWS:
        code, shown = on_pty(list(argv), env, cwd=issue)
        assert ESC + "33mtodo" in shown or ESC + "33mTODO" in shown or ESC in shown, (argv, shown)
        # What the issue's author typed is still escaped, never obeyed.
        assert "\x1b[31mred" not in shown, (argv, shown)
    _, listed = on_pty(["alice", "issue", "list"], env, cwd=issue)
    assert f"{ESC}33mtodo{ESC}0m" in listed
    header, row = [line for line in listed.splitlines() if line.strip()][:2]
    plain_row = row.replace(f"{ESC}33m", "").replace(f"{ESC}0m", "")
    assert plain_row.index("none") == header.index("PRIORITY")  # colour takes no column
    _, doctor = on_pty(["alice", "doctor"], env, cwd=issue)
    assert f"{ESC}31m[!!]{ESC}0m" in doctor and f"{ESC}31mneeds attention{ESC}0m" in doctor


def test_error_lines_are_coloured_on_a_terminal(env):
    code, shown = on_pty(["alice", "models", "show", ""], env)
    assert code == 2
    assert f"alice: {ESC}1;31merror:{ESC}0m " in shown and f"alice: {ESC}36mhint:{ESC}0m " in shown


def test_runs_status_is_coloured(env, cli, workspace, tmp_path):
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "claude").write_text("#!/bin/sh\necho 2.1.197\n")
    (agents / "claude").chmod(0o755)
    path = f"{agents}:{os.environ['PATH']}"
    r = cli("alice", "issue", "create", "--title", "Job", "--every", "1h", "--agent", "claude",
            "--body", "b", cwd=workspace, env={"PATH": path})
    assert r.returncode == 0, r
    r = cli("alice-schedule", "scan", "--json", env={"OPENALICE_TEST_LAUNCH": "none", "PATH": path})
    assert r.returncode == 0 and r.json()["fired"], r
    code, shown = on_pty(["alice-schedule", "runs"], env)
    assert code == 0 and f"{ESC}33mrunning{ESC}0m" in shown, shown


@pytest.mark.parametrize("how", ["NO_COLOR", "--no-color", "TERM=dumb", "--json"])
def test_never_coloured_when_asked_not_to(env, issue, how):
    extra = {"NO_COLOR": {"NO_COLOR": "1"}, "TERM=dumb": {"TERM": "dumb"}}.get(how, {})
    flags = [how] if how.startswith("--") else []
    for argv in [*VIEWS, ("alice", "models", "show", "")]:
        _, shown = on_pty([*argv, *flags], {**env, **extra}, cwd=issue)
        assert ESC not in shown, (how, argv, shown)
        if how == "--json":
            json.loads(shown)


def test_never_coloured_into_a_pipe(cli, issue):
    for argv in VIEWS:
        r = cli(*argv, cwd=issue, env={"TERM": "xterm"})
        assert ESC not in r.stdout and ESC not in r.stderr and "\x00" not in r.stdout, argv


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_marks_cannot_be_forged_and_never_leak(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    tty = Tty()
    marked = colour.state("failed", tty)
    assert marked != "failed" and colour.plain(marked) == "failed" and colour.width(marked) == 6
    # Text from outside that looks like a mark (wrong nonce) is escaped like any control.
    forged = "\x00" + "0" * 12 + "31\x01boom"
    output.emit(None, json_mode=False, human=f"{marked} {forged}", stream=tty)
    assert tty.getvalue() == f"{ESC}31mfailed{ESC}0m \\x0000000000000031\\x01boom\n"
    # A mark made for a terminal, printed to a pipe, is dropped.
    pipe = io.StringIO()
    output.emit(None, json_mode=False, human=marked, stream=pipe)
    assert pipe.getvalue() == "failed\n"
    monkeypatch.setenv("NO_COLOR", "1")
    assert colour.state("failed", tty) == "failed"
    monkeypatch.setenv("NO_COLOR", "")  # empty: no-color.org says colour stays on
    assert colour.state("failed", tty) != "failed"
