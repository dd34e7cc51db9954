"""A slow, obviously-correct reference for cron fire times (tests and bench only).

It shares no code with ``openalice.core.cron``: it expands the fields
itself and applies the documented rules in the most literal way.

* Stepped jobs (the minute or hour field starts with ``*``): walk real UTC
  minutes one by one and fire when the local wall time of that minute
  matches.  Whole UTC days whose wall dates cannot match are skipped.
* Fixed-time jobs: for every matching local date and every (hour, minute),
  find ALL UTC instants whose local wall time is exactly that, by trying every
  offset the zone uses near that date.  Several -> the first (repeated
  hour); none -> walk the wall clock forward minute by minute to the first
  wall time that exists (skipped hour).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

__all__ = ["expand", "oracle_next", "oracle_fires"]

UTC = timezone.utc
MINUTE = timedelta(minutes=1)
DAY = timedelta(days=1)

_NAMES = {
    3: {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)},
    4: {d: i for i, d in enumerate("sun mon tue wed thu fri sat".split())},
}
_BOUNDS = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


def expand(text: str) -> list[set[int]]:
    """The five value sets, written out plainly (assumes valid input)."""
    result = []
    for index, field in enumerate(text.split()):
        low, high = _BOUNDS[index]
        names = _NAMES.get(index, {})

        def number(token: str) -> int:
            return names[token.lower()] if token.lower() in names else int(token)

        values: set[int] = set()
        for item in field.split(","):
            step = 1
            stepped = "/" in item
            if stepped:
                item, step_text = item.split("/")
                step = int(step_text)
            if item == "*":
                first, last = low, high
            elif "-" in item:
                a, b = item.split("-")
                first, last = number(a), number(b)
            else:
                first = number(item)
                last = high if stepped else first
            v = first
            while v <= last:
                values.add(v)
                v += step
        result.append(values)
    return result


def _day_matches(fields: list[str], sets: list[set[int]], day: date) -> bool:
    if day.month not in sets[3]:
        return False
    cron_weekday = day.isoweekday() % 7  # Sunday = 0
    dom_ok = day.day in sets[2]
    dow_ok = cron_weekday in sets[4] or (cron_weekday == 0 and 7 in sets[4])
    if fields[2].startswith("*") or fields[4].startswith("*"):
        return dom_ok and dow_ok
    return dom_ok or dow_ok


def _wall(instant: datetime, zone) -> datetime:
    return instant.astimezone(zone).replace(tzinfo=None)


def oracle_fires(text: str, after: datetime, until: datetime, zone) -> list[datetime]:
    """Every fire instant in (after, until], ascending, as aware UTC."""
    fields = text.split()
    sets = expand(text)
    after = after.astimezone(UTC)
    until = until.astimezone(UTC)
    fixed = not (fields[0].startswith("*") or fields[1].startswith("*"))
    found = _fixed(fields, sets, after, until, zone) if fixed else _stepped(fields, sets, after, until, zone)
    return sorted(set(found))


def oracle_next(text: str, after: datetime, zone, until: datetime) -> datetime | None:
    """The first fire instant in (after, until], or None."""
    fields = text.split()
    sets = expand(text)
    after = after.astimezone(UTC)
    until = until.astimezone(UTC)
    fixed = not (fields[0].startswith("*") or fields[1].startswith("*"))
    if fixed:
        found = _fixed(fields, sets, after, until, zone, first_only=True)
        return min(found) if found else None
    found = _stepped(fields, sets, after, until, zone, first_only=True)
    return found[0] if found else None


def _stepped(fields, sets, after, until, zone, first_only=False) -> list[datetime]:
    out = []
    minute = after.replace(second=0, microsecond=0) + MINUTE
    day_start = minute.replace(hour=0, minute=0)
    while day_start <= until:
        day_end = day_start + DAY
        # Wall dates seen during this UTC day (hourly samples, widened by a
        # day each side); if none can match, no minute of the day can.
        samples = [_wall(day_start + timedelta(hours=h), zone).date() for h in range(25)]
        lowest, highest = min(samples) - DAY, max(samples) + DAY
        candidates = [lowest + timedelta(days=k) for k in range((highest - lowest).days + 1)]
        if any(_day_matches(fields, sets, d) for d in candidates):
            instant = max(minute, day_start)
            while instant < day_end and instant <= until:
                wall = _wall(instant, zone)
                if (wall.minute in sets[0] and wall.hour in sets[1]
                        and _day_matches(fields, sets, wall.date())):
                    out.append(instant)
                    if first_only:
                        return out
                instant += MINUTE
        day_start = day_end
    return out


def _offsets_near(day: date, zone, _cache={}) -> set[timedelta]:
    key = (day, str(zone))
    if key in _cache:
        return _cache[key]
    if len(_cache) > 20000:
        _cache.clear()
    base = datetime(day.year, day.month, day.day, tzinfo=UTC) - 2 * DAY
    offsets = {(base + timedelta(minutes=30 * k)).astimezone(zone).utcoffset() for k in range(48 * 5)}
    _cache[key] = offsets
    return offsets


def _instants_with_wall(wall: datetime, offsets: set[timedelta], zone) -> list[datetime]:
    out = []
    for offset in offsets:
        instant = (wall - offset).replace(tzinfo=UTC)
        if _wall(instant, zone) == wall:
            out.append(instant)
    return sorted(out)


def _fixed(fields, sets, after, until, zone, first_only=False) -> list[datetime]:
    out: list[datetime] = []
    day = _wall(after, zone).date() - 2 * DAY
    last_day = _wall(until, zone).date() + 2 * DAY
    stop_after = None
    while day <= last_day:
        if stop_after is not None and day > stop_after:
            break
        if _day_matches(fields, sets, day):
            offsets = _offsets_near(day, zone)
            for hour in sorted(sets[1]):
                for minute in sorted(sets[0]):
                    wall = datetime(day.year, day.month, day.day, hour, minute)
                    instants = _instants_with_wall(wall, offsets, zone)
                    while not instants:  # a skipped wall time: walk to the first real one
                        wall += MINUTE
                        instants = _instants_with_wall(wall, _offsets_near(wall.date(), zone), zone)
                    fire = instants[0]
                    if after < fire <= until:
                        out.append(fire)
                        if first_only and stop_after is None:
                            # instants of later dates can only be later once
                            # we are a couple of days past this one
                            stop_after = day + 2 * DAY
        day += DAY
    return out
