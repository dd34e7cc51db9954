import random

import pytest

from openalice.core.durations import (
    EVERY_MAX_SECONDS,
    TIMEOUTS,
    format_seconds,
    parse_every,
    parse_every_strict,
    parse_timeout,
)
from openalice.core.errors import InvalidInput


@pytest.mark.parametrize("text, seconds", [
    # Reference item 23 (the original returned milliseconds: 1 800 000, 8 130 000).
    ("30m", 1800), ("2h15m30s", 8130), (" 30m ", 1800),
    ("1h", 3600), ("90s", 90), ("1h30m", 5400), ("2h30s", 7230), ("0h5m", 300),
    ("60m", 3600), ("24h", 86400), ("\t2h\n", 7200), ("007m", 420),
    ("87600h", 87600 * 3600),
])
def test_every_accepts(text, seconds):
    assert parse_every(text) == seconds
    assert parse_every_strict(text) == seconds


@pytest.mark.parametrize("text", [
    # Reference item 23.
    "1d", "30 minutes", "", "0m", "30m1h",
    "   ", "0h0m0s", "0s", "h", "m30", "30", "1H", "1h 30m", "30s1m", "1.5h", "-5m", "+5m",
    "\uff11h",            # a fullwidth digit
    "1h1h", "5ms", "1w",
    "87841h",             # just over ten years
    "9" * 5000 + "h",     # absurd: no huge int conversion, just None
])
def test_every_refuses(text):
    assert parse_every(text) is None
    with pytest.raises(InvalidInput) as caught:
        parse_every_strict(text, field="when.every")
    assert caught.value.code == "bad_every"
    assert caught.value.field == "when.every"
    assert caught.value.message.startswith("when.every ")


@pytest.mark.parametrize("value", [None, 30, 1.5, b"30m", ["30m"]])
def test_every_non_strings(value):
    assert parse_every(value) is None
    with pytest.raises(InvalidInput, match="duration string"):
        parse_every_strict(value)


def test_every_max_boundary():
    assert parse_every(f"{EVERY_MAX_SECONDS}s") == EVERY_MAX_SECONDS
    assert parse_every(f"{EVERY_MAX_SECONDS + 1}s") is None


@pytest.mark.parametrize("text, reason", [
    ("", "is empty"),
    ("1d", "not a duration"),
    ("30m1h", "in that order"),
    ("0m", "longer than zero"),
    ("99999h", "at most ten years"),
    ("1" * 20 + "s", "at most ten years"),
])
def test_every_strict_says_why(text, reason):
    with pytest.raises(InvalidInput) as caught:
        parse_every_strict(text)
    assert reason in caught.value.message
    assert caught.value.field == "every"


@pytest.mark.parametrize("text, seconds", sorted(TIMEOUTS.items()))
def test_timeouts(text, seconds):
    assert parse_timeout(text) == seconds


def test_timeout_table_is_the_fixed_four():
    assert TIMEOUTS == {"15m": 900, "30m": 1800, "45m": 2700, "60m": 3600}


@pytest.mark.parametrize("value", ["20m", "1h", " 30m", "30M", "", "90m", 30, None, 1800])
def test_other_timeouts_are_refused(value):
    with pytest.raises(InvalidInput) as caught:
        parse_timeout(value)
    assert caught.value.code == "bad_timeout"
    assert caught.value.field == "timeout"
    assert "15m, 30m, 45m, 60m" in caught.value.message


@pytest.mark.parametrize("seconds, text", [
    (8130, "2h15m30s"), (1800, "30m"), (3600, "1h"), (3601, "1h1s"), (59, "59s"), (0, "0s"),
    (90000, "25h"), (3660, "1h1m"),
])
def test_format_seconds(seconds, text):
    assert format_seconds(seconds) == text


@pytest.mark.parametrize("value", [-1, 1.0, "60", True, None])
def test_format_seconds_refuses_non_counts(value):
    with pytest.raises(ValueError):
        format_seconds(value)


def test_format_then_parse_round_trips():
    rng = random.Random(23)
    for _ in range(2000):
        seconds = rng.randrange(1, EVERY_MAX_SECONDS + 1)
        assert parse_every(format_seconds(seconds)) == seconds
