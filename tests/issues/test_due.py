"""Pure due math for at / every / cron."""

from __future__ import annotations

import pytest

from openalice.issues import due
from tests.schedule.conftest import T
from tests.schedule.fakeissues import at, cron, every


def decide(when, cursor, now):
    return due.decide(due.parse_schedule(when), cursor, T(now))


def test_no_when_is_no_schedule():
    assert due.parse_schedule(None) is None and due.parse_schedule({}) is None


@pytest.mark.parametrize("when, fragment", [
    (every("soon"), "every"), (every("30m1h"), "every"), (every(""), "every"),
    (cron("0 0 * * * *"), "cron"), (cron("@daily"), "cron"), (cron("0 0 30 2 *"), "never exist"),
    (cron("0 9 * * *", timezone="New York-ish"), "IANA"), (at("tomorrow"), "at"),
    ({"kind": "sometimes"}, "unknown"),
])
def test_24_unusable_schedules_have_a_problem_and_never_fire(when, fragment):
    schedule = due.parse_schedule(when)
    assert fragment in schedule.problem
    decision = due.decide(schedule, None, T("2026-01-01T00:00:00Z"))
    assert decision.action == "never" and decision.problem == schedule.problem
    assert due.next_due(schedule, None, T("2026-01-01T00:00:00Z")) is None


def test_every_first_sight_then_anchored_slots():
    d = decide(every("30m"), None, "2026-01-01T10:00:00Z")
    assert (d.action, d.slot, d.missed) == ("fire", T("2026-01-01T10:00:00Z"), 0)
    cursor = {"lastFire": "2026-01-01T10:00:00Z"}
    assert decide(every("30m"), cursor, "2026-01-01T10:29:59Z").action == "wait"
    assert decide(every("30m"), cursor, "2026-01-01T10:29:59Z").next_due == T("2026-01-01T10:30:00Z")
    d = decide(every("30m"), cursor, "2026-01-01T10:30:00Z")
    assert (d.action, d.slot, d.missed) == ("fire", T("2026-01-01T10:30:00Z"), 0)
    d = decide(every("2h15m30s"), cursor, "2026-01-02T10:00:00Z")
    # 86400 / 8130 = 10.6 → the 10th slot, 9 missed
    assert (d.slot, d.missed) == (T("2026-01-01T10:00:00Z") + 10 * (T("2026-01-01T12:15:30Z")
                                                                   - T("2026-01-01T10:00:00Z")), 9)


def test_every_is_utc_so_dst_does_not_move_it():
    cursor = {"lastFire": "2024-03-10T06:00:00Z"}  # 01:00 EST, an hour before the gap
    d = decide(every("24h"), cursor, "2024-03-11T06:00:00Z")
    assert d.slot == T("2024-03-11T06:00:00Z")  # 02:00 EDT: exactly 24 real hours


def test_at_is_due_once():
    when = at("2026-05-01T09:00:00+02:00")
    assert decide(when, None, "2026-05-01T06:59:59Z").action == "wait"
    d = decide(when, None, "2030-01-01T00:00:00Z")  # years late: still once
    assert (d.action, d.slot) == ("fire", T("2026-05-01T07:00:00Z"))
    assert decide(when, {"lastFire": "2026-05-01T07:00:00Z"}, "2030-01-01T00:00:00Z").action == "spent"
    # moved to a later instant after it ran: due again then
    assert decide(at("2026-06-01T00:00:00Z"), {"lastFire": "2026-05-01T07:00:00Z"},
                  "2026-06-01T00:00:01Z").action == "fire"


def test_cron_first_sight_looks_back_one_minute():
    d = decide(cron("* * * * *"), None, "2026-07-01T10:00:30Z")
    assert (d.action, d.slot) == ("fire", T("2026-07-01T10:00:00Z"))
    d = decide(cron("0 10 * * *"), None, "2026-07-01T10:01:30Z")
    assert d.action == "wait" and d.next_due == T("2026-07-02T10:00:00Z")


def test_cron_base_prefers_handled_marks_over_first_sight():
    now = T("2026-07-01T10:00:00Z")
    assert due.cron_base({"firstSeenAt": "2026-06-01T00:00:00Z"}, now) == T("2026-06-01T00:00:00Z")
    assert due.cron_base({"firstSeenAt": "2026-06-01T00:00:00Z", "lastFire": "2026-06-05T00:00:00Z",
                          "skippedThrough": "2026-06-07T00:00:00Z"}, now) == T("2026-06-07T00:00:00Z")
    assert due.cron_base(None, now) == T("2026-07-01T09:59:00Z")


def test_cron_catch_up_counts_missed_slots():
    d = decide(cron("0 * * * *"), {"lastFire": "2026-07-01T05:00:00Z"}, "2026-07-01T10:30:00Z")
    assert (d.action, d.slot, d.missed, d.overflow) == ("fire", T("2026-07-01T10:00:00Z"), 4, False)


def test_cron_overflow_still_finds_the_latest_slot():
    for expr, now, latest in [
        ("* * * * *", "2026-07-04T10:30:30Z", "2026-07-04T10:30:00Z"),
        ("*/7 * * * *", "2026-07-08T23:59:30Z", "2026-07-08T23:56:00Z"),
        ("0 0 * * *", "2027-01-01T12:00:00Z", "2027-01-01T00:00:00Z"),
        ("0 0 1 * *", "2036-02-15T00:00:00Z", "2036-02-01T00:00:00Z"),
    ]:
        d = decide(cron(expr), {"lastFire": "2026-07-01T00:00:00Z"}, now)
        assert (d.action, d.slot, d.missed, d.overflow) == ("fire", T(latest), 100, True), expr


def test_cron_catch_up_false_fires_only_fresh_slots():
    cursor = {"lastFire": "2026-07-01T05:00:00Z"}
    fresh = decide(cron("0 * * * *", catch_up=False), cursor, "2026-07-01T10:01:59Z")
    assert (fresh.action, fresh.slot) == ("fire", T("2026-07-01T10:00:00Z"))
    stale = decide(cron("0 * * * *", catch_up=False), cursor, "2026-07-01T10:02:01Z")
    assert stale.action == "skip" and stale.count == 5
    assert stale.next_due == T("2026-07-01T11:00:00Z")
    after_skip = {**cursor, "skippedThrough": "2026-07-01T10:02:01Z"}
    assert decide(cron("0 * * * *", catch_up=False), after_skip, "2026-07-01T10:30:00Z").action == "wait"


def test_clock_backwards_fires_nothing():
    cursor = {"lastFire": "2026-07-01T10:00:00Z", "lastScanAt": "2026-07-01T10:00:20Z"}
    assert decide(cron("* * * * *"), cursor, "2026-07-01T09:00:00Z").action == "clock_backwards"
    assert decide(every("1m"), cursor, "2026-07-01T09:00:00Z").action == "clock_backwards"
    # only the last scan is in the future (e.g. a skip): still backwards
    assert decide(cron("* * * * *"), {"lastScanAt": "2026-07-01T10:00:20Z"},
                  "2026-07-01T10:00:10Z").action == "clock_backwards"


def test_dst_gap_slot_fires_once_at_the_end_of_the_gap():
    when = cron("30 2 * * *", timezone="America/New_York")
    d = decide(when, {"lastFire": "2024-03-09T07:30:00Z"}, "2024-03-10T07:00:30Z")
    assert (d.action, d.slot, d.missed) == ("fire", T("2024-03-10T07:00:00Z"), 0)


def test_repeated_hour_fires_once_for_fixed_time_jobs():
    when = cron("30 1 * * *", timezone="America/New_York")
    cursor = {"lastFire": "2024-11-03T05:30:00Z"}  # 01:30 EDT, the first pass
    assert decide(when, cursor, "2024-11-03T06:45:00Z").action == "wait"  # 01:45 EST
