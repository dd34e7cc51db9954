"""alice-schedule end to end: real issue files, the installed tools as
subprocesses, every --json output and on-disk format checked against spec/.

Supervisors are not launched here (``OPENALICE_TEST_LAUNCH=none``): these
tests cover scanning, admission, the registry and the verbs; runs of a
stand-in engine are the runner's tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers.schemas import conforms

SPEC = REPO / "spec"
NOW = "2026-03-02T08:00:30Z"
# The agents these tests name count as installed; runs that really start use other engines.
pytestmark = pytest.mark.usefixtures("agent_stubs")
NO_LAUNCH = {"OPENALICE_TEST_LAUNCH": "none"}


@pytest.fixture
def sch(cli, workspace):
    """alice-schedule / alice in the workspace, clock frozen, no launches."""

    def run(*args, now=NOW, tool="alice-schedule", env=None, **kw):
        full = {**NO_LAUNCH, "ALICE_NOW": now, **(env or {})}
        return cli(tool, *args, cwd=workspace, env=full, **kw)

    return run


def create(sch, title, *flags, body="Do it"):
    r = sch("issue", "create", "--title", title, *flags, "--body", body, "--json", tool="alice")
    assert r.returncode == 0, r
    return r.json()


def write(workspace, issue_id: str, frontmatter: str, body: str = "Do it") -> Path:
    """An issue file written by hand (what the writer would refuse, too)."""
    path = workspace / ".alice" / "issues" / f"{issue_id}.md"
    path.write_text(f"---\n{frontmatter.strip()}\n---\n\n{body}\n")
    return path


def scan(sch, now=NOW, *flags):
    r = sch("scan", "--json", *flags, now=now)
    assert r.returncode == 0, r
    report = r.json()
    conforms("schedule-scan", report)
    return report


def state_files(pattern: str) -> list[Path]:
    return sorted((Path(os.environ["OPENALICE_HOME"]) / "state").glob(pattern))


# -- scan ---------------------------------------------------------------------------

def test_scan_fires_due_issues_and_reports_why_others_did_not(sch, workspace):
    create(sch, "Poll", "--every", "30m", body="Poll the feed")
    create(sch, "Daily", "--cron", "0 9 * * *", "--timezone", "Europe/Paris")
    create(sch, "Nightly", "--cron", "0 3 * * *", "--timezone", "UTC")
    write(workspace, "soon", "title: Soon\nwhen: {kind: every, every: soon}")  # valid, never fires
    create(sch, "Plain")
    (workspace / ".alice" / "issues" / "broken.md").write_text("---\ntitle: [unclosed\n---\n")
    report = scan(sch)
    assert report["status"] == "ok" and report["now"] == NOW
    fired = {f["issueId"]: f for f in report["fired"]}
    assert set(fired) == {"poll", "daily"}  # 09:00 Paris = 08:00Z, inside the first-sight minute
    assert fired["daily"]["slot"] == "2026-03-02T08:00:00Z"
    assert {(s["issueId"], s["reason"]) for s in report["skipped"]} == {("soon", "never_fires")}
    assert [i["issueId"] for i in report["invalid"]] == ["broken"]
    assert report["workspaces"] == [{"id": "test-ws", "state": "ok", "issues": 6, "scheduled": 4}]
    again = scan(sch)
    assert again["fired"] == []  # a second scan at the same instant creates nothing
    r = sch("scan", now=NOW)
    assert r.returncode == 0 and "0 fired" in r.stdout and "invalid test-ws/broken" in r.stdout
    for name, pattern in (("task-record", "runs/tasks/*/task.json"),
                          ("schedule-cursor", "schedule/cursors/*/*.json"),
                          ("run-live-marker", "runs/live/*/*.json")):
        files = state_files(pattern)
        assert files, pattern
        for path in files:
            conforms(name, json.loads(path.read_text()))
    from openalice.schedule.fastpath import decode_cache

    (cache,) = state_files("schedule/scan-cache.marshal")
    conforms("schedule-scan-cache", decode_cache(cache.read_bytes()))
    for path in state_files("runs/**/*.jsonl"):
        for line in path.read_text().splitlines():
            conforms("task-index-line", json.loads(line))


def test_scan_takes_now_from_the_flag_and_dry_run_writes_nothing(sch):
    create(sch, "Poll", "--every", "30m")
    report = scan(sch, NOW, "--dry-run", "--now", "2026-03-02T09:00:00Z")
    assert report["dryRun"] is True and report["now"] == "2026-03-02T09:00:00Z"
    assert [(f["issueId"], f["taskId"]) for f in report["fired"]] == [("poll", None)]
    assert state_files("runs/tasks/*") == [] and state_files("schedule/cursors/*/*") == []
    r = sch("scan", "--now", "yesterday", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "bad_instant"
    r = sch("scan", "--bogus", "--json")  # unusual flags go through argparse
    assert r.returncode == 2 and r.json()["error"]["code"] == "usage"


def test_every_waits_its_interval_and_never_refires_a_failed_run(sch):
    from openalice.runs import admission, tasks

    create(sch, "Poll", "--every", "30m")
    task_id = scan(sch, "2026-03-02T10:00:00Z")["fired"][0]["taskId"]
    tasks.update_task(task_id, {"status": "failed", "exitCode": 1})
    admission.release(task_id)
    assert scan(sch, "2026-03-02T10:10:00Z")["fired"] == []
    report = scan(sch, "2026-03-02T10:31:00Z")
    assert [f["slot"] for f in report["fired"]] == ["2026-03-02T10:30:00Z"]


def test_clock_backwards_fires_nothing(sch):
    create(sch, "Minutely", "--cron", "* * * * *", "--timezone", "UTC")
    assert len(scan(sch, "2026-03-02T10:00:10Z")["fired"]) == 1
    cursor_before = state_files("schedule/cursors/*/*.json")[0].read_text()
    report = scan(sch, "2026-03-02T09:00:10Z")
    assert report["fired"] == [] and report.get("clockBackwards") is True
    assert state_files("schedule/cursors/*/*.json")[0].read_text() == cursor_before


def test_an_issue_invalid_for_one_scan_keeps_its_cursor(sch, workspace):
    from openalice.runs import admission, tasks

    create(sch, "Poll", "--every", "30m")
    task_id = scan(sch, "2026-03-02T10:00:00Z")["fired"][0]["taskId"]
    tasks.update_task(task_id, {"status": "done"})
    admission.release(task_id)
    path = workspace / ".alice" / "issues" / "poll.md"
    good = path.read_text()
    path.write_text(good.replace("title: Poll", "title: 2026"))  # invalid: not a string
    report = scan(sch, "2026-03-02T10:05:00Z")
    assert [i["issueId"] for i in report["invalid"]] == ["poll"]
    path.write_text(good)
    assert scan(sch, "2026-03-02T10:06:00Z")["fired"] == []  # the original refires here
    assert len(scan(sch, "2026-03-02T10:30:00Z")["fired"]) == 1


def test_a_busy_scan_lock_is_not_an_error(sch):
    create(sch, "Poll", "--every", "30m")
    lock = Path(os.environ["OPENALICE_HOME"]) / "locks" / "scan.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c",
                               "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
                               str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        report = scan(sch)
        assert report["status"] == "busy" and report["fired"] == []
        r = sch("scan")
        assert r.returncode == 0 and "busy" in r.stdout
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)


def test_eight_scanners_at_once_over_100_due_issues(cli, tmp_path):
    spaces = []
    for n in range(4):
        path = tmp_path / f"w{n}"
        assert cli("alice", "workspace", "init", str(path)).returncode == 0
        spaces.append(path)
    for n in range(100):
        directory = spaces[n % 4] / ".alice" / "issues"
        (directory / f"job{n:03d}.md").write_text(
            f"---\ntitle: Job {n}\nwhen:\n  kind: every\n  every: 1h\n---\n\nRun job {n}\n")
    env = {**cli.env, **NO_LAUNCH, "ALICE_NOW": NOW}
    argv = [sys.executable, str(REPO / "bin" / "alice-schedule"), "scan", "--capacity", "200", "--json"]
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(8)]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        reports.append(json.loads(out))
    assert Counter(r["status"] for r in reports)["ok"] >= 1
    fired = [(f["workspaceId"], f["issueId"]) for r in reports for f in r["fired"]]
    assert len(fired) == len(set(fired)) == 100
    records = [json.loads(p.read_text()) for p in state_files("runs/tasks/*/task.json")]
    assert len(records) == 100
    assert len({(r["workspaceId"], r["issueId"]) for r in records}) == 100


def test_a_scanner_killed_between_task_record_and_cursor_causes_no_duplicate(sch):
    for title in ("A", "B", "C"):
        create(sch, title, "--every", "1h")
    r = sch("scan", "--json", env={"OPENALICE_TEST_CRASH_AFTER": "task-record"})
    assert r.returncode == -signal.SIGKILL
    assert len(state_files("runs/tasks/*/task.json")) == 1
    assert state_files("schedule/cursors/*/*.json") == []
    report = scan(sch, "2026-03-02T08:01:00Z")
    assert len(report["repaired"]) == 1 and len(report["fired"]) == 2
    records = [json.loads(p.read_text()) for p in state_files("runs/tasks/*/task.json")]
    assert sorted(r["issueId"] for r in records) == ["a", "b", "c"]


def test_a_scanner_sigkilled_mid_scan_causes_no_duplicate(cli, tmp_path):
    path = tmp_path / "big"
    assert cli("alice", "workspace", "init", str(path)).returncode == 0
    for n in range(60):
        (path / ".alice" / "issues" / f"j{n:02d}.md").write_text(
            f"---\ntitle: J{n}\nwhen:\n  kind: every\n  every: 1h\n---\n\nx\n")
    env = {**cli.env, **NO_LAUNCH, "ALICE_NOW": NOW}
    argv = [sys.executable, str(REPO / "bin" / "alice-schedule"), "scan", "--capacity", "100"]
    for delay in (0.3, 0.6):
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            p.wait()
    r = subprocess.run(argv + ["--json"], env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    records = [json.loads(p.read_text()) for p in state_files("runs/tasks/*/task.json")]
    assert Counter(r["issueId"] for r in records) == Counter(f"j{n:02d}" for n in range(60))


# -- run-now, retry-now ---------------------------------------------------------------

def test_run_now_never_moves_the_cursor_and_refuses_a_second_live_run(sch):
    create(sch, "Poll", "--every", "30m")
    create(sch, "Plain")
    create(sch, "Finished", "--every", "30m", "--status", "done")
    r = sch("run-now", "poll", "--json")
    assert r.returncode == 0, r
    fire = r.json()
    conforms("schedule-fire", fire)
    assert fire["task"]["trigger"]["fire"] == "run-now" and fire["launched"] is False
    assert fire["task"]["timeoutMs"] is None and "slot" not in fire["task"]["trigger"]
    assert state_files("schedule/cursors/*/*.json") == []
    r = sch("run-now", "test-ws/poll", "--json")
    assert r.returncode == 3 and r.json()["error"]["code"] == "already_running"
    report = scan(sch)  # the scheduled slot meets the live run: skipped, cursor untouched
    assert [(s["issueId"], s["reason"]) for s in report["skipped"]] == [("poll", "already_running")]
    assert state_files("schedule/cursors/*/*.json") == []
    r = sch("run-now", "plain", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_scheduled"
    r = sch("run-now", "finished", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_fireable"
    r = sch("run-now", "nothing-here", "--json")
    assert r.returncode == 2


def test_retry_now_needs_a_failed_or_interrupted_latest_run(sch):
    from openalice.runs import admission, tasks

    create(sch, "Poll", "--every", "30m")
    r = sch("retry-now", "poll", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_retryable"
    first = scan(sch)["fired"][0]["taskId"]
    r = sch("retry-now", "poll", "--json")
    assert r.returncode == 3 and r.json()["error"]["code"] == "already_running"
    tasks.update_task(first, {"status": "done", "exitCode": 0})
    admission.release(first)
    r = sch("retry-now", "poll", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_retryable"
    second = sch("run-now", "poll", "--json").json()["task"]["taskId"]
    # no supervisor ever started it: two minutes (of real time) later it reads as interrupted
    then = time.time() - 121
    os.utime(tasks.record_path(second), (then, then))
    r = sch("retry-now", "poll", "--json")
    assert r.returncode == 0, r
    retry = r.json()
    conforms("schedule-fire", retry)
    assert retry["task"]["retryOfTaskId"] == second and retry["task"]["trigger"]["fire"] == "retry"
    cursor = json.loads(state_files("schedule/cursors/*/*.json")[0].read_text())
    assert cursor["lastTaskId"] == first  # neither run-now nor retry moved it


# -- runs, run -----------------------------------------------------------------------

def test_runs_and_run_show_records_and_structured_output(sch):
    from openalice.runs import admission, tasks

    create(sch, "Poll", "--every", "30m", body="Poll the feed")
    create(sch, "Other", "--every", "30m")
    report = scan(sch)
    ids = {f["issueId"]: f["taskId"] for f in report["fired"]}
    tasks.update_task(ids["poll"], {"status": "failed", "exitCode": 2, "processStarted": True,
                                    "finishedAt": "2026-03-02T08:01:00Z", "durationMs": 30000})
    admission.release(ids["poll"])
    structured = {"schemaVersion": 1, "assistantText": "FAKE-REPLY[1]",
                  "blocks": [{"type": "text", "text": "FAKE-REPLY[1]"}],
                  "metrics": {"textBlocks": 1, "toolCalls": 0, "toolFailures": 0}, "truncated": False}
    (tasks.task_dir(ids["poll"]) / "structured.json").write_text(json.dumps(structured))

    r = sch("runs", "--json")
    listing = r.json()
    conforms("schedule-runs", listing)
    assert [x["taskId"] for x in listing["runs"]] == [ids["poll"], ids["other"]]  # newest first
    assert listing["hasMore"] is False and "prompt" not in listing["runs"][0]
    r = sch("runs", "--issue", "poll", "--json")
    assert [x["taskId"] for x in r.json()["runs"]] == [ids["poll"]]
    assert r.json()["runs"][0]["failure"]["kind"] == "process_exit"
    r = sch("runs", "--status", "failed", "--limit", "1", "--json")
    assert [x["taskId"] for x in r.json()["runs"]] == [ids["poll"]]
    r = sch("runs", "--limit", "1", "--json")
    page = r.json()
    assert page["hasMore"] is True and page["nextBefore"] == ids["poll"]
    assert f"more: alice-schedule runs --before {ids['poll']}" in sch("runs", "--limit", "1").stdout
    r = sch("runs", "--before", page["nextBefore"], "--json")
    assert [x["taskId"] for x in r.json()["runs"]] == [ids["other"]]
    r = sch("runs", "--before", "run-unknown0", "--json")
    assert r.json()["runs"] == []
    assert sch("runs", "--before", "run-unknown0").stdout.strip() == "no runs (unknown --before id?)"
    assert "FAILURE" in sch("runs").stdout

    r = sch("run", ids["poll"], "--json")
    shown = r.json()
    conforms("schedule-run", shown)
    assert shown["structured"] == structured and shown["prompt"] == "Poll the feed"
    assert shown["task"]["status"] == "failed"
    r = sch("run", ids["poll"], "--wait", "--json")  # already ended: returns at once
    assert r.returncode == 0 and r.json()["task"]["status"] == "failed"
    assert "FAKE-REPLY[1]" in sch("run", ids["poll"]).stdout
    r = sch("run", ids["other"], "--wait", "--timeout", "0.3", "--json")
    assert r.returncode == 3 and r.json()["error"]["code"] == "still_running"
    r = sch("run", "run-nothere", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "unknown_task"
    r = sch("run", "../../etc", "--json")
    assert r.returncode == 2


def test_runs_status_is_one_of_the_task_statuses(sch):
    from openalice.runs.tasks import STATUSES

    r = sch("runs", "--status", "bogus", "--json")
    error = r.json()["error"]
    assert r.returncode == 2 and error["code"] == "usage" and error["field"] == "status"
    assert all(status in error["message"] for status in STATUSES)
    for status in STATUSES:
        assert sch("runs", "--status", status, "--json").returncode == 0


def test_run_wait_returns_when_the_run_ends(sch):
    create(sch, "Poll", "--every", "30m")
    task_id = scan(sch)["fired"][0]["taskId"]
    code = ("import sys, time\nfrom openalice.runs import tasks, admission\n"
            "time.sleep(0.5)\n"
            f"tasks.update_task({task_id!r}, {{'status': 'done', 'exitCode': 0}})\n"
            f"admission.release({task_id!r})\n")
    finisher = subprocess.Popen([sys.executable, "-c", code], cwd=REPO)
    try:
        r = sch("run", task_id, "--wait", "--timeout", "60", "--json")
        assert r.returncode == 0, r
        assert r.json()["task"]["status"] == "done"
    finally:
        finisher.wait(timeout=30)


# -- health, next ------------------------------------------------------------------

def test_health_reports_every_scheduled_issue(sch, workspace):
    from openalice.agents import login
    from openalice.runs import admission, tasks

    # The default agent is logged in natively (its login file exists): else health says blocked.
    for marker in login._markers("claude", os.environ):
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()

    create(sch, "Poll", "--every", "30m")
    write(workspace, "soon", "title: Soon\nwhen: {kind: every, every: soon}")
    create(sch, "Nightly", "--cron", "0 3 * * *", "--timezone", "UTC")
    create(sch, "Gone", "--every", "1h", "--status", "canceled")
    task_id = scan(sch)["fired"][0]["taskId"]
    tasks.update_task(task_id, {"status": "failed", "killed": True, "timeoutMs": 900000,
                                "durationMs": 905000})
    admission.release(task_id)
    r = sch("health", "--json")
    assert r.returncode == 0, r
    report = r.json()
    conforms("schedule-health", report)
    states = {e["issueId"]: e["state"] for e in report["issues"]}
    assert states == {"poll": "failed", "soon": "blocked", "nightly": "not_started", "gone": "inactive"}
    poll = next(e for e in report["issues"] if e["issueId"] == "poll")
    assert poll["failure"]["kind"] == "timeout" and poll["latestTaskId"] == task_id
    r = sch("health", "--now", "2026-03-03T03:00:00Z", "--json")
    assert {e["issueId"]: e["state"] for e in r.json()["issues"]}["nightly"] == "due"
    human = sch("health").stdout
    assert "test-ws/poll" in human and "execution limit" in human


def test_next_lists_instants_and_marks_dst(sch):
    create(sch, "Early", "--cron", "30 2 * * *", "--timezone", "America/New_York")
    r = sch("next", "early", "--count", "3", "--json", now="2024-03-09T00:00:00Z")
    assert r.returncode == 0, r
    data = r.json()
    conforms("schedule-next", data)
    assert [i["utc"] for i in data["instants"]] == ["2024-03-09T07:30:00Z", "2024-03-10T07:00:00Z",
                                                    "2024-03-11T06:30:00Z"]
    assert [i.get("dst") for i in data["instants"]] == [None, "gap", None]
    assert data["timezone"] == "America/New_York"
    assert "[DST: gap]" in sch("next", "test-ws/early", "--count", "3", now="2024-03-09T00:00:00Z").stdout
    create(sch, "Plain")
    r = sch("next", "plain", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_scheduled"
    r = sch("next", "early", "--count", "0")
    assert r.returncode == 2


def test_verbs_outside_a_workspace_need_one(cli, tmp_path):
    r = cli("alice-schedule", "run-now", "poll", "--json", cwd=tmp_path)
    assert r.returncode == 2 and r.json()["error"]["code"] == "no_workspace"
    r = cli("alice-schedule", "runs", "--json", cwd=tmp_path)
    assert r.returncode == 0 and r.json() == {"runs": [], "hasMore": False}


# -- with the real runner -----------------------------------------------------------------

def test_real_runs_validate_and_resume_owners_chain_their_tasks(cli, workspace):
    """scan → the runner's detached supervisor → a stand-in engine; the
    records the runner completes still match spec/task-record.schema.json,
    and the @resume owner's next scheduled run names its parent task."""
    from tests.runs.standins import StandIns, fixtures_dir

    fixtures = fixtures_dir()
    if fixtures is None:
        pytest.skip("SKIPPED: recorded agent streams not found")
    engines = StandIns(workspace.parent / "standin-bin", fixtures)
    r = cli("alice", "issue", "create", "--title", "Daily", "--id", "daily", "--every", "1m",
            "--agent", "claude", "--body", "Write the report", "--json", cwd=workspace,
            env={"ALICE_NOW": NOW})
    assert r.returncode == 0, r
    task_ids = []
    for now in ("2026-03-02T09:00:00Z", "2026-03-02T09:01:00Z"):
        r = cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": now, "PATH": engines.path_env()})
        assert r.returncode == 0, r
        conforms("schedule-scan", r.json())
        [fired] = r.json()["fired"]
        assert fired["launched"] is True and fired["pid"] > 0
        r = cli("alice-schedule", "run", fired["taskId"], "--wait", "--timeout", "60", "--json")
        assert r.returncode == 0, r
        shown = r.json()
        conforms("schedule-run", shown)
        assert shown["task"]["status"] == "done", shown
        task_ids.append(fired["taskId"])
        conforms("task-record", json.loads((state_files(f"runs/tasks/{fired['taskId']}/task.json")[0]).read_text()))
    first, second = (json.loads(state_files(f"runs/tasks/{t}/task.json")[0].read_text()) for t in task_ids)
    assert first["owner"] == "@new-then-resume" and second["owner"] == f"@{first['resumeId']}"
    assert second["parentTaskId"] == first["taskId"] and second["resumeId"] == first["resumeId"]
    r = cli("alice-schedule", "health", "--json", env={"ALICE_NOW": "2026-03-02T09:01:30Z"})
    conforms("schedule-health", r.json())
    assert r.json()["issues"][0]["state"] == "healthy"
    r = cli("alice-schedule", "runs", "--json")
    conforms("schedule-runs", r.json())
    assert [x["taskId"] for x in r.json()["runs"]] == task_ids[::-1]
