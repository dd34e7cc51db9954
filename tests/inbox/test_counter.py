"""The unread counter (``counts.json``): warm answers always equal cold reads.

A randomized Inbox goes through appends, read/unread, mark-all-read (global
and per workspace), deletes, appends by a writer that does not keep the
counter (a foreign line, a torn one), and a damaged counter (garbage, a
changed number, truncated, deleted).  After every step the answer through the
counter must be the answer computed from the files alone, and the listing's
unread entries must agree.
"""

import json
import os
import random

import pytest

from openalice import inbox
from openalice.inbox import counter, readstate
from tests.helpers.schemas import conforms

BASE_MS = 1_796_029_200_000
WORKSPACES = ("notes", "desk", "lab")


def _cold(directory, ws=None):
    s = inbox.InboxStore(directory)
    return readstate.counts(s, readstate.load(s), workspace_id=ws), s.problems


def _warm(directory, ws=None):
    s = inbox.InboxStore(directory)
    return inbox.counts(s, workspace_id=ws), s.problems


def _append(store, rng, now_ms):
    ws = rng.choice(WORKSPACES)
    return store.append(lambda i: {"id": i, "ts": now_ms, "workspaceId": ws, "body": "report",
                                   "fileRevisions": {}}, now_ms=now_ms)


def _listed_unread(directory):
    page = inbox.list_entries(inbox.InboxStore(directory), unread=True, limit=1000)
    return len(page["entries"])


def _assert_agrees(directory):
    for ws in (None, *WORKSPACES, "nowhere"):
        warm = _warm(directory, ws)
        assert warm == _cold(directory, ws), ws
        assert _warm(directory, ws) == warm  # the repaired counter answers the same
    assert _warm(directory)[0]["unread"] == _listed_unread(directory)


def _hand_read(directory, entry_id, now_ms):
    path = directory / "read-state.json"
    doc = json.loads(path.read_text()) if path.exists() else {"version": 2, "segments": [],
                                                               "unread": {}, "read": {}}
    doc["unread"].pop(entry_id, None)
    doc["read"][entry_id] = now_ms
    path.write_text(json.dumps(doc))


def _ids(directory):
    return [e.id for e in inbox.InboxStore(directory).iter_oldest()]


def _damage(path, how, rng):
    if how == "delete":
        path.unlink(missing_ok=True)
    elif how == "garbage":
        path.write_text("{not json")
    elif how == "truncate" and path.exists():
        data = path.read_bytes()
        path.write_bytes(data[: rng.randrange(len(data))])
    elif how == "number" and path.exists():
        doc = json.loads(path.read_text())
        doc["unread"] = doc["unread"] + 1
        doc["total"] = doc["total"] + 1
        path.write_text(json.dumps(doc))


@pytest.mark.parametrize("seed", range(4))
def test_warm_answers_equal_cold_reads_through_a_random_history(tmp_path, seed):
    rng = random.Random(seed)
    directory = tmp_path / "inbox"
    store = inbox.InboxStore(directory)
    now = BASE_MS
    for _ in range(20):
        now += 1000
        _append(store, rng, now)
    _assert_agrees(directory)
    for step in range(120):
        now += 1000
        op = rng.choice(["append", "append", "read", "unread", "mark-all", "mark-ws", "delete",
                         "foreign", "torn", "hand-read", "damage", "count"])
        ids = _ids(directory)
        s = inbox.InboxStore(directory)
        if op == "append":
            _append(s, rng, now)
        elif op == "read" and ids:
            inbox.mark_read(s, rng.choice(ids), now_ms=now)
        elif op == "unread" and ids:
            inbox.mark_unread(s, rng.choice(ids))
        elif op in ("mark-all", "mark-ws"):
            ws = rng.choice(WORKSPACES) if op == "mark-ws" else None
            result = inbox.mark_all_read(s, now_ms=now, workspace_id=ws)
            expected, _ = _cold(directory, ws)
            assert {k: v for k, v in result.items() if k != "marked"} == expected
        elif op == "delete" and ids:
            inbox.delete(s, rng.choice(ids))
        elif op == "foreign":  # a writer that knows nothing of the counter
            eid = f"inbox-{now:013d}-zzzzzzzz"
            with open(directory / "entries.jsonl", "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"id": eid, "ts": now, "workspaceId": rng.choice(WORKSPACES),
                                     "body": "foreign", "fileRevisions": {}}) + "\n")
        elif op == "torn":
            with open(directory / "entries.jsonl", "a", encoding="utf-8") as fh:
                fh.write('{"id": "inbox-torn')
        elif op == "hand-read" and ids:  # the read state changed by hand, the counter not told
            _hand_read(directory, rng.choice(ids), now)
        elif op == "damage":
            _damage(directory / counter.COUNTER_FILE,
                    rng.choice(["delete", "garbage", "truncate", "number"]), rng)
        _assert_agrees(directory)
        if step % 10 == 0 and (directory / counter.COUNTER_FILE).exists():
            conforms("inbox-counts", json.loads((directory / counter.COUNTER_FILE).read_text()))


def _history(tmp_path):
    rng = random.Random(7)
    directory = tmp_path / "inbox"
    store = inbox.InboxStore(directory)
    for i in range(30):
        _append(store, rng, BASE_MS + i * 1000)
    inbox.mark_all_read(store, now_ms=BASE_MS + 40_000)
    for i in range(30, 40):
        _append(store, rng, BASE_MS + i * 1000)
    return directory


def test_a_warm_count_reads_no_entry(tmp_path, monkeypatch):
    directory = _history(tmp_path)
    first = _warm(directory)
    monkeypatch.setattr(inbox.InboxStore, "iter_oldest",
                        lambda *a, **k: (_ for _ in ()).throw(AssertionError("read the entries")))
    assert _warm(directory) == first


def test_writers_keep_the_counter_current_so_no_read_pays(tmp_path, monkeypatch):
    directory = _history(tmp_path)
    _warm(directory)  # the first read repairs (writes) it
    store = inbox.InboxStore(directory)
    entry = _append(store, random.Random(1), BASE_MS + 99_000)
    inbox.mark_read(inbox.InboxStore(directory), entry["id"], now_ms=BASE_MS + 99_500)
    inbox.mark_unread(inbox.InboxStore(directory), _ids(directory)[3])
    expected = _cold(directory)
    calls = []
    real = readstate.marks._tally
    monkeypatch.setattr(readstate.marks, "_tally", lambda *a: calls.append(a) or real(*a))
    assert _warm(directory) == expected
    assert calls == []


def test_an_append_by_a_writer_without_the_counter_is_counted(tmp_path):
    directory = _history(tmp_path)
    before, _ = _warm(directory)
    with open(directory / "entries.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": f"inbox-{BASE_MS + 500_000:013d}-00000000", "ts": 1,
                             "workspaceId": "lab", "body": "x"}) + "\n")
    after, _ = _warm(directory, "lab")
    assert after["total"] == before["total"] + 1 and after["unread"] == before["unread"] + 1
    assert (after, _warm(directory, "lab")[1]) == _cold(directory, "lab")


def test_a_read_state_changed_by_hand_is_counted(tmp_path):
    directory = _history(tmp_path)
    before, _ = _warm(directory)
    _hand_read(directory, _ids(directory)[-1], BASE_MS + 600_000)
    after, _ = _warm(directory)
    assert after == {"total": before["total"], "unread": before["unread"] - 1}
    assert (after, []) == _cold(directory)


def test_a_changed_number_in_the_counter_is_not_believed(tmp_path):
    directory = _history(tmp_path)
    truth = _warm(directory)
    path = directory / counter.COUNTER_FILE
    doc = json.loads(path.read_text())
    doc["unread"] += 5
    path.write_text(json.dumps(doc))
    assert _warm(directory) == truth


def test_count_on_an_empty_home_writes_nothing(tmp_path):
    directory = tmp_path / "inbox"
    assert _warm(directory) == ({"total": 0, "unread": 0}, [])
    assert not directory.exists() or not (directory / counter.COUNTER_FILE).exists()
    assert not os.path.exists(directory)
