import io
import json
import re
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


def test_printable_escapes_what_could_drive_a_terminal():
    from openalice.core.output import printable, yes_no

    assert printable("plain\ttab\nnext") == "plain\ttab\nnext"
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("over\rwrite") == "over\\x0dwrite" and printable("crlf\r\n") == "crlf\n"
    assert printable("bell\x07 nul\x00 del\x7f c1\x9b") == "bell\\x07 nul\\x00 del\\x7f c1\\x9b"
    assert printable("evil\u202etxt.exe") == "evil\\u202etxt.exe"
    assert printable("lone \udcff") == "lone \\udcff"
    assert printable("ünïcode ✓ 日本") == "ünïcode ✓ 日本"
    assert (yes_no(True), yes_no(False), yes_no(None), yes_no(3)) == ("yes", "no", "-", "3")


def test_every_human_path_of_output_escapes(capsys):
    import io

    from openalice.core import output
    from openalice.core.errors import InvalidInput

    out, err = io.StringIO(), io.StringIO()
    output.emit({"x": 1}, json_mode=False, human=lambda d: "engine said \x1b[31mred", stream=out)
    output.warn("wrapper \x1b]0;title\x07", stream=err)
    output.emit_error(InvalidInput("bad \x1b[K", details={"hint": "h\x1b"}), json_mode=False,
                      prog="t", stderr=err)
    assert "\x1b" not in out.getvalue() + err.getvalue()
    assert out.getvalue() == "engine said \\x1b[31mred\n"
    json_out = io.StringIO()
    output.emit({"text": "\x1b"}, json_mode=True, stream=json_out)
    assert '"\\u001b"' in json_out.getvalue()  # JSON keeps the value, in JSON's own escape


def test_a_message_that_names_its_flag_is_not_prefixed_twice():
    err = errors.UsageError("--digest must be the 64-hex digest a preview printed", field="--digest")
    assert str(err) == "--digest must be the 64-hex digest a preview printed"
    # a field the message does not start with is still named, and a file always is
    assert str(errors.UsageError("must be 64 hex", field="--digest")) == "--digest: must be 64 hex"
    assert str(errors.InvalidInput("title must be text", file="a.md", field="title")) == \
        "a.md:title: title must be text"


def test_one_paging_hint_for_every_before_listing():
    more = {"runs": [{}], "hasMore": True, "nextBefore": "run-x"}
    assert output.page_hint("alice-schedule runs", more, "runs") == "more: alice-schedule runs --before run-x"
    assert output.page_hint("alice-schedule runs", {**more, "hasMore": False}, "runs") == ""
    empty = {"entries": [], "hasMore": False}
    assert output.page_hint("alice inbox list", empty, "entries") == "no entries"
    assert output.page_hint("alice inbox list", empty, "entries", before="x") == "no entries (unknown --before id?)"


def test_one_json_printer_for_documents_and_state_files():
    from openalice.core import fs
    from tests.conftest import REPO

    doc = {"é": [1, None], "n": {"x": True}}
    assert fs.dump_json(doc) == output.to_json(doc) + "\n" and "é" in output.to_json(doc)
    assert fs.dump_json(doc, indent=None) == output.to_json(doc, indent=None) + "\n"
    pretty = re.compile(r"json\.dumps?\((?:[^()]|\([^()]*\))*\bindent=")  # a call that indents
    printers = sorted(str(p.relative_to(REPO)) for p in (REPO / "openalice").rglob("*.py")
                      if pretty.search(p.read_text(encoding="utf-8")))
    assert printers == ["openalice/core/output.py"], printers
