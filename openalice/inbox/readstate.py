"""Read state: ``read-state.json`` beside the entries, a watermark plus exceptions.

Entries are never rewritten to mark them read.  Version 2 of the sidecar
(``spec/inbox-read-state.schema.json``) is shaped so that reading it costs
what the page needs, not the number of entries ever read::

    {"version": 2,
     "watermark": {"line": 51100342, "id": "inbox-…", "entries": 95000, "problems": []},
     "segments": [{"through": "inbox-…", "readAt": 1796029260000}, ...],
     "unread": {"inbox-…": "notes"},
     "read": {"inbox-…": 1796029200000}}

- ``watermark`` closes the *prefix*: every line of ``entries.jsonl`` up to and
  including the line starting at byte ``line`` (the entry ``id``).  It holds
  ``entries`` valid entries and the ``problems`` (bad lines) found in it.
  Only a delete (an atomic rewrite) or a hand edit changes the prefix: the
  watermark is trusted only while the line at ``line`` is still entry ``id``;
  otherwise everything is recomputed once from the whole file.
- ``segments``, ascending: each mark-all-read adds one.  A grammar id in
  ``(previous through, through]`` reads as read at that ``readAt``, unless it
  is listed in ``unread`` or has its own mark in ``read``.
- ``unread``: every entry of the prefix that is unread, with its workspace
  (so per-workspace counts need no entry lookups).
- ``read``: marks of their own — entries after the prefix, entries read at
  another time than their segment says, and ids outside the grammar.

So ``list`` costs the page plus a small JSON document; ``count`` reads only
the entries after the prefix (O(entries since the watermark));
``mark-all-read`` moves the watermark to the end of the file in one atomic
write, reading only those same entries.

Every change is a locked read-modify-write of the sidecar
(``core.fs.locked_update_json``: atomic replace under the file's lock), so
concurrent ``read``/``mark-all-read`` never lose each other's marks, and a
crash leaves the old sidecar or the new one.  A version-1 file
(``{"version": 1, "read": {id: readAtMs}}``) is read as it is and rewritten as
version 2 on its first write (one pass over the entries; every readAt kept).
A missing sidecar means nothing is read.  A corrupt one never locks the Inbox:
readers (``list``, ``count``, ``show``) treat every entry as unread and report
the file as a problem; ``read``/``unread`` refuse (exit 2) rather than write
over it; ``mark-all-read`` keeps the bad file aside
(``read-state.json.corrupt-<UTC stamp>``) and writes a new one.

The unread count stays authoritative: it is computed from the entries file
(valid entries present in it), never stored as a number that could drift;
the watermark only lets the prefix's part of it be reused while the prefix is
provably unchanged.
"""

from __future__ import annotations

from bisect import bisect_left

from openalice.core import fs
from openalice.core.errors import InvalidInput

from .store import Entry, InboxStore, is_entry_id

__all__ = ["VERSION", "ReadState", "load", "read_marks", "mark_read", "mark_unread", "mark_all_read",
           "forget", "counts"]

VERSION = 2
_V1 = 1


class ReadState:
    """The read marks, looked up per entry: ``state.get(id)`` is its readAt (ms)
    or None, and ``id in state`` tells whether it is read."""

    __slots__ = ("watermark", "throughs", "times", "unread", "read")

    def __init__(self, watermark: dict | None = None, segments: list | None = None,
                 unread: dict | None = None, read: dict | None = None) -> None:
        self.watermark = watermark
        segments = segments or []
        self.throughs = [s["through"] for s in segments]
        self.times = [s["readAt"] for s in segments]
        self.unread: dict[str, str] = dict(unread or {})
        self.read: dict[str, int] = dict(read or {})

    def get(self, entry_id: str, default: int | None = None) -> int | None:
        mark = self.read.get(entry_id)
        if mark is not None:
            return mark
        if entry_id in self.unread or not self.throughs or not is_entry_id(entry_id):
            return default
        i = bisect_left(self.throughs, entry_id)
        return self.times[i] if i < len(self.throughs) else default

    def __contains__(self, entry_id: object) -> bool:
        return isinstance(entry_id, str) and self.get(entry_id) is not None

    def document(self) -> dict:
        out: dict = {"version": VERSION}
        if self.watermark is not None:
            out["watermark"] = self.watermark
        out["segments"] = [{"through": t, "readAt": r} for t, r in zip(self.throughs, self.times)]
        out["unread"] = self.unread
        out["read"] = self.read
        return out


# -- reading and checking -----------------------------------------------------------


def _bad(store: InboxStore, message: str, field: str) -> InvalidInput:
    return InvalidInput(message, file=store.read_state_path, field=field,
                        code="malformed_read_state")


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _check_marks(store: InboxStore, read: object) -> dict:
    if not isinstance(read, dict):
        raise _bad(store, "'read' must be an object of id -> readAt (ms)", "read")
    for key, value in read.items():
        if not _positive_int(value):
            raise _bad(store, f"readAt of {key!r} must be a positive integer (ms)", f"read/{key}")
    return read


def _parse(data: object, store: InboxStore) -> tuple[ReadState, bool]:
    """The state in a sidecar document and whether it is version 1."""
    if not isinstance(data, dict) or data.get("version") not in (_V1, VERSION):
        raise _bad(store, "read state must be {\"version\": 2, ...} (or the older "
                   "{\"version\": 1, \"read\": {...}})", "version")
    if data["version"] == _V1:
        return ReadState(read=_check_marks(store, data.get("read"))), True
    read = _check_marks(store, data.get("read", {}))
    unread = data.get("unread", {})
    if not isinstance(unread, dict) or not all(isinstance(v, str) for v in unread.values()):
        raise _bad(store, "'unread' must be an object of id -> workspace id", "unread")
    segments = data.get("segments", [])
    if not isinstance(segments, list):
        raise _bad(store, "'segments' must be a list", "segments")
    previous = ""
    for i, seg in enumerate(segments):
        if (not isinstance(seg, dict) or not is_entry_id(seg.get("through"))
                or not _positive_int(seg.get("readAt")) or seg["through"] <= previous):
            raise _bad(store, "each segment must be {through: entry id, readAt: ms}, in "
                       "ascending order", f"segments/{i}")
        previous = seg["through"]
    watermark = data.get("watermark")
    if watermark is not None:
        ok = (isinstance(watermark, dict) and isinstance(watermark.get("id"), str)
              and isinstance(watermark.get("line"), int) and watermark["line"] >= 0
              and isinstance(watermark.get("entries"), int) and watermark["entries"] > 0
              and isinstance(watermark.get("problems", []), list))
        if not ok:
            raise _bad(store, "'watermark' must be {line, id, entries, problems}", "watermark")
    elif segments or unread:
        raise _bad(store, "segments and unread marks need a watermark", "watermark")
    return ReadState(watermark, segments, unread, read), False


def _load_strict(store: InboxStore) -> tuple[ReadState, bool]:
    data = fs.read_json(store.read_state_path, missing=None)
    if data is None:
        return ReadState(), False
    return _parse(data, store)


def load(store: InboxStore) -> ReadState:
    """The read marks (nothing read when the sidecar does not exist yet).  A
    corrupt sidecar reads as nothing read and is reported through
    ``store.problems``."""
    try:
        return _load_strict(store)[0]
    except InvalidInput as exc:
        store.read_state_problem = (f"{exc.message}; every entry counts as unread until "
                                    "'mark-all-read' sets the file aside and starts a new one")
        return ReadState()


def read_marks(store: InboxStore) -> dict[str, int]:
    """``{id: readAtMs}`` of every read entry in the file (what version 1
    stored): O(entries), for checks and tools, never on a listing's path."""
    state = load(store)
    return {e.id: state.get(e.id) for e in store.iter_oldest() if e.id in state}


# -- the prefix -----------------------------------------------------------------------


def _prefix_intact(store: InboxStore, state: ReadState) -> bool:
    """Is the line at the watermark still its entry?  (A delete or an edit
    before it moves every later line.)  One short read."""
    wm = state.watermark
    if wm is None:
        return True
    record = store.file.record_at(wm["line"])
    return record is not None and record.get("id") == wm["id"]


def _tail(store: InboxStore, state: ReadState) -> list[Entry] | None:
    """The valid entries after the watermark's prefix (all of them without a
    watermark), or None when the prefix is no longer the one recorded."""
    wm = state.watermark
    if wm is None:
        return list(store.iter_oldest())
    if not _prefix_intact(store, state):
        return None
    for problem in wm.get("problems", ()):
        store.note_problem(problem["offset"], problem["reason"])
    tail = store.iter_oldest(start=wm["line"])
    next(tail, None)  # the watermark's own entry
    return list(tail)


def _rebuild(store: InboxStore, state: ReadState) -> ReadState:
    """The same marks with the prefix recomputed from the whole file (after a
    delete or a hand edit moved it): every entry keeps its read state."""
    entries = list(store.iter_oldest())
    through = state.throughs[-1] if state.throughs else None
    covered = [e for e in entries if through is not None and is_entry_id(e.id) and e.id <= through]
    if not covered:
        return ReadState(read={e.id: state.get(e.id) for e in entries if e.id in state})
    last = covered[-1]
    prefix = [e for e in entries if e.offset <= last.offset]
    new = ReadState(_watermark(store, last, len(prefix)),
                    [{"through": t, "readAt": r} for t, r in zip(state.throughs, state.times)])
    for entry in entries:
        read_at = state.get(entry.id)
        in_prefix = entry.offset <= last.offset
        if read_at is None:
            if in_prefix:
                new.unread[entry.id] = entry.record["workspaceId"]
        elif new.get(entry.id) != read_at:
            new.read[entry.id] = read_at
    return new


def _watermark(store: InboxStore, last: Entry, entries: int) -> dict:
    """The watermark closing the prefix at ``last``, with the bad lines seen
    before it (those an older watermark recorded are noted on the store by
    :func:`_tail`)."""
    problems = [{"offset": p["offset"], "reason": p["reason"]} for p in store.problems
                if p["file"] == str(store.entries_path) and p["offset"] < last.offset]
    return {"line": last.offset, "id": last.id, "entries": entries, "problems": problems}


def _from_v1(store: InboxStore, marks: dict[str, int]) -> ReadState:
    """A version-1 sidecar as version 2: runs of entries read at the same
    instant (what mark-all-read wrote) become segments, the rest own marks."""
    entries = list(store.iter_oldest())
    runs: list[list] = []  # [through, readAt, length]
    for entry in entries:
        read_at = marks.get(entry.id)
        if read_at is None or not is_entry_id(entry.id):
            continue
        if runs and runs[-1][1] == read_at:
            runs[-1][0] = entry.id
            runs[-1][2] += 1
        else:
            runs.append([entry.id, read_at, 1])
    segments = [{"through": t, "readAt": r} for t, r, n in runs if n > 1]
    if not entries:
        return ReadState()
    last = entries[-1]
    new = ReadState(_watermark(store, last, len(entries)) if segments else None, segments)
    for entry in entries:
        read_at = marks.get(entry.id)
        if read_at is None:
            if new.watermark is not None:
                new.unread[entry.id] = entry.record["workspaceId"]
        elif new.get(entry.id) != read_at:
            new.read[entry.id] = read_at
    return new


def _current(store: InboxStore, data: object) -> ReadState:
    """The state to change: version 1 migrated, a moved prefix recomputed."""
    state, v1 = _parse(data, store)
    if v1:
        return _from_v1(store, state.read)
    if not _prefix_intact(store, state):
        return _rebuild(store, state)
    return state


# -- changing -------------------------------------------------------------------------

_RECOVER_HINT = ("'alice-inbox mark-all-read' keeps the bad file aside and starts a new one "
                 "(or repair the file by hand)")


def _update(store: InboxStore, change) -> ReadState:
    """``change(state)`` under the sidecar's lock, then one atomic write."""
    result: list[ReadState] = []

    def apply(data: object) -> dict:
        state = _current(store, data)
        change(state)
        result.append(state)
        return state.document()

    try:
        fs.locked_update_json(store.read_state_path, apply,
                              default=lambda: {"version": VERSION})
    except InvalidInput as exc:
        if exc.file != str(store.read_state_path):
            raise
        raise InvalidInput(exc.message, file=exc.file, field=exc.field, code=exc.code,
                           details={**exc.details, "hint": _RECOVER_HINT}) from None
    return result[0]


def _in_prefix(state: ReadState, entry: Entry) -> bool:
    return state.watermark is not None and entry.offset <= state.watermark["line"]


def mark_read(store: InboxStore, entry_id: str, *, now_ms: int) -> int:
    """Mark one existing entry read (a later call moves readAt); returns readAt."""
    store.get(entry_id)

    def change(state: ReadState) -> None:
        state.unread.pop(entry_id, None)
        state.read[entry_id] = now_ms

    _update(store, change)
    return now_ms


def mark_unread(store: InboxStore, entry_id: str) -> bool:
    """Drop the read mark of an existing entry; True if it was read."""
    store.get(entry_id)
    was: list[bool] = []

    def change(state: ReadState) -> None:
        entry = store.get(entry_id)  # again under the lock: where it is now
        was.append(entry_id in state)
        state.read.pop(entry_id, None)
        if _in_prefix(state, entry):  # the prefix lists every unread entry it holds
            state.unread[entry_id] = entry.record["workspaceId"]

    _update(store, change)
    return was[0]


def forget(store: InboxStore, entry_id: str) -> None:
    """Drop the marks of an id whatever the entry's state (used by delete,
    after the entry is gone; the prefix it was in is recomputed).  A corrupt
    sidecar is left alone: the delete itself already happened."""
    if not store.read_state_path.exists():
        return

    def change(state: ReadState) -> None:
        state.read.pop(entry_id, None)
        state.unread.pop(entry_id, None)

    try:
        _update(store, change)
    except InvalidInput:
        store.read_state_problem = "read state is corrupt; the deleted entry's mark was not removed"


def counts(store: InboxStore, read: ReadState | None = None, *,
           workspace_id: str | None = None) -> dict:
    """``{"total", "unread"}`` over the whole file (and ``workspaceUnread`` when
    asked): the prefix's part from the watermark, the rest by reading the
    entries after it."""
    state = load(store) if read is None else read
    tail = _tail(store, state)
    if tail is None:  # the prefix moved (a delete, a hand edit): count everything
        state = _rebuild(store, state)
        tail = _tail(store, state)
    total = unread = ws_unread = 0
    if state.watermark is not None:
        total = state.watermark["entries"]
        unread = len(state.unread)
        if workspace_id is not None:
            ws_unread = sum(1 for ws in state.unread.values() if ws == workspace_id)
    for entry in tail:
        total += 1
        if entry.id in state.read:
            continue
        unread += 1
        if workspace_id is not None and entry.record["workspaceId"] == workspace_id:
            ws_unread += 1
    out = {"total": total, "unread": unread}
    if workspace_id is not None:
        out["workspaceUnread"] = ws_unread
    return out


def mark_all_read(store: InboxStore, *, now_ms: int, workspace_id: str | None = None) -> dict:
    """Mark every entry unread *now* as read, in one atomic write of the sidecar.

    The snapshot is the entries present while the sidecar's lock is held; an
    entry pushed after that stays unread.  ``workspace_id`` limits the
    snapshot to one workspace (the others' unread entries are listed as
    exceptions).  The watermark moves to the newest entry of the snapshot,
    so only the entries after the previous one are read.  Returns
    ``{"marked", "unread", "total" [, "workspaceUnread"]}``, the counts
    computed after the write (so an entry that arrived meanwhile is counted
    unread): the authoritative figures.
    """
    marked = [0]

    def change(state: ReadState) -> None:
        for entry_id, ws in list(state.unread.items()):
            if workspace_id is None or ws == workspace_id:
                del state.unread[entry_id]
                state.read[entry_id] = now_ms
                marked[0] += 1
        tail = _tail(store, state)
        if not tail:
            return
        newest_grammar = None
        for entry in tail:
            if is_entry_id(entry.id):
                newest_grammar = entry.id
            if entry.id in state.read:
                continue
            if workspace_id is not None and entry.record["workspaceId"] != workspace_id:
                state.unread[entry.id] = entry.record["workspaceId"]
                continue
            marked[0] += 1
            if not is_entry_id(entry.id):
                state.read[entry.id] = now_ms  # no segment covers an id outside the grammar
        previous = state.watermark["entries"] if state.watermark is not None else 0
        last = tail[-1]
        if newest_grammar is not None:
            state.throughs.append(newest_grammar)
            state.times.append(now_ms)
        if state.throughs:
            state.watermark = _watermark(store, last, previous + len(tail))
        else:  # only ids outside the grammar: their own marks, no watermark
            for entry in tail:
                if entry.id in state.unread:
                    del state.unread[entry.id]

    aside = None
    with fs.locked_file(store.read_state_path):  # re-entrant: _update takes it again
        try:
            _load_strict(store)
        except InvalidInput:
            aside = fs.set_aside(store.read_state_path, f"corrupt-{_stamp(now_ms)}")
        written = _update(store, change)
    fresh = InboxStore(store.directory)
    out = {"marked": marked[0], **counts(fresh, written, workspace_id=workspace_id)}
    if aside is not None:
        out["setAside"] = str(aside)
    return out


def _stamp(now_ms: int) -> str:
    from openalice.core import clock

    return clock.to_iso(clock.from_ms(now_ms - now_ms % 1000)).replace("-", "").replace(":", "")
