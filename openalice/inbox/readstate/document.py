"""The read-state sidecar's model: parsing it (version 1 or 2), checking that
the watermark's prefix is unchanged, and recomputing it when it is not."""

from __future__ import annotations

from bisect import bisect_left

from openalice.core import fs
from openalice.core.errors import InvalidInput

from ..store import Entry, InboxStore, is_entry_id

__all__ = ["VERSION", "ReadState", "load", "read_marks"]

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


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


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
              and _count(watermark.get("line")) and _positive_int(watermark.get("entries"))
              and isinstance(watermark.get("problems", []), list)
              and all(isinstance(p, dict) and _count(p.get("offset")) and isinstance(p.get("reason"), str)
                      for p in watermark.get("problems", [])))
        if not ok:
            raise _bad(store, "'watermark' must be {line, id, entries, problems: [{offset, reason}]}",
                       "watermark")
    elif segments or unread:
        raise _bad(store, "segments and unread marks need a watermark", "watermark")
    return ReadState(watermark, segments, unread, read), False


def load_strict(store: InboxStore) -> tuple[ReadState, bool]:
    data = fs.read_json(store.read_state_path, missing=None)
    if data is None:
        return ReadState(), False
    return _parse(data, store)


def load(store: InboxStore) -> ReadState:
    """The read marks (nothing read when the sidecar does not exist yet).  A
    corrupt sidecar reads as nothing read and is reported through
    ``store.problems``."""
    try:
        return load_strict(store)[0]
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


def prefix_intact(store: InboxStore, state: ReadState) -> bool:
    """Is the line at the watermark still its entry?  (A delete or an edit
    before it moves every later line.)  One short read."""
    wm = state.watermark
    if wm is None:
        return True
    record = store.file.record_at(wm["line"])
    return record is not None and record.get("id") == wm["id"]


def tail_after_watermark(store: InboxStore, state: ReadState) -> list[Entry] | None:
    """The valid entries after the watermark's prefix (all of them without a
    watermark), or None when the prefix is no longer the one recorded."""
    wm = state.watermark
    if wm is None:
        return list(store.iter_oldest())
    if not prefix_intact(store, state):
        return None
    for problem in wm.get("problems", ()):
        store.note_problem(problem["offset"], problem["reason"])
    tail = store.iter_oldest(start=wm["line"])
    next(tail, None)  # the watermark's own entry
    return list(tail)


def rebuild_state(store: InboxStore, state: ReadState) -> ReadState:
    """The same marks with the prefix recomputed from the whole file (after a
    delete or a hand edit moved it): every entry keeps its read state."""
    entries = list(store.iter_oldest())
    through = state.throughs[-1] if state.throughs else None
    covered = [e for e in entries if through is not None and is_entry_id(e.id) and e.id <= through]
    if not covered:
        return ReadState(read={e.id: state.get(e.id) for e in entries if e.id in state})
    last = covered[-1]
    prefix = [e for e in entries if e.offset <= last.offset]
    new = ReadState(watermark_of(store, last, len(prefix)),
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


def watermark_of(store: InboxStore, last: Entry, entries: int) -> dict:
    """The watermark closing the prefix at ``last``, with the bad lines seen
    before it (those an older watermark recorded are noted on the store by
    :func:`tail_after_watermark`)."""
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
    new = ReadState(watermark_of(store, last, len(entries)) if segments else None, segments)
    for entry in entries:
        read_at = marks.get(entry.id)
        if read_at is None:
            if new.watermark is not None:
                new.unread[entry.id] = entry.record["workspaceId"]
        elif new.get(entry.id) != read_at:
            new.read[entry.id] = read_at
    return new


def current_state(store: InboxStore, data: object) -> ReadState:
    """The state to change: version 1 migrated, a moved prefix recomputed."""
    state, v1 = _parse(data, store)
    if v1:
        return _from_v1(store, state.read)
    if not prefix_intact(store, state):
        return rebuild_state(store, state)
    return state
