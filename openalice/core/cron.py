"""Five-field cron expressions evaluated in a time zone, DST included.

Grammar (``minute hour day-of-month month day-of-week``): ``*``, numbers,
ranges ``a-b``, steps ``*/n``, ``a-b/n`` and ``a/n`` (= ``a-max/n``), lists
``x,y``; month names ``jan``-``dec`` and day names ``sun``-``sat`` in any
case; day-of-week 0-7 where both 0 and 7 are Sunday.  ``@daily``-style
shortcuts, a seconds field and the Quartz extensions ``L W # ?`` are refused.

Day rule (Vixie/Debian cron, as cronsim implements it): when both day fields
are restricted a day matches if EITHER matches; a field whose text starts
with ``*`` (``*``, ``*/2``) counts as unrestricted and the fields are ANDed.

DST rule (Vixie ``cron.8``): a *fixed-time* job (neither the minute nor the
hour field starts with ``*``) whose wall time falls in a skipped interval
fires once at the first real minute after the gap, and in a repeated interval
fires once, at the first occurrence.  Any other job matches the wall time of
every real minute, so it fires in both copies of a repeated hour and never
inside a gap.

Fire instants are a fixed set of UTC instants; :func:`next_fire_after` is the
least of them strictly after a given instant.  The search goes field by
field through local wall time (month, day, hour, minute) and maps the wall
candidate to UTC, so sparse schedules cost a handful of steps.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import datetime, timedelta, timezone, tzinfo

from openalice.core.errors import InvalidInput, excerpt

__all__ = ["CronExpr", "HORIZON_YEARS", "next_fire_after", "fires_between", "can_ever_fire"]

# Searching stops this many years past the start (cronsim uses the same
# bound).  Any expression that can fire at all fires within 40 years: the
# rarest case is 29 February on a given weekday.
HORIZON_YEARS = 50

_UTC = timezone.utc
_MINUTE = timedelta(minutes=1)
_SECOND = timedelta(seconds=1)
_MAX_TEXT = 1000
_MAX_DAYS = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTH_NAMES = {name: number for number, name in enumerate(
    "JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split(), start=1)}
_DAY_NAMES = {name: number for number, name in enumerate("SUN MON TUE WED THU FRI SAT".split())}

# (name, lowest, highest, names)
_FIELDS = (
    ("minute", 0, 59, None),
    ("hour", 0, 23, None),
    ("day-of-month", 1, 31, None),
    ("month", 1, 12, _MONTH_NAMES),
    ("day-of-week", 0, 7, _DAY_NAMES),
)
_FORM = "minute hour day-of-month month day-of-week"


class CronExpr:
    """A parsed five-field expression.  Build it with :meth:`parse`.

    ``minutes``, ``hours``, ``days_of_month``, ``months`` and ``days_of_week``
    are the expanded sets (day-of-week 0-6, Sunday = 0; a 7 is folded to 0).
    ``day_or`` is True when both day fields are restricted (either matches).
    ``is_fixed_time`` selects the DST rule for specific-time jobs.
    """

    __slots__ = ("text", "fields", "minutes", "hours", "days_of_month", "months",
                 "days_of_week", "day_or", "is_fixed_time",
                 "_next_minute", "_next_hour", "_next_month", "_month_cache", "_can_fire")

    _cache: dict[str, "CronExpr"] = {}

    @classmethod
    def parse(cls, text: str) -> "CronExpr":
        """Parse ``text``; raise InvalidInput(code="bad_cron") naming the bad field."""
        if isinstance(text, str):
            cached = cls._cache.get(text)
            if cached is not None:
                return cached
        expr = cls._build(text)
        if len(cls._cache) >= 1024:
            cls._cache.clear()
        cls._cache[text] = expr
        return expr

    @classmethod
    def _build(cls, text: object) -> "CronExpr":
        if not isinstance(text, str):
            raise _bad("cron expression must be a string")
        if len(text) > _MAX_TEXT:
            raise _bad(f"cron expression is longer than {_MAX_TEXT} characters")
        fields = text.split()
        if not fields:
            raise _bad(f"cron expression is empty; write 5 fields: {_FORM}")
        if fields[0].startswith("@"):
            raise _bad(f"cron shortcut `{excerpt(fields[0])}` is not supported; write the 5 fields "
                       f"({_FORM}), e.g. `0 0 * * *` for daily")
        if len(fields) != 5:
            raise _bad(f"cron expression must have exactly 5 fields ({_FORM}); got {len(fields)}"
                       + (" (a seconds or year field is not supported)" if len(fields) in (6, 7) else ""))
        sets = [_parse_field(field, spec) for field, spec in zip(fields, _FIELDS)]
        self = object.__new__(cls)
        self.text = text
        self.fields = tuple(fields)
        self.minutes, self.hours, self.days_of_month, self.months = (frozenset(s) for s in sets[:4])
        self.days_of_week = frozenset(day % 7 for day in sets[4])
        self.day_or = not (fields[2].startswith("*") or fields[4].startswith("*"))
        self.is_fixed_time = not (fields[0].startswith("*") or fields[1].startswith("*"))
        self._next_minute = _next_table(self.minutes, 60)
        self._next_hour = _next_table(self.hours, 24)
        self._next_month = _next_table(self.months, 13)
        self._month_cache = {}
        # Every weekday occurs in every month, so an OR rule always fires; an
        # AND rule needs a day-of-month that some chosen month has (any real
        # date falls on each weekday within 40 years).
        self._can_fire = self.day_or or any(
            day <= _MAX_DAYS[month] for month in self.months for day in self.days_of_month)
        return self

    def __repr__(self) -> str:
        return f"CronExpr({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CronExpr) and self.fields == other.fields

    def __hash__(self) -> int:
        return hash(self.fields)

    def _month_days(self, year: int, month: int) -> tuple[int, ...]:
        """The matching days of one month, ascending."""
        key = year * 16 + month
        days = self._month_cache.get(key)
        if days is None:
            if len(self._month_cache) >= 4096:
                self._month_cache.clear()
            length = _MAX_DAYS[month]
            if month == 2 and (year % 4 or (year % 100 == 0 and year % 400)):
                length = 28
            weekday_of_first = (datetime(year, month, 1).weekday() + 1) % 7  # cron: Sunday = 0
            doms, dows, either = self.days_of_month, self.days_of_week, self.day_or
            days = tuple(
                day for day in range(1, length + 1)
                if ((day in doms) or ((weekday_of_first + day - 1) % 7 in dows) if either
                    else (day in doms) and ((weekday_of_first + day - 1) % 7 in dows)))
            self._month_cache[key] = days
        return days

    def _next_wall(self, year: int, month: int, day: int, hour: int, minute: int,
                   last_year: int) -> tuple[int, int, int, int, int] | None:
        """The first matching wall time at or after the given one (values may
        overflow by one, e.g. minute 60), or None past ``last_year``."""
        next_month, next_hour, next_minute = self._next_month, self._next_hour, self._next_minute
        while year <= last_year:
            found_month = next_month[month] if month <= 12 else -1
            if found_month < 0:
                year, month, day, hour, minute = year + 1, 1, 1, 0, 0
                continue
            if found_month != month:
                month, day, hour, minute = found_month, 1, 0, 0
            days = self._month_days(year, month)
            index = bisect_left(days, day)
            if index == len(days):
                month, day, hour, minute = month + 1, 1, 0, 0
                continue
            if days[index] != day:
                day, hour, minute = days[index], 0, 0
            found_hour = next_hour[hour]
            if found_hour < 0:
                day, hour, minute = day + 1, 0, 0
                continue
            if found_hour != hour:
                hour, minute = found_hour, 0
            found_minute = next_minute[minute]
            if found_minute < 0:
                hour, minute = hour + 1, 0
                continue
            return year, month, day, hour, found_minute
        return None


def can_ever_fire(expr: CronExpr | str) -> bool:
    """False for expressions whose days never exist, like ``0 0 30 2 *``.

    A string is parsed first (so bad syntax raises InvalidInput).
    """
    if not isinstance(expr, CronExpr):
        expr = CronExpr.parse(expr)
    return expr._can_fire


def next_fire_after(expr: CronExpr | str, after: datetime, zone: tzinfo) -> datetime | None:
    """The first fire instant strictly after ``after`` (aware), as an aware
    UTC datetime at second 0; None if there is none within HORIZON_YEARS."""
    if not isinstance(expr, CronExpr):
        expr = CronExpr.parse(expr)
    if after.tzinfo is None or after.utcoffset() is None:
        raise ValueError("next_fire_after needs an aware datetime")
    if not expr._can_fire:
        return None
    try:
        found = _next_fire(expr, after, zone)
    except OverflowError:  # the search ran off the end of datetime's range
        return None
    return None if found is None else found.replace(tzinfo=_UTC)


def fires_between(expr: CronExpr | str, start: datetime, end: datetime, zone: tzinfo, *,
                  limit: int = 100) -> tuple[list[datetime], bool]:
    """Fire instants in ``(start, end]`` ascending, at most ``limit`` of them,
    and whether more were left out."""
    if not isinstance(expr, CronExpr):
        expr = CronExpr.parse(expr)
    found: list[datetime] = []
    cursor = start
    while True:
        fire = next_fire_after(expr, cursor, zone)
        if fire is None or fire > end:
            return found, False
        if len(found) >= limit:
            return found, True
        found.append(fire)
        cursor = fire


def _next_fire(expr: CronExpr, after: datetime, zone: tzinfo) -> datetime | None:
    # Instants below are naive UTC, wall times naive local.  Offsets come
    # from zone.utcoffset(naive wall time), which reads only the fields and
    # `fold` (PEP 495) and is far cheaper than attaching the zone.
    after_utc = after.astimezone(_UTC).replace(tzinfo=None)
    local = after.astimezone(zone)
    year, month, day, hour, minute = local.year, local.month, local.day, local.hour, local.minute
    if not expr.is_fixed_time and local.fold == 0:
        later_offset = zone.utcoffset(datetime(year, month, day, hour, minute, local.second, fold=1))
        if later_offset != local.utcoffset():
            # `after` is in the first pass of a repeated interval; the second
            # pass (still ahead) begins at earlier wall times.
            wall = after_utc + later_offset
            year, month, day, hour, minute = wall.year, wall.month, wall.day, wall.hour, wall.minute
    minute += 1  # strictly after; _next_wall carries the overflow
    last_year = min(year + HORIZON_YEARS, 9999)
    fixed = expr.is_fixed_time
    best = None
    while True:
        found = expr._next_wall(year, month, day, hour, minute, last_year)
        if found is None:
            return best
        year, month, day, hour, minute = found
        candidate = datetime(year, month, day, hour, minute)
        offset = zone.utcoffset(candidate)  # fold=0
        later_offset = zone.utcoffset(datetime(year, month, day, hour, minute, fold=1))
        if fixed:
            if offset >= later_offset:  # a real wall time; fold=0 is its first occurrence
                instant = candidate - offset
            else:                        # inside a gap
                instant = _gap_end(candidate, zone, offset, later_offset)
            if instant > after_utc:
                return instant
        elif offset >= later_offset:     # stepped jobs never fire inside a gap
            instant = candidate - offset
            if instant > after_utc:
                return instant if best is None or instant < best else best
            if offset != later_offset:
                second_pass = candidate - later_offset
                if second_pass > after_utc and (best is None or second_pass < best):
                    best = second_pass
        minute += 1


def _gap_end(wall: datetime, zone: tzinfo, before: timedelta, after: timedelta) -> datetime:
    """The first real minute after the gap that ``wall`` falls in (naive UTC).

    PEP 495 maps a gap time with fold=0 through the offset before the
    transition and with fold=1 through the offset after it, so the
    transition lies in (wall - after, wall - before]; bisect it on seconds.
    """
    low, high = wall - after, wall - before
    while high - low > _SECOND:
        middle = low + timedelta(seconds=(high - low).total_seconds() // 2)
        if middle.replace(tzinfo=_UTC).astimezone(zone).utcoffset() == before:
            low = middle
        else:
            high = middle
    first_wall = high + after
    if first_wall.second or first_wall.microsecond:
        first_wall = first_wall.replace(second=0, microsecond=0) + _MINUTE
    return first_wall - after


def _parse_field(text: str, spec: tuple) -> set[int]:
    name, lowest, highest, names = spec
    values: set[int] = set()
    for item in text.split(","):
        if not item:
            raise _field_error(name, text, "has an empty list item")
        _refuse_extensions(name, text, item)
        base, slash, step_text = item.partition("/")
        if slash:
            step = _number(name, text, step_text, "step")
            span = highest - lowest + 1
            if step == 0:
                raise _field_error(name, text, "step must be greater than 0")
            if step > span:
                raise _field_error(name, text, f"step {step} is larger than the field's range "
                                               f"{lowest}-{highest}")
        else:
            step = 1
        if base == "*":
            first, last = lowest, highest
        elif "-" in base:
            first_text, _, last_text = base.partition("-")
            first = _value(name, text, first_text, lowest, highest, names)
            last = _value(name, text, last_text, lowest, highest, names)
            if first > last:
                raise _field_error(name, text, f"range {first_text}-{last_text} runs backwards "
                                               "(wrap-around ranges are not supported; use a list)")
        else:
            first = _value(name, text, base, lowest, highest, names)
            last = highest if slash else first
        values.update(range(first, last + 1, step))
    return values


def _refuse_extensions(name: str, text: str, item: str) -> None:
    if "?" in item:
        raise _field_error(name, text, "`?` is not supported; use `*`")
    if "#" in item:
        raise _field_error(name, text, "`#` (nth weekday of the month) is not supported")
    upper = item.upper()
    if upper in ("L", "LW") or (upper.endswith(("L", "W")) and upper[:-1].isdigit() and upper[:-1].isascii()):
        what = "`W` (nearest weekday)" if upper.endswith("W") else "`L` (last day)"
        raise _field_error(name, text, f"{what} is not supported")


def _number(name: str, text: str, token: str, what: str) -> int:
    if not token or not token.isascii() or not token.isdigit():
        raise _field_error(name, text, f"{what} `{excerpt(token)}` is not a number")
    if len(token) > 4:
        raise _field_error(name, text, f"{what} `{excerpt(token)}` is too large")
    return int(token)


def _value(name: str, text: str, token: str, lowest: int, highest: int, names: dict | None) -> int:
    if token.isascii() and token.isalpha():
        if names is None:
            raise _field_error(name, text, f"`{excerpt(token)}` is not a number (names are allowed "
                                           "only in the month and day-of-week fields)")
        value = names.get(token.upper())
        if value is None:
            kind = "month" if name == "month" else "day"
            raise _field_error(name, text, f"`{excerpt(token)}` is not a {kind} name "
                                           f"({', '.join(n.lower() for n in names)})")
        return value
    if not token or not token.isascii() or not token.isdigit():
        raise _field_error(name, text, f"`{excerpt(token)}` is not a number")
    value = int(token) if len(token) <= 4 else highest + 1
    if not lowest <= value <= highest:
        raise _field_error(name, text, f"{excerpt(token)} is out of range {lowest}-{highest}")
    return value


def _next_table(values: frozenset[int], size: int) -> list[int]:
    """``table[x]`` = least value >= x, or -1; one slot past the end."""
    table: list[int] = []
    for value in sorted(values):
        table.extend([value] * (value + 1 - len(table)))
    table.extend([-1] * (size + 1 - len(table)))
    return table


def _field_error(name: str, text: str, reason: str) -> InvalidInput:
    return _bad(f"cron {name} field `{excerpt(text)}`: {reason}", cron_field=name)


def _bad(message: str, cron_field: str | None = None) -> InvalidInput:
    details = {"cronField": cron_field} if cron_field else None
    return InvalidInput(message, code="bad_cron", details=details)
