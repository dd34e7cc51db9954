"""The next fire instants of one schedule, in UTC and in its zone.

Each instant says whether DST shaped it: ``gap`` when a fixed-time cron job's
wall time did not exist that day and it moved to the first minute after the
gap, ``repeated`` when its local wall time occurs twice that day (a fixed-time
job fires only at the first occurrence; a stepped job fires in both).
``every`` and ``at`` schedules are shown in the machine's zone; they are
computed in UTC, so DST never moves them.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from openalice.core import clock
from openalice.core.cron import next_fire_after
from openalice.core.zones import resolve_zone
from openalice.issues import due

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


__all__ = ["upcoming", "MAX_COUNT"]

MAX_COUNT = 1000
_UTC = timezone.utc


def _local_iso(instant: datetime, zone) -> str:
    return instant.astimezone(zone).isoformat()


def _dst_note(instant: datetime, schedule) -> str | None:
    zone = schedule.zone
    local = instant.astimezone(zone)
    wall = local.replace(tzinfo=None)
    if schedule.kind == "cron":
        expr = schedule.expr
        if expr.is_fixed_time and (wall.minute not in expr.minutes or wall.hour not in expr.hours):
            return "gap"
    first = wall.replace(fold=0).replace(tzinfo=zone).utcoffset()
    second = wall.replace(fold=1).replace(tzinfo=zone).utcoffset()
    if first != second:
        return "repeated"
    return None


def _instant(instant: datetime, schedule, zone) -> dict:
    note = _dst_note(instant, schedule) if schedule.kind == "cron" else None
    item: dict[str, Any] = {"utc": clock.to_iso(instant), "local": _local_iso(instant, zone),
                            "dstAdjusted": note is not None}
    if note:
        item["dst"] = note
    return item


def upcoming(schedule, cursor: dict | None, *, now: datetime, count: int = 5) -> dict:
    """``{due, instants, timezone, problem?}`` for a parsed schedule.

    ``due`` is what a scan at ``now`` would fire (``{slot, missed}``) or
    None; ``instants`` are the next ``count`` fire instants strictly after
    ``now`` given the cursor.
    """
    count = max(0, min(int(count), MAX_COUNT))
    zone = schedule.zone if schedule.kind == "cron" and schedule.zone is not None else resolve_zone("local")
    out: dict[str, Any] = {"timezone": schedule.timezone if schedule.kind == "cron" else "local",
                           "due": None, "instants": []}
    if schedule.problem:
        out["problem"] = schedule.problem
        return out
    decision = due.decide(schedule, cursor, now)
    if decision.action == "fire":
        out["due"] = {"slot": clock.to_iso(decision.slot), "missed": decision.missed}
        if decision.overflow:
            out["due"]["missedOverflow"] = True
    elif decision.action == "clock_backwards":
        out["clockBackwards"] = True
    instants: list[datetime] = []
    if schedule.kind == "at":
        if decision.action in ("fire", "wait") and schedule.at > now:
            instants.append(schedule.at)
    elif schedule.kind == "every":
        step = timedelta(seconds=schedule.seconds)
        last = due.parse_iso(cursor.get("lastFire")) if cursor else None
        anchor = now if last is None else last
        # first anchored instant strictly after now
        if anchor > now:
            current = anchor
        else:
            k = int((now - anchor) // step) + 1
            current = anchor + k * step
        while len(instants) < count:
            instants.append(current)
            current = current + step
    else:
        current = now
        while len(instants) < count:
            fire = next_fire_after(schedule.expr, current, schedule.zone)
            if fire is None:
                break
            instants.append(fire)
            current = fire
    out["instants"] = [_instant(i, schedule, zone) for i in instants[:count]]
    return out
