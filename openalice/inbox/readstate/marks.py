"""Changing the read state (read, unread, forget, mark-all-read: each one
locked read-modify-write of the sidecar) and counting what is unread."""

from __future__ import annotations

from openalice.core import fs
from openalice.core.errors import InvalidInput

from .. import counter
from ..store import Entry, InboxStore, is_entry_id
from .document import (
    VERSION,
    ReadState,
    current_state,
    load,
    load_strict,
    rebuild_state,
    tail_after_watermark,
    watermark_of,
)

# -- changing -------------------------------------------------------------------------

_RECOVER_HINT = ("'alice-inbox mark-all-read' keeps the bad file aside and starts a new one "
                 "(or repair the file by hand)")


def _update(store: InboxStore, change, delta: list | None = None) -> ReadState:
    """``change(state)`` under the sidecar's lock, then one atomic write.  With
    ``delta`` (filled by ``change`` with ``(workspace, ±1 unread)``), a counter
    that matched the files before moves with the change (see :mod:`..counter`)."""
    result: list[ReadState] = []

    def apply(data: object) -> dict:
        state = current_state(store, data)
        change(state)
        result.append(state)
        return state.document()

    with fs.locked_file(store.read_state_path):  # re-entrant: locked_update_json takes it again
        entries = counter.identity(store.entries_path)
        doc = counter.load(store) if delta is not None else None
        live = counter.valid_for(doc, entries, counter.identity(store.read_state_path))
        try:
            fs.locked_update_json(store.read_state_path, apply,
                                  default=lambda: {"version": VERSION})
        except InvalidInput as exc:
            if exc.file != str(store.read_state_path):
                raise
            raise InvalidInput(exc.message, file=exc.file, field=exc.field, code=exc.code,
                               details={**exc.details, "hint": _RECOVER_HINT}) from None
        if live and delta and counter.identity(store.entries_path) == entries:
            ws = dict(doc["workspaces"])
            unread = doc["unread"]
            for workspace, change_by in delta:
                ws[workspace] = ws.get(workspace, 0) + change_by
                unread += change_by
            counter.save(store, entries, counter.identity(store.read_state_path),
                         {**doc, "unread": unread, "workspaces": ws, "readStateProblem": None})
    return result[0]


def _in_prefix(state: ReadState, entry: Entry) -> bool:
    return state.watermark is not None and entry.offset <= state.watermark["line"]


def mark_read(store: InboxStore, entry_id: str, *, now_ms: int) -> int:
    """Mark one existing entry read (a later call moves readAt); returns readAt."""
    store.get(entry_id)
    delta: list = []

    def change(state: ReadState) -> None:
        entry = store.get(entry_id)  # again under the lock: the counter's delta needs it
        if entry_id not in state:
            delta.append((entry.record["workspaceId"], -1))
        state.unread.pop(entry_id, None)
        state.read[entry_id] = now_ms

    _update(store, change, delta)
    return now_ms


def mark_unread(store: InboxStore, entry_id: str) -> bool:
    """Drop the read mark of an existing entry; True if it was read."""
    store.get(entry_id)
    was: list[bool] = []
    delta: list = []

    def change(state: ReadState) -> None:
        entry = store.get(entry_id)  # again under the lock: where it is now
        was.append(entry_id in state)
        if was[0]:
            delta.append((entry.record["workspaceId"], 1))
        state.read.pop(entry_id, None)
        if _in_prefix(state, entry):  # the prefix lists every unread entry it holds
            state.unread[entry_id] = entry.record["workspaceId"]

    _update(store, change, delta)
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


def _tally(store: InboxStore, state: ReadState) -> dict:
    """``{total, unread, workspaces: {ws: unread}, problems, readStateProblem}``
    from the files: the prefix's part from the watermark, the rest by reading
    the entries after it."""
    tail = tail_after_watermark(store, state)
    if tail is None:  # the prefix moved (a delete, a hand edit): count everything
        state = rebuild_state(store, state)
        tail = tail_after_watermark(store, state)
    total = 0
    workspaces: dict[str, int] = {}
    if state.watermark is not None:
        total = state.watermark["entries"]
        for ws in state.unread.values():
            workspaces[ws] = workspaces.get(ws, 0) + 1
    for entry in tail:
        total += 1
        if entry.id in state.read:
            continue
        ws = entry.record["workspaceId"]
        workspaces[ws] = workspaces.get(ws, 0) + 1
    problems = [{"offset": p["offset"], "reason": p["reason"]} for p in store.problems
                if p["file"] == str(store.entries_path)]
    return {"total": total, "unread": sum(workspaces.values()), "workspaces": workspaces,
            "problems": problems, "readStateProblem": store.read_state_problem}


def _answer(tally: dict, workspace_id: str | None) -> dict:
    out = {"total": tally["total"], "unread": tally["unread"]}
    if workspace_id is not None:
        out["workspaceUnread"] = tally["workspaces"].get(workspace_id, 0)
    return out


def counts(store: InboxStore, read: ReadState | None = None, *,
           workspace_id: str | None = None) -> dict:
    """``{"total", "unread"}`` over the whole file (and ``workspaceUnread`` when
    asked).  Without ``read``: from the counter while it matches both files
    (O(1)), else from the files, and the repaired counter is written back."""
    if read is not None:
        return _answer(_tally(store, read), workspace_id)
    entries = counter.identity(store.entries_path)
    read_state = counter.identity(store.read_state_path)
    doc = counter.load(store)
    if counter.valid_for(doc, entries, read_state):
        return counter.answer(store, doc, workspace_id)
    tally = _tally(store, load(store))
    if entries is not None:
        try:
            with fs.locked_file(store.read_state_path, blocking=False):
                if (counter.identity(store.entries_path) == entries
                        and counter.identity(store.read_state_path) == read_state):
                    counter.save(store, entries, read_state, tally)
        except Exception:
            pass
    return _answer(tally, workspace_id)


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
        tail = tail_after_watermark(store, state)
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
            state.watermark = watermark_of(store, last, previous + len(tail))
        else:  # only ids outside the grammar: their own marks, no watermark
            for entry in tail:
                if entry.id in state.unread:
                    del state.unread[entry.id]

    aside = None
    with fs.locked_file(store.read_state_path):  # re-entrant: _update takes it again
        try:
            load_strict(store)
        except InvalidInput:
            aside = fs.set_aside(store.read_state_path, f"corrupt-{_stamp(now_ms)}")
        written = _update(store, change)
        fresh = InboxStore(store.directory)
        entries = counter.identity(store.entries_path)
        tally = _tally(fresh, written)  # only the entries pushed since the snapshot are read
        if counter.identity(store.entries_path) == entries:
            counter.save(store, entries, counter.identity(store.read_state_path), tally)
    out = {"marked": marked[0], **_answer(tally, workspace_id)}
    if aside is not None:
        out["setAside"] = str(aside)
    return out


def _stamp(now_ms: int) -> str:
    from openalice.core import clock  # lazy: only a set-aside needs it, read verbs must not load it

    return clock.to_iso(clock.from_ms(now_ms - now_ms % 1000)).replace("-", "").replace(":", "")
