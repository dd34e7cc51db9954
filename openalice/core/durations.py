"""Durations written as ``2h15m30s`` and the fixed run timeouts.

The ``every`` grammar is hours, minutes and seconds, each optional, in that
order, with no spaces inside: ``30m``, ``2h15m30s``, ``90s``.  There is no
``d``: a day is ``24h``, which says plainly that it is 24 real hours and not
"the same wall time tomorrow".
"""

from __future__ import annotations

from openalice.core import patterns
from openalice.core.errors import InvalidInput, excerpt

__all__ = [
    "EVERY_MAX_SECONDS", "TIMEOUTS", "parse_every", "parse_every_strict",
    "parse_timeout", "format_seconds",
]

# Ten years: longer intervals are typos, and huge numbers would overflow
# datetime arithmetic later.
EVERY_MAX_SECONDS = 10 * 366 * 24 * 3600

TIMEOUTS = {"15m": 900, "30m": 1800, "45m": 2700, "60m": 3600}

# re.ASCII keeps `\d`-like classes from matching other scripts' digits; the
# 12-digit cap keeps int() cheap and far below the 10-year limit anyway.
_EVERY = patterns.compile("(?a)" r"(?:([0-9]{1,12})h)?(?:([0-9]{1,12})m)?(?:([0-9]{1,12})s)?")
_EVERY_SHAPE = patterns.compile("(?a)" r"(?:[0-9]+h)?(?:[0-9]+m)?(?:[0-9]+s)?")


def parse_every(text: object) -> int | None:
    """Seconds for an ``every`` value, or None when it is not one.

    Surrounding whitespace is ignored.  None for: another unit (``1d``),
    words (``30 minutes``), the wrong order (``30m1h``), empty text, a zero
    total, or more than ten years.
    """
    if not isinstance(text, str):
        return None
    match = _EVERY.fullmatch(text.strip())
    if match is None:
        return None
    hours, minutes, seconds = (int(part) if part else 0 for part in match.groups())
    total = hours * 3600 + minutes * 60 + seconds
    if total <= 0 or total > EVERY_MAX_SECONDS:
        return None
    return total


def parse_every_strict(text: object, *, field: str = "every") -> int:
    """Like :func:`parse_every`, but raise InvalidInput saying what is wrong."""
    seconds = parse_every(text)
    if seconds is not None:
        return seconds
    if not isinstance(text, str):
        reason = "must be a duration string such as `30m` or `2h15m30s`"
    elif not text.strip():
        reason = "is empty; write a duration such as `30m` or `2h15m30s`"
    elif _EVERY_SHAPE.fullmatch(text.strip()) is None:
        reason = (f"`{excerpt(text.strip())}` is not a duration: use hours, minutes and seconds "
                  "in that order with no spaces, such as `30m`, `1h`, `2h15m30s` (`d` is not a unit; write `24h`)")
    elif _EVERY.fullmatch(text.strip()) is not None and _total_of(text.strip()) == 0:
        reason = "must be longer than zero"
    else:
        reason = "must be at most ten years"
    raise InvalidInput(f"{field} {reason}", code="bad_every", field=field)


def parse_timeout(text: object) -> int:
    """Seconds for a run timeout, one of ``15m``, ``30m``, ``45m``, ``60m``."""
    if isinstance(text, str) and text in TIMEOUTS:
        return TIMEOUTS[text]
    shown = f"`{excerpt(text)}`" if isinstance(text, str) else "this value"
    raise InvalidInput(f"timeout must be one of {', '.join(TIMEOUTS)}; {shown} is not allowed",
                       code="bad_timeout", field="timeout")


def format_seconds(seconds: int) -> str:
    """Write seconds in the ``every`` grammar: 8130 -> ``2h15m30s``, 0 -> ``0s``."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 0:
        raise ValueError(f"format_seconds needs a non-negative int, got {seconds!r}")
    if seconds == 0:
        return "0s"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(hours, "h"), (minutes, "m"), (secs, "s")]
    return "".join(f"{value}{unit}" for value, unit in parts if value)


def _total_of(text: str) -> int:
    match = _EVERY.fullmatch(text)
    hours, minutes, seconds = (int(part) if part else 0 for part in match.groups())
    return hours * 3600 + minutes * 60 + seconds
