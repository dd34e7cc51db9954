"""A comment turn as a run (conversations.turns / deliver), in-process with
the stand-in engines: the session's frozen binding, its native session
resumed, the reply appended; failures, ordering, kills and races."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from openalice import conversations
from openalice.core.errors import Busy
from openalice.issues import comments, delivery
from openalice.runs import admission, tasks
from tests.helpers.schemas import conforms
from tests.runs.standins import ENGINES

from .conftest import NOW, born_issue


def add(ws, text, issue_id="daily", **kw):
    return comments.add_comment(ws, issue_id, text, author="human", now=NOW, **kw)[0]


def comment_of(ws, comment_id, issue_id="daily"):
    return delivery.find(comments.read_sidecar(ws, issue_id), comment_id)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_comment_is_answered_in_the_resumed_session(ws, standins, engine):
    resume_id = born_issue(ws, engine)
    comment = add(ws, "Why is Monday's number off?")
    record = conversations.start_turn(ws, "daily", comment["id"], now=NOW)
    assert record["kind"] == "comment" and record["commentId"] == comment["id"]
    assert record["issueId"] == "daily" and record["owner"] == f"@{resume_id}"
    assert comment_of(ws, comment["id"])["delivery"]["taskId"] == record["taskId"]
    conversations.launch_turn(record["taskId"], "inline", now=NOW)

    final = tasks.load_task(record["taskId"])
    assert final["status"] == "done" and final["resumeId"] == resume_id
    conforms("task-record", final)
    call = standins.calls()[-1]
    assert call["resume"] is not None, "the native session is resumed"
    assert "Why is Monday's number off?" in call["prompt"]
    assert 'issue "Daily report" (daily' in call["prompt"]
    settled = comment_of(ws, comment["id"])
    assert settled["delivery"]["state"] == "replied"
    reply = comment_of(ws, settled["delivery"]["replyCommentId"])
    assert reply["author"] == f"@{resume_id}" and reply["replyTo"] == comment["id"]
    assert reply["markdown"] == standins.expected_text(engine, "resume-stream")
    assert "delivery" not in reply
    conforms("issue-comments", comments.read_sidecar(ws, "daily"))
    # the issue's health still reads its own runs: the comment turn is not one of them
    latest = tasks.latest_task(ws.id, "daily", predicate=admission.is_issue_run)
    assert latest["taskId"] != record["taskId"]


def test_the_comment_prompt_tokens_are_filled(ws, standins):
    born_issue(ws, "pi", commentPrompt="Re {title} [{id}@{workspaceId}] by {author}: {comment} / {what}")
    comment = add(ws, "literal {title} stays", via="telegram")
    record = conversations.start_turn(ws, "daily", comment["id"], now=NOW)
    assert record["prompt"] == (f"Re Daily report [daily@{ws.id}] by a person (via telegram): "
                                "literal {title} stays / Write the daily report.")


def test_a_failed_turn_says_why_and_is_retried_only_on_request(ws, standins):
    born_issue(ws, "codex")
    standins.behave("error")
    comment = add(ws, "ping")
    report = conversations.deliver_pending(now=NOW, launch="inline")
    assert [d["commentId"] for d in report["delivered"]] == [comment["id"]]
    failed = comment_of(ws, comment["id"])["delivery"]
    assert failed["state"] == "failed" and "fake server error 400" in failed["error"]
    assert delivery.pending_markers() == []
    # no retry storm: the next scans start nothing
    assert conversations.deliver_pending(now=NOW, launch="inline")["delivered"] == []
    standins.behave("ok")
    out = conversations.redeliver(ws, comment["id"], now=NOW, launch="inline")
    assert out["issueId"] == "daily"
    assert comment_of(ws, comment["id"])["delivery"]["state"] == "replied"


def test_failure_of_prefers_the_reason_vocabulary():
    said = conversations.failure_of({"status": "failed", "agent": "claude", "reason": "not_logged_in",
                                     "detail": "Not logged in · Please run /login"})
    assert said.startswith("not_logged_in: ") and "(Not logged in · Please run /login)" in said
    assert "claude" in said.split("—", 1)[1], "the next step names the agent's own login"
    launch = conversations.failure_of({"status": "failed", "processStarted": False, "error": "no such agent"})
    assert launch.startswith("launch_failed: ") and "no such agent" in launch
    assert "interrupted" in conversations.failure_of({"status": "interrupted",
                                                      "interruptionReason": "supervisor_exited"})
    assert "without a reply" in conversations.failure_of({"status": "done"})


def test_a_session_takes_one_turn_at_a_time_in_order(ws, standins):
    born_issue(ws, "claude")
    first, second = add(ws, "first"), add(ws, "second")
    report = conversations.deliver_pending(now=NOW, launch="none")
    assert [d["commentId"] for d in report["delivered"]] == [first["id"]]
    # the turn is live: the next scan starts nothing for that session, in order
    again = conversations.deliver_pending(now=NOW, launch="none")
    assert again["delivered"] == []
    assert [s["reason"] for s in again["skipped"]] == ["already_running"]
    with pytest.raises(Busy):
        conversations.start_turn(ws, "daily", second["id"], now=NOW)
    # and a scheduled fire of the issue waits too (the issue stays due)
    from openalice.issues import load_issue
    with pytest.raises(Busy) as fire:
        admission.admit(ws, load_issue(ws, "daily"), fire="schedule", now=NOW)
    assert fire.value.code in ("already_running", "owner_busy")
    task_id = report["delivered"][0]["taskId"]
    conversations.launch_turn(task_id, "inline", now=NOW)
    assert comment_of(ws, first["id"])["delivery"]["state"] == "replied"
    later = conversations.deliver_pending(now=NOW, launch="inline")
    assert [d["commentId"] for d in later["delivered"]] == [second["id"]]
    assert comment_of(ws, second["id"])["delivery"]["state"] == "replied"
    assert delivery.pending_markers() == []


def test_a_comment_waits_while_the_session_has_a_scheduled_run(ws, standins):
    from openalice.issues import load_issue

    born_issue(ws, "claude")
    live = admission.admit(ws, load_issue(ws, "daily"), fire="run-now", now=NOW)
    comment = add(ws, "ping")
    report = conversations.deliver_pending(now=NOW, launch="inline")
    assert report["delivered"] == [] and report["skipped"][0]["reason"] == "already_running"
    assert delivery.is_unclaimed(comment_of(ws, comment["id"]))
    tasks.update_task(live["taskId"], {"status": "done"})
    admission.release(live["taskId"])
    assert conversations.deliver_pending(now=NOW, launch="inline")["delivered"]


def test_concurrent_deliverers_start_one_turn(ws, standins):
    born_issue(ws, "claude")
    comment = add(ws, "ping")
    results, errors = [], []

    def deliverer():
        try:
            results.append(conversations.deliver_pending(now=NOW, launch="none"))
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=deliverer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    delivered = [d for r in results for d in r["delivered"]]
    assert len(delivered) == 1 and delivered[0]["commentId"] == comment["id"]
    comment_tasks = [e for e in tasks.iter_index(workspace_id=ws.id, issue_id="daily")
                     if e.get("fire") == "comment"]
    assert len(comment_tasks) == 1


def test_a_killed_turn_leaves_the_comment_failed_then_redeliverable(ws, standins):
    born_issue(ws, "claude")
    comment = add(ws, "ping")
    standins.behave("hang")
    record = conversations.start_turn(ws, "daily", comment["id"], now=NOW)
    turn = subprocess.Popen([sys.executable, "-m", "openalice.conversations", record["taskId"]],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hanging = standins.bin / "hanging"
    deadline = time.monotonic() + 30
    while not hanging.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hanging.exists(), "the engine never started"
    os.kill(turn.pid, signal.SIGKILL)
    turn.wait()
    try:
        os.kill(int(hanging.read_text()), signal.SIGKILL)
    except (ProcessLookupError, ValueError):
        pass
    assert comment_of(ws, comment["id"])["delivery"]["state"] == "pending"
    report = conversations.deliver_pending(now=NOW, launch="inline")
    assert [s["commentId"] for s in report["settled"]] == [comment["id"]]
    failed = comment_of(ws, comment["id"])["delivery"]
    assert failed["state"] == "failed" and "interrupted" in failed["error"]
    assert report["delivered"] == []          # never retried by itself
    standins.behave("ok")
    conversations.redeliver(ws, comment["id"], now=NOW, launch="inline")
    thread = comments.list_comments(ws, "daily")
    assert comment_of(ws, comment["id"])["delivery"]["state"] == "replied"
    assert len([c for c in thread if c.get("replyTo") == comment["id"]]) == 1


def test_a_turn_killed_after_it_ended_is_settled_as_replied_once(ws, standins):
    born_issue(ws, "claude")
    comment = add(ws, "ping")
    record = conversations.start_turn(ws, "daily", comment["id"], now=NOW)
    from openalice.runs import supervisor
    supervisor.run_task(record["taskId"])        # the turn ran; its settling never happened
    assert comment_of(ws, comment["id"])["delivery"]["state"] == "pending"
    conversations.reconcile(ws, "daily", now=NOW)
    conversations.reconcile(ws, "daily", now=NOW)
    thread = comments.list_comments(ws, "daily")
    assert comment_of(ws, comment["id"])["delivery"]["state"] == "replied"
    assert len([c for c in thread if c.get("replyTo") == comment["id"]]) == 1


def test_a_missing_agent_fails_the_delivery_and_keeps_the_comment(ws, standins, monkeypatch):
    born_issue(ws, "opencode")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    comment = add(ws, "ping")
    conversations.deliver_pending(now=NOW, launch="inline")
    failed = comment_of(ws, comment["id"])
    assert failed["markdown"] == "ping"
    assert failed["delivery"]["state"] == "failed" and failed["delivery"]["error"]


def test_journal_facts_carry_ids_and_a_short_preview(ws, standins):
    from tests.runs.conftest import journal_facts

    born_issue(ws, "claude")
    comment = add(ws, "x" * 5000)
    conversations.deliver_pending(now=NOW, launch="inline")
    facts = [f for f in journal_facts() if f["type"].startswith("comment.")]
    assert [f["type"] for f in facts] == ["comment.added", "comment.delivered", "comment.replied"]
    for fact in facts:
        assert fact["payload"]["issueId"] == "daily"
        assert len(fact["payload"]["preview"]) <= delivery.PREVIEW_CHARS
        assert "x" * 200 not in json.dumps(fact)
    assert facts[0]["payload"]["commentId"] == comment["id"]
    assert facts[2]["payload"]["replyTo"] == comment["id"]


def test_a_later_comment_never_overtakes_an_earlier_one_of_its_session(ws, standins):
    from openalice.issues import load_issue

    asker = born_issue(ws, "claude", issue_id="mine")
    born_issue(ws, "claude", issue_id="theirs")
    question, _ = comments.add_comment(ws, "theirs", "Which CSV?", author=f"@{asker}", now=NOW,
                                       question=True, deliver=False)
    answer = add(ws, "the March one", issue_id="theirs", reply_to=question["id"])
    assert answer["delivery"]["targetResumeId"] == asker
    from datetime import timedelta
    later, _ = comments.add_comment(ws, "mine", "and another thing", author="human",
                                    now=NOW + timedelta(seconds=1))  # order is by `at`
    live = admission.admit(ws, load_issue(ws, "theirs"), fire="run-now", now=NOW)  # issue busy
    report = conversations.deliver_pending(now=NOW, launch="none")
    assert report["delivered"] == []
    assert [s["reason"] for s in report["skipped"]] == ["already_running"]
    assert delivery.is_unclaimed(comment_of(ws, later["id"], issue_id="mine"))
    tasks.update_task(live["taskId"], {"status": "done"})
    admission.release(live["taskId"])
    first = conversations.deliver_pending(now=NOW, launch="none")
    assert [d["commentId"] for d in first["delivered"]] == [answer["id"]]
