import io
import json
from datetime import datetime, timezone

import pytest

from openalice.core import clock, errors, output


def test_now_honours_alice_now(monkeypatch):
    monkeypatch.setenv("ALICE_NOW", "2026-03-08T01:30:00-05:00")
    assert clock.now() == datetime(2026, 3, 8, 6, 30, tzinfo=timezone.utc)
    monkeypatch.setenv("ALICE_NOW", "yesterday")
    with pytest.raises(errors.InvalidInput) as info:
        clock.now()
    assert info.value.field == "ALICE_NOW"


def test_parse_instant_requires_offset():
    assert clock.parse_instant("2026-11-30T09:00:00Z").tzinfo is timezone.utc
    with pytest.raises(errors.InvalidInput, match="offset"):
        clock.parse_instant("2026-11-30T09:00:00")
    with pytest.raises(errors.InvalidInput):
        clock.parse_instant("")


def test_to_iso_and_ms():
    t = datetime(2026, 11, 30, 9, 0, 0, 250000, tzinfo=timezone.utc)
    assert clock.to_iso(t) == "2026-11-30T09:00:00.250Z"
    assert clock.to_iso(t.replace(microsecond=0)) == "2026-11-30T09:00:00Z"
    assert clock.from_ms(clock.to_ms(t)) == t


@pytest.mark.parametrize("cls,code", [
    (errors.OperationalError, 1), (errors.UsageError, 2), (errors.InvalidInput, 2),
    (errors.NotFound, 2), (errors.Conflict, 2), (errors.Unavailable, 3), (errors.Busy, 3),
    (errors.Forbidden, 4), (errors.PathEscape, 4)])
def test_exit_codes(cls, code):
    assert cls("x").exit_code == code


def test_error_envelope_and_location():
    err = errors.InvalidInput("must be a string", file="a.md", field="title", code="bad_title")
    assert str(err) == "a.md:title: must be a string"
    buf = io.StringIO()
    output.emit_error(err, json_mode=True, prog="alice", stdout=buf)
    doc = json.loads(buf.getvalue())
    assert doc == {"error": {"code": "bad_title", "message": "must be a string", "exit": 2,
                             "file": "a.md", "field": "title"}}
    buf = io.StringIO()
    output.emit_error(err, json_mode=False, prog="alice", stderr=buf)
    assert buf.getvalue() == "alice: error: a.md:title: must be a string\n"


def test_no_color(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert output.use_color(Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not output.use_color(Tty())
    assert output.style("x", "red", Tty()) == "x"
