"""The nothing-due fast path answers exactly what the full scan would, and
only when the cache proves nothing changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from openalice.schedule import fastpath
from tests.conftest import REPO
from tests.schedule.conftest import T
from tests.schedule.fakeissues import at, cron, every, write_issue


def quick(now: str, dry_run: bool = False):
    return fastpath.quick_scan(fastpath.load_cache(), now_ms=fastpath.epoch_ms(T(now)),
                               now_iso=now, dry_run=dry_run)


def populate(sched):
    a, b = sched.workspace("a"), sched.workspace("b")
    empty = sched.workspace("empty")
    (empty.root / ".alice" / "issues").rmdir()  # absent: no issues directory at all
    write_issue(a.path, "daily", when=cron("0 3 * * *"))
    write_issue(a.path, "later", when=at("2027-01-01T00:00:00Z"))
    write_issue(a.path, "soon", when=every("soon"))
    write_issue(b.path, "note")
    write_issue(b.path, "finished", when=every("5m"), status="done")
    (b.root / ".alice" / "issues" / "broken.md").write_text("{oops")
    return a, b, empty


def test_quick_report_equals_the_full_scan_report(sched):
    populate(sched)
    sched.scan("2026-03-02T10:00:00Z")
    fast = quick("2026-03-02T10:05:00Z")
    full = sched.scan("2026-03-02T10:05:00Z")
    assert fast is not None and fast == full
    assert {w["id"]: w["state"] for w in fast["workspaces"]} == {"a": "ok", "b": "ok", "empty": "absent"}
    assert [s["issueId"] for s in fast["skipped"]] == ["soon"]
    assert [i["issueId"] for i in fast["invalid"]] == ["broken"]
    assert quick("2026-03-02T10:05:00Z", dry_run=True) == sched.scan("2026-03-02T10:05:00Z", dry_run=True)
    backwards = quick("2026-03-01T00:00:00Z")
    assert backwards.get("clockBackwards") is True
    assert backwards == sched.scan("2026-03-01T00:00:00Z")


def test_quick_scan_declines_whenever_anything_could_have_changed(sched):
    a, b, empty = populate(sched)
    sched.scan("2026-03-02T10:00:00Z")
    assert quick("2026-03-02T10:01:00Z") is not None
    assert quick("2026-03-03T03:00:00Z") is None  # a/daily is due
    write_issue(a.path, "daily", when=cron("0 3 * * *"), title="edited")
    assert quick("2026-03-02T10:01:00Z") is None
    sched.scan("2026-03-02T10:01:00Z")
    assert quick("2026-03-02T10:02:00Z") is not None
    write_issue(b.path, "new", when=every("1h"))  # a new file
    assert quick("2026-03-02T10:02:00Z") is None
    (b.root / ".alice" / "issues" / "new.md").unlink()
    assert quick("2026-03-02T10:02:00Z") is not None
    (empty.root / ".alice" / "issues").mkdir()  # the absent workspace got issues
    assert quick("2026-03-02T10:02:00Z") is None
    sched.scan("2026-03-02T10:02:00Z")
    sched.workspace("c")  # the registry changed
    assert quick("2026-03-02T10:03:00Z") is None
    sched.scan("2026-03-02T10:03:00Z")
    assert quick("2026-03-02T10:04:00Z") is not None
    with open(fastpath.cache_file(), "wb") as fh:
        fh.write(b"\x00broken")
    assert quick("2026-03-02T10:04:00Z") is None


def test_a_changed_local_zone_invalidates_the_cache(sched, monkeypatch):
    populate(sched)
    sched.scan("2026-03-02T10:00:00Z")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    assert fastpath.load_cache() == {}


def test_the_tool_answers_nothing_due_without_the_scanner_or_the_issue_reader(sched, cli):
    a, _, _ = populate(sched)
    env = {**cli.env, "ALICE_NOW": "2026-03-02T10:00:00Z", "OPENALICE_TEST_LAUNCH": "none"}
    first = subprocess.run([sys.executable, str(REPO / "bin" / "alice-schedule"), "scan", "--json"],
                           env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    code = ("import sys, io\nbefore = set(sys.modules)\nout = io.StringIO()\n"
            "real, sys.stdout = sys.stdout, out\n"
            "from openalice.cli import schedule\ncode = schedule.main(sys.argv[1:])\n"
            "sys.stdout = real\n"
            "print(code, sorted(set(sys.modules) - before))\nprint(out.getvalue())")
    r = subprocess.run([sys.executable, "-c", code, "scan", "--json"], env={**env, "ALICE_NOW": "2026-03-02T10:01:00Z"},
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    status, rest = r.stdout.split("\n", 1)
    assert status.startswith("0 ")
    loaded = eval(status[2:])  # a printed list of module names
    assert "openalice.schedule.scan" not in loaded and "openalice.issues" not in loaded
    heavy = {"argparse", "pathlib", "typing", "threading", "zoneinfo", "dataclasses", "tempfile"}
    assert not heavy & set(loaded), loaded
    report = json.loads(rest)
    assert report["status"] == "ok" and report["fired"] == [] and len(report["workspaces"]) == 3
    # the same answer from the full scanner (no cache: the fast path declines)
    os.unlink(fastpath.cache_file())
    full = subprocess.run([sys.executable, str(REPO / "bin" / "alice-schedule"), "scan", "--json"],
                          env={**env, "ALICE_NOW": "2026-03-02T10:01:00Z"}, capture_output=True, text=True)
    assert full.returncode == 0 and json.loads(full.stdout) == report


def test_the_fast_clock_agrees_with_the_clock_module(monkeypatch):
    import pytest

    from openalice.core import clock
    from openalice.core.errors import InvalidInput

    for text in ("2026-03-02T10:00:30Z", "2026-03-02T10:00:30.123456+05:30", " 2026-03-02T10:00:30-07:00 ",
                 "2026-03-02T10:00:30.999Z", "2026-03-02 10:00:30+00:00"):
        fast = fastpath.parse_now(text)
        slow = clock.parse_instant(text)
        assert fast == slow.replace(microsecond=slow.microsecond - slow.microsecond % 1000)
        assert fastpath.iso(fast) == clock.to_iso(fast)
    for text in ("2026-03-02T10:00:30", "yesterday", ""):
        assert fastpath.parse_now(text) is None or text == ""
        with pytest.raises(InvalidInput):
            clock.parse_instant(text)
    monkeypatch.setenv("ALICE_NOW", "2026-01-01T00:00:00+01:00")
    assert fastpath.iso(fastpath.parse_now(None)) == "2025-12-31T23:00:00Z"


def test_the_quick_clock_agrees_with_the_clock_module(monkeypatch):
    """fastpath.quick_now (no datetime) gives the instant and text core.clock gives, or declines."""
    import random

    from openalice.core import clock

    rng = random.Random(5)
    texts = ["2026-03-02T10:00:30Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59Z", "8999-12-31T23:59:59Z",
             "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-03-02T24:00:00Z", "2026-03-02T10:60:00Z",
             "2026-03-02T10:00:60Z", "1969-12-31T23:59:59Z", "9000-01-01T00:00:00Z", "2026-03-02t10:00:30Z",
             "2026-03-02T10:00:30+00:00", "2026-03-02T10:00:30.5Z", "٢٠٢٦-03-02T10:00:30Z"]
    texts += [f"{rng.randint(1970, 8999):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 31):02d}T"
              f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z" for _ in range(3000)]
    answered = 0
    for text in texts:
        quick = fastpath.quick_now(text)
        try:
            slow = clock.parse_clock(text, field="--now")
        except Exception:
            assert quick is None, text
            continue
        if quick is not None:  # else the clock module decides (an unusual spelling)
            assert quick == (clock.to_ms(slow), clock.to_iso(slow)), text
            answered += 1
    assert answered > 2000  # the usual spelling is answered without datetime
    monkeypatch.setenv("ALICE_NOW", "2026-01-01T00:00:00Z")
    assert fastpath.quick_now(None) == (clock.to_ms(clock.parse_clock("2026-01-01T00:00:00Z", field="x")),
                                        "2026-01-01T00:00:00Z")
    monkeypatch.delenv("ALICE_NOW")
    ms, text = fastpath.quick_now(None)
    assert clock.to_iso(clock.from_ms(ms)) == text and abs(ms - clock.to_ms(clock.now())) < 5000

