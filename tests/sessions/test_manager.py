"""The Workspace Manager: its sessions, its directory and guidance, and the approval at the terminal.

The approval is read from the controlling terminal, never from stdin: the
tests run the writing command on a pseudo-terminal made its controlling
terminal (approve, refuse) and without one (refused even when stdin says yes).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import subprocess
import termios
import time

import pytest

from tests.conftest import tool_path
from tests.helpers.schemas import conforms

from .interactive_standins import InteractiveStandIns

NOW = "2026-12-01T10:00:00Z"
MANAGER = "resume-calm-amber-river-abcdef"


@pytest.fixture
def standins(tmp_path) -> InteractiveStandIns:
    return InteractiveStandIns(tmp_path / "standins")


@pytest.fixture
def env(standins, isolated_homes) -> dict:
    return {"PATH": standins.path_env(), "ALICE_NOW": NOW}


@pytest.fixture
def target(tmp_path, cli, env):
    """A second registered workspace that is a git repository."""
    path = tmp_path / "target"
    path.mkdir()
    for argv in (["git", "init", "-q"], ["git", "config", "user.email", "t@example.invalid"],
                 ["git", "config", "user.name", "T"]):
        subprocess.run(argv, cwd=path, check=True)
    made = cli("alice", "workspace", "init", str(path), "--label", "Target", "--json", env=env)
    assert made.returncode == 0, made
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-qm", "init", "--allow-empty"], cwd=path, check=True)
    return made.json()["workspace"]


def on_terminal(argv: list[str], *, env: dict, cwd, answer: bytes | None, timeout: float = 30) -> tuple[int, str]:
    """Run ``argv`` with a fresh pseudo-terminal as its controlling terminal (stdin: /dev/null);
    answer ``answer`` once the question ends in ``[y/N]``.  (exit status, what the terminal showed)."""
    master, slave = pty.openpty()

    def make_controlling() -> None:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=make_controlling, pass_fds=(slave,))
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + timeout
    answered = False
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    shown += os.read(master, 4096)
                except OSError:
                    break
            if not answered and b"[y/N]" in shown and answer is not None:
                os.write(master, answer)
                answered = True
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
    return proc.returncode, shown.decode("utf-8", "replace") + proc.stdout.read().decode() + proc.stderr.read().decode()


def manager_env(env: dict) -> dict:
    full = {**os.environ, **env, "ALICE_MANAGER_SESSION": MANAGER}
    full.pop("ALICE_RUN_ID", None)
    return full


def issue_files(target: dict) -> list[str]:
    directory = os.path.join(target["path"], ".alice", "issues")
    return sorted(n for n in os.listdir(directory) if not n.startswith(".")) if os.path.isdir(directory) else []


def test_an_approved_write_is_written_and_committed_naming_the_manager_session(cli, env, target, tmp_path):
    argv = [tool_path("alice"), "issue", "create", "--workspace", target["id"], "--title", "From the manager",
            "--id", "from-manager", "--json"]
    code, shown = on_terminal(argv, env=manager_env(env), cwd=tmp_path, answer=b"y\n")
    assert code == 0, shown
    assert f"Workspace Manager session {MANAGER} asks to write workspace `{target['id']}`" in shown
    assert "create issue from-manager" in shown and "From the manager" in shown
    assert issue_files(target) == ["from-manager.md"]
    log = subprocess.run(["git", "log", "-1", "--format=%B", "--", ".alice/issues/from-manager.md"],
                         cwd=target["path"], capture_output=True, text=True, check=True).stdout
    assert MANAGER in log and "issue(from-manager): create" in log


def test_a_refusal_writes_nothing(cli, env, target, tmp_path):
    argv = [tool_path("alice"), "issue", "create", "--workspace", target["id"], "--title", "No", "--json"]
    code, shown = on_terminal(argv, env=manager_env(env), cwd=tmp_path, answer=b"n\n")
    assert code == 4, shown
    assert "approval_refused" in shown
    assert issue_files(target) == []


def test_without_a_terminal_stdin_cannot_approve(cli, env, target, tmp_path):
    result = subprocess.run([tool_path("alice"), "issue", "create", "--workspace", target["id"], "--title", "No",
                             "--json"], env=manager_env(env), cwd=tmp_path, input="y\n", capture_output=True,
                            text=True, start_new_session=True, timeout=60)
    assert result.returncode == 4, result
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "approval_refused" and "no terminal" in error["message"]
    assert issue_files(target) == []


def test_outside_a_manager_session_the_write_needs_no_question(cli, env, target, tmp_path):
    made = cli("alice", "issue", "create", "--workspace", target["id"], "--title", "Plain", "--json",
               cwd=tmp_path, env=env)
    assert made.returncode == 0, made
    assert made.json()["commit"] is None


def test_manager_open_runs_in_its_directory_with_guidance_and_its_mark(cli, env, target, standins,
                                                                       isolated_homes):
    opened = cli("alice", "manager", "open", "--new", env=env)
    assert opened.returncode == 0, opened
    [call] = standins.calls()
    home = isolated_homes["OPENALICE_HOME"]
    assert call["cwd"] == str(home / "manager")
    resume_id = call["alice"]["ALICE_MANAGER_SESSION"]
    assert (home / "workspaces" / "state" / "workspace-manager-sessions" / f"{resume_id}.json").is_file()
    guidance = (home / "manager" / "AGENTS.md").read_bytes()
    assert guidance == (home / "manager" / "CLAUDE.md").read_bytes()
    assert f"`{target['id']}`".encode() in guidance and target["path"].encode() in guidance

    listed = cli("alice", "manager", "list", "--json", env=env)
    assert listed.returncode == 0, listed
    conforms("manager-list", listed.json())
    [session] = listed.json()["sessions"]
    assert session["resumeId"] == resume_id and session["bornOn"] == "manager"
    assert session["lastLaunch"]["surface"] == "manager"

    shown = cli("alice", "manager", "show", resume_id, "--json", env=env)
    assert shown.returncode == 0, shown
    conforms("session", shown.json())
    assert shown.json()["open"]["cwd"] == str(home / "manager")
    assert "ALICE_MANAGER_SESSION" in shown.json()["open"]["setsEnv"]

    again = cli("alice", "manager", "open", resume_id, env=env)
    assert again.returncode == 0, again
    assert standins.calls()[-1]["resumed"] == session["nativeSessionId"]
    assert cli("alice", "session", "list", "--json", "--workspace", target["id"], env=env).json()["sessions"] == []


def test_manager_open_is_refused_inside_a_headless_run(cli, env, target):
    result = cli("alice", "manager", "open", "--new", "--json",
                 env={**env, "ALICE_RUN_ID": "task-1", "ALICE_WORKSPACE_ID": target["id"]})
    assert result.returncode == 4, result
