"""Read state: ``read-state.json`` beside the entries, ``{"version": 1, "read": {id: readAtMs}}``.

Entries are never rewritten to mark them read.  Every change is a locked
read-modify-write of this sidecar (``core.fs.locked_update_json``: atomic
replace under the file's lock), so concurrent ``read``/``mark-all-read`` never
lose each other's marks.  A missing sidecar means nothing is read.  A corrupt
one never locks the Inbox: readers (``list``, ``count``, ``show``) treat every
entry as unread and report the file as a problem; ``read``/``unread`` refuse
(exit 2) rather than write over it; ``mark-all-read`` keeps the bad file aside
(``read-state.json.corrupt-<UTC stamp>``) and writes a new one.

The unread count is *computed*, never stored: entries (valid, present in the
file) whose id is not in the read set.  It costs one pass over the entries
file (O(entries); ~0.5 s at 100,000 entries, see ``docs/benchmarks.md``), and
read marks of ids that no longer exist never count.
"""

from __future__ import annotations

from typing import Callable

from openalice.core import fs
from openalice.core.errors import InvalidInput

from .store import InboxStore

__all__ = ["VERSION", "load", "mark_read", "mark_unread", "mark_all_read", "unread_count", "forget",
           "counts"]

VERSION = 1


def _empty() -> dict:
    return {"version": VERSION, "read": {}}


def _check(data: object, store: InboxStore) -> dict:
    path = store.read_state_path
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise InvalidInput("read state must be {\"version\": 1, \"read\": {...}}", file=path,
                           field="version", code="malformed_read_state")
    read = data.get("read")
    if not isinstance(read, dict):
        raise InvalidInput("'read' must be an object of id -> readAt (ms)", file=path,
                           field="read", code="malformed_read_state")
    for key, value in read.items():
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise InvalidInput(f"readAt of {key!r} must be a positive integer (ms)", file=path,
                               field=f"read/{key}", code="malformed_read_state")
    return data


def _load_strict(store: InboxStore) -> dict[str, int]:
    data = fs.read_json(store.read_state_path, missing=None)
    if data is None:
        return {}
    return _check(data, store)["read"]


def load(store: InboxStore) -> dict[str, int]:
    """``{id: readAtMs}`` (empty when the sidecar does not exist yet).  A corrupt
    sidecar reads as empty (everything unread) and is reported through
    ``store.problems``."""
    try:
        return _load_strict(store)
    except InvalidInput as exc:
        store.read_state_problem = (f"{exc.message}; every entry counts as unread until "
                                    "'mark-all-read' sets the file aside and starts a new one")
        return {}


_RECOVER_HINT = ("'alice-inbox mark-all-read' keeps the bad file aside and starts a new one "
                 "(or repair the file by hand)")


def _update(store: InboxStore, change: Callable[[dict], None]) -> dict:
    def apply(data: dict) -> dict:
        _check(data, store)
        change(data["read"])
        return data

    try:
        return fs.locked_update_json(store.read_state_path, apply, default=_empty)
    except InvalidInput as exc:
        if exc.file != str(store.read_state_path):
            raise
        raise InvalidInput(exc.message, file=exc.file, field=exc.field, code=exc.code,
                           details={**exc.details, "hint": _RECOVER_HINT}) from None


def mark_read(store: InboxStore, entry_id: str, *, now_ms: int) -> int:
    """Mark one existing entry read (a later call moves readAt); returns readAt."""
    store.get(entry_id)

    def change(read: dict) -> None:
        read[entry_id] = now_ms

    _update(store, change)
    return now_ms


def mark_unread(store: InboxStore, entry_id: str) -> bool:
    """Drop the read mark of an existing entry; True if it was read."""
    store.get(entry_id)
    was: list[bool] = []

    def change(read: dict) -> None:
        was.append(read.pop(entry_id, None) is not None)

    _update(store, change)
    return was[0]


def forget(store: InboxStore, entry_id: str) -> None:
    """Drop a read mark whatever the entry's state (used by delete, after the
    entry is gone).  A corrupt sidecar is left alone: a mark for an id that
    no longer exists is harmless, and the delete itself already happened."""
    if not store.read_state_path.exists():
        return
    try:
        _update(store, lambda read: read.pop(entry_id, None))
    except InvalidInput:
        store.read_state_problem = "read state is corrupt; the deleted entry's mark was not removed"


def counts(store: InboxStore, read: dict[str, int] | None = None, *,
           workspace_id: str | None = None) -> dict:
    """``{"total", "unread"}`` over the whole file (and ``workspaceUnread`` when asked)."""
    read = load(store) if read is None else read
    total = unread = ws_unread = 0
    for entry in store.iter_oldest():
        total += 1
        if entry.id in read:
            continue
        unread += 1
        if workspace_id is not None and entry.record["workspaceId"] == workspace_id:
            ws_unread += 1
    out = {"total": total, "unread": unread}
    if workspace_id is not None:
        out["workspaceUnread"] = ws_unread
    return out


def unread_count(store: InboxStore, read: dict[str, int] | None = None) -> int:
    """Entries without a read mark, over the whole file (the global badge)."""
    return counts(store, read)["unread"]


def mark_all_read(store: InboxStore, *, now_ms: int, workspace_id: str | None = None) -> dict:
    """Mark every entry unread *now* as read, in one atomic write of the sidecar.

    The snapshot is the entries present while the sidecar's lock is held; an
    entry pushed after that stays unread.  ``workspace_id`` limits the
    snapshot to one workspace.  Returns ``{"marked", "unread", "total"
    [, "workspaceUnread"]}``, the counts computed after the write (so an entry
    that arrived meanwhile is counted unread): the authoritative figures.
    """
    marked: list[int] = [0]

    def change(read: dict) -> None:
        for entry in store.iter_oldest():
            if entry.id in read:
                continue
            if workspace_id is not None and entry.record["workspaceId"] != workspace_id:
                continue
            read[entry.id] = now_ms
            marked[0] += 1

    aside = None
    with fs.locked_file(store.read_state_path):  # re-entrant: _update takes it again
        try:
            _load_strict(store)
        except InvalidInput:
            aside = fs.set_aside(store.read_state_path, f"corrupt-{_stamp(now_ms)}")
        written = _update(store, change)
    out = {"marked": marked[0], **counts(store, written["read"], workspace_id=workspace_id)}
    if aside is not None:
        out["setAside"] = str(aside)
    return out


def _stamp(now_ms: int) -> str:
    from openalice.core import clock

    return clock.to_iso(clock.from_ms(now_ms - now_ms % 1000)).replace("-", "").replace(":", "")
