"""Conversations through the installed tools, with the stand-in engines first
on PATH: a session born by a scheduled run answers a person's comment, by the
real scan and by ``alice issue comment --wait``; failures, timeouts, the
thread, ask/answer and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.schemas import conforms
from tests.runs.standins import StandIns, fixtures_dir

T0 = "2026-03-02T09:00:00Z"


@pytest.fixture
def engines(tmp_path) -> StandIns:
    return StandIns(tmp_path / "standin-bin", fixtures_dir())


def env(engines, **extra):
    return {"ALICE_NOW": T0, "PATH": engines.path_env(), **extra}


def wait_run(cli, task_id):
    result = cli("alice-schedule", "run", task_id, "--wait", "--timeout", "60", "--json", timeout=90)
    assert result.returncode == 0, result
    return result.json()


@pytest.fixture
def born(cli, workspace, engines):
    """An issue whose session was born by a scheduled run (through the real scan); its resume id."""
    r = cli("alice", "issue", "create", "--title", "Daily report", "--id", "daily", "--every", "1h",
            "--agent", "claude", "--model", "fake-model", "--body", "Write the report.", "--json",
            cwd=workspace, env={"ALICE_NOW": "2026-03-02T08:00:00Z"})
    assert r.returncode == 0, r
    scan = cli("alice-schedule", "scan", "--json", env=env(engines))
    assert scan.returncode == 0, scan
    record = wait_run(cli, scan.json()["fired"][0]["taskId"])
    assert record["task"]["status"] == "done", record
    return record["task"]["resumeId"]


def thread(cli, workspace):
    r = cli("alice", "issue", "thread", "daily", "--json", cwd=workspace)
    assert r.returncode == 0, r
    return conforms("issue-thread", r.json())


def test_the_scan_delivers_a_comment_and_the_reply_lands(cli, workspace, engines, born):
    r = cli("alice", "issue", "comment", "daily", "--body", "Why is Monday off?", "--json",
            cwd=workspace, env=env(engines))
    assert r.returncode == 0, r
    added = conforms("issue-comment", r.json())
    assert added["delivery"] == "pending"
    assert added["comment"]["delivery"] == {"state": "pending", "targetResumeId": born}
    scan = cli("alice-schedule", "scan", "--json", env=env(engines))
    assert scan.returncode == 0, scan
    report = conforms("schedule-scan", scan.json())
    delivered = report["comments"]["delivered"]
    assert [d["commentId"] for d in delivered] == [added["comment"]["id"]]
    turn = conforms("schedule-run", wait_run(cli, delivered[0]["taskId"]))
    assert turn["task"]["kind"] == "comment" and turn["task"]["resumeId"] == born
    runs = conforms("schedule-runs", cli("alice-schedule", "runs", "--issue", "daily", "--json").json())
    assert [r["trigger"]["fire"] for r in runs["runs"]] == ["comment", "schedule"]
    call = engines.calls()[-1]
    assert call["resume"] and "Why is Monday off?" in call["prompt"]

    import time
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        doc = thread(cli, workspace)
        if doc["comments"][0].get("delivery", {}).get("state") == "replied":
            break
        time.sleep(0.1)
    first, reply = doc["comments"]
    assert first["delivery"]["state"] == "replied" and first["replies"] == [reply["id"]]
    assert reply["author"] == f"@{born}" and reply["replyTo"] == first["id"]
    assert doc["counts"] == {"comments": 2, "unanswered": 0, "failed": 0}
    # nothing pending: the next scan is the nothing-due answer again, without a comments pass
    again = cli("alice-schedule", "scan", "--json", env=env(engines))
    assert "comments" not in again.json()
    shown = cli("alice", "issue", "show", "daily", cwd=workspace)
    assert "(replied)" in shown.stdout and f"@{born}" in shown.stdout
    text = cli("alice", "issue", "thread", "daily", cwd=workspace)
    assert "↳ reply to" in text.stdout and "replied by" in text.stdout


def test_comment_wait_prints_the_reply(cli, workspace, engines, born):
    r = cli("alice", "issue", "comment", "daily", "--body", "ping", "--wait", "--timeout", "60",
            "--json", cwd=workspace, env=env(engines), timeout=90)
    assert r.returncode == 0, r
    doc = conforms("issue-comment", r.json())
    assert doc["delivery"] == "replied"
    assert doc["reply"]["markdown"] == engines.expected_text("claude", "resume-stream")
    human = cli("alice", "issue", "comment", "daily", "--body", "again", "--wait", cwd=workspace,
                env=env(engines), timeout=90)
    assert human.returncode == 0 and "replied by" in human.stdout


def test_a_failed_delivery_exits_1_with_the_reason_and_redeliver_retries(cli, workspace, engines, born):
    engines.behave("error")
    r = cli("alice", "issue", "comment", "daily", "--body", "ping", "--wait", "--timeout", "60",
            "--json", cwd=workspace, env=env(engines), timeout=90)
    assert r.returncode == 1, r
    doc = r.json()
    assert doc["error"]["code"] == "delivery_failed" and doc["error"]["exit"] == 1
    assert "fake server error" in doc["comment"]["delivery"]["error"]
    health = cli("alice-schedule", "health", "--json", env=env(engines))
    assert health.json()["deliveries"]["failed"] == 1
    engines.behave("ok")
    again = cli("alice", "issue", "redeliver", doc["comment"]["id"], "--wait", "--json",
                cwd=workspace, env=env(engines), timeout=90)
    assert again.returncode == 0, again
    assert conforms("issue-comment", again.json())["delivery"] == "replied"
    twice = cli("alice", "issue", "redeliver", doc["comment"]["id"], "--json", cwd=workspace,
                env=env(engines))
    assert twice.returncode == 2 and twice.json()["error"]["code"] == "not_failed"


def test_wait_times_out_with_exit_3_and_it_stays_pending(cli, workspace, engines, born):
    r = cli("alice", "issue", "comment", "daily", "--body", "ping", "--wait", "--timeout", "1",
            "--json", cwd=workspace, env=env(engines, OPENALICE_TEST_LAUNCH="none"))
    assert r.returncode == 3, r
    error = r.json()["error"]
    assert error["code"] == "still_pending" and "thread daily --follow" in error["details"]["hint"]
    assert thread(cli, workspace)["counts"]["unanswered"] == 1
    listed = cli("alice", "issue", "list", "--json", cwd=workspace)
    assert conforms("issue-list", listed.json())["issues"][0]["deliveries"]["unanswered"] == 1
    board = cli("alice", "issue", "board", cwd=workspace)
    assert "[1 unanswered]" in board.stdout


def test_an_issue_without_a_session_keeps_the_comment_and_says_so(cli, workspace):
    assert cli("alice", "issue", "create", "--title", "Plain", "--id", "plain", cwd=workspace).returncode == 0
    r = cli("alice", "issue", "comment", "plain", "--body", "hello", cwd=workspace)
    assert r.returncode == 0 and "kept with no delivery" in r.stdout
    j = cli("alice", "issue", "comment", "plain", "--body", "hi", "--json", cwd=workspace)
    assert j.json()["delivery"] == "none" and "delivery" not in j.json()["comment"]


@pytest.mark.parametrize("args, code", [
    (["nope", "--body", "x"], "unknown_issue"),
    (["plain", "--body", "   "], "invalid_comment"),
    (["plain", "--body", "x", "--reply-to", "comment-not-here"], "invalid_comment"),
    (["plain", "--body", "x", "--via", "Bad Via"], "invalid_comment"),
])
def test_bad_input_is_exit_2_and_writes_nothing(cli, workspace, args, code):
    assert cli("alice", "issue", "create", "--title", "Plain", "--id", "plain", cwd=workspace).returncode == 0
    r = cli("alice", "issue", "comment", *args, "--json", cwd=workspace)
    assert r.returncode == 2 and r.json()["error"]["code"] == code, r
    assert not (Path(workspace) / ".alice" / "issues" / "plain.comments.json").exists()


def test_a_comment_for_a_session_that_is_gone_is_exit_2_and_writes_nothing(cli, workspace):
    r = cli("alice", "issue", "create", "--title", "Owned", "--id", "owned", "--assignee",
            "@resume-calm-amber-river-zzzzzz", cwd=workspace)
    assert r.returncode == 0, r
    c = cli("alice", "issue", "comment", "owned", "--body", "x", "--json", cwd=workspace)
    assert c.returncode == 2 and c.json()["error"]["code"] == "session_not_found", c
    assert "resume-calm-amber-river-zzzzzz" in c.json()["error"]["message"]
    assert not (Path(workspace) / ".alice" / "issues" / "owned.comments.json").exists()


def test_a_body_over_64_kib_is_refused(cli, workspace):
    assert cli("alice", "issue", "create", "--title", "Plain", "--id", "plain", cwd=workspace).returncode == 0
    r = cli("alice", "issue", "comment", "plain", "--body-file", "-", "--json", cwd=workspace,
            input="x" * (64 * 1024 + 1))
    assert r.returncode == 2, r
    assert not (Path(workspace) / ".alice" / "issues" / "plain.comments.json").exists()


def test_a_malformed_sidecar_is_named_and_never_rewritten(cli, workspace, engines, born):
    path = Path(workspace) / ".alice" / "issues" / "daily.comments.json"
    path.write_text('{"version": 1, "issueId": "daily", "comments": "no"}')
    r = cli("alice", "issue", "thread", "daily", "--json", cwd=workspace)
    assert r.returncode == 2 and str(path) in r.stdout
    c = cli("alice", "issue", "comment", "daily", "--body", "x", "--json", cwd=workspace)
    assert c.returncode == 2
    assert path.read_text() == '{"version": 1, "issueId": "daily", "comments": "no"}'


def test_ask_inside_a_run_and_the_answer_goes_back_to_the_asker(cli, workspace, engines, born):
    runs = cli("alice-schedule", "runs", "--json").json()["runs"]
    run_env = {"ALICE_RUN_ID": runs[0]["taskId"], "ALICE_RESUME_ID": born,
               "ALICE_WORKSPACE_ID": runs[0]["workspaceId"]}
    asked = cli("alice", "issue", "ask", "daily", "--body", "Which CSV?", "--json", cwd=workspace,
                env=env(engines, **run_env))
    assert asked.returncode == 0, asked
    doc = conforms("issue-ask", asked.json())
    assert doc["comment"]["author"] == f"@{born}" and "delivery" not in doc["comment"]
    entry = conforms("inbox-show", cli("alice", "inbox", "show", doc["entryId"], "--json").json())
    assert entry["entry"]["question"]["commentId"] == doc["comment"]["id"]
    listed = cli("alice", "inbox", "list", "--unread", "--json").json()
    assert any(e.get("question") for e in listed["entries"])
    assert "answer it with" in cli("alice", "inbox", "show", doc["entryId"]).stdout
    # inside a run a session's own comment is never delivered to itself
    own = cli("alice", "issue", "comment", "daily", "--body", "note to self", "--json",
              cwd=workspace, env=env(engines, **run_env))
    assert own.json()["delivery"] == "none" and own.json()["comment"]["author"] == f"@{born}"
    answered = cli("alice", "inbox", "answer", doc["entryId"], "--body", "the March one", "--wait",
                   "--json", env=env(engines), timeout=90)
    assert answered.returncode == 0, answered
    out = conforms("issue-comment", answered.json())
    assert out["comment"]["replyTo"] == doc["comment"]["id"] and out["delivery"] == "replied"
    assert "the March one" in engines.calls()[-1]["prompt"]
    not_q = cli("alice", "inbox", "answer", "inbox-1764493200000-0000000a", "--body", "x", "--json")
    assert not_q.returncode == 2
    outside = cli("alice", "issue", "ask", "daily", "--body", "q", "--json", cwd=workspace)
    assert outside.returncode == 2 and outside.json()["error"]["code"] == "not_in_a_run"


def test_thread_follow_prints_json_lines_until_its_timeout(cli, workspace, engines, born):
    cli("alice", "issue", "comment", "daily", "--body", "ping", cwd=workspace, env=env(engines))
    r = cli("alice", "issue", "thread", "daily", "--follow", "--timeout", "0.3", "--json",
            cwd=workspace)
    assert r.returncode == 0, r
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [c["markdown"] for c in lines] == ["ping"]
