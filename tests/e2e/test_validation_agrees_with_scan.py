"""`issue validate` / `create`, `scan --dry-run`, the scan and `health` tell the same story.

One rule decides whether a scheduled issue's run can start on this machine
(``openalice.issues.readiness.run_blocker``).  For each way it can fail, the
file author is told when writing and validating, the dry run says "would be
blocked", the real scan skips the issue (no run, it stays due) and health
shows it ``blocked`` rather than ``due``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from openalice.core.schema import Validator
from tests.conftest import REPO

NOW = "2026-03-02T08:00:30Z"


def schema(name: str) -> Validator:
    return Validator(json.loads((REPO / "spec" / f"{name}.schema.json").read_text()))


@pytest.fixture
def env(agent_stubs, tmp_path):
    """Two PATHs: one where the agents are installed (stubs), one where they are not."""
    only_python = tmp_path / "only-python"
    only_python.mkdir()
    (only_python / "python3").symlink_to(os.path.realpath(os.sys.executable))
    return {"installed": {"ALICE_NOW": NOW, "OPENALICE_TEST_LAUNCH": "none", "PATH": os.environ["PATH"]},
            "missing": {"ALICE_NOW": NOW, "OPENALICE_TEST_LAUNCH": "none", "PATH": str(only_python)}}


def write(workspace: Path, issue_id: str, front: str) -> None:
    (workspace / ".alice" / "issues" / f"{issue_id}.md").write_text(
        f"---\ntitle: {issue_id}\nwhen: {{kind: every, every: 1h}}\n{front}---\n\nGo.\n")


# (issue front matter, the PATH to use, the reason every view must give, the field to fix)
CASES = [
    ("credential: nope\n", "installed", "credential_missing", "credential"),
    ('assignee: "@resume-gone-1"\n', "installed", "owner_missing", "assignee"),
    ("agent: nobody-knows\n", "installed", "unknown_agent", "agent"),
    ("agent: codex\n", "missing", "agent_not_installed", "agent"),
    ("", "missing", "agent_not_installed", "agent"),   # the default agent (claude)
]


@pytest.mark.parametrize("front, path, reason, field", CASES, ids=[c[2] + "-" + c[1] for c in CASES])
def test_every_view_gives_the_scans_reason(cli, workspace, env, front, path, reason, field):
    write(workspace, "job", front)
    run_env = env[path]
    # validate: a warning on stderr, exit 0 (the file is valid; this machine cannot run it now)
    v = cli("alice", "issue", "validate", cwd=workspace, env=run_env)
    assert v.returncode == 0, v
    assert f"job.md:{field}: " in v.stderr and f"the scan skips it until this is fixed: {reason}" in v.stderr, v
    j = cli("alice", "issue", "validate", "--json", cwd=workspace, env=run_env).json()
    assert schema("issue-validate").errors(j) == []
    assert j["ok"] is True and [(w["code"], w["field"]) for w in j["warnings"]] == [(reason, field)]
    # dry run: "would be blocked: REASON"
    dry = cli("alice-schedule", "scan", "--dry-run", env=run_env)
    assert dry.returncode == 0 and f"would be blocked test-ws/job: {reason}" in dry.stdout, dry
    # the scan: skipped with that reason, no run, no cursor
    scan = cli("alice-schedule", "scan", "--json", env=run_env).json()
    assert scan["fired"] == [] and [(s["issueId"], s["reason"]) for s in scan["skipped"]] == [("job", reason)]
    assert cli("alice-schedule", "runs", "--json", env=run_env).json()["runs"] == []
    # health: blocked, not due, with the same reason
    health = cli("alice-schedule", "health", "--json", env=run_env).json()
    assert schema("schedule-health").errors(health) == []
    [entry] = health["issues"]
    assert entry["state"] == "blocked" and entry["blocker"]["reason"] == reason, entry
    # and once the cause is gone, the very next scan runs it
    if path == "missing":
        fixed = cli("alice-schedule", "scan", "--json", env=env["installed"]).json()
        assert [f["issueId"] for f in fixed["fired"]] == ["job"], fixed


def test_create_and_update_warn_and_write(cli, workspace, env):
    r = cli("alice", "issue", "create", "--title", "Job", "--id", "job", "--every", "1h", "--credential", "nope",
            "--json", cwd=workspace, env=env["installed"])
    assert r.returncode == 0, r
    data = r.json()
    assert schema("issue-change").errors(data) == []
    assert [(w["code"], w["field"]) for w in data["warnings"]] == [("credential_missing", "credential")]
    human = cli("alice", "issue", "update", "job", "--priority", "high", cwd=workspace, env=env["installed"])
    assert human.returncode == 0, human
    assert "alice: warning: " in human.stderr and "credential 'nope' is not in the vault" in human.stderr
    assert "alice: hint: add it with 'alice credential add'" in human.stderr
    clean = cli("alice", "issue", "update", "job", "--native-credential", "--json", cwd=workspace,
                env=env["installed"])
    assert clean.returncode == 0 and clean.json()["warnings"] == [], clean


def test_an_invalid_session_id_is_an_error_for_writers_and_validate(cli, workspace, env):
    r = cli("alice", "issue", "create", "--title", "Job", "--every", "1h", "--assignee", "@resume-a.b",
            "--json", cwd=workspace, env=env["installed"])
    assert r.returncode == 2 and r.json()["error"]["field"] == "assignee", r
    assert "invalid session id" in r.json()["error"]["message"]
    assert not (workspace / ".alice" / "issues" / "job.md").exists()
    write(workspace, "job", 'assignee: "@resume-a.b"\n')  # written by hand: the reader accepts it
    v = cli("alice", "issue", "validate", cwd=workspace, env=env["installed"])
    assert v.returncode == 2 and "job.md:assignee: invalid session id" in v.stdout, v
    scan = cli("alice-schedule", "scan", "--json", env=env["installed"]).json()
    assert [s["reason"] for s in scan["skipped"]] == ["owner_invalid"]
    health = cli("alice-schedule", "health", "--json", env=env["installed"]).json()
    assert health["issues"][0]["state"] == "blocked" and health["issues"][0]["ownerState"] == "invalid"


def test_an_invalid_session_id_is_refused_on_an_unscheduled_issue_too(cli, workspace, env):
    """Unscheduled, the issue still owns a conversation (comments go to its
    session), so `@resume-!!` is an error for writers and validate too."""
    r = cli("alice", "issue", "create", "--title", "Talk", "--id", "talk", "--assignee", "@resume-!!",
            "--json", cwd=workspace, env=env["installed"])
    assert r.returncode == 2 and r.json()["error"]["field"] == "assignee", r
    assert not (workspace / ".alice" / "issues" / "talk.md").exists()
    ok = cli("alice", "issue", "create", "--title", "Talk", "--id", "talk", "--assignee", "@resume-s1",
             "--json", cwd=workspace, env=env["installed"])
    assert ok.returncode == 0, ok
    (workspace / ".alice" / "issues" / "talk.md").write_text(
        '---\ntitle: Talk\nassignee: "@resume-!!"\n---\n\nb\n')
    v = cli("alice", "issue", "validate", cwd=workspace, env=env["installed"])
    assert v.returncode == 2 and "talk.md:assignee: invalid session id" in v.stdout, v
    done = cli("alice", "issue", "update", "talk", "--status", "done", cwd=workspace, env=env["installed"])
    assert done.returncode == 0, done        # a done issue is never delivered to


def test_run_now_refuses_with_the_same_reason(cli, workspace, env):
    write(workspace, "job", "credential: nope\n")
    r = cli("alice-schedule", "run-now", "job", "--json", cwd=workspace, env=env["installed"])
    assert r.returncode == 3 and r.json()["error"]["code"] == "credential_missing", r
