"""Admission: one live run per issue and per @resume owner, a capacity cap,
retry rules; the same on every path."""

from __future__ import annotations

import subprocess
import sys

import pytest

from openalice.core.errors import Busy, Conflict
from openalice.runs import admission, tasks
from tests.schedule.conftest import T
from tests.schedule.fakeissues import FakeIssue

NOW = T("2026-01-01T10:00:00Z")


def age(task_id: str, seconds: float = 121) -> None:
    """Make a record look untouched for ``seconds`` of real time."""
    import os
    import time

    path = tasks.record_path(task_id)
    then = time.time() - seconds
    os.utime(path, (then, then))


def issue(issue_id="poll", **fields):
    fields.setdefault("when", {"kind": "every", "every": "30m"})
    return FakeIssue(id=issue_id, path=None, title=issue_id, what=f"do {issue_id}", **fields)


def test_admit_creates_the_record_and_the_live_marker():
    record = admission.admit("ws", issue(agent="codex", model="m", effort="high"), fire="run-now", now=NOW)
    assert record["trigger"] == {"kind": "issue", "workspaceId": "ws", "issueId": "poll", "fire": "run-now"}
    assert record["runtimeRequest"] == {"agent": "codex", "model": "m", "effort": "high"}
    assert record["owner"] == "@new-each-run" and record["prompt"] == "do poll"
    assert record["status"] == "running" and record["createdAt"] == "2026-01-01T10:00:00Z"
    assert "slot" not in record["trigger"]
    live = admission.live_runs()
    assert [(m["workspaceId"], m["issueId"], m["taskId"]) for m in live] == [("ws", "poll", record["taskId"])]
    assert admission.release(record["taskId"]) is True
    assert admission.release(record["taskId"]) is False
    assert admission.live_runs() == []


@pytest.mark.parametrize("second", ["schedule", "run-now"])
def test_40_a_second_live_run_of_the_same_issue_is_refused_on_every_path(second):
    first = admission.admit("ws", issue(), fire="run-now", now=NOW)
    with pytest.raises(Busy) as err:
        admission.admit("ws", issue(), fire=second, now=NOW, slot="2026-01-01T10:00:00Z")
    assert err.value.code == "already_running" and err.value.exit_code == 3
    assert err.value.details["taskId"] == first["taskId"]
    tasks.update_task(first["taskId"], {"status": "failed", "exitCode": 1})
    with pytest.raises(Busy) as err:  # its marker is stale now: only capacity can refuse
        admission.admit("ws", issue(), fire="retry", now=NOW, capacity=0)
    assert err.value.code == "capacity"
    retry = admission.admit("ws", issue(), fire="retry", now=NOW)  # stale marker swept
    assert retry["retryOfTaskId"] == first["taskId"]


def test_a_running_record_without_a_marker_still_blocks():
    record = admission.admit("ws", issue(), fire="run-now", now=NOW)
    admission.marker_path("ws", "poll").unlink()
    with pytest.raises(Busy) as err:
        admission.admit("ws", issue(), fire="run-now", now=NOW)
    assert err.value.details["taskId"] == record["taskId"]


def test_a_dead_runs_marker_is_swept_at_the_next_admission():
    first = admission.admit("ws", issue(), fire="run-now", now=NOW)
    age(first["taskId"])  # no supervisor ever, and untouched for over two minutes
    second = admission.admit("ws", issue(), fire="run-now", now=NOW)
    assert second["taskId"] != first["taskId"]
    assert [m["taskId"] for m in admission.live_runs()] == [second["taskId"]]


def test_capacity_is_a_cap_on_live_runs():
    for n in range(3):
        admission.admit("ws", issue(f"i{n}"), fire="run-now", now=NOW, capacity=3)
    with pytest.raises(Busy) as err:
        admission.admit("ws", issue("i3"), fire="run-now", now=NOW, capacity=3)
    assert err.value.code == "capacity"
    assert len(admission.live_runs()) == 3


def test_one_resume_owner_never_runs_two_turns_at_once():
    owner = "@resume-quiet-oak-otter-abc123"
    first = admission.admit("ws", issue("a", assignee=owner), fire="run-now", now=NOW)
    assert first["resumeId"] == owner[1:]
    with pytest.raises(Busy) as err:
        admission.admit("ws", issue("b", assignee=owner), fire="run-now", now=NOW)
    assert err.value.code == "owner_busy"
    admission.release(first["taskId"])
    tasks.update_task(first["taskId"], {"status": "done"})
    second = admission.admit("ws", issue("a", assignee=owner), fire="run-now", now=NOW)
    assert second["parentTaskId"] == first["taskId"]


def test_40_retry_needs_the_latest_run_failed_or_interrupted():
    with pytest.raises(Conflict) as err:
        admission.admit("ws", issue(), fire="retry", now=NOW)
    assert err.value.code == "not_retryable"
    done = admission.admit("ws", issue(), fire="run-now", now=NOW)
    tasks.update_task(done["taskId"], {"status": "done"})
    admission.release(done["taskId"])
    with pytest.raises(Conflict) as err:
        admission.admit("ws", issue(), fire="retry", now=NOW)
    assert err.value.code == "not_retryable"
    failed = admission.admit("ws", issue(), fire="run-now", now=NOW)
    tasks.update_task(failed["taskId"], {"status": "interrupted"})
    admission.release(failed["taskId"])
    with pytest.raises(Conflict):
        admission.admit("ws", issue(), fire="retry", now=NOW, retry_of=done["taskId"])
    retry = admission.admit("ws", issue(), fire="retry", now=NOW)
    assert retry["retryOfTaskId"] == failed["taskId"]
    assert retry["trigger"]["fire"] == "retry"


_RACE = """
import sys
from datetime import datetime, timezone
from types import SimpleNamespace
from openalice.core.errors import AliceError
from openalice.runs import admission
issue = SimpleNamespace(id="poll", title="poll", assignee="@new-each-run", what="x",
                        when={"kind": "every", "every": "5m"}, timeout_seconds=None)
sys.stdin.readline()
try:
    record = admission.admit("ws", issue, fire=sys.argv[1], now=datetime(2026, 1, 1, 10, tzinfo=timezone.utc))
    print("admitted", record["taskId"])
except AliceError as exc:
    print("refused", exc.code)
"""


def test_40_simultaneous_requests_admit_exactly_one():
    failed = admission.admit("ws", issue(), fire="run-now", now=NOW)
    tasks.update_task(failed["taskId"], {"status": "failed", "exitCode": 1})
    admission.release(failed["taskId"])
    procs = [subprocess.Popen([sys.executable, "-c", _RACE, fire], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
             for fire in ("retry", "retry", "run-now", "retry", "run-now", "retry")]
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    results = [p.communicate(timeout=60)[0].split() for p in procs]
    admitted = [r for r in results if r[0] == "admitted"]
    assert len(admitted) == 1, results
    assert all(r == ["refused", "already_running"] for r in results if r[0] == "refused"), results
