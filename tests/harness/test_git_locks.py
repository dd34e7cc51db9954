"""A killed upgrade no longer wedges a git workspace (issue 27 item 1).

SIGKILL of `alice-harness upgrade --apply` while git holds `.git/index.lock` left the lock, and
every later committing apply exited 3 `git_locked` for good while `status` and doctor said
nothing.  Harness and sticker applies (and `status`, which recovers) now remove a lock proven
stale under the checkout lease, with the proof and the fact source upgrades use; a live git's
lock is refused by name; `status` and doctor report a lock that blocks upgrades.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import tool_path
from tests.helpers.schemas import conforms

from .helpers import GIT_ENV, git, needs_git

pytestmark = needs_git
SKILL = ".agents/skills/file-delivery/SKILL.md"


@pytest.fixture
def repo(cli, tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q")
    assert cli("alice", "workspace", "init", str(root), "--template", "chat", "--json").returncode == 0
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "workspace")
    return root


def facts(cli, outcome: str) -> list[dict]:
    r = cli("alice", "journal", "--type", "harness.recovered", "--json")
    return [e["payload"] for e in r.json()["entries"] if e["payload"]["outcome"] == outcome]


def killed_upgrade(root: Path) -> subprocess.CompletedProcess:
    """`alice-harness upgrade --apply` SIGKILLed, with everything it started, while its
    `git commit` holds index.lock (a pre-commit hook kills the command's process group)."""
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nkill -9 0\n")
    hook.chmod(0o755)
    try:
        r = subprocess.run([tool_path("alice-harness"), "upgrade", "--skill", "file-delivery", "--action",
                            "remove", "--apply", "--json"], cwd=root, capture_output=True, text=True,
                           env={**os.environ, **GIT_ENV}, start_new_session=True, timeout=60)
    finally:
        hook.unlink()
    assert r.returncode == -signal.SIGKILL, r
    return r


def test_a_killed_upgrade_leaves_a_lock_that_doctor_reports_and_the_next_command_removes(cli, repo):
    head = git(repo, "rev-parse", "HEAD")
    killed_upgrade(repo)
    lock = repo / ".git" / "index.lock"
    assert lock.exists() and (repo / ".alice/alice-harness-upgrade/transaction/journal.json").exists()
    doctor = cli("alice", "doctor", "--json", cwd=repo)
    assert str(".git/index.lock") in doctor.stdout and "git_locked" in doctor.stdout, doctor.stdout[-2000:]
    assert lock.exists()                                            # doctor changes nothing
    status = cli("alice-harness", "status", "--json", cwd=repo)
    conforms("harness-status", status.json())
    [doc] = status.json()["workspaces"]
    assert any("removed git lock files a killed git left: .git/index.lock" in p for p in doc["problems"]), doc
    assert any("rolled_back" in p for p in doc["problems"]), doc
    assert not lock.exists() and git(repo, "rev-parse", "HEAD") == head
    assert (repo / SKILL).exists() and git(repo, "status", "--porcelain") == ""
    [fact] = facts(cli, "git_lock_removed")
    assert fact["owner"] == "alice-harness" and fact["files"] == [".git/index.lock"]
    done = cli("alice-harness", "upgrade", "--skill", "file-delivery", "--action", "remove", "--apply", "--json",
               cwd=repo)
    assert done.returncode == 0, done
    assert not (repo / SKILL).exists() and git(repo, "rev-parse", "HEAD") != head


def test_the_next_apply_itself_removes_the_lock_a_killed_upgrade_left(cli, repo):
    killed_upgrade(repo)
    r = cli("alice-harness", "upgrade", "--skill", "file-delivery", "--action", "remove", "--apply", "--json",
            cwd=repo)
    assert r.returncode == 0, r
    data = conforms("harness-upgrade", r.json())
    assert data["action"] == "applied" and data["result"]["commit"]
    assert {"owner": "alice-harness", "outcome": "git_lock_removed", "digest": None,
            "paths": [".git/index.lock"]} in data["recovered"]
    assert not (repo / ".git" / "index.lock").exists() and not (repo / SKILL).exists()


def test_a_sticker_apply_removes_a_stale_lock_too(cli, repo):
    killed_upgrade(repo)
    cli("alice-harness", "status", "--json", cwd=repo)             # rolls the upgrade back (and the lock)
    lock = repo / ".git" / "index.lock"
    lock.write_text("")                                            # then another killed git's lock
    os.utime(lock, (time.time() - 60, time.time() - 60))
    r = cli("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--apply", "--json", cwd=repo)
    assert r.returncode == 0, r
    data = conforms("stickers-apply", r.json())
    assert {"outcome": "git_lock_removed", "digest": None, "paths": [".git/index.lock"]} in data["recovered"]
    assert not lock.exists()
    assert [f["owner"] for f in facts(cli, "git_lock_removed")][0] == "alice-stickers"


def test_a_lock_a_live_git_holds_is_refused_by_name_and_reported(cli, repo):
    editor = subprocess.Popen(["git", "-C", str(repo), "-c", "core.editor=sleep 120 #", "commit", "-a", "--allow-empty"],
                              env={**os.environ, **GIT_ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    lock = repo / ".git" / "index.lock"
    try:
        deadline = time.monotonic() + 10
        while not lock.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert lock.exists()
        os.utime(lock, (time.time() - 7200, time.time() - 7200))   # old: age alone proves nothing
        before = (repo / SKILL).read_bytes()
        preview = cli("alice-harness", "upgrade", "--skill", "file-delivery", "--action", "remove", "--json",
                      cwd=repo)
        plan = conforms("harness-upgrade", preview.json())["preview"]
        assert plan["status"] == "blocked" and plan["blockers"][0]["code"] == "git_locked", plan
        r = cli("alice-harness", "upgrade", "--skill", "file-delivery", "--action", "remove", "--apply", "--json",
                cwd=repo)
        assert r.returncode == 3, r
        error = r.json()["error"]
        assert error["code"] == "git_locked" and error["file"] == str(lock) and "remove" in error["message"]
        assert (repo / SKILL).read_bytes() == before and lock.exists()
        assert not (repo / ".alice/alice-harness-upgrade/transaction/journal.json").exists()
        status = cli("alice-harness", "status", "--json", cwd=repo)
        assert status.returncode == 3, status
        [doc] = status.json()["workspaces"]
        assert any("git lock file .git/index.lock exists" in p for p in doc["problems"]), doc
        assert facts(cli, "git_lock_removed") == []
    finally:
        os.killpg(editor.pid, signal.SIGKILL)                       # now it is a killed git's lock
        editor.wait()
    r = cli("alice-harness", "upgrade", "--skill", "file-delivery", "--action", "remove", "--apply", "--json",
            cwd=repo)
    assert r.returncode == 0 and json.loads(r.stdout)["action"] == "applied", r
    assert not lock.exists()
