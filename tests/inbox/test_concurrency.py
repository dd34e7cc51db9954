"""Processes racing on the Inbox: nothing lost, counts consistent, no torn entry."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from openalice import inbox
from openalice.inbox.store import ID_RE

REPO = Path(__file__).resolve().parents[2]
WORKER = REPO / "tests" / "helpers" / "inbox_worker.py"


def worker(*args):
    return subprocess.Popen([sys.executable, str(WORKER), str(REPO), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_eight_pushers_and_mark_all_read_lose_nothing(ws, store):
    pushers = [worker("push", ws.id, 100, f"p{n}") for n in range(8)]
    marker = worker("mark-all-read", 25)
    for proc in pushers + [marker]:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    lines = store.entries_path.read_bytes().splitlines()
    records = [json.loads(line) for line in lines]  # every line whole
    ids = [r["id"] for r in records]
    assert len(ids) == 800 and len(set(ids)) == 800
    assert ids == sorted(ids) and all(ID_RE.match(i) for i in ids)  # file order = id order
    bodies = {r["body"].split(" [[")[0] for r in records}
    assert bodies == {f"p{n} #{i}" for n in range(8) for i in range(100)}
    read = inbox.read_marks(store)
    assert set(read) <= set(ids)
    counts = inbox.counts(store)
    assert counts == {"total": 800, "unread": 800 - len(read)}
    assert inbox.mark_all_read(store, now_ms=1)["unread"] == 0
    assert inbox.counts(store)["unread"] == 0
    journal_seqs = [json.loads(l)["seq"] for l in
                    (store.directory.parent.parent / "state" / "agent-runtime.jsonl")
                    .read_bytes().splitlines()]
    assert journal_seqs == list(range(1, 801))


def test_mark_all_read_results_are_consistent_while_pushes_race(ws, store):
    pushers = [worker("push", ws.id, 40, f"q{n}") for n in range(4)]
    marker = worker("mark-all-read", 30)
    out, err = marker.communicate(timeout=300)
    assert marker.returncode == 0, err
    for proc in pushers:
        proc.communicate(timeout=300)
        assert proc.returncode == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == 30
    totals = [r["total"] for r in results]
    assert totals == sorted(totals)  # the store only grows
    for r in results:
        # an authoritative count: never more unread than entries, never negative
        assert 0 <= r["unread"] <= r["total"] <= 160
    assert inbox.counts(store)["total"] == 160


def test_item_51_eight_concurrent_reads_all_persist(pushed, store):
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(8)]
    procs = [worker("read", entry_id) for entry_id in ids]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert set(inbox.read_marks(store)) == set(ids)
    assert inbox.counts(store)["unread"] == 0


def test_sigkill_during_pushes_leaves_no_torn_entry(ws, store):
    iterations = int(os.environ.get("OPENALICE_CRASH_ITERATIONS", "15"))
    rng = random.Random(42)
    for n in range(iterations):
        proc = worker("forever", ws.id, f"k{n}")
        assert proc.stdout.readline().strip() == "ready"
        # The kill must land at an arbitrary point of the push loop, so this
        # one test waits a random few milliseconds (it is not timing anything).
        time.sleep(rng.uniform(0, 0.03))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        # Readers never see a torn entry: every listed entry is whole.
        for entry in store.iter_newest():
            assert entry.record["body"].startswith("k")
        page = inbox.list_entries(store, limit=1000)
        assert all(p["reason"].startswith("torn") for p in page["problems"])
    raw = store.entries_path.read_bytes()
    complete = raw[: raw.rfind(b"\n") + 1]
    ids = [json.loads(line)["id"] for line in complete.splitlines()]
    assert ids == sorted(set(ids))
    # The next push repairs any torn tail and lands intact.
    after = inbox.push("after the crashes", workspace=ws, origin=None,
                       now=datetime.now(timezone.utc), store=store).entry
    lines = store.entries_path.read_bytes().splitlines()
    assert json.loads(lines[-1]) == after
    assert [json.loads(l)["id"] for l in lines] == sorted(ids + [after["id"]])
    assert store.find(after["id"]).record == after
