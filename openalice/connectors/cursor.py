"""A connector's position in ``entries.jsonl`` and taking the entries after it.

The cursor is ``{"offset", "line", "afterId"}``: the byte just past the last
line taken, where that line starts, and its entry id (``afterId`` None and
``offset`` 0: the beginning, what ``--backfill`` asks for).  It is trusted
while the line at ``line`` still holds ``afterId``; after a delete rewrote the
file (or a hand edit), the position is found again by bisection on the id,
and entries whose id is not greater are skipped (ids are sorted in file order).
"""

from __future__ import annotations

from openalice.inbox import InboxStore, is_entry_id
from openalice.inbox.references import parse as parse_references

__all__ = ["START", "end_position", "take", "matches"]

START = {"offset": 0, "line": 0, "afterId": None}


def end_position(store: InboxStore) -> dict:
    """The position after the newest entry (what ``connector add`` remembers)."""
    for entry in store.iter_newest():
        raw_end = _line_end(store, entry.offset)
        return {"offset": raw_end, "line": entry.offset, "afterId": entry.id}
    return dict(START)


def _line_end(store: InboxStore, offset: int) -> int:
    """Where the line starting at ``offset`` ends (one short read)."""
    from openalice.core import fs  # lazy: only a take measures lines

    with open(fs.open_state_file(store.entries_path), "rb") as fh:
        fh.seek(offset)
        return offset + len(fh.readline())


def _start(store: InboxStore, cursor: dict) -> tuple[int, str | None]:
    after = cursor.get("afterId")
    if after is None:
        return cursor.get("offset", 0), None
    line = cursor.get("line")
    record = store.file.record_at(line) if isinstance(line, int) else None
    if isinstance(record, dict) and record.get("id") == after:
        return cursor["offset"], None
    if not is_entry_id(after):
        return 0, after  # an imported id: read from the start, skip through it
    return store.file.bisect(_grammar_key, after, inclusive=True), after


def _grammar_key(record: dict):
    value = record.get("id")
    return value if isinstance(value, str) and is_entry_id(value) else None


def matches(rec: dict, record: dict) -> bool:
    """Does the connector's filter keep this entry?"""
    spaces = rec.get("workspaces") or []
    if spaces and record.get("workspaceId") not in spaces:
        return False
    if rec.get("skipSilent") and parse_references(record["body"]).silent:
        return False
    return True


def take(rec: dict, doc: dict, store: InboxStore, *, now_ms: int, limit: int) -> int:
    """Move the cursor past up to ``limit`` new entries, queueing those the
    filter keeps (the caller writes ``doc``); the number of entries passed."""
    start, skip_through = _start(store, doc["cursor"])
    passed = 0
    queued = {i["id"] for i in doc["queue"]}
    for entry in store.iter_oldest(start=start):
        if skip_through is not None:
            if entry.id == skip_through:
                skip_through = None
                continue
            if not (is_entry_id(entry.id) and is_entry_id(skip_through)
                    and entry.id > skip_through):
                continue
            skip_through = None
        if passed >= limit:
            break
        end = _line_end(store, entry.offset)
        doc["cursor"] = {"offset": end, "line": entry.offset, "afterId": entry.id}
        passed += 1
        if matches(rec, entry.record) and entry.id not in queued:
            doc["queue"].append({"kind": "entry", "id": entry.id, "line": entry.offset,
                                 "firstAt": now_ms, "tries": 0, "nextAt": now_ms, "done": []})
    return passed
