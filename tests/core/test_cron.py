"""Cron parsing, day rules, DST rules and a randomized check against a
brute-force oracle (tests/core/cron_oracle.py)."""

import random
from datetime import date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytest

from openalice.core import cron
from openalice.core.cron import CronExpr, can_ever_fire, fires_between, next_fire_after
from openalice.core.errors import InvalidInput
from tests.core.cron_oracle import oracle_fires, oracle_next

UTC = timezone.utc
ZONES = ["America/New_York", "Europe/London", "Europe/Dublin", "Australia/Lord_Howe",
         "Asia/Kolkata", "Pacific/Chatham"]


def at(text: str) -> datetime:
    """`2024-03-10T07:00` (UTC) -> aware datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# --------------------------------------------------------------------------- parsing

@pytest.mark.parametrize("text, field, expected", [
    ("*/15 * * * *", "minutes", {0, 15, 30, 45}),
    ("1-10/3 * * * *", "minutes", {1, 4, 7, 10}),
    ("5/20 * * * *", "minutes", {5, 25, 45}),
    ("0,30,59 * * * *", "minutes", {0, 30, 59}),
    ("00,05 * * * *", "minutes", {0, 5}),
    ("*/60 * * * *", "minutes", {0}),
    ("* 9-17/4,23 * * *", "hours", {9, 13, 17, 23}),
    ("* * */10 * *", "days_of_month", {1, 11, 21, 31}),
    ("* * * Jan,MAR-may *", "months", {1, 3, 4, 5}),
    ("* * * */5 *", "months", {1, 6, 11}),
    ("* * * * MON-fri", "days_of_week", {1, 2, 3, 4, 5}),
    ("* * * * 7", "days_of_week", {0}),
    ("* * * * 5-7", "days_of_week", {5, 6, 0}),
    ("* * * * */2", "days_of_week", {0, 2, 4, 6}),
    ("* * * * */7", "days_of_week", {0}),
    ("* * * * 1/2", "days_of_week", {1, 3, 5, 0}),
    ("* * * * sun,SAT", "days_of_week", {0, 6}),
    ("* * * * *", "days_of_week", {0, 1, 2, 3, 4, 5, 6}),
])
def test_fields_expand(text, field, expected):
    assert getattr(CronExpr.parse(text), field) == frozenset(expected)


def test_parse_keeps_text_and_is_cached():
    expr = CronExpr.parse("  0\t9  * *  1-5 ")
    assert expr.text == "  0\t9  * *  1-5 "
    assert expr.fields == ("0", "9", "*", "*", "1-5")
    assert CronExpr.parse("  0\t9  * *  1-5 ") is expr
    assert expr == CronExpr.parse("0 9 * * 1-5") and hash(expr) == hash(CronExpr.parse("0 9 * * 1-5"))
    assert repr(expr) == "CronExpr('  0\\t9  * *  1-5 ')"


@pytest.mark.parametrize("text, fixed", [
    ("30 2 * * *", True), ("0 9 * * sun", True), ("0-59 2 * * *", True), ("5,10 1-3 * * *", True),
    ("*/15 * * * *", False), ("0 * * * *", False), ("*/30 2 * * *", False), ("0 */2 * * *", False),
    ("* 3 * * *", False),
])
def test_fixed_time_means_neither_minute_nor_hour_starts_with_star(text, fixed):
    assert CronExpr.parse(text).is_fixed_time is fixed


@pytest.mark.parametrize("text, either", [
    ("0 9 1 * 5", True), ("0 9 1-7 * 0", True),
    ("0 9 1-7 * */7", False), ("0 9 * * 5", False), ("0 9 1 * *", False), ("0 9 */2 * 1", False),
])
def test_day_rule_flag(text, either):
    assert CronExpr.parse(text).day_or is either


@pytest.mark.parametrize("text, words", [
    ("", ["empty"]),
    ("   ", ["empty"]),
    ("@daily", ["`@daily`", "not supported", "5 fields"]),
    ("@reboot", ["not supported"]),
    ("0 0 * * * *", ["exactly 5 fields", "got 6", "seconds"]),
    ("0 0 0 * * * 2024", ["got 7"]),
    ("* * * *", ["exactly 5 fields", "got 4"]),
    ("60 * * * *", ["minute field", "60 is out of range 0-59"]),
    ("* 24 * * *", ["hour field", "out of range 0-23"]),
    ("* * 0 * *", ["day-of-month field", "out of range 1-31"]),
    ("* * 32 * *", ["day-of-month field", "out of range 1-31"]),
    ("* * * 13 *", ["month field", "out of range 1-12"]),
    ("* * * 0 *", ["month field", "out of range 1-12"]),
    ("* * * * 8", ["day-of-week field", "out of range 0-7"]),
    ("99999 * * * *", ["minute field", "out of range"]),
    ("*/0 * * * *", ["minute field", "step must be greater than 0"]),
    ("1-10/0 * * * *", ["step must be greater than 0"]),
    ("*/61 * * * *", ["minute field", "larger than"]),
    ("* */25 * * *", ["hour field", "larger than"]),
    ("*/x * * * *", ["minute field", "step `x` is not a number"]),
    ("5-1 * * * *", ["minute field", "runs backwards"]),
    ("* * * * fri-mon", ["day-of-week field", "runs backwards"]),
    ("* * * dec-jan *", ["month field", "runs backwards"]),
    ("* * L * *", ["day-of-month field", "`L`", "not supported"]),
    ("* * * * 5L", ["day-of-week field", "`L`", "not supported"]),
    ("* * LW * *", ["not supported"]),
    ("* * 15W * *", ["day-of-month field", "`W`", "not supported"]),
    ("* * * * 5#2", ["day-of-week field", "`#`", "not supported"]),
    ("* * ? * *", ["day-of-month field", "`?`"]),
    ("* * * foo *", ["month field", "not a month name"]),
    ("* * * * funday", ["day-of-week field", "not a day name"]),
    ("jan * * * *", ["minute field", "names are allowed only"]),
    ("* * mon * *", ["day-of-month field", "names are allowed only"]),
    ("1,,2 * * * *", ["minute field", "empty list item"]),
    ("1, * * * *", ["empty list item"]),
    ("-5 * * * *", ["minute field", "is not a number"]),
    ("5- * * * *", ["is not a number"]),
    ("1-2-3 * * * *", ["is not a number"]),
    ("*-5 * * * *", ["is not a number"]),
    ("1/2/3 * * * *", ["not a number"]),
    ("\uff11 * * * *", ["minute field", "not a number"]),
    ("1.5 * * * *", ["not a number"]),
    ("* * * * * " + "1," * 600 + "1", ["longer than"]),
])
def test_refusals_name_the_problem(text, words):
    with pytest.raises(InvalidInput) as caught:
        CronExpr.parse(text)
    assert caught.value.code == "bad_cron"
    assert caught.value.exit_code == 2
    for word in words:
        assert word in caught.value.message, caught.value.message


@pytest.mark.parametrize("value", [None, 5, ["0", "0", "*", "*", "*"]])
def test_non_string_is_refused(value):
    with pytest.raises(InvalidInput, match="must be a string"):
        CronExpr.parse(value)


def test_field_error_details_name_the_field():
    with pytest.raises(InvalidInput) as caught:
        CronExpr.parse("0 25 * * *")
    assert caught.value.details == {"cronField": "hour"}


# --------------------------------------------------------------------------- reference items

def test_item_25_weekday_morning_in_new_york_across_seasons():
    expr = CronExpr.parse("30 8 * * 1-5")
    ny = ZoneInfo("America/New_York")
    assert next_fire_after(expr, at("2026-01-02T12:00"), ny) == at("2026-01-02T13:30")
    assert next_fire_after(expr, at("2026-07-02T12:00"), ny) == at("2026-07-02T12:30")


def test_item_32_every_minute_fires_next_minute_but_new_year_is_far():
    ny = ZoneInfo("America/New_York")
    now = at("2026-06-15T12:00")
    assert next_fire_after(CronExpr.parse("* * * * *"), now, ny) == at("2026-06-15T12:01")
    yearly = next_fire_after(CronExpr.parse("0 0 1 1 *"), now, ny)
    assert yearly == at("2027-01-01T05:00")
    fires, more = fires_between(CronExpr.parse("0 0 1 1 *"), now - timedelta(minutes=1), now, ny)
    assert (fires, more) == ([], False)


def test_result_is_strictly_after_utc_and_at_second_zero():
    expr = CronExpr.parse("*/5 * * * *")
    zone = ZoneInfo("Asia/Kolkata")
    assert next_fire_after(expr, at("2024-05-01T10:05"), zone) == at("2024-05-01T10:10")
    fire = next_fire_after(expr, datetime(2024, 5, 1, 10, 4, 59, 999999, tzinfo=UTC), zone)
    assert fire == at("2024-05-01T10:05") and fire.tzinfo is UTC and fire.second == 0
    # an aware start in another zone is the same instant
    start = at("2024-05-01T10:05").astimezone(ZoneInfo("Pacific/Chatham"))
    assert next_fire_after(expr, start, zone) == at("2024-05-01T10:10")


def test_naive_start_is_a_programming_error():
    with pytest.raises(ValueError):
        next_fire_after(CronExpr.parse("* * * * *"), datetime(2024, 1, 1), UTC)


def test_string_expressions_are_parsed():
    assert next_fire_after("0 12 * * *", at("2024-01-01T00:00"), UTC) == at("2024-01-01T12:00")
    with pytest.raises(InvalidInput):
        next_fire_after("0 12 * *", at("2024-01-01T00:00"), UTC)


# --------------------------------------------------------------------------- DST table
# Transitions used (all 2024, checked against zoneinfo):
#   America/New_York   03-10 07:00Z  -05 -> -04 (wall 02:00-03:00 skipped)
#                      11-03 06:00Z  -04 -> -05 (wall 01:00-02:00 repeated)
#   Europe/London      03-31 01:00Z  +00 -> +01 (wall 01:00-02:00 skipped)
#   Europe/Dublin      10-27 01:00Z  +01 -> +00 (wall 01:00-02:00 repeated)
#                      (Dublin's winter time is the "negative DST" one in tzdata)
#   Australia/Lord_Howe 04-06 15:00Z +11:00 -> +10:30 (wall 01:30-02:00 repeated, 04-07)
#                      10-05 15:30Z  +10:30 -> +11:00 (wall 02:00-02:30 skipped, 10-06)
#   Pacific/Chatham    04-06 14:00Z  +13:45 -> +12:45 (wall 02:45-03:45 repeated, 04-07)
#                      09-28 14:00Z  +12:45 -> +13:45 (wall 02:45-03:45 skipped, 09-29)
#   Asia/Kolkata       +05:30 all year
# Each row: zone, expression, window (start, end] in UTC, every fire in it (UTC),
# and what the fires are in local time.

DST_TABLE = [
    # --- New York, spring forward
    ("America/New_York", "30 2 * * *", "2024-03-09T12:00", "2024-03-11T12:00",
     ["2024-03-10T07:00", "2024-03-11T06:30"], "02:30 skipped -> 03:00 EDT; next day 02:30 EDT"),
    ("America/New_York", "0,30 2 * * *", "2024-03-10T00:00", "2024-03-10T12:00",
     ["2024-03-10T07:00"], "two skipped times -> one fire at 03:00 EDT"),
    ("America/New_York", "0-59 2 * * *", "2024-03-10T00:00", "2024-03-10T12:00",
     ["2024-03-10T07:00"], "a whole skipped hour of a fixed job -> once"),
    ("America/New_York", "0 3 * * *", "2024-03-09T12:00", "2024-03-11T12:00",
     ["2024-03-10T07:00", "2024-03-11T07:00"], "03:00 EDT just after the gap"),
    ("America/New_York", "59 1 * * *", "2024-03-09T12:00", "2024-03-11T12:00",
     ["2024-03-10T06:59", "2024-03-11T05:59"], "01:59 EST just before the gap"),
    ("America/New_York", "*/15 * * * *", "2024-03-10T06:40", "2024-03-10T07:20",
     ["2024-03-10T06:45", "2024-03-10T07:00", "2024-03-10T07:15"], "01:45 EST, 03:00 EDT, 03:15 EDT"),
    ("America/New_York", "0 * * * *", "2024-03-10T04:30", "2024-03-10T08:30",
     ["2024-03-10T05:00", "2024-03-10T06:00", "2024-03-10T07:00", "2024-03-10T08:00"],
     "00:00, 01:00 EST, 03:00, 04:00 EDT (no 02:00)"),
    ("America/New_York", "*/30 2 * * *", "2024-03-09T12:00", "2024-03-11T12:00",
     ["2024-03-11T06:00", "2024-03-11T06:30"], "stepped: nothing on the gap day"),
    # --- New York, fall back
    ("America/New_York", "30 1 * * *", "2024-11-02T12:00", "2024-11-04T12:00",
     ["2024-11-03T05:30", "2024-11-04T06:30"], "01:30 EDT (first pass only); 01:30 EST"),
    ("America/New_York", "0-59/20 1 * * *", "2024-11-03T00:00", "2024-11-03T12:00",
     ["2024-11-03T05:00", "2024-11-03T05:20", "2024-11-03T05:40"], "first pass only"),
    ("America/New_York", "0 2 * * *", "2024-11-02T12:00", "2024-11-04T12:00",
     ["2024-11-03T07:00", "2024-11-04T07:00"], "02:00 EST just after the repeat"),
    ("America/New_York", "59 0 * * *", "2024-11-02T12:00", "2024-11-04T12:00",
     ["2024-11-03T04:59", "2024-11-04T05:59"], "00:59 EDT just before the repeat"),
    ("America/New_York", "*/15 * * * *", "2024-11-03T04:40", "2024-11-03T06:20",
     ["2024-11-03T04:45", "2024-11-03T05:00", "2024-11-03T05:15", "2024-11-03T05:30",
      "2024-11-03T05:45", "2024-11-03T06:00", "2024-11-03T06:15"],
     "00:45 EDT, 01:00-01:45 EDT, 01:00 EST, 01:15 EST"),
    ("America/New_York", "0 * * * *", "2024-11-03T03:30", "2024-11-03T08:30",
     ["2024-11-03T04:00", "2024-11-03T05:00", "2024-11-03T06:00", "2024-11-03T07:00",
      "2024-11-03T08:00"], "00:00 EDT, 01:00 EDT, 01:00 EST, 02:00 EST, 03:00 EST"),
    ("America/New_York", "*/30 1 * * *", "2024-11-03T00:00", "2024-11-03T12:00",
     ["2024-11-03T05:00", "2024-11-03T05:30", "2024-11-03T06:00", "2024-11-03T06:30"],
     "stepped: both passes"),
    # --- London
    ("Europe/London", "30 1 * * *", "2024-03-30T12:00", "2024-04-01T12:00",
     ["2024-03-31T01:00", "2024-04-01T00:30"], "01:30 skipped -> 02:00 BST"),
    ("Europe/London", "30 1 * * *", "2024-10-26T12:00", "2024-10-28T12:00",
     ["2024-10-27T00:30", "2024-10-28T01:30"], "01:30 BST (first pass); 01:30 GMT"),
    ("Europe/London", "0 1 * * *", "2024-10-26T12:00", "2024-10-28T12:00",
     ["2024-10-27T00:00", "2024-10-28T01:00"], "01:00 BST only"),
    ("Europe/London", "0 * * * *", "2024-10-26T23:30", "2024-10-27T02:30",
     ["2024-10-27T00:00", "2024-10-27T01:00", "2024-10-27T02:00"], "01:00 BST, 01:00 GMT, 02:00 GMT"),
    ("Europe/London", "0 2 * * *", "2024-03-30T12:00", "2024-04-01T12:00",
     ["2024-03-31T01:00", "2024-04-01T01:00"], "02:00 BST just after the gap"),
    # --- Dublin (negative DST in tzdata; same wall clock as London)
    ("Europe/Dublin", "30 1 * * *", "2024-03-30T12:00", "2024-04-01T12:00",
     ["2024-03-31T01:00", "2024-04-01T00:30"], "01:30 skipped -> 02:00 IST"),
    ("Europe/Dublin", "15 1 * * *", "2024-10-26T12:00", "2024-10-28T12:00",
     ["2024-10-27T00:15", "2024-10-28T01:15"], "01:15 IST (first pass); 01:15 GMT"),
    ("Europe/Dublin", "*/30 1 * * *", "2024-10-26T12:00", "2024-10-27T12:00",
     ["2024-10-27T00:00", "2024-10-27T00:30", "2024-10-27T01:00", "2024-10-27T01:30"],
     "stepped: both passes"),
    ("Europe/Dublin", "*/20 * * * *", "2024-03-31T00:30", "2024-03-31T01:30",
     ["2024-03-31T00:40", "2024-03-31T01:00", "2024-03-31T01:20"], "00:40 GMT, 02:00 IST, 02:20 IST"),
    # --- Lord Howe (30-minute DST)
    ("Australia/Lord_Howe", "15 2 * * *", "2024-10-05T00:00", "2024-10-07T00:00",
     ["2024-10-05T15:30", "2024-10-06T15:15"], "02:15 skipped -> 02:30 +11; next day 02:15 +11"),
    ("Australia/Lord_Howe", "45 2 * * *", "2024-10-05T00:00", "2024-10-07T00:00",
     ["2024-10-05T15:45", "2024-10-06T15:45"], "02:45 +11 is after the half-hour gap"),
    ("Australia/Lord_Howe", "0 2 * * *", "2024-10-05T00:00", "2024-10-07T00:00",
     ["2024-10-05T15:30", "2024-10-06T15:00"], "02:00 skipped -> 02:30 +11"),
    ("Australia/Lord_Howe", "*/10 2 * * *", "2024-10-05T00:00", "2024-10-06T00:00",
     ["2024-10-05T15:30", "2024-10-05T15:40", "2024-10-05T15:50"],
     "stepped: only the real 02:30-02:50"),
    ("Australia/Lord_Howe", "45 1 * * *", "2024-04-06T00:00", "2024-04-08T00:00",
     ["2024-04-06T14:45", "2024-04-07T15:15"], "01:45 +11 (first pass); 01:45 +10:30"),
    ("Australia/Lord_Howe", "0 * * * *", "2024-04-06T12:10", "2024-04-06T17:10",
     ["2024-04-06T13:00", "2024-04-06T14:00", "2024-04-06T15:30", "2024-04-06T16:30"],
     "00:00, 01:00 +11, 02:00, 03:00 +10:30 (01:00 is not repeated)"),
    ("Australia/Lord_Howe", "30 * * * *", "2024-04-06T13:10", "2024-04-06T16:10",
     ["2024-04-06T13:30", "2024-04-06T14:30", "2024-04-06T15:00", "2024-04-06T16:00"],
     "01:30 twice: +11 and +10:30"),
    # --- Chatham (+12:45 / +13:45)
    ("Pacific/Chatham", "0 3 * * *", "2024-09-28T00:00", "2024-09-30T00:00",
     ["2024-09-28T14:00", "2024-09-29T13:15"], "03:00 skipped -> 03:45 +13:45"),
    ("Pacific/Chatham", "30 2 * * *", "2024-09-28T00:00", "2024-09-30T00:00",
     ["2024-09-28T13:45", "2024-09-29T12:45"], "02:30 +12:45 is before the gap"),
    ("Pacific/Chatham", "0 3 * * *", "2024-04-06T00:00", "2024-04-08T00:00",
     ["2024-04-06T13:15", "2024-04-07T14:15"], "03:00 +13:45 (first pass); 03:00 +12:45"),
    ("Pacific/Chatham", "0 * * * *", "2024-04-06T12:00", "2024-04-06T15:30",
     ["2024-04-06T12:15", "2024-04-06T13:15", "2024-04-06T14:15", "2024-04-06T15:15"],
     "02:00, 03:00 +13:45, 03:00, 04:00 +12:45"),
    ("Pacific/Chatham", "*/15 3 * * *", "2024-09-28T00:00", "2024-09-30T00:00",
     ["2024-09-28T14:00", "2024-09-29T13:15", "2024-09-29T13:30", "2024-09-29T13:45",
      "2024-09-29T14:00"], "stepped: only 03:45 +13:45 on the gap day (03:00-03:30 never exist)"),
    # --- Kolkata (+05:30, no DST)
    ("Asia/Kolkata", "30 8 * * *", "2024-03-10T00:00", "2024-03-11T00:00",
     ["2024-03-10T03:00"], "08:30 IST"),
    ("Asia/Kolkata", "*/45 * * * *", "2024-06-01T00:00", "2024-06-01T02:00",
     ["2024-06-01T00:15", "2024-06-01T00:30", "2024-06-01T01:15", "2024-06-01T01:30"],
     "05:45, 06:00, 06:45, 07:00 IST"),
    ("Asia/Kolkata", "0 0 * * *", "2024-12-31T00:00", "2025-01-02T00:00",
     ["2024-12-31T18:30", "2025-01-01T18:30"], "midnight IST is the previous UTC day"),
]


@pytest.mark.parametrize("zone, text, start, end, expected, meaning", DST_TABLE,
                         ids=[f"{row[0].split('/')[-1]}:{row[1]}:{row[2][:10]}" for row in DST_TABLE])
def test_dst_table(zone, text, start, end, expected, meaning):
    tz = ZoneInfo(zone)
    want = [at(t) for t in expected]
    fires, more = fires_between(CronExpr.parse(text), at(start), at(end), tz)
    assert fires == want, meaning
    assert more is False
    # The table was derived by hand; the oracle must agree with it too.
    assert oracle_fires(text, at(start), at(end), tz) == want


@pytest.mark.parametrize("text, start, expected", [
    # Start inside the second pass (01:10 EST): the first-pass fire is behind us.
    ("30 1 * * *", "2024-11-03T06:10", "2024-11-04T06:30"),
    # Start in the first pass (01:20 EDT): a stepped job still has 01:15 EST ahead.
    ("15 * * * *", "2024-11-03T05:20", "2024-11-03T06:15"),
    ("*/15 * * * *", "2024-11-03T05:40", "2024-11-03T05:45"),
    ("*/15 * * * *", "2024-11-03T05:50", "2024-11-03T06:00"),
    # Start exactly on the gap fire: the next is the following day.
    ("30 2 * * *", "2024-03-10T07:00", "2024-03-11T06:30"),
    ("30 2 * * *", "2024-03-10T06:59:59", "2024-03-10T07:00"),
])
def test_starts_inside_transitions_new_york(text, start, expected):
    ny = ZoneInfo("America/New_York")
    assert next_fire_after(CronExpr.parse(text), at(start), ny) == at(expected)
    assert oracle_next(text, at(start), ny, at(start) + timedelta(days=3)) == at(expected)


# Cases where a benchmark peer (bench/bench_cron.py) answers differently from the
# oracle: kept here so ours never drifts toward the peer's answer.
@pytest.mark.parametrize("zone,text,start,expected,peer", [
    # Lord Howe repeats 01:30-02:00 on 2024-04-07 (+11:00 -> +10:30 at 15:00Z): wall
    # 02:00 exists once, at 15:30Z.  cronsim 2.8 skips it and answers 02:30 (16:00Z).
    ("Australia/Lord_Howe", "*/30 2 * * *", "2024-04-05T22:00", "2024-04-06T15:30",
     "cronsim: 2024-04-06T16:00"),
    # Chatham repeats 02:45-03:45 on 2025-04-06 (+13:45 -> +12:45 at 14:00Z): 02:45's
    # first pass (13:00Z) is before the start and a repeated time fires once, so the
    # next is the following day's.  croniter fires the second pass (14:00Z).
    ("Pacific/Chatham", "45 2 * * *", "2025-04-05T13:37:17", "2025-04-06T14:00",
     "croniter: 2025-04-05T14:00"),
])
def test_dst_cases_a_peer_gets_wrong(zone, text, start, expected, peer):
    tz = ZoneInfo(zone)
    assert next_fire_after(CronExpr.parse(text), at(start), tz) == at(expected), peer
    assert oracle_next(text, at(start), tz, at(start) + timedelta(days=3)) == at(expected)


# --------------------------------------------------------------------------- day rule

def _days(text: str, start: str, end: str) -> list[date]:
    fires, _ = fires_between(CronExpr.parse(text), at(start), at(end), UTC, limit=1000)
    return [fire.date() for fire in fires]


def test_both_day_fields_restricted_means_either():
    # 1 June 2024 is a Saturday: the 1st plus every Friday.
    assert _days("0 9 1 * 5", "2024-05-31T12:00", "2024-07-01T00:00") == [
        date(2024, 6, 1), date(2024, 6, 7), date(2024, 6, 14), date(2024, 6, 21), date(2024, 6, 28)]
    assert _days("0 9 1-7 * 0", "2024-06-01T00:00", "2024-06-30T00:00") == [
        date(2024, 6, d) for d in (1, 2, 3, 4, 5, 6, 7, 9, 16, 23)]


def test_a_day_field_starting_with_star_means_both():
    # `*/7` is {0, 7}: Sunday, but it starts with `*`, so the first Sunday of each month.
    assert _days("0 9 1-7 * */7", "2024-01-01T00:00", "2024-07-01T00:00") == [
        date(2024, 1, 7), date(2024, 2, 4), date(2024, 3, 3), date(2024, 4, 7), date(2024, 5, 5),
        date(2024, 6, 2)]
    # Odd days that are Mondays.
    assert _days("0 9 */2 * 1", "2024-07-01T00:00", "2024-08-01T00:00") == [
        date(2024, 7, 1), date(2024, 7, 15), date(2024, 7, 29)]
    # `*` day-of-month: just the weekday.
    assert _days("0 9 * * 5", "2024-06-01T00:00", "2024-06-30T00:00") == [
        date(2024, 6, 7), date(2024, 6, 14), date(2024, 6, 21), date(2024, 6, 28)]


def test_leap_day_fires_only_in_leap_years():
    expr = CronExpr.parse("0 0 29 2 *")
    assert next_fire_after(expr, at("2024-03-01T00:00"), UTC) == at("2028-02-29T00:00")
    assert next_fire_after(expr, at("2096-03-01T00:00"), UTC) == at("2104-02-29T00:00")  # 2100 is not leap
    fires, more = fires_between(expr, at("2023-01-01T00:00"), at("2033-01-01T00:00"), UTC)
    assert [f.year for f in fires] == [2024, 2028, 2032] and more is False
    # AND with a weekday: 29 February falling on a Sunday (2004, 2032, 2060...).
    assert next_fire_after("0 0 29 2 */7", at("2004-03-01T00:00"), UTC) == at("2032-02-29T00:00")


@pytest.mark.parametrize("text", ["0 0 30 2 *", "0 0 31 4 *", "0 0 31 2,4,6,9,11 *", "0 0 30,31 2 */1",
                                  "0 12 31 jun *"])
def test_never_firing_expressions(text):
    expr = CronExpr.parse(text)          # the syntax is fine...
    assert can_ever_fire(expr) is False  # ...but no such day exists
    assert can_ever_fire(text) is False
    assert next_fire_after(expr, at("2024-01-01T00:00"), ZoneInfo("Europe/London")) is None
    assert fires_between(expr, at("2024-01-01T00:00"), at("2090-01-01T00:00"), UTC) == ([], False)


@pytest.mark.parametrize("text", ["0 0 30 2 1", "0 0 31 * *", "0 0 29 2 *", "0 0 29 2 */7", "* * * * *"])
def test_expressions_that_can_fire(text):
    assert can_ever_fire(text) is True
    assert next_fire_after(CronExpr.parse(text), at("2024-03-01T00:00"), UTC) is not None


def test_horizon_bounds_the_search():
    # 31 April never exists, even via the search itself (bypassing the quick check).
    expr = CronExpr.parse("0 0 31 4 *")
    assert expr._next_wall(2024, 1, 1, 0, 0, 2024 + cron.HORIZON_YEARS) is None
    assert cron.HORIZON_YEARS == 50


def test_end_of_datetime_range_is_not_a_crash():
    assert next_fire_after(CronExpr.parse("0 0 1 1 *"), datetime(9999, 6, 1, tzinfo=UTC), UTC) is None


# --------------------------------------------------------------------------- fires_between

def test_fires_between_limits_and_reports_more():
    expr = CronExpr.parse("*/10 * * * *")
    fires, more = fires_between(expr, at("2024-01-01T00:00"), at("2024-01-01T01:00"), UTC)
    assert fires == [at(f"2024-01-01T00:{m:02d}") for m in (10, 20, 30, 40, 50)] + [at("2024-01-01T01:00")]
    assert more is False
    fires, more = fires_between(expr, at("2024-01-01T00:00"), at("2024-01-01T01:00"), UTC, limit=3)
    assert len(fires) == 3 and more is True
    fires, more = fires_between(expr, at("2024-01-01T00:00"), at("2024-01-01T00:30"), UTC, limit=3)
    assert len(fires) == 3 and more is False  # exactly the limit, nothing cut
    assert fires_between(expr, at("2024-01-01T01:00"), at("2024-01-01T00:00"), UTC) == ([], False)


def test_fires_between_counts_missed_slots_over_a_day():
    fires, more = fires_between("0 * * * *", at("2024-11-02T04:00"), at("2024-11-04T04:00"),
                                ZoneInfo("America/New_York"), limit=100)
    assert len(fires) == 48 and more is False  # 48 real hours, so 48 fires (01:00 twice, 24+24)


# --------------------------------------------------------------------------- randomized oracle check

def _random_field(rng: random.Random, low: int, high: int, names: list[str] | None) -> str:
    def value() -> str:
        v = rng.randint(low, high)
        if names and rng.random() < 0.3 and v - low < len(names):
            return names[v - low]
        return str(v)

    kind = rng.choices(["*", "n", "range", "step", "rangestep", "startstep", "list"],
                       [4, 3, 2, 2, 1, 1, 2])[0]
    if kind == "*":
        return "*"
    if kind == "n":
        return value()
    if kind in ("range", "rangestep"):
        a, b = sorted(rng.sample(range(low, high + 1), 2))
        text = f"{a}-{b}"
        return text + (f"/{rng.randint(1, 5)}" if kind == "rangestep" else "")
    if kind == "step":
        return f"*/{rng.choice([s for s in (1, 2, 3, 5, 7, 10, 15, 20, 30) if s <= high - low + 1])}"
    if kind == "startstep":
        return f"{rng.randint(low, high)}/{rng.randint(1, max(2, (high - low) // 3))}"
    return ",".join(sorted({value() for _ in range(rng.randint(2, 4))}, key=str))


MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
DAYS = "sun mon tue wed thu fri sat".split()


def _random_expr(rng: random.Random) -> str:
    # Bias toward hours/minutes near DST transitions so the tricky cases get hit.
    minute = _random_field(rng, 0, 59, None)
    hour = rng.choice(["1", "2", "3", "1-3", "0,2", "*", "*/2", "2-4/1"]) if rng.random() < 0.5 \
        else _random_field(rng, 0, 23, None)
    dom = "*" if rng.random() < 0.6 else _random_field(rng, 1, 31, None)
    month = "*" if rng.random() < 0.7 else _random_field(rng, 1, 12, MONTHS)
    dow = "*" if rng.random() < 0.6 else _random_field(rng, 0, 7, DAYS)
    return f"{minute} {hour} {dom} {month} {dow}"


def _transitions(zone: ZoneInfo, year: int) -> list[datetime]:
    """The exact UTC instants at which the zone's offset changes in a year."""
    out, probe = [], datetime(year, 1, 1, tzinfo=UTC)
    previous = probe.astimezone(zone).utcoffset()
    while probe.year == year:
        step = probe + timedelta(hours=6)
        offset = step.astimezone(zone).utcoffset()
        if offset != previous:
            low, high = probe, step  # offset changes in (low, high]
            while high - low > timedelta(minutes=1):
                middle = low + timedelta(minutes=(high - low) // timedelta(minutes=2))
                if middle.astimezone(zone).utcoffset() == previous:
                    low = middle
                else:
                    high = middle
            out.append(high)
            previous = offset
        probe = step
    return out


def test_transition_helper_finds_exact_instants():
    assert _transitions(ZoneInfo("Australia/Lord_Howe"), 2024) == [at("2024-04-06T15:00"),
                                                                    at("2024-10-05T15:30")]


def test_random_expressions_agree_with_the_oracle():
    rng = random.Random(20240310)
    zones = [ZoneInfo(name) for name in ZONES]
    near = {z.key: [t for y in (2021, 2024, 2026) for t in _transitions(z, y)] for z in zones}
    checked = 0
    for _ in range(400):
        text = _random_expr(rng)
        zone = rng.choice(zones)
        where = rng.random()
        if near[zone.key] and where < 0.4:    # within the repeated or skipped hour, or next to it
            start = rng.choice(near[zone.key]) + timedelta(minutes=rng.randint(-90, 90))
        elif near[zone.key] and where < 0.8:  # the day or so before a transition
            start = rng.choice(near[zone.key]) + timedelta(minutes=rng.randint(-36 * 60, 12 * 60))
        else:
            start = datetime(2020, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randint(0, 10 * 366 * 1440))
        start += timedelta(seconds=rng.choice([0, 0, 0, 1, 59]))
        horizon = start + timedelta(days=400)
        expr = CronExpr.parse(text)
        ours, theirs = start, start
        for _step in range(3):  # three consecutive fires
            ours = next_fire_after(expr, ours, zone)
            theirs = oracle_next(text, theirs, zone, horizon)
            if ours is not None and ours > horizon:
                assert theirs is None, (text, zone.key, start)
                break
            assert ours == theirs, (text, zone.key, start)
            checked += 1
            if ours is None:
                break
    assert checked > 900


class _OddGapZone(tzinfo):
    """UTC+0 until 2024-01-01T00:00Z, then UTC+01:00:30: a gap whose end is
    not on a wall-clock minute (like some pre-1970 tzdata offsets)."""

    switch = datetime(2024, 1, 1)
    before, after = timedelta(0), timedelta(hours=1, seconds=30)

    def utcoffset(self, dt):
        wall = dt.replace(tzinfo=None, fold=0)
        if wall < self.switch + self.before:
            return self.before
        if wall >= self.switch + self.after:
            return self.after
        return self.after if dt.fold else self.before  # the gap, PEP 495 style

    def dst(self, dt):
        return timedelta(0)

    def fromutc(self, dt):
        naive = dt.replace(tzinfo=None)
        return (naive + (self.before if naive < self.switch else self.after)).replace(tzinfo=self)


def test_gap_end_rounds_up_to_the_first_whole_wall_minute():
    zone = _OddGapZone()
    # 00:30 does not exist; the wall clock resumes at 01:00:30, so the first
    # real whole minute is 01:01:00 local = 00:00:30Z.
    fire = next_fire_after(CronExpr.parse("30 0 * * *"), at("2023-12-31T12:00"), zone)
    assert fire == datetime(2024, 1, 1, 0, 0, 30, tzinfo=UTC)
