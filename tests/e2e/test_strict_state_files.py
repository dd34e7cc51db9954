"""Issue 16 point 4: a state file holding JSON ``null`` (or any top level that
is not an object) is malformed: exit 2 naming the file, never read as absent,
never silently replaced.  A corrupt ``task.json`` is reported with its path,
never as "unknown task" or as a record with no id."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

NOW = "2026-11-30T09:00:00Z"
BAD_TOPS = ["null", "[]", "7"]


def home() -> Path:
    return Path(os.environ["OPENALICE_HOME"])


def harness_home() -> Path:
    return Path(os.environ["HARNESS_HOME"])


def refused(r, path: Path):
    """Exit 2, the envelope names the file, no traceback."""
    assert r.returncode == 2, r
    text = r.stdout + r.stderr
    assert "Traceback" not in text and "internal error" not in text, r
    error = r.json()["error"]
    assert error["file"] == str(path), (r, error)
    return error


def plant(path: Path, text: str) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path.read_bytes()


@pytest.fixture
def ws(cli, workspace):
    return workspace


@pytest.mark.parametrize("top", BAD_TOPS)
def test_workspaces_registry(cli, tmp_path, top):
    path = home() / "workspaces.json"
    before = plant(path, top)
    refused(cli("alice", "workspace", "list", "--json"), path)
    refused(cli("alice", "workspace", "init", str(tmp_path / "new"), "--json"), path)
    refused(cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": NOW}), path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("top", BAD_TOPS)
def test_vault_records(cli, top):
    path = home() / "vault" / "credentials.json"
    before = plant(path, top)
    refused(cli("alice", "credential", "list", "--json"), path)
    refused(cli("alice", "credential", "add", "k1", "--vendor", "openrouter", "--json",
                input="sk-never-written\n"), path)
    assert path.read_bytes() == before
    assert not (home() / "vault" / "secrets" / "k1.env").exists()


@pytest.mark.parametrize("top", BAD_TOPS)
def test_adapter_state(cli, top):
    path = harness_home() / "adapters.json"
    before = plant(path, top)
    refused(cli("harness-adapter", "enable", "claude", "--json"), path)
    refused(cli("harness-adapter", "show", "claude", "--json"), path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("top", BAD_TOPS)
def test_workspace_settings(cli, ws, top):
    path = ws / ".alice" / "settings.json"
    before = plant(path, top)
    refused(cli("alice", "settings", "set", "--agent", "pi", "--default", "--json", cwd=ws), path)
    r = cli("alice", "settings", "show", "--json", cwd=ws)
    assert r.returncode == 2 and str(path) in r.stdout + r.stderr, r
    assert path.read_bytes() == before


@pytest.mark.parametrize("top", BAD_TOPS)
def test_inbox_read_state(cli, ws, top):
    pushed = cli("alice-inbox", "push", "--body", "hello", "--json", cwd=ws,
                 env={"ALICE_NOW": NOW})
    assert pushed.returncode == 0, pushed
    entry_id = pushed.json()["id"]
    path = home() / "data" / "inbox" / "read-state.json"
    before = plant(path, top)
    refused(cli("alice-inbox", "read", entry_id, "--json", env={"ALICE_NOW": NOW}), path)
    listing = cli("alice-inbox", "list", "--json")  # readers go on, and say why
    assert listing.returncode == 0, listing
    assert any(str(path) in json.dumps(p) for p in listing.json()["problems"]), listing
    assert path.read_bytes() == before


@pytest.mark.parametrize("top", BAD_TOPS)
def test_issue_comments_and_sessions(cli, ws, top):
    assert cli("alice", "issue", "create", "--title", "Plain", "--json", cwd=ws,
               env={"ALICE_NOW": NOW}).returncode == 0
    sidecar = ws / ".alice" / "issues" / "plain.comments.json"
    before = plant(sidecar, top)
    refused(cli("alice", "issue", "comment", "plain", "--body", "hi", "--json", cwd=ws,
                env={"ALICE_NOW": NOW}), sidecar)
    assert sidecar.read_bytes() == before
    made = cli("alice", "session", "new", "--agent", "pi", "--json", cwd=ws, env={"ALICE_NOW": NOW})
    assert made.returncode == 0, made
    resume_id = made.json()["session"]["resumeId"]
    session = ws / ".alice" / "sessions" / f"{resume_id}.json"
    before = plant(session, top)
    refused(cli("alice", "session", "show", resume_id, "--json", cwd=ws), session)
    assert session.read_bytes() == before


def _run_record(cli, ws) -> Path:
    """A real task record, from a run-now whose launch is skipped."""
    r = cli("alice", "issue", "create", "--title", "Job", "--every", "1h", "--body", "Do it",
            "--json", cwd=ws, env={"ALICE_NOW": NOW})
    assert r.returncode == 0, r
    r = cli("alice-schedule", "run-now", "job", "--json", cwd=ws,
            env={"ALICE_NOW": NOW, "OPENALICE_TEST_LAUNCH": "none"})
    assert r.returncode == 0, r
    task_id = r.json()["task"]["taskId"]
    return home() / "state" / "runs" / "tasks" / task_id / "task.json"


@pytest.mark.parametrize("content", ["null", '{"version": 1}', '{"version": 1, "taskId": "x"}'])
def test_a_corrupt_task_record_is_malformed_with_its_path(agent_stubs, cli, ws, content):
    path = _run_record(cli, ws)
    task_id = path.parent.name
    before = plant(path, content)
    error = refused(cli("alice-schedule", "run", task_id, "--json"), path)
    assert error["code"] != "unknown_task"
    runs = cli("alice-schedule", "runs", "--json")
    assert runs.returncode == 0, runs
    doc = runs.json()
    assert all(r.get("taskId") for r in doc["runs"])  # never a record with no id
    assert [p["file"] for p in doc.get("problems", [])] == [str(path)], doc
    scan = cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": "2026-11-30T11:00:00Z",
                                                       "OPENALICE_TEST_LAUNCH": "none"})
    assert scan.returncode == 0, scan
    assert path.read_bytes() == before
