"""Schedules that can never fire, and the next fire shown by show/list (items 23-27)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from openalice.issues import Issue, schedule_problem, schedule_summary
from openalice.issues.schedule import when_problem

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def issue(when, status="todo"):
    return Issue(id="x", path=Path("/w/x.md"), title="X", status=status, when=when,
                 assignee="@new-then-resume")


@pytest.mark.parametrize("every", ["30m", "2h15m30s", " 30m ", "1h", "90s"])
def test_good_every_durations(every):                              # item 23
    assert when_problem({"kind": "every", "every": every}, NOW) is None


@pytest.mark.parametrize("every", ["1d", "30 minutes", "", "0m", "30m1h", "soon"])
def test_bad_every_durations_can_never_fire(every):                # items 23, 24
    problem = when_problem({"kind": "every", "every": every}, NOW)
    assert problem.field == "when.every" and problem.reason.startswith("can never fire: ")


@pytest.mark.parametrize("cron, needle", [
    ("0 0 9 * * *", "exactly 5 fields"),
    ("@daily", "shortcut"),
    ("61 * * * *", "minute"),
    ("0 0 30 2 *", "do not exist"),
])
def test_bad_cron_can_never_fire(cron, needle):                     # item 24
    problem = when_problem({"kind": "cron", "cron": cron, "timezone": "local"}, NOW)
    assert problem.field == "when.cron" and needle in problem.reason


def test_bad_zone_in_a_raw_when():
    problem = when_problem({"kind": "cron", "cron": "* * * * *", "timezone": "Mars/Base"}, NOW)
    assert problem.field == "when.timezone" and "IANA" in problem.reason


def test_at_rules():                                               # item 27
    assert when_problem({"kind": "at", "at": "2026-07-01T09:00:00Z"}, NOW) is None
    past = when_problem({"kind": "at", "at": "2026-05-01T09:00:00+02:00"}, NOW)
    assert past.field == "when.at" and past.reason.startswith("can never fire: at is in the past")
    assert when_problem({"kind": "at", "at": "garbage"}, NOW).reason.startswith("can never fire: ")
    no_offset = when_problem({"kind": "at", "at": "2026-07-01T09:00"}, NOW)
    assert "offset" in no_offset.reason
    # a done one-shot issue is not a problem; a live one is
    assert schedule_problem(issue({"kind": "at", "at": "2026-05-01T00:00:00Z"}, "done"), NOW) is None
    assert schedule_problem(issue({"kind": "at", "at": "2026-05-01T00:00:00Z"}), NOW).startswith(
        "when.at: can never fire")


def test_schedule_problem_accepts_issue_when_or_none():
    assert schedule_problem(None, NOW) is None
    assert schedule_problem(issue(None), NOW) is None
    assert schedule_problem({"kind": "every", "every": "1d"}, NOW).startswith("when.every: ")


def test_cron_next_fire_across_dst():                               # item 25
    when = {"kind": "cron", "cron": "30 8 * * 1-5", "timezone": "America/New_York", "catchUp": True}
    winter = schedule_summary(issue(when), datetime(2026, 1, 2, 12, tzinfo=timezone.utc))
    summer = schedule_summary(issue(when), datetime(2026, 7, 2, 12, tzinfo=timezone.utc))
    assert winter == {"nextFireAt": "2026-01-02T13:30:00Z", "problem": None, "note": None}
    assert summer["nextFireAt"] == "2026-07-02T12:30:00Z"


def test_local_zone_follows_tz(monkeypatch):                        # item 26
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    when = {"kind": "cron", "cron": "0 9 * * *", "timezone": "local", "catchUp": True}
    assert schedule_summary(issue(when), NOW)["nextFireAt"] == "2026-06-02T00:00:00Z"


def test_summaries():
    assert schedule_summary(issue(None), NOW) == {"nextFireAt": None, "problem": None,
                                                  "note": "not scheduled"}
    every = schedule_summary(issue({"kind": "every", "every": "30m"}), NOW)
    assert every["nextFireAt"] == "2026-06-01T12:00:00Z" and "due now (never fired)" in every["note"]
    at = schedule_summary(issue({"kind": "at", "at": "2026-07-01T11:00:00+02:00"}), NOW)
    assert at["nextFireAt"] == "2026-07-01T09:00:00Z"
    done = schedule_summary(issue({"kind": "every", "every": "30m"}, "canceled"), NOW)
    assert done["nextFireAt"] is None and "canceled" in done["note"]
    broken = schedule_summary(issue({"kind": "every", "every": "soon"}), NOW)
    assert broken["nextFireAt"] is None and broken["problem"].startswith("when.every: can never fire")
    skip = schedule_summary(issue({"kind": "cron", "cron": "0 * * * *", "timezone": "UTC",
                                   "catchUp": False}), NOW)
    assert skip["nextFireAt"] == "2026-06-01T13:00:00Z" and "skipped" in skip["note"]


def test_every_next_fire_comes_from_the_schedulers_cursor():
    from openalice.core import fs
    from openalice.issues import cursors

    item = issue({"kind": "every", "every": "30m"})
    last = datetime(2026, 6, 1, 11, 50, tzinfo=timezone.utc)
    fs.atomic_write_json(cursors.cursor_path("ws", item.id),
                         cursors.fired(None, "ws", item.id, slot=last, now=last, task_id="run-a", missed=0))
    summary = schedule_summary(item, NOW, workspace_id="ws")
    assert summary == {"nextFireAt": "2026-06-01T12:20:00Z", "problem": None,
                       "note": "every 30m after each accepted run"}
    late = schedule_summary(item, datetime(2026, 6, 1, 13, 0, tzinfo=timezone.utc), workspace_id="ws")
    assert late["nextFireAt"] == "2026-06-01T13:00:00Z" and "interval has passed" in late["note"]
    cursors.cursor_path("ws", item.id).write_text("{broken")
    broken = schedule_summary(item, NOW, workspace_id="ws")
    assert broken["nextFireAt"] is None and "cursor cannot be read" in broken["note"]
