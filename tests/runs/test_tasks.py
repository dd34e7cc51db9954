"""The task registry: ids, records, O(page) listing, read-time liveness."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from openalice.core.errors import Conflict, InvalidInput, NotFound
from openalice.runs import tasks
from tests.schedule.conftest import T


def make(**fields) -> dict:
    record = {"workspaceId": "ws", "issueId": "poll", "createdAt": "2026-01-01T10:00:00Z",
              "trigger": {"kind": "issue", "workspaceId": "ws", "issueId": "poll", "fire": "run-now"},
              "prompt": "p", "timeoutMs": None}
    record.update(fields)
    return tasks.create_task(record)


def test_44_task_ids_are_run_plus_eight_base64url_characters():
    ids = {tasks.new_task_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(tasks.TASK_ID_RE.match(i) for i in ids)
    assert all(len(i) == 12 for i in ids)


def test_create_find_update_and_task_dir():
    record = make()
    assert tasks.TASK_ID_RE.match(record["taskId"])
    assert record["status"] == "running" and record["processStarted"] is False
    assert record["version"] == 1
    assert tasks.find_task(record["taskId"]) == record
    assert tasks.load_task(record["taskId"]) == record
    updated = tasks.update_task(record["taskId"], {"status": "done", "exitCode": 0})
    assert updated["status"] == "done" and tasks.find_task(record["taskId"])["exitCode"] == 0
    assert tasks.update_task(record["taskId"], lambda r: {**r, "taskId": "run-zzzzzzzz"})["taskId"] \
        == record["taskId"]
    directory = tasks.task_dir(record["taskId"])
    assert directory.is_dir() and (directory / "task.json").is_file()


def test_bad_ids_and_unknown_tasks():
    assert tasks.find_task("run-nothere") is None
    assert tasks.find_task("../../etc/passwd") is None
    with pytest.raises(NotFound):
        tasks.load_task("run-nothere0")
    with pytest.raises(InvalidInput):
        tasks.task_dir("../x")
    with pytest.raises(NotFound):
        tasks.update_task("run-nothere0", {"status": "done"})
    with pytest.raises(InvalidInput):
        tasks.update_task(make()["taskId"], {"status": "exploded"})


def test_a_given_task_id_is_never_reused():
    record = make(taskId="run-AAAAAAAA")
    with pytest.raises(Conflict):
        make(taskId=record["taskId"])


def test_45_issue_runs_always_record_timeout_ms_and_null_means_no_limit():
    from openalice.runs.admission import build_record
    from tests.schedule.fakeissues import FakeIssue

    issue = FakeIssue(id="poll", path=None, title="Poll", when={"kind": "every", "every": "5m"})
    assert build_record("ws", issue, fire="schedule", now=T("2026-01-01T10:00:00Z"))["timeoutMs"] is None
    timed = FakeIssue(id="poll", path=None, title="Poll", timeout="15m", timeout_seconds=900)
    assert build_record("ws", timed, fire="run-now", now=T("2026-01-01T10:00:00Z"))["timeoutMs"] == 900_000


def test_listing_is_newest_first_and_filters():
    a1 = make(issueId="a", createdAt="2026-01-01T10:00:00Z")
    b1 = make(issueId="b")
    a2 = make(issueId="a")
    other = make(workspaceId="other", issueId="a")
    tasks.update_task(a1["taskId"], {"status": "failed"})
    ids = lambda rs: [r["taskId"] for r in rs]
    assert ids(tasks.list_tasks()) == [other["taskId"], a2["taskId"], b1["taskId"], a1["taskId"]]
    assert ids(tasks.list_tasks(workspace_id="ws", issue_id="a")) == [a2["taskId"], a1["taskId"]]
    assert ids(tasks.list_tasks(workspace_id="ws")) == [a2["taskId"], b1["taskId"], a1["taskId"]]
    assert ids(tasks.list_tasks(issue_id="a")) == [other["taskId"], a2["taskId"], a1["taskId"]]
    assert ids(tasks.list_tasks(status="failed")) == [a1["taskId"]]
    assert ids(tasks.list_tasks(limit=2)) == [other["taskId"], a2["taskId"]]
    assert ids(tasks.list_tasks(before=a2["taskId"])) == [b1["taskId"], a1["taskId"]]


def test_a_malformed_record_never_hides_its_neighbours(cli):
    old = make(issueId="a")
    broken = make(issueId="a")
    new = make(issueId="a")
    tasks.record_path(broken["taskId"]).write_text('{"taskId": "trunc')
    problems: list = []
    listed = tasks.list_tasks(issue_id="a", problems=problems)
    assert [r["taskId"] for r in listed] == [new["taskId"], old["taskId"]]
    assert [p["taskId"] for p in problems] == [broken["taskId"]]
    assert "malformed JSON" in problems[0]["reason"]
    r = cli("alice-schedule", "runs", "--json")
    assert r.returncode == 0
    assert [x["taskId"] for x in r.json()["runs"]] == [new["taskId"], old["taskId"]]
    assert r.json()["problems"][0]["taskId"] == broken["taskId"]
    assert "not listed" in cli("alice-schedule", "runs").stderr


def test_44_an_unknown_before_cursor_gives_an_empty_page():
    make()
    assert tasks.list_tasks(before="run-unknown0") == []
    with pytest.raises(InvalidInput):
        tasks.list_tasks(status="sleeping")


def test_listing_an_issue_is_o_page_with_100000_records(monkeypatch):
    """100,000 indexed tasks: the newest page of one issue reads that page's
    records and a bounded tail of one small index file."""
    root = tasks.runs_dir()
    (root / "by-issue" / "ws").mkdir(parents=True)
    (root / "by-workspace").mkdir(parents=True)
    lines, issue_lines = [], []
    for n in range(100_000):
        task_id = f"run-{n:08d}"
        line = json.dumps({"taskId": task_id, "workspaceId": "ws", "issueId": f"i{n % 1000}",
                           "createdAt": "2026-01-01T00:00:00Z"})
        lines.append(line)
        if n % 1000 == 7:
            issue_lines.append(line)
    (root / "index.jsonl").write_text("\n".join(lines) + "\n")
    (root / "by-workspace" / "ws.jsonl").write_text("\n".join(lines) + "\n")
    (root / "by-issue" / "ws" / "i7.jsonl").write_text("\n".join(issue_lines) + "\n")
    newest = [f"run-{n:08d}" for n in range(99_007, 0, -1000)][:10]
    for task_id in newest + ["run-00099999", "run-00099998"]:
        (root / "tasks" / task_id).mkdir(parents=True)
        issue = "i7" if task_id in newest else f"i{int(task_id[4:]) % 1000}"
        (root / "tasks" / task_id / "task.json").write_text(json.dumps(
            {"version": 1, "taskId": task_id, "status": "done", "workspaceId": "ws", "issueId": issue,
             "createdAt": "2026-01-01T00:00:00Z"}))
    reads = []
    real_find = tasks.find_task
    monkeypatch.setattr(tasks, "find_task", lambda i: reads.append(i) or real_find(i))
    page = tasks.list_tasks(workspace_id="ws", issue_id="i7", limit=10)
    assert [r["taskId"] for r in page] == newest
    assert reads == newest
    reads.clear()
    page = tasks.list_tasks(limit=2)  # the global index: also just the tail
    assert [r["taskId"] for r in page] == ["run-00099999", "run-00099998"] and len(reads) == 2


def test_running_without_a_supervisor_is_interrupted_after_the_grace_in_real_time():
    import os
    import time

    record = make(createdAt="2020-01-01T10:00:00Z")  # a frozen, long-past logical clock
    assert tasks.effective(record)["status"] == "running"  # written just now, really
    path = tasks.record_path(record["taskId"])
    then = time.time() - tasks.SUPERVISOR_GRACE_SECONDS + 5
    os.utime(path, (then, then))
    assert tasks.effective(record)["status"] == "running"
    then = time.time() - tasks.SUPERVISOR_GRACE_SECONDS - 1
    os.utime(path, (then, then))
    late = tasks.effective(record)
    assert late["status"] == "interrupted"
    assert late["interruptionReason"] == "supervisor_never_started"
    assert tasks.find_task(record["taskId"])["status"] == "running"  # reading never writes
    # a record that is not stored: its own createdAt, on the real clock
    assert tasks.effective({"status": "running", "createdAt": "2020-01-01T00:00:00Z"})["status"] \
        == "interrupted"


def test_sigkill_of_a_supervisor_reads_as_interrupted():
    from openalice.core import proc

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        record = make(supervisor={"pid": child.pid, "startToken": proc.start_token(child.pid)})
        assert tasks.effective(record)["status"] == "running"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        dead = tasks.effective(tasks.find_task(record["taskId"]))
        assert dead["status"] == "interrupted" and dead["interruptionReason"] == "supervisor_exited"
        listed = tasks.list_tasks(workspace_id="ws", issue_id="poll")[0]
        assert listed["status"] == "interrupted"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_a_reused_pid_is_not_mistaken_for_the_supervisor():
    import os

    from openalice.core import proc

    record = make(supervisor={"pid": os.getpid(), "startToken": "linux:1"})
    assert proc.start_token(os.getpid()) != "linux:1"
    assert tasks.effective(record)["status"] == "interrupted"


def test_finished_records_are_returned_unchanged():
    record = {**make(), "status": "done"}
    assert tasks.effective(record) is record


def test_a_creation_killed_mid_write_leaves_no_temp_once_its_record_is_looked_up(tmp_path):
    """Nothing writes a task directory whose creation died: its lookup removes the
    killed writer's temp file (issue 16: every leftover has someone to sweep it)."""
    from openalice.runs import tasks

    record = tasks.create_task({"workspaceId": "w", "createdAt": "2026-01-01T00:00:00Z"})
    directory = tasks.task_dir(record["taskId"])
    (directory / "task.json").unlink()
    temp = _temp_of_a_killed_writer(directory)
    assert tasks.find_task(record["taskId"]) is None
    assert not temp.exists()


def test_the_next_creation_removes_the_temp_of_a_creation_killed_before_its_record(tmp_path):
    """A killed creation nobody ever looks up again (older than any page a reader
    asks for) still loses its temp: the next creation looks at the newest lines."""
    from openalice.core import fs
    from openalice.runs import tasks

    killed = tasks.create_task({"workspaceId": "w", "createdAt": "2026-01-01T00:00:00Z"})
    directory = tasks.task_dir(killed["taskId"])
    (directory / "task.json").unlink()
    temp = _temp_of_a_killed_writer(directory)
    fs.temps._swept.clear()   # as a fresh process
    tasks.create_task({"workspaceId": "other", "createdAt": "2026-01-01T00:01:00Z"})
    assert not temp.exists()


def test_a_record_whose_supervisor_died_mid_write_loses_the_temp_once_read(tmp_path):
    """The supervisor killed while rewriting its record: nobody writes that record
    again, so reading it (it reads as interrupted) removes the temp file."""
    from openalice.runs import tasks

    record = tasks.create_task({"workspaceId": "w", "createdAt": "2026-01-01T00:00:00Z",
                                "supervisor": {"pid": _dead_pid()}})
    temp = _temp_of_a_killed_writer(tasks.task_dir(record["taskId"]))
    assert tasks.effective(tasks.find_task(record["taskId"]))["status"] == "interrupted"
    assert not temp.exists()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _temp_of_a_killed_writer(directory):
    """A half-written ``task.json`` temp whose writer (its pid) is gone."""
    from openalice.core import fs

    temp = directory / f"{fs.TEMP_PREFIX}task.json.{_dead_pid()}.{fs.temps._HOST}.00ff00ff"
    temp.write_text('{"half": ')
    return temp
