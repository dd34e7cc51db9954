"""Entries: sortable ids, O(log n) lookup, pages, malformed lines, delete (items 48-52)."""

import json

import pytest

from openalice import inbox
from openalice.core import clock
from openalice.core.errors import InvalidInput, NotFound
from openalice.inbox.store import ID_RE, next_id

from .conftest import T0


def test_ids_are_sortable_unique_and_monotonic_even_when_the_clock_stalls_or_goes_back():
    prev = None
    ids = []
    for ms in [1000, 1000, 1000, 999, 5, 2000, 2000]:
        prev = next_id(ms, prev)
        ids.append(prev)
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(ID_RE.match(i) for i in ids)
    assert ids[-1].startswith("inbox-0000000002000-")
    # the random part overflows into the next millisecond
    top = "inbox-0000000001000-zzzzzzzz"
    assert next_id(1000, top, rng=lambda bits: 0) == "inbox-0000000001001-00000000"


def test_entry_line_shape_and_body_stored_verbatim(pushed, store):
    entry = pushed("  # Title\n\nbody with **markdown**  ")
    line = json.loads(store.entries_path.read_text().splitlines()[0])
    assert list(line) == ["id", "ts", "workspaceId", "workspaceLabel", "body", "fileRevisions",
                          "origin"]
    assert line == entry and line["body"] == "  # Title\n\nbody with **markdown**  "
    assert line["ts"] == clock.to_ms(T0) and line["fileRevisions"] == {}


def test_item_48_blank_body_rejected(ws, store):
    for body in ("", "   ", "\n\t\n"):
        with pytest.raises(InvalidInput) as err:
            inbox.push(body, workspace=ws, origin=None, now=T0, store=store)
        assert err.value.code == "empty_body" and err.value.exit_code == 2
    assert not store.entries_path.exists()


def test_item_49_limit_has_more_and_unknown_before(pushed, store):
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(5)]
    page = inbox.list_entries(store, limit=3)
    assert [e["id"] for e in page["entries"]] == ids[::-1][:3]
    assert page["hasMore"] is True and page["nextBefore"] == ids[2]
    rest = inbox.list_entries(store, limit=3, before=page["nextBefore"])
    assert [e["id"] for e in rest["entries"]] == [ids[1], ids[0]] and rest["hasMore"] is False
    assert inbox.list_entries(store, before="inbox-0000000000001-00000000")["entries"] == []
    with pytest.raises(NotFound) as err:      # not an id at all: a typo, exit 2
        inbox.list_entries(store, before="not-an-id")
    assert err.value.exit_code == 2 and "--before" in err.value.message


def test_find_bisects_a_large_file(ws, store):
    # Enough entries that the bisection really narrows (file ≫ the 64 KiB window).
    ids = []
    with store.file.lock():
        prev = None
        for i in range(3000):
            prev = next_id(clock.to_ms(T0) + i // 3, prev)
            ids.append(prev)
            store.file.append({"id": prev, "ts": 1, "workspaceId": ws.id, "body": "x" * 80,
                               "fileRevisions": {}})
    assert store.entries_path.stat().st_size > 4 * 64 * 1024
    for i in (0, 1, 777, 1500, 2998, 2999):
        found = store.find(ids[i])
        assert found is not None and found.id == ids[i]
        with open(store.entries_path, "rb") as fh:
            fh.seek(found.offset)
            assert json.loads(fh.readline())["id"] == ids[i]
    # an id between two stored ones (ids made in one millisecond differ in their
    # last characters, so pick a variant that no entry has)
    absent = next(v for v in (ids[1500][:-1] + c for c in "0123456789abcdefghjkmnpqrstvwxyz")
                  if v not in set(ids))
    assert store.find(absent) is None
    assert store.find("inbox-9999999999999-zzzzzzzz") is None
    page = inbox.list_entries(store, limit=2, before=ids[1500])
    assert [e["id"] for e in page["entries"]] == [ids[1499], ids[1498]]


def test_find_skips_malformed_lines_and_hand_imported_ids(pushed, store):
    a = pushed("a")["id"]
    with open(store.entries_path, "ab") as fh:
        fh.write(b"{not json\n")
        fh.write(b'["an array"]\n')
        fh.write(b'{"id": "legacy-uuid", "ts": 5, "workspaceId": "desk", "body": "old"}\n')
        fh.write(b'{"id": "x", "ts": "soon", "workspaceId": "desk", "body": "bad ts"}\n')
    b = pushed("b", minutes=1)["id"]
    assert store.find(a).id == a and store.find(b).id == b
    assert store.find("legacy-uuid").record["body"] == "old"  # backward-scan fallback
    page = inbox.list_entries(store)
    assert [e["id"] for e in page["entries"]] == [b, "legacy-uuid", a]
    reasons = [p["reason"] for p in page["problems"]]
    assert len(reasons) == 3 and any("not a JSON object" in r for r in reasons)
    assert any("'ts'" in r for r in reasons)
    assert inbox.counts(store) == {"total": 3, "unread": 3}


def test_filters_workspace_and_unread(tmp_path, pushed, store, ws):
    from openalice import workspaces

    other, _ = workspaces.init(tmp_path / "other", now=T0)
    a = pushed("a")["id"]
    b = pushed("b", workspace=other)["id"]
    c = pushed("c")["id"]
    inbox.mark_read(store, c, now_ms=5)
    assert [e["id"] for e in inbox.list_entries(store, workspace_id=ws.id)["entries"]] == [c, a]
    assert [e["id"] for e in inbox.list_entries(store, unread=True)["entries"]] == [b, a]
    got = inbox.list_entries(store, workspace_id=ws.id, unread=True, limit=1)
    assert [e["id"] for e in got["entries"]] == [a] and got["hasMore"] is False


def test_item_50_read_state_sidecar_and_jsonl_untouched(pushed, store):
    entry = pushed("x")
    before = store.entries_path.read_bytes()
    assert inbox.mark_read(store, entry["id"], now_ms=1234) == 1234
    assert json.loads(store.read_state_path.read_text()) == {
        "version": 2, "segments": [], "unread": {}, "read": {entry["id"]: 1234}}
    assert store.entries_path.read_bytes() == before and b"readAt" not in before
    with pytest.raises(NotFound):
        inbox.mark_read(store, "inbox-0000000000001-00000000", now_ms=1)
    view = inbox.list_entries(store)["entries"][0]
    assert view["read"] is True and view["readAt"] == 1234
    assert inbox.mark_unread(store, entry["id"]) is True
    assert inbox.mark_unread(store, entry["id"]) is False
    assert json.loads(store.read_state_path.read_text())["read"] == {}


def test_a_corrupt_read_state_is_reported_and_never_locks_the_inbox(pushed, store):
    first = pushed("x")["id"]
    for bad in ('{"version": 1, "read": {"a": "yesterday"}}', "{broken"):
        store.read_state_path.write_text(bad)
        fresh = inbox.InboxStore(store.directory)
        assert inbox.counts(fresh) == {"total": 1, "unread": 1}      # everything unread
        listed = inbox.list_entries(fresh)
        assert [e["read"] for e in listed["entries"]] == [False]
        assert listed["problems"][-1]["file"] == str(store.read_state_path)
        with pytest.raises(InvalidInput) as err:                       # never written over
            inbox.mark_read(fresh, first, now_ms=5)
        assert err.value.file == str(store.read_state_path) and "mark-all-read" in err.value.details["hint"]
        assert store.read_state_path.read_text() == bad
    result = inbox.mark_all_read(store, now_ms=1764493200000)
    kept = store.directory / "read-state.json.corrupt-20251130T090000Z"
    assert result == {"marked": 1, "total": 1, "unread": 0, "setAside": str(kept)}
    assert kept.read_text() == "{broken"
    assert inbox.read_marks(store) == {first: 1764493200000}
    store.read_state_path.write_text("{again")
    assert inbox.mark_all_read(store, now_ms=1764493200000)["setAside"] == str(kept) + "-2"


def test_mark_all_read_snapshot_and_authoritative_count(pushed, store, ws):
    ids = [pushed(f"r{i}", minutes=i)["id"] for i in range(4)]
    inbox.mark_read(store, ids[0], now_ms=1)
    result = inbox.mark_all_read(store, now_ms=99)
    assert result == {"marked": 3, "total": 4, "unread": 0}
    state = inbox.read_marks(store)
    assert state[ids[0]] == 1 and all(state[i] == 99 for i in ids[1:])
    late = pushed("late", minutes=9)["id"]
    assert inbox.counts(store) == {"total": 5, "unread": 1}
    assert [e["id"] for e in inbox.list_entries(store, unread=True)["entries"]] == [late]


def test_mark_all_read_of_one_workspace(tmp_path, pushed, store, ws):
    from openalice import workspaces

    other, _ = workspaces.init(tmp_path / "other", now=T0)
    pushed("a")
    b = pushed("b", workspace=other)["id"]
    result = inbox.mark_all_read(store, now_ms=5, workspace_id=ws.id)
    assert result == {"marked": 1, "total": 2, "unread": 1, "workspaceUnread": 0}
    assert [e["id"] for e in inbox.list_entries(store, unread=True)["entries"]] == [b]


def test_count_ignores_read_marks_of_vanished_ids(pushed, store):
    a = pushed("a")["id"]
    store.read_state_path.write_text(json.dumps(
        {"version": 1, "read": {"inbox-0000000000001-00000000": 5}}))
    assert inbox.counts(store) == {"total": 1, "unread": 1}
    inbox.mark_read(store, a, now_ms=7)
    assert inbox.counts(store)["unread"] == 0


def test_item_52_delete_drops_the_mark_keeps_malformed_lines_and_no_temp(pushed, store):
    a = pushed("a")["id"]
    with open(store.entries_path, "ab") as fh:
        fh.write(b"{malformed\n")
    b = pushed("b", minutes=1)["id"]
    c = pushed("c", minutes=2)["id"]
    inbox.mark_read(store, b, now_ms=3)
    inbox.mark_read(store, c, now_ms=3)
    old_ino = store.entries_path.stat().st_ino
    deleted = inbox.delete(store, b)
    assert deleted["id"] == b
    lines = store.entries_path.read_bytes().splitlines()
    assert lines[1] == b"{malformed" and len(lines) == 3
    assert [json.loads(lines[i])["id"] for i in (0, 2)] == [a, c]
    assert store.entries_path.stat().st_ino != old_ino  # replaced atomically
    assert inbox.read_marks(store) == {c: 3}
    assert not [p for p in store.directory.iterdir() if p.name.startswith(".tmp-")]
    with pytest.raises(NotFound):
        inbox.delete(store, b)
    # ordering survives: the next push still gets the greatest id
    d = pushed("d", minutes=3)["id"]
    assert d > c and store.find(c).id == c


def test_entries_survive_unregistering_their_workspace(pushed, store, ws):
    from openalice import workspaces

    entry = pushed("See [[notes/a.md]]")
    workspaces.remove(ws.id)
    shown = inbox.describe(store, entry["id"])
    assert shown["entry"]["body"] == "See [[notes/a.md]]"
    assert shown["workspaceAvailable"] is False
    assert shown["files"] == [{"path": "notes/a.md", "available": False,
                               "reason": "workspace_unavailable"}]
    assert inbox.list_entries(store, workspace_id=ws.id)["entries"][0]["id"] == entry["id"]
