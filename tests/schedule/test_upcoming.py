"""`next`: upcoming instants in UTC and local time, DST-shaped ones marked."""

from __future__ import annotations

from openalice.issues import due
from openalice.schedule.upcoming import upcoming
from tests.schedule.conftest import T
from tests.schedule.fakeissues import at, cron, every


def run(when, now, cursor=None, count=3):
    return upcoming(due.parse_schedule(when), cursor, now=T(now), count=count)


def test_gap_instants_are_marked():
    out = run(cron("30 2 * * *", timezone="America/New_York"), "2024-03-09T00:00:00Z")
    assert [i["utc"] for i in out["instants"]] == ["2024-03-09T07:30:00Z", "2024-03-10T07:00:00Z",
                                                   "2024-03-11T06:30:00Z"]
    assert [i.get("dst") for i in out["instants"]] == [None, "gap", None]
    assert out["instants"][1]["local"] == "2024-03-10T03:00:00-04:00"
    assert out["instants"][1]["dstAdjusted"] is True
    assert out["timezone"] == "America/New_York"


def test_repeated_hour_instants_are_marked():
    fixed = run(cron("30 1 * * *", timezone="America/New_York"), "2024-11-02T12:00:00Z")
    assert [i["utc"] for i in fixed["instants"]][:2] == ["2024-11-03T05:30:00Z", "2024-11-04T06:30:00Z"]
    assert [i.get("dst") for i in fixed["instants"]][:2] == ["repeated", None]
    stepped = run(cron("*/30 1 * * *", timezone="America/New_York"), "2024-11-03T04:59:00Z", count=4)
    assert [i["utc"] for i in stepped["instants"]] == ["2024-11-03T05:00:00Z", "2024-11-03T05:30:00Z",
                                                       "2024-11-03T06:00:00Z", "2024-11-03T06:30:00Z"]
    assert all(i["dst"] == "repeated" for i in stepped["instants"])
    assert [i["local"][-6:] for i in stepped["instants"]] == ["-04:00", "-04:00", "-05:00", "-05:00"]


def test_every_and_at_and_due_now():
    out = run(every("2h"), "2026-01-01T10:00:00Z", cursor={"lastFire": "2026-01-01T03:00:00Z"})
    assert out["due"] == {"slot": "2026-01-01T09:00:00Z", "missed": 2}
    assert [i["utc"] for i in out["instants"]] == ["2026-01-01T11:00:00Z", "2026-01-01T13:00:00Z",
                                                   "2026-01-01T15:00:00Z"]
    assert all(i["dstAdjusted"] is False for i in out["instants"])
    never = run(every("2h"), "2026-01-01T10:00:00Z")
    assert never["due"]["slot"] == "2026-01-01T10:00:00Z"
    assert never["instants"][0]["utc"] == "2026-01-01T12:00:00Z"
    future = run(at("2026-02-01T00:00:00Z"), "2026-01-01T00:00:00Z")
    assert future["due"] is None and [i["utc"] for i in future["instants"]] == ["2026-02-01T00:00:00Z"]
    spent = run(at("2025-02-01T00:00:00Z"), "2026-01-01T00:00:00Z", cursor={"lastFire": "2025-02-01T00:00:00Z"})
    assert spent["due"] is None and spent["instants"] == []


def test_a_schedule_that_never_fires_says_why():
    out = run(cron("0 0 30 2 *"), "2026-01-01T00:00:00Z")
    assert out["instants"] == [] and "never" in out["problem"]
