"""Read state version 2: watermark, segments, exceptions; migration; crash safety.

Every test compares the new shape against the plain model it replaces (one
readAt per read entry, ``read_marks``), so an answer that differs from what
version 1 would have said fails here.
"""

import json
import os
import random
import subprocess
import sys

import pytest

from openalice import inbox
from openalice.core import fs
from openalice.inbox import readstate

from .conftest import T0


def _model_counts(store, marks, workspace_id=None):
    entries = list(store.iter_oldest())
    out = {"total": len(entries), "unread": sum(1 for e in entries if e.id not in marks)}
    if workspace_id is not None:
        out["workspaceUnread"] = sum(1 for e in entries
                                     if e.id not in marks and e.record["workspaceId"] == workspace_id)
    return out


def _listed(store):
    fresh = inbox.InboxStore(store.directory)
    return {e["id"]: e.get("readAt") for e in inbox.list_entries(fresh, limit=1000)["entries"]}


def _disk(store):
    return json.loads(store.read_state_path.read_text())


def test_mark_all_read_writes_a_watermark_and_reads_only_what_came_after(pushed, store):
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(5)]
    inbox.mark_read(store, ids[1], now_ms=7)
    assert inbox.mark_all_read(store, now_ms=100) == {"marked": 4, "total": 5, "unread": 0}
    state = _disk(store)
    assert state["watermark"]["id"] == ids[-1] and state["watermark"]["entries"] == 5
    assert state["segments"] == [{"through": ids[-1], "readAt": 100}]
    assert state["read"] == {ids[1]: 7} and state["unread"] == {}   # only the exception
    late = [pushed(f"late{i}", minutes=10 + i)["id"] for i in range(2)]
    inbox.mark_read(store, late[0], now_ms=200)
    assert inbox.counts(store) == {"total": 7, "unread": 1}
    assert _listed(store) == {**{i: 100 for i in ids}, ids[1]: 7, late[0]: 200, late[1]: None}
    inbox.mark_unread(store, ids[3])                                  # an exception below
    assert _disk(store)["unread"] == {ids[3]: "desk"}
    assert inbox.counts(store, workspace_id="desk") == {"total": 7, "unread": 2,
                                                        "workspaceUnread": 2}
    assert inbox.mark_all_read(store, now_ms=300)["marked"] == 2
    assert _disk(store)["segments"] == [{"through": ids[-1], "readAt": 100},
                                        {"through": late[-1], "readAt": 300}]
    assert inbox.read_marks(store) == {**{i: 100 for i in ids}, ids[1]: 7, ids[3]: 300,
                                       late[0]: 200, late[1]: 300}


def test_a_random_history_answers_exactly_like_one_mark_per_entry(tmp_path, pushed, store, ws):
    """Pushes, reads, unreads, deletes and (per-workspace) mark-all-reads in a
    random order: after every step list, count and the marks equal the model."""
    from openalice import workspaces

    other, _ = workspaces.init(tmp_path / "other", now=T0)
    rng = random.Random(15)
    marks: dict[str, int] = {}
    ids: list[str] = []
    for step in range(120):
        now = 1_000 + step
        action = rng.random()
        if action < 0.4 or not ids:
            entry = pushed(f"p{step}", minutes=step, workspace=rng.choice([ws, other]))
            ids.append(entry["id"])
        elif action < 0.6:
            target = rng.choice(ids)
            inbox.mark_read(store, target, now_ms=now)
            marks[target] = now
        elif action < 0.7:
            target = rng.choice(ids)
            assert inbox.mark_unread(store, target) == (target in marks)
            marks.pop(target, None)
        elif action < 0.75:
            target = rng.choice(ids)
            inbox.delete(store, target)
            ids.remove(target)
            marks.pop(target, None)
        else:
            only = rng.choice([None, "desk", other.id])
            records = {e.id: e.record["workspaceId"] for e in store.iter_oldest()}
            fresh = [i for i in ids if i not in marks and (only is None or records[i] == only)]
            result = inbox.mark_all_read(store, now_ms=now, workspace_id=only)
            assert result["marked"] == len(fresh)
            marks.update({i: now for i in fresh})
        fresh_store = inbox.InboxStore(store.directory)
        assert inbox.read_marks(fresh_store) == marks, step
        for only in (None, "desk"):
            assert inbox.counts(inbox.InboxStore(store.directory), workspace_id=only) == \
                _model_counts(fresh_store, marks, only), step
        assert _listed(store) == {i: marks.get(i) for i in ids}, step


def test_a_version_1_file_is_read_as_it_is_and_migrated_on_the_first_write(pushed, store):
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(8)]
    v1 = {ids[0]: 5, ids[1]: 50, ids[2]: 50, ids[3]: 50, ids[5]: 9, ids[6]: 60, ids[7]: 60,
          "inbox-0000000000001-00000000": 3}               # a mark of a deleted id
    store.read_state_path.write_text(json.dumps({"version": 1, "read": v1}))
    expected = {k: v for k, v in v1.items() if k in ids}
    assert _listed(store) == {i: expected.get(i) for i in ids}     # read as it is
    assert inbox.counts(store) == {"total": 8, "unread": 1}
    assert _disk(store)["version"] == 1                              # reading never writes
    inbox.mark_read(store, ids[4], now_ms=70)                        # the first write
    state = _disk(store)
    assert state["version"] == 2
    assert state["segments"] == [{"through": ids[3], "readAt": 50}, {"through": ids[7], "readAt": 60}]
    assert state["read"] == {ids[0]: 5, ids[5]: 9, ids[4]: 70}
    assert inbox.read_marks(store) == {**expected, ids[4]: 70}
    assert inbox.counts(store) == {"total": 8, "unread": 0}


def test_a_delete_inside_the_prefix_moves_it_and_every_answer_stays(pushed, store):
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(6)]
    inbox.mark_read(store, ids[0], now_ms=3)
    inbox.mark_all_read(store, now_ms=10)
    inbox.mark_unread(store, ids[4])
    before = inbox.read_marks(store)
    # the entry is spliced out but the sidecar not told (a crash between the two steps)
    store.delete(ids[2])
    del before[ids[2]]
    fresh = inbox.InboxStore(store.directory)
    assert not readstate.document.prefix_intact(fresh, readstate.load(fresh))
    assert inbox.counts(fresh) == {"total": 5, "unread": 1}
    assert inbox.read_marks(fresh) == before
    inbox.mark_read(store, ids[5], now_ms=20)                        # the next write rebuilds it
    state = _disk(store)
    assert state["watermark"]["entries"] == 5 and state["unread"] == {ids[4]: "desk"}
    assert readstate.document.prefix_intact(store, readstate.load(store))
    assert inbox.read_marks(store) == {**before, ids[5]: 20}


def test_bad_lines_of_the_prefix_are_still_reported_without_reading_it(pushed, store):
    first = pushed("a")["id"]
    with open(store.entries_path, "ab") as fh:
        fh.write(b"{malformed\n")
    pushed("b", minutes=1)
    inbox.mark_all_read(store, now_ms=10)
    assert [p["offset"] for p in _disk(store)["watermark"]["problems"]] == [
        len(store.entries_path.read_bytes().split(b"\n")[0]) + 1]
    fresh = inbox.InboxStore(store.directory)
    assert inbox.counts(fresh) == {"total": 2, "unread": 0}
    assert [p["reason"] for p in fresh.problems] == ["malformed line: JSONDecodeError"]
    assert first in inbox.read_marks(store)


def test_mark_all_read_is_one_atomic_write_a_crash_changes_nothing(pushed, store, monkeypatch):
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(4)]
    inbox.mark_read(store, ids[0], now_ms=5)
    before = store.read_state_path.read_bytes()
    real_replace = os.replace

    def crash(src, dst):
        if str(dst) == str(store.read_state_path):
            raise OSError(5, "simulated crash before the rename")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(Exception):
        inbox.mark_all_read(store, now_ms=99)
    monkeypatch.setattr(os, "replace", real_replace)
    assert store.read_state_path.read_bytes() == before
    assert inbox.counts(store) == {"total": 4, "unread": 3}
    assert inbox.read_marks(store) == {ids[0]: 5}
    fs.sweep_temp_files(store.directory, older_than=0)
    assert inbox.mark_all_read(store, now_ms=99)["marked"] == 3


def test_a_killed_mark_all_read_leaves_the_old_sidecar_or_the_new_one(pushed, store):
    """SIGKILL a mark-all-read at random moments: the sidecar always parses and
    says either 'one read' or 'all read', never anything in between."""
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(300)]
    inbox.mark_read(store, ids[0], now_ms=5)
    code = ("import sys; from openalice import inbox\n"
            "inbox.mark_all_read(inbox.InboxStore(), now_ms=99)\n")
    rng = random.Random(7)
    seen = set()
    for _ in range(6):
        proc = subprocess.Popen([sys.executable, "-c", code], env=os.environ.copy())
        try:
            proc.wait(timeout=rng.uniform(0.05, 0.4))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        marks = inbox.read_marks(inbox.InboxStore(store.directory))
        assert marks in ({ids[0]: 5}, {ids[0]: 5, **{i: 99 for i in ids[1:]}})
        seen.add(len(marks))
        if len(marks) > 1:
            store.read_state_path.write_text(json.dumps(
                {"version": 2, "segments": [], "unread": {}, "read": {ids[0]: 5}}))
    assert inbox.counts(store)["total"] == 300


@pytest.mark.parametrize("watermark_change", [
    {"problems": [{"reason": "x"}]},                    # a problem with no offset (the fuzz found it)
    {"problems": [{"offset": "12", "reason": "x"}]},
    {"problems": ["bad line"]},
    {"line": True},
    {"entries": True},
])
def test_a_damaged_watermark_is_a_bad_file_not_a_crash(pushed, store, watermark_change):
    """Readers take every entry as unread and report the file; writers refuse."""
    from openalice.core.errors import InvalidInput

    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(3)]
    inbox.mark_all_read(store, now_ms=10)
    state = _disk(store)
    state["watermark"].update(watermark_change)
    store.read_state_path.write_text(json.dumps(state))
    fresh = inbox.InboxStore(store.directory)
    assert inbox.counts(fresh) == {"total": 3, "unread": 3}
    assert fresh.read_state_problem and "watermark" in json.dumps(fresh.problems)
    with pytest.raises(InvalidInput) as err:
        inbox.mark_read(inbox.InboxStore(store.directory), ids[0], now_ms=20)
    assert err.value.file and "read-state.json" in str(err.value.file)


def test_a_watermark_past_the_end_of_the_file_is_a_moved_prefix_not_a_crash(pushed, store):
    """A line offset no file has (the soak's fuzz: 2**63 made the seek fail):
    the prefix is not the recorded one, so everything is recomputed once."""
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(3)]
    inbox.mark_all_read(store, now_ms=10)
    state = _disk(store)
    state["watermark"]["line"] = 2 ** 63
    store.read_state_path.write_text(json.dumps(state))
    fresh = inbox.InboxStore(store.directory)
    assert not readstate.document.prefix_intact(fresh, readstate.load(fresh))
    assert inbox.counts(fresh) == {"total": 3, "unread": 0}
    inbox.mark_unread(inbox.InboxStore(store.directory), ids[0])
    assert inbox.counts(inbox.InboxStore(store.directory)) == {"total": 3, "unread": 1}
