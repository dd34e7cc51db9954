"""alice journal end to end: pages, cursor reads, filters, follow, schemas."""

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import tool_path
from tests.helpers.schemas import conforms


def journal_file() -> Path:
    return Path(os.environ["OPENALICE_HOME"]) / "state" / "agent-runtime.jsonl"


def seed(n_text=3):
    """A few agent facts through the real recorder (the CLI cannot record agent facts)."""
    from datetime import datetime, timezone

    from openalice import journal

    now = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
    born = journal.record("session.born", {"resumeId": "resume-a"}, now=now)
    journal.record("runtime.started", {"cause": "issue"}, now=now, caused_by=born["seq"])
    for i in range(n_text):
        journal.record("runtime.turn.text", {"text": f"line {i}"}, now=now)


def push(cli, ws, body):
    r = cli("alice-inbox", "push", "--body", body, cwd=ws)
    assert r.returncode == 0, r
    return r.stdout.strip()


def test_pages_cursor_filters_and_schemas(cli, workspace):
    seed()
    entry = push(cli, workspace, "# Done\nreport")
    page = conforms("journal-page", cli("alice", "journal", "--json").json())
    assert [r["seq"] for r in page["entries"]] == [6, 5, 4, 3, 2, 1]
    assert (page["total"], page["lastSeq"], page["pageSize"]) == (6, 6, 50)
    fact = page["entries"][0]
    assert fact["type"] == "inbox.received" and fact["payload"]["inboxEntryId"] == entry
    assert fact["payload"]["summary"] == "Done" and fact["payload"]["originKind"] == "manual"
    p2 = conforms("journal-page", cli("alice", "journal", "--limit", "4", "--page", "2",
                                   "--json").json())
    assert [r["seq"] for r in p2["entries"]] == [2, 1] and p2["totalPages"] == 2
    after = conforms("journal-after", cli("alice", "journal", "--after-seq", "3", "--json").json())
    assert [r["seq"] for r in after["entries"]] == [4, 5, 6] and after["lastSeq"] == 6
    fam = cli("alice", "journal", "--family", "inbox", "--json").json()
    assert [r["seq"] for r in fam["entries"]] == [6] and fam["total"] == 1
    typ = cli("alice", "journal", "--type", "runtime.started", "--after-seq", "0",
              "--json").json()
    assert [r["causedBy"] for r in typ["entries"]] == [1]
    human = cli("alice", "journal")
    assert human.returncode == 0 and "#6  2026-" in human.stdout and entry in human.stdout
    assert "#2  2026-11-30T09:00:00Z  runtime.started (after #1)" in human.stdout
    assert "page 1 of 1 (6 facts; last seq 6)" in human.stdout
    for line in journal_file().read_bytes().splitlines():
        conforms("journal-record", json.loads(line))
    counts = journal_file().with_name("agent-runtime.counts.json")
    conforms("journal-counts", json.loads(counts.read_text()))


def test_refusals(cli):
    for args, code in ((["--family", "dev"], "unknown_family"),
                       (["--type", "inbox.deleted"], "unknown_type"),
                       (["--page", "2", "--after-seq", "1"], "usage"),
                       (["--page", "0"], "bad_range"),
                       (["--after-seq", "-1"], "bad_seq"),
                       (["--after-seq", "0", "--limit", "501"], "bad_range"),
                       (["--limit", "101"], "bad_range")):
        r = cli("alice", "journal", *args, "--json")
        assert r.returncode == 2 and r.json()["error"]["code"] == code, (args, r)
    r = cli("alice", "journal", "--json")
    assert r.returncode == 0 and r.json()["entries"] == [] and r.json()["total"] == 0


def test_a_torn_last_line_is_repaired_before_the_next_append(cli, workspace):
    seed(0)
    with open(journal_file(), "ab") as fh:
        fh.write(b'{"seq":3,"ts":"2026-11-30T09:00:00Z","ty')
    r = cli("alice", "journal", "--json")
    assert r.json()["total"] == 2
    push(cli, workspace, "after a crash")
    lines = [json.loads(l) for l in journal_file().read_bytes().splitlines()]
    assert [l["seq"] for l in lines] == [1, 2, 3] and lines[-1]["type"] == "inbox.received"


def test_follow_until_seq_and_max_wait(cli, workspace):
    seed(1)  # seq 1..3
    r = cli("alice", "journal", "--follow", "--after-seq", "1", "--until-seq", "3", "--json")
    assert r.returncode == 0, r
    records = [conforms("journal-record", json.loads(line)) for line in r.stdout.splitlines()]
    assert [x["seq"] for x in records] == [2, 3]
    assert "following the activity journal after seq 1" in r.stderr
    r = cli("alice", "journal", "--follow", "--max-wait", "0.3", "--interval", "0.1")
    assert (r.returncode, r.stdout) == (0, "")


def _start_follower(cli, *args):
    proc = subprocess.Popen([tool_path("alice"), "journal", "--follow", "--interval", "0.05",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=cli.env)
    assert "following the activity journal" in proc.stderr.readline()  # it is polling now
    return proc


def test_follow_streams_a_push_as_it_happens(cli, workspace):
    seed(0)
    proc = _start_follower(cli, "--type", "inbox.received", "--until-seq", "4", "--json")
    try:
        push(cli, workspace, "first")   # seq 3
        push(cli, workspace, "second")  # seq 4
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    got = [json.loads(line) for line in out.splitlines()]
    assert [g["seq"] for g in got] == [3, 4]
    assert [g["payload"]["summary"] for g in got] == ["first", "second"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_follow_stops_cleanly_on_a_signal(cli, workspace, sig):
    proc = _start_follower(cli)
    try:
        push(cli, workspace, "seen by the follower")
        line = proc.stdout.readline()  # the follower printed the fact: it is mid-loop
        assert "inbox.received" in line and "seen by the follower" in line
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
