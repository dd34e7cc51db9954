"""Due math: given a schedule, its cursor and the time, what to do now.

Pure functions (no I/O).  Instants are aware UTC datetimes.  What an
issue's ``when`` means lives here, with the issue; the scanner
(:mod:`openalice.schedule.scan`) acts on it, and the issue views show the
next fire with the same rule.

- ``at``: due once when ``at <= now`` and the cursor's ``lastFire`` is not
  already at or after it (so a machine that was off still runs it, once).
- ``every``: anchored in UTC at the last accepted fire.  Never fired → due at
  first sight with slot ``now``.  Otherwise the slots are
  ``lastFire + k·interval``; the latest one ``<= now`` fires and the ones it
  jumped over are counted in ``missed`` (coalesced catch-up).
- ``cron``: the slots in ``(base, now]`` where ``base`` is the later of
  ``lastFire`` and ``skippedThrough``, else ``firstSeenAt``, else
  ``now - 60 s`` (first sight).  With catch-up (the default) the latest slot
  fires and ``missed`` counts the others (at most :data:`MAX_SLOTS` are
  counted; beyond that ``overflow`` is set).  With ``catchUp: false`` the
  latest slot fires only while it is fresh (at most
  :data:`CATCH_UP_FALSE_GRACE` old); otherwise the elapsed slots are skipped.
- A clock that went backwards (``now`` before ``lastFire`` or before the
  cursor's ``lastScanAt``) fires nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from openalice.core import clock
from openalice.core.cron import CronExpr, can_ever_fire, fires_between, next_fire_after
from openalice.core.errors import InvalidInput
from openalice.core.zones import resolve_zone

from .declaration import DEFAULT_CRON_TIMEZONE

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["MAX_SLOTS", "FIRST_SIGHT_LOOKBACK", "CATCH_UP_FALSE_GRACE", "Schedule", "Decision",
           "parse_schedule", "decide", "next_due", "cron_base", "parse_iso"]

MAX_SLOTS = 100
FIRST_SIGHT_LOOKBACK = timedelta(seconds=60)
# catchUp:false fires a slot only while it is this fresh.  A minute would be
# the scan interval itself; timers drift (systemd's AccuracySec defaults to a
# minute, launchd's StartInterval counts from load), so a slot seen 61 s late
# because the timer ran late must not count as "missed while off".
CATCH_UP_FALSE_GRACE = timedelta(seconds=120)
_UTC = timezone.utc


class Schedule:
    """A parsed ``when``: kind ``at`` / ``every`` / ``cron``, or ``problem``
    (why it can never fire) when the values are unusable."""

    __slots__ = ("kind", "at", "seconds", "expr", "zone", "timezone", "catch_up", "problem", "text")

    def __init__(self, kind: str, *, at: datetime | None = None, seconds: int | None = None,
                 expr: Any = None, zone: Any = None, timezone_name: str | None = None,
                 catch_up: bool = True, problem: str | None = None, text: str | None = None) -> None:
        self.kind = kind
        self.at = at
        self.seconds = seconds
        self.expr = expr
        self.zone = zone
        self.timezone = timezone_name
        self.catch_up = catch_up
        self.problem = problem
        self.text = text

    def __repr__(self) -> str:
        return f"Schedule({self.kind!r}, text={self.text!r}, problem={self.problem!r})"


class Decision:
    """What the scanner does with one issue now.

    ``action``: ``fire`` (run ``slot``), ``wait`` (not due; ``next_due`` says
    when), ``skip`` (catchUp:false slots elapsed: record ``skippedThrough``),
    ``spent`` (an ``at`` that already fired), ``never`` (``problem``),
    ``clock_backwards``.
    """

    __slots__ = ("action", "slot", "missed", "overflow", "next_due", "problem", "count")

    def __init__(self, action: str, *, slot: datetime | None = None, missed: int = 0,
                 overflow: bool = False, next_due: datetime | None = None,
                 problem: str | None = None, count: int = 0) -> None:
        self.action = action
        self.slot = slot
        self.missed = missed
        self.overflow = overflow
        self.next_due = next_due
        self.problem = problem
        self.count = count

    def __repr__(self) -> str:
        return (f"Decision({self.action!r}, slot={self.slot}, missed={self.missed}, "
                f"overflow={self.overflow}, next_due={self.next_due}, problem={self.problem!r})")


parse_iso = clock.instant_or_none  # an ISO instant (with offset) as aware UTC, or None


def parse_schedule(when: Any) -> Schedule | None:
    """The schedule of an issue's ``when`` (None when it has none)."""
    if not when:
        return None
    get = when.get if isinstance(when, dict) else (lambda k, d=None: getattr(when, k, d))
    kind = get("kind")
    if kind == "at":
        text = get("at")
        at = parse_iso(text)
        if at is None:
            return Schedule("at", problem=f"at: not an ISO 8601 instant with an offset: {str(text)[:60]!r}",
                            text=str(text))
        return Schedule("at", at=at, text=text)
    if kind == "every":
        # lazy: only `every` schedules need it; the health read verb must not load it
        from openalice.core.durations import parse_every

        text = get("every")
        seconds = parse_every(text)
        if seconds is None:
            return Schedule("every", problem=f"every: not a duration such as 30m or 2h15m30s: "
                                             f"{str(text)[:60]!r}", text=str(text))
        return Schedule("every", seconds=seconds, text=text.strip())
    if kind == "cron":
        text = get("cron")
        tz_name = get("timezone") or DEFAULT_CRON_TIMEZONE
        catch_up = get("catchUp")
        catch_up = True if catch_up is None else bool(catch_up)
        try:
            expr = CronExpr.parse(text)
        except InvalidInput as exc:
            return Schedule("cron", problem=f"cron: {exc.message}", text=str(text),
                            timezone_name=tz_name, catch_up=catch_up)
        if not can_ever_fire(expr):
            return Schedule("cron", problem=f"cron: {text!r} names days that never exist",
                            text=text, timezone_name=tz_name, catch_up=catch_up)
        try:
            zone = resolve_zone(tz_name)
        except InvalidInput as exc:
            return Schedule("cron", problem=f"timezone: {exc.message}", text=text,
                            timezone_name=tz_name, catch_up=catch_up)
        return Schedule("cron", expr=expr, zone=zone, timezone_name=tz_name, catch_up=catch_up,
                        text=text)
    return Schedule(str(kind), problem=f"unknown schedule kind {str(kind)[:40]!r}")


def _cursor_instant(cursor: dict | None, key: str) -> datetime | None:
    return parse_iso(cursor.get(key)) if cursor else None


def cron_base(cursor: dict | None, now: datetime) -> datetime:
    """The instant after which cron slots count as not yet handled."""
    handled = [t for t in (_cursor_instant(cursor, "lastFire"), _cursor_instant(cursor, "skippedThrough"))
               if t is not None]
    if handled:
        return max(handled)
    first_seen = _cursor_instant(cursor, "firstSeenAt")
    if first_seen is not None:
        return first_seen
    return now - FIRST_SIGHT_LOOKBACK


_to_ms = clock.to_ms  # exact integer milliseconds: float timestamps would drift over many slots
_from_ms = clock.from_ms


def _clock_backwards(cursor: dict | None, now: datetime) -> bool:
    for key in ("lastFire", "lastScanAt"):
        instant = _cursor_instant(cursor, key)
        if instant is not None and now < instant:
            return True
    return False


def decide(schedule: Schedule, cursor: dict | None, now: datetime) -> Decision:
    """What to do with this schedule at ``now`` given its cursor."""
    if schedule.problem:
        return Decision("never", problem=schedule.problem)
    if schedule.kind == "at":
        last = _cursor_instant(cursor, "lastFire")
        if last is not None and last >= schedule.at:
            return Decision("spent")
        if schedule.at <= now:
            return Decision("fire", slot=schedule.at, count=1)
        return Decision("wait", next_due=schedule.at)
    if _clock_backwards(cursor, now):
        return Decision("clock_backwards", next_due=None)
    if schedule.kind == "every":
        return _decide_every(schedule, cursor, now)
    return _decide_cron(schedule, cursor, now)


def _decide_every(schedule: Schedule, cursor: dict | None, now: datetime) -> Decision:
    last = _cursor_instant(cursor, "lastFire")
    if last is None:
        return Decision("fire", slot=now, count=1)
    interval = schedule.seconds * 1000
    elapsed = _to_ms(now) - _to_ms(last)
    k = elapsed // interval
    if k < 1:
        return Decision("wait", next_due=_from_ms(_to_ms(last) + interval))
    return Decision("fire", slot=_from_ms(_to_ms(last) + k * interval), missed=k - 1, count=k)


def _decide_cron(schedule: Schedule, cursor: dict | None, now: datetime) -> Decision:
    base = cron_base(cursor, now)
    first = next_fire_after(schedule.expr, base, schedule.zone)
    if first is None:
        return Decision("never", problem="cron: no fire time within the search horizon")
    if first > now:
        return Decision("wait", next_due=first)
    fires, overflow = fires_between(schedule.expr, base, now, schedule.zone, limit=MAX_SLOTS)
    slot = _latest_fire(schedule, fires[-1], now) if overflow else fires[-1]
    count = len(fires)
    missed = count if overflow else count - 1
    if not schedule.catch_up and now - slot > CATCH_UP_FALSE_GRACE:
        return Decision("skip", missed=missed, overflow=overflow, count=count,
                        next_due=next_fire_after(schedule.expr, now, schedule.zone))
    return Decision("fire", slot=slot, missed=missed, overflow=overflow, count=count)


def _latest_fire(schedule: Schedule, known: datetime, now: datetime) -> datetime:
    """The last fire ``<= now``, given one fire ``known <= now``.

    Windows ending at ``now`` grow until one holds a fire; inside it the fires
    are walked in chunks, so a dense schedule after a long outage costs a few
    chunks, not every slot since the outage.
    """
    for span in (timedelta(minutes=2), timedelta(minutes=32), timedelta(hours=9),
                 timedelta(days=6), timedelta(days=92), timedelta(days=1470)):
        start = now - span
        if start <= known:
            break
        fires, more = fires_between(schedule.expr, start, now, schedule.zone, limit=MAX_SLOTS)
        while more:
            fires, more = fires_between(schedule.expr, fires[-1], now, schedule.zone, limit=MAX_SLOTS)
        if fires:
            return fires[-1]
    latest = known
    while True:
        fires, more = fires_between(schedule.expr, latest, now, schedule.zone, limit=MAX_SLOTS)
        if fires:
            latest = fires[-1]
        if not more:
            return latest


def next_due(schedule: Schedule | None, cursor: dict | None, now: datetime) -> datetime | None:
    """When the issue is (or becomes) due given its cursor; may be ``<= now``
    (due now).  None: never (no schedule, a problem, a spent ``at``)."""
    if schedule is None or schedule.problem:
        return None
    if schedule.kind == "at":
        last = _cursor_instant(cursor, "lastFire")
        return None if last is not None and last >= schedule.at else schedule.at
    if schedule.kind == "every":
        last = _cursor_instant(cursor, "lastFire")
        if last is None:
            return now
        return _from_ms(_to_ms(last) + schedule.seconds * 1000)
    return next_fire_after(schedule.expr, cron_base(cursor, now), schedule.zone)
