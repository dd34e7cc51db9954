"""The scanner: due issues fire once, cursors move only on accepted runs,
catch-up coalesces, and nothing a single bad scan sees loses a cursor.

Numbers in test names refer to the reference's acceptance list (§6)."""

from __future__ import annotations

import os

import pytest

from tests.schedule.conftest import T
from tests.schedule.fakeissues import at, cron, every, write_issue


def fired_ids(report):
    return [(f["workspaceId"], f["issueId"]) for f in report["fired"]]


def reasons(report):
    return {(s["issueId"], s["reason"]) for s in report["skipped"]}


# -- every --------------------------------------------------------------------

def test_28_never_fired_every_fires_on_first_scan_and_the_cursor_is_the_slot(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"), what="Check the feed")
    report = sched.scan("2026-01-01T10:00:00Z")
    assert fired_ids(report) == [(ws.id, "poll")]
    item = report["fired"][0]
    assert item["slot"] == "2026-01-01T10:00:00Z" and item["missed"] == 0
    cursor = sched.cursor(ws, "poll")
    assert cursor["lastFire"] == "2026-01-01T10:00:00Z"
    assert cursor["lastTaskId"] == item["taskId"]
    task = sched.tasks(ws, "poll")[0]
    assert task["trigger"] == {"kind": "issue", "workspaceId": ws.id, "issueId": "poll",
                               "fire": "schedule", "slot": "2026-01-01T10:00:00Z", "missed": 0}
    assert task["prompt"] == "Check the feed" and task["status"] == "running"
    assert sched.launcher.calls == [item["taskId"]]


def test_29_every_waits_for_its_interval_then_fires_once(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    first = sched.scan("2026-01-01T10:00:00Z")["fired"][0]["taskId"]
    sched.finish(first)
    assert sched.scan("2026-01-01T10:10:00Z")["fired"] == []
    report = sched.scan("2026-01-01T10:31:00Z")
    assert len(report["fired"]) == 1
    # anchored slots: T + 30m, not the scan time, so there is no drift
    assert report["fired"][0]["slot"] == "2026-01-01T10:30:00Z"
    assert sched.cursor(ws, "poll")["lastFire"] == "2026-01-01T10:30:00Z"


def test_every_coalesces_missed_slots_and_counts_them(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    sched.finish(sched.scan("2026-01-01T10:00:00Z")["fired"][0]["taskId"])
    report = sched.scan("2026-01-01T13:15:00Z")  # slots 10:30 ... 13:00
    assert len(report["fired"]) == 1
    assert report["fired"][0]["slot"] == "2026-01-01T13:00:00Z"
    assert report["fired"][0]["missed"] == 5
    assert sched.cursor(ws, "poll")["missed"] == 5


# -- admission ------------------------------------------------------------------

def test_30_refused_admission_leaves_the_cursor_and_the_issue_stays_due(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    report = sched.scan("2026-01-01T10:00:00Z", capacity=0)
    assert report["fired"] == [] and reasons(report) == {("poll", "capacity")}
    assert sched.cursor(ws, "poll") is None
    assert sched.tasks(ws, "poll") == []
    report = sched.scan("2026-01-01T10:01:00Z")
    assert fired_ids(report) == [(ws.id, "poll")]


def test_31_a_run_that_failed_later_is_never_redispatched(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    task_id = sched.scan("2026-01-01T10:00:00Z")["fired"][0]["taskId"]
    sched.finish(task_id, "failed", exitCode=1)
    for minute in ("01", "10", "29"):
        assert sched.scan(f"2026-01-01T10:{minute}:00Z")["fired"] == []
    assert [t["taskId"] for t in sched.tasks(ws, "poll")] == [task_id]


def test_an_issue_with_a_live_run_is_skipped_not_doubled(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("1m"))
    sched.scan("2026-01-01T10:00:00Z")
    report = sched.scan("2026-01-01T10:01:00Z")  # the first run is still live
    assert report["fired"] == [] and reasons(report) == {("poll", "already_running")}
    assert sched.cursor(ws, "poll")["lastFire"] == "2026-01-01T10:00:00Z"


def test_capacity_counts_live_runs_across_workspaces(sched):
    a, b = sched.workspace("a"), sched.workspace("b")
    for ws in (a, b):
        for n in range(3):
            write_issue(ws.path, f"job{n}", when=every("1h"))
    report = sched.scan("2026-01-01T10:00:00Z", capacity=4)
    assert len(report["fired"]) == 4
    assert sorted(r for _, r in reasons(report)) == ["capacity", "capacity"]


# -- cron ---------------------------------------------------------------------------

def test_32_never_fired_every_minute_cron_fires_a_yearly_one_does_not(sched):
    ws = sched.workspace()
    write_issue(ws.path, "minutely", when=cron("* * * * *"))
    write_issue(ws.path, "yearly", when=cron("0 0 1 1 *"))
    report = sched.scan("2026-07-01T10:00:30Z")
    assert fired_ids(report) == [(ws.id, "minutely")]
    assert report["fired"][0]["slot"] == "2026-07-01T10:00:00Z"
    yearly = sched.cursor(ws, "yearly")
    assert yearly["firstSeenAt"] == "2026-07-01T10:00:30Z" and "lastFire" not in yearly


def test_33_never_fired_cron_refused_once_still_fires_next_scan(sched):
    ws = sched.workspace()
    write_issue(ws.path, "daily", when=cron("0 9 * * *"))
    assert sched.scan("2026-03-02T08:59:30Z")["fired"] == []  # first sight: nothing due yet
    report = sched.scan("2026-03-02T09:00:10Z", capacity=0)
    assert reasons(report) == {("daily", "capacity")}
    # the slot is not lost although the next scan is minutes later
    report = sched.scan("2026-03-02T09:04:00Z")
    assert [f["slot"] for f in report["fired"]] == ["2026-03-02T09:00:00Z"]


def test_never_fired_cron_slot_inside_a_scan_gap_is_not_lost(sched):
    ws = sched.workspace()
    write_issue(ws.path, "daily", when=cron("0 9 * * *"))
    sched.scan("2026-03-02T08:58:00Z")
    report = sched.scan("2026-03-02T09:03:00Z")  # timer late by minutes
    assert [f["slot"] for f in report["fired"]] == ["2026-03-02T09:00:00Z"]


def test_cron_catch_up_coalesces_missed_slots_into_one_run(sched):
    ws = sched.workspace()
    write_issue(ws.path, "five", when=cron("*/5 * * * *"))
    sched.finish(sched.scan("2026-03-02T09:00:20Z")["fired"][0]["taskId"])
    report = sched.scan("2026-03-02T10:02:00Z")  # 09:05 ... 10:00 = 12 slots
    assert len(report["fired"]) == 1
    assert report["fired"][0]["slot"] == "2026-03-02T10:00:00Z"
    assert report["fired"][0]["missed"] == 11
    assert "missedOverflow" not in report["fired"][0]


def test_cron_catch_up_after_a_long_outage_marks_the_overflow(sched):
    ws = sched.workspace()
    write_issue(ws.path, "minutely", when=cron("* * * * *"))
    sched.finish(sched.scan("2026-03-02T09:00:20Z")["fired"][0]["taskId"])
    report = sched.scan("2026-03-05T17:42:30Z")
    fired = report["fired"][0]
    assert fired["slot"] == "2026-03-05T17:42:00Z"  # the latest slot, not the 100th
    assert fired["missed"] == 100 and fired["missedOverflow"] is True
    cursor = sched.cursor(ws, "minutely")
    assert cursor["missedOverflow"] is True and cursor["lastFire"] == "2026-03-05T17:42:00Z"


def test_catch_up_false_skips_elapsed_slots_without_a_run(sched):
    ws = sched.workspace()
    write_issue(ws.path, "hourly", when=cron("0 * * * *", catch_up=False))
    sched.finish(sched.scan("2026-03-02T09:00:10Z")["fired"][0]["taskId"])
    report = sched.scan("2026-03-02T12:30:00Z")  # 10:00, 11:00, 12:00 elapsed
    assert report["fired"] == [] and reasons(report) == {("hourly", "catch_up_disabled")}
    cursor = sched.cursor(ws, "hourly")
    assert cursor["skippedThrough"] == "2026-03-02T12:30:00Z"
    assert cursor["lastFire"] == "2026-03-02T09:00:00Z"
    report = sched.scan("2026-03-02T13:00:30Z")  # the next fresh slot fires
    assert [f["slot"] for f in report["fired"]] == ["2026-03-02T13:00:00Z"]


def test_catch_up_false_still_fires_a_slot_seen_a_little_late(sched):
    ws = sched.workspace()
    write_issue(ws.path, "hourly", when=cron("0 * * * *", catch_up=False))
    sched.scan("2026-03-02T08:59:00Z")
    report = sched.scan("2026-03-02T09:01:30Z")  # timer drift, not an outage
    assert [f["slot"] for f in report["fired"]] == ["2026-03-02T09:00:00Z"]


def test_34_catch_up_false_refused_admission_skips_the_slot(sched):
    ws = sched.workspace()
    write_issue(ws.path, "tenmin", when=cron("*/10 * * * *", catch_up=False))
    sched.finish(sched.scan("2026-03-02T09:50:05Z")["fired"][0]["taskId"])
    report = sched.scan("2026-03-02T10:00:05Z", capacity=0)
    assert reasons(report) == {("tenmin", "capacity")}
    assert sched.cursor(ws, "tenmin")["skippedThrough"] == "2026-03-02T10:00:05Z"
    assert sched.scan("2026-03-02T10:01:00Z")["fired"] == []


def test_cron_in_a_zone_follows_its_wall_clock(sched):
    ws = sched.workspace()
    write_issue(ws.path, "standup", when=cron("30 8 * * 1-5", timezone="America/New_York"))
    sched.scan("2026-01-02T13:29:00Z")
    assert [f["slot"] for f in sched.scan("2026-01-02T13:30:05Z")["fired"]] == ["2026-01-02T13:30:00Z"]


# -- at ---------------------------------------------------------------------------

def test_at_fires_once_even_if_the_machine_was_off(sched):
    ws = sched.workspace()
    write_issue(ws.path, "once", when=at("2026-01-01T09:00:00Z"))
    write_issue(ws.path, "later", when=at("2026-06-01T09:00:00Z"))
    report = sched.scan("2026-01-03T10:00:00Z")
    assert fired_ids(report) == [(ws.id, "once")]
    assert report["fired"][0]["slot"] == "2026-01-01T09:00:00Z"
    sched.finish(report["fired"][0]["taskId"], "failed")
    assert sched.scan("2026-01-03T10:05:00Z")["fired"] == []


# -- invalid, terminal, deleted, unreadable ---------------------------------------

def test_35_canceled_issue_never_fires_and_keeps_its_cursor(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    sched.finish(sched.scan("2026-01-01T10:00:00Z")["fired"][0]["taskId"])
    write_issue(ws.path, "poll", when=every("30m"), status="canceled")
    assert sched.scan("2026-01-01T12:00:00Z")["fired"] == []
    assert sched.cursor(ws, "poll")["lastFire"] == "2026-01-01T10:00:00Z"


def test_36_deleted_issue_loses_its_cursor(sched):
    ws = sched.workspace()
    path = write_issue(ws.path, "poll", when=every("30m"))
    sched.scan("2026-01-01T10:00:00Z")
    path.unlink()
    sched.scan("2026-01-01T10:01:00Z")
    assert sched.cursor(ws, "poll") is None


def test_36_invalid_for_one_scan_keeps_the_cursor_and_does_not_refire(sched):
    ws = sched.workspace()
    path = write_issue(ws.path, "poll", when=every("30m"))
    sched.finish(sched.scan("2026-01-01T10:00:00Z")["fired"][0]["taskId"])
    good = path.read_text()
    path.write_text("{not json")
    report = sched.scan("2026-01-01T10:05:00Z")
    assert [i["issueId"] for i in report["invalid"]] == ["poll"]
    assert report["invalid"][0]["errors"][0]["reason"]
    assert sched.cursor(ws, "poll")["lastFire"] == "2026-01-01T10:00:00Z"
    path.write_text(good)  # repaired: the original would refire at once here
    assert sched.scan("2026-01-01T10:06:00Z")["fired"] == []
    assert len(sched.scan("2026-01-01T10:30:00Z")["fired"]) == 1


def test_unreadable_workspace_keeps_cursors_and_neighbours_still_fire(sched):
    bad, good = sched.workspace("bad"), sched.workspace("good")
    write_issue(bad.path, "poll", when=every("30m"))
    write_issue(good.path, "poll", when=every("30m"))
    first = sched.scan("2026-01-01T10:00:00Z")
    for item in first["fired"]:
        sched.finish(item["taskId"])
    sched.reader.fail.add(bad.id)
    os.utime(bad.path + "/.alice/issues/poll.md", ns=(1, 1))  # force a re-read of `bad`
    report = sched.scan("2026-01-01T10:30:00Z")
    assert fired_ids(report) == [(good.id, "poll")]
    assert {w["id"]: w["state"] for w in report["workspaces"]} == {bad.id: "unreadable", good.id: "ok"}
    assert sched.cursor(bad, "poll")["lastFire"] == "2026-01-01T10:00:00Z"


def test_missing_workspace_directory_is_reported_and_keeps_cursors(sched, tmp_path):
    import shutil

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    sched.scan("2026-01-01T10:00:00Z")
    shutil.move(ws.path, str(tmp_path / "elsewhere"))
    report = sched.scan("2026-01-01T11:00:00Z")
    assert report["workspaces"][0]["state"] == "missing"
    assert sched.cursor(ws, "poll") is not None


def test_bad_schedules_are_reported_and_never_fire(sched):
    ws = sched.workspace()
    write_issue(ws.path, "soon", when=every("soon"))
    write_issue(ws.path, "six", when=cron("0 0 * * * *"))
    write_issue(ws.path, "feb30", when=cron("0 0 30 2 *"))
    write_issue(ws.path, "tz", when=cron("0 9 * * *", timezone="New York-ish"))
    for now in ("2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z"):  # also from the cache
        report = sched.scan(now)
        assert report["fired"] == []
        assert {(i, r) for i, r in reasons(report)} == {
            ("soon", "never_fires"), ("six", "never_fires"), ("feb30", "never_fires"),
            ("tz", "never_fires")}


def test_clock_going_backwards_fires_nothing_and_keeps_the_cursor(sched):
    ws = sched.workspace()
    write_issue(ws.path, "minutely", when=cron("* * * * *"))
    write_issue(ws.path, "poll", when=every("5m"))
    for item in sched.scan("2026-03-02T09:00:10Z")["fired"]:
        sched.finish(item["taskId"])
    before = (sched.cursor(ws, "minutely"), sched.cursor(ws, "poll"))
    os.utime(ws.path + "/.alice/issues/poll.md", ns=(1, 1))  # no help from the cache
    report = sched.scan("2026-03-02T08:00:00Z")
    assert report["fired"] == [] and report.get("clockBackwards") is True
    assert (sched.cursor(ws, "minutely"), sched.cursor(ws, "poll")) == before


# -- idempotence -----------------------------------------------------------------

def test_a_task_accepted_without_its_cursor_is_not_fired_again(sched):
    """What a scanner killed between the task record and the cursor leaves."""
    from openalice.runs import admission

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    issue = sched.reader.load_issue(ws, "poll")
    record = admission.admit(ws, issue, fire="schedule", now=T("2026-01-01T10:00:00Z"),
                             slot="2026-01-01T10:00:00Z", missed=0)
    sched.finish(record["taskId"])
    report = sched.scan("2026-01-01T10:00:40Z")
    assert report["fired"] == []
    assert report["repaired"] == [{"workspaceId": ws.id, "issueId": "poll",
                                   "taskId": record["taskId"], "slot": "2026-01-01T10:00:00Z"}]
    assert sched.cursor(ws, "poll")["lastTaskId"] == record["taskId"]
    assert len(sched.tasks(ws, "poll")) == 1


def test_an_index_line_without_its_record_counts_as_never_fired(sched):
    from openalice.core.jsonl import JsonlFile
    from openalice.runs import tasks

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    JsonlFile(tasks.runs_dir() / "by-issue" / ws.id / "poll.jsonl").append(
        {"taskId": "run-AAAAAAAA", "workspaceId": ws.id, "issueId": "poll",
         "createdAt": "2026-01-01T10:00:00Z", "fire": "schedule", "slot": "2026-01-01T10:00:00Z"})
    report = sched.scan("2026-01-01T10:00:40Z")
    assert len(report["fired"]) == 1 and report["repaired"] == []


def test_a_second_scan_at_the_same_instant_creates_nothing(sched):
    ws = sched.workspace()
    for n in range(5):
        write_issue(ws.path, f"job{n}", when=cron("*/15 * * * *"))
    first = sched.scan("2026-03-02T09:00:30Z")
    assert len(first["fired"]) == 5
    for item in first["fired"]:
        sched.finish(item["taskId"])
    assert sched.scan("2026-03-02T09:00:30Z")["fired"] == []


# -- launch -------------------------------------------------------------------------

def test_a_launch_failure_is_the_runs_single_attempt(sched):
    from tests.schedule.fakeissues import Launcher

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    report = sched.scan("2026-01-01T10:00:00Z", launch=Launcher(error=OSError("no fork")))
    item = report["fired"][0]
    assert item["launched"] is False and "no fork" in item["error"]
    task = sched.tasks(ws, "poll")[0]
    assert task["status"] == "failed" and task["launchErrorCode"] == "spawn_failed"
    assert sched.cursor(ws, "poll")["lastTaskId"] == item["taskId"]
    from openalice.runs import admission

    assert admission.live_runs() == []
    assert sched.scan("2026-01-01T10:05:00Z")["fired"] == []


def test_37_an_agent_that_cannot_run_headless_is_skipped_without_a_cursor(sched, monkeypatch):
    from openalice import agents
    from openalice.agents.claude import ClaudeAdapter
    from openalice.core import records

    class ChatOnly(ClaudeAdapter):
        name = "chat-only"
        capabilities = records.replace(ClaudeAdapter.capabilities, headless=False)

    real = agents.get_adapter
    monkeypatch.setattr(agents, "get_adapter", lambda name: ChatOnly() if name == "chat-only" else real(name))
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"), agent="chat-only")
    report = sched.scan("2026-01-01T10:00:00Z")
    assert reasons(report) == {("poll", "not_headless")}
    assert sched.cursor(ws, "poll") is None and sched.tasks(ws, "poll") == []


# -- dry run, busy, cache -------------------------------------------------------------

def test_dry_run_reports_the_same_and_writes_nothing(sched):
    from openalice.core import paths

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    write_issue(ws.path, "daily", when=cron("0 9 * * *"))
    state = paths.state_dir()
    before = sorted(p for p in state.rglob("*")) if state.exists() else []
    report = sched.scan("2026-01-01T10:00:00Z", dry_run=True)
    assert report["dryRun"] is True
    assert [(f["issueId"], f["taskId"]) for f in report["fired"]] == [("poll", None)]
    after = sorted(p for p in state.rglob("*")) if state.exists() else []
    assert after == before and sched.launcher.calls == []


def test_a_held_scan_lock_reports_busy(sched):
    import subprocess
    import sys

    from openalice.schedule.scan import scan_lock_path

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    scan_lock_path().parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c",
                               "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
                               str(scan_lock_path())], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        report = sched.scan("2026-01-01T10:00:00Z")
        assert report["status"] == "busy" and report["fired"] == []
        assert sched.cursor(ws, "poll") is None
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    assert sched.scan("2026-01-01T10:00:00Z")["status"] == "ok"  # released with its holder


def test_the_cache_spares_parsing_when_nothing_is_due(sched):
    a, b = sched.workspace("a"), sched.workspace("b")
    write_issue(a.path, "daily", when=cron("0 9 * * *"))
    write_issue(b.path, "poll", when=every("2h"))
    write_issue(b.path, "note")
    for item in sched.scan("2026-03-02T10:00:00Z")["fired"]:
        sched.finish(item["taskId"])
    calls = sched.reader.calls
    report = sched.scan("2026-03-02T10:30:00Z")
    assert sched.reader.calls == calls and report["fired"] == []
    assert [w["scheduled"] for w in report["workspaces"]] == [1, 1]
    write_issue(a.path, "daily", when=cron("0 9 * * *"), title="renamed")  # a file changed
    sched.scan("2026-03-02T10:31:00Z")
    assert sched.reader.calls == calls + 1
    report = sched.scan("2026-03-02T12:00:30Z")  # b/poll comes due: b is read, a is not
    assert sched.reader.calls == calls + 2 and fired_ids(report) == [(b.id, "poll")]


def test_a_damaged_cache_is_rebuilt(sched):
    from openalice.schedule.scan import cache_path

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    sched.scan("2026-01-01T10:00:00Z")
    cache_path().write_bytes(b"\xff{broken")
    assert sched.scan("2026-01-01T10:10:00Z")["status"] == "ok"
    from openalice.schedule.fastpath import load_cache

    assert load_cache()["workspaces"][ws.id]["state"] == "ok"


@pytest.mark.parametrize("when", [every("1m"), cron("* * * * *")])
def test_per_minute_scans_fire_every_slot_once(sched, when):
    ws = sched.workspace()
    write_issue(ws.path, "job", when=when)
    slots = []
    for minute in range(10):
        report = sched.scan(f"2026-03-02T09:{minute:02d}:20Z")
        for item in report["fired"]:
            slots.append(item["slot"])
            sched.finish(item["taskId"])
    assert len(slots) == len(set(slots)) == 10


def test_cursors_of_odd_issue_ids_are_kept_and_pruned_like_others(sched):
    from openalice.issues import cursors

    ws = sched.workspace()
    odd = ["My File", "é" * 100]
    paths_ = [write_issue(ws.path, name, when=every("30m")) for name in odd]
    assert len(sched.scan("2026-01-01T10:00:00Z")["fired"]) == 2
    assert sorted(cursors.cursor_issue_ids(ws.id)) == sorted(odd)
    for p in paths_:
        p.unlink()
    sched.scan("2026-01-01T10:01:00Z")
    assert cursors.cursor_issue_ids(ws.id) == []


def test_a_missing_resume_owner_is_skipped_and_reported_blocked(sched):
    from openalice.schedule.health import health_report

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"), assignee="@resume-quiet-oak-otter-abc123")
    report = sched.scan("2026-01-01T10:00:00Z")
    assert reasons(report) == {("poll", "owner_missing")}
    assert sched.cursor(ws, "poll") is None and sched.tasks(ws, "poll") == []
    health = health_report(now=T("2026-01-01T10:00:00Z"), reader=sched.reader)["issues"][0]
    assert (health["state"], health["ownerState"]) == ("blocked", "missing")


def test_stale_temp_files_are_swept(sched):
    from openalice.core import paths

    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    sched.scan("2026-01-01T10:00:00Z")
    stale = paths.state_dir() / "schedule" / "cursors" / ws.id / ".tmp-poll.json.x1"
    stale.write_text("half")
    os.utime(stale, (1, 1))
    write_issue(ws.path, "other", when=every("30m"))  # something changes: a full scan
    sched.scan("2026-01-01T10:01:00Z")
    assert not stale.exists()
