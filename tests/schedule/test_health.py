"""automationHealth and the run-failure classification (reference items 42, 43)."""

from __future__ import annotations

import pytest

from openalice.schedule.health import automation_health, classify_failure, health_report
from tests.schedule.conftest import T
from tests.schedule.fakeissues import at, cron, every, write_issue

NOW = T("2026-01-01T10:00:00Z")
MIN = 60_000


def health(**kw):
    kw.setdefault("status", "todo")
    kw.setdefault("latest", None)
    kw.setdefault("owner_state", "workspace")
    kw.setdefault("next_due", T("2026-01-01T11:00:00Z"))
    return automation_health(now=NOW, **kw)["state"]


def test_42_health_states_first_match_wins():
    assert health() == "not_started"
    assert health(next_due=NOW) == "due"
    assert health(next_due=None) == "blocked"
    assert health(status="done", next_due=NOW) == "inactive"
    assert health(status="canceled", latest={"status": "running"}) == "inactive"
    assert health(latest={"status": "running"}, owner_state="retired") == "running"
    assert health(owner_state="missing") == "blocked"
    assert health(latest={"status": "failed", "killed": True, "timeoutMs": 30 * MIN,
                          "durationMs": 44 * MIN}) == "interrupted"  # system_paused
    assert health(latest={"status": "interrupted"}) == "interrupted"
    assert health(latest={"status": "failed", "exitCode": 1}, next_due=NOW) == "failed"
    assert health(latest={"status": "done"}) == "healthy"
    assert health(latest={"status": "done"}, next_due=NOW) == "due"
    out = automation_health(now=NOW, status="todo", latest={"status": "done", "taskId": "run-x"},
                            owner_state="workspace", next_due=T("2026-01-02T00:00:00Z"))
    assert out == {"state": "healthy", "message": "The last run succeeded.", "latestTaskId": "run-x"}


@pytest.mark.parametrize("record, kind", [
    ({"status": "running"}, None),
    ({"status": "done"}, None),
    ({"status": "failed", "killed": True, "durationMs": 44 * MIN}, "system_paused"),  # no key: 30m
    ({"status": "failed", "killed": True, "durationMs": 30 * MIN + 5000}, "timeout"),
    ({"status": "failed", "killed": True, "timeoutMs": 15 * MIN, "durationMs": 15 * MIN}, "timeout"),
    ({"status": "failed", "killed": True, "timeoutMs": None, "signal": "SIGKILL",
      "durationMs": 99 * MIN}, "process_exit"),
    ({"status": "interrupted"}, "launcher_restarted"),
    ({"status": "interrupted", "interruptionReason": "supervisor_exited"}, "interrupted"),
    ({"status": "failed", "error": "spawn claude ENOENT", "exitCode": -1}, "launch_error"),
    ({"status": "failed", "exitCode": 2}, "process_exit"),
    ({"status": "failed", "exitCode": 0}, "runtime_error"),
])
def test_43_failure_classification(record, kind):
    failure = classify_failure(record)
    if kind is None:
        assert failure is None
    else:
        assert failure["kind"] == kind and failure["retryable"] is True and failure["message"]


def test_timeout_message_names_the_limit():
    failure = classify_failure({"status": "failed", "killed": True, "timeoutMs": 15 * MIN,
                                "durationMs": 15 * MIN + 3000})
    assert "15m execution limit" in failure["message"]


def test_health_report_reads_issue_cursor_runs(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    write_issue(ws.path, "daily", when=cron("0 9 * * *"))
    write_issue(ws.path, "bad", when=every("soon"))
    write_issue(ws.path, "gone", when=at("2025-01-01T00:00:00Z"), status="done")
    write_issue(ws.path, "note")
    report = health_report(now=T("2026-01-01T10:00:00Z"), reader=sched.reader)
    states = {e["issueId"]: e["state"] for e in report["issues"]}
    assert states == {"poll": "due", "daily": "not_started", "bad": "blocked", "gone": "inactive"}
    bad = next(e for e in report["issues"] if e["issueId"] == "bad")
    assert "every" in bad["problem"] and bad["nextDue"] is None
    task_id = sched.scan("2026-01-01T10:00:00Z")["fired"][0]["taskId"]
    report = health_report(now=T("2026-01-01T10:00:30Z"), reader=sched.reader)
    poll = next(e for e in report["issues"] if e["issueId"] == "poll")
    assert (poll["state"], poll["latestTaskId"]) == ("running", task_id)
    sched.finish(task_id, "failed", exitCode=3)
    report = health_report(now=T("2026-01-01T10:01:00Z"), reader=sched.reader)
    poll = next(e for e in report["issues"] if e["issueId"] == "poll")
    assert poll["state"] == "failed" and poll["failure"]["kind"] == "process_exit"
    assert poll["nextDue"] == "2026-01-01T10:30:00Z"
    assert report["counts"] == {"failed": 1, "not_started": 1, "blocked": 1, "inactive": 1}


def test_a_native_agent_with_no_login_is_blocked_until_a_run_proves_one(sched, isolated_homes):
    """Issue 22: no credential and no native login (no key variable, no marker file) → blocked
    with ``not_logged_in``; the scan still runs it (the check is advisory), and a run that
    succeeded proves a login the file check could not see."""
    from openalice.agents import login

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"), agent="codex")
    for marker in login._markers("codex", {"HOME": str(isolated_homes["HOME"])}):
        marker.unlink()
    report = health_report(now=T("2026-01-01T10:00:00Z"), reader=sched.reader)
    [entry] = report["issues"]
    assert entry["state"] == "blocked" and entry["blocker"]["reason"] == "not_logged_in", entry
    assert "`codex login`" in entry["blocker"]["hint"] and entry["login"]["state"] == "logged_out"
    [fired] = sched.scan("2026-01-01T10:00:00Z")["fired"]      # never refused for a login
    sched.finish(fired["taskId"], "done", exitCode=0)
    [entry] = health_report(now=T("2026-01-01T10:01:00Z"), reader=sched.reader)["issues"]
    assert entry["state"] == "healthy" and "blocker" not in entry


def test_a_failure_carries_its_reason_words_and_next_step():
    failure = classify_failure({"status": "failed", "exitCode": 1, "agent": "claude", "workspaceId": "ws",
                                "issueId": "daily", "reason": "not_logged_in",
                                "detail": "Not logged in · Please run /login"})
    assert failure["kind"] == "process_exit" and failure["reason"] == "not_logged_in"
    assert failure["message"] == "Not logged in: Not logged in · Please run /login."
    assert "`claude auth login`" in failure["next"] and "alice issue update daily --workspace ws" in failure["next"]
    old = classify_failure({"status": "failed", "exitCode": 2})
    assert old["reason"] == "exit_nonzero" and old["message"] == "The agent exited with code 2."
