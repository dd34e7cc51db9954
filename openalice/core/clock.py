"""The injected clock and the one ISO 8601 format.

``ALICE_NOW`` (ISO 8601 with an offset) freezes the clock for tests and
replays; only the CLI layer asks :func:`now`, domain functions take ``now`` as
an argument.  Instants are written as UTC with a ``Z`` suffix.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

from .errors import InvalidInput

__all__ = ["EARLIEST_CLOCK", "LATEST_CLOCK", "now", "parse_instant", "instant_or_none", "parse_clock",
           "to_iso", "to_ms", "from_ms", "floor_ms"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

#: The range a clock (``--now``, ``ALICE_NOW``) may be set to.  Schedules add up to
#: ten years (``every``) or search years ahead (cron) from the clock, and
#: ``datetime`` ends at 9999: a clock at 9999-12-31 would overflow there.
EARLIEST_CLOCK = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST_CLOCK = datetime(9000, 1, 1, tzinfo=timezone.utc)


def parse_instant(text: str, *, field: str | None = None, file: object = None) -> datetime:
    """Parse an ISO 8601 instant; it must carry an offset (``Z`` or ``±HH:MM``)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("expected an ISO 8601 instant with an offset", field=field, file=file,
                           code="bad_instant")
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput(f"not an ISO 8601 instant: {text!r}", field=field, file=file,
                           code="bad_instant") from None
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(f"instant needs an offset such as Z or +01:00: {text!r}", field=field,
                           file=file, code="bad_instant")
    try:
        return value.astimezone(timezone.utc)
    except OverflowError:
        raise InvalidInput(f"instant out of range: {text!r}", field=field, file=file,
                           code="bad_instant") from None


def instant_or_none(text: object) -> datetime | None:
    """:func:`parse_instant` for data that may hold anything (a cursor, a
    cache): the instant, or None where it would refuse the text."""
    if not isinstance(text, str):
        return None
    try:
        return parse_instant(text)
    except InvalidInput:
        return None


def parse_clock(text: str, *, field: str) -> datetime:
    """An instant to set the clock to (``--now``, ``ALICE_NOW``): as
    :func:`parse_instant`, and within [``EARLIEST_CLOCK``, ``LATEST_CLOCK``)."""
    value = parse_instant(text, field=field)
    if not EARLIEST_CLOCK <= value < LATEST_CLOCK:
        raise InvalidInput(f"{text.strip()!r} is outside the supported clock range "
                           f"({to_iso(EARLIEST_CLOCK)} up to {to_iso(LATEST_CLOCK)})", field=field,
                           code="bad_instant")
    return value


def now() -> datetime:
    """The current instant (aware, UTC), or ``ALICE_NOW`` when set."""
    frozen = os.environ.get("ALICE_NOW")
    if frozen:
        return parse_clock(frozen, field="ALICE_NOW")
    return datetime.now(timezone.utc)


def to_iso(value: datetime) -> str:
    """``2026-11-30T09:00:00Z`` (milliseconds only when present)."""
    value = value.astimezone(timezone.utc)
    if value.microsecond:
        text = value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    else:
        text = value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return text


def to_ms(value: datetime) -> int:
    """Epoch milliseconds of an aware instant, exactly: integer arithmetic,
    sub-millisecond part dropped (a float timestamp would drift over many
    slots and round some instants to the neighbouring millisecond)."""
    delta = value - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000


def from_ms(ms: int) -> datetime:
    """The aware UTC instant of epoch milliseconds ``ms`` (exact)."""
    return _EPOCH + timedelta(milliseconds=ms)


def floor_ms(value: datetime) -> datetime:
    """``value`` without its sub-millisecond part (instants are kept to the millisecond)."""
    return value.replace(microsecond=value.microsecond - value.microsecond % 1000)
