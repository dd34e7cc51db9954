"""Per-connector delivery state: ``$OPENALICE_HOME/state/connectors/<name>/state.json``.

One document (``spec/connector-state.schema.json``), rewritten atomically
while the connector's delivery lock is held::

    {"version": 1,
     "cursor": {"offset": 5120, "line": 4890, "afterId": "inbox-…"},   # a position in entries.jsonl
     "queue": [{"kind": "entry", "id": "inbox-…", "firstAt": ms, "tries": 0, "nextAt": ms,
                "done": ["c123:t0"], "lastError"?: "...", "reply"?: {...}}],
     "failed": [{"kind", "id", "at", "tries", "error"}],                 # newest 100
     "sent": 12,
     "inbound": {"offset": 1234, "messages": {commentId: {chat, messageId}},
                 "replied": [commentId...], "strangers": 0, "strangerLastAt"?: ms}}

The **cursor** is a position, not a time: ``offset`` is the byte just past the
last entry line taken, ``line`` where that line starts and ``afterId`` its
entry.  It is trusted while the line at ``line`` is still ``afterId`` (one
short read); after a delete rewrote the file the position is found again by
bisection on the id (ids are sorted in file order).  An entry is *taken* when
the cursor moves past it and it joins ``queue`` in the same write, so a crash
never loses one; ``done`` lists the parts the far side acknowledged.

**Progress between writes** goes to ``progress.jsonl`` beside it: one whole
line per acknowledged part (``{"op": "part", "id", "key"}``) or finished item
(``{"op": "sent", "id"}``), appended through :mod:`openalice.core.jsonl` (one
``write()``, no rename: a rename per part cost more than the send on a loaded
disk).  :func:`load` replays it over ``state.json``; :func:`save` writes the
whole document and then drops the log, so a crash between the two replays
lines that change nothing.

The **quiet marker** ``state/connectors/quiet`` is one line written after a
full delivery pass: the entries file's size and mtime, the connectors
directory's mtime, the earliest ``nextAt`` in any queue, and whether any
connector polls inbound.  :func:`openalice.schedule.fastpath.connectors_quiet` (the scan's reader, kept
beside the scan's other cache checks) compares it with two ``stat`` calls so
the timer's scan sees "nothing to send" without importing anything else.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from openalice.core import fs, jsonl, paths
from openalice.core.errors import InvalidInput

from .records import connectors_dir

__all__ = ["VERSION", "state_root", "state_dir", "state_path", "progress_path", "new_state",
           "load", "save", "note", "replay",
           "delivery_lock", "quiet_path", "write_quiet", "clear_quiet", "FAILED_KEPT"]

VERSION = 1
FAILED_KEPT = 100
MESSAGES_KEPT = 500


def state_root() -> Path:
    return paths.state_dir() / "connectors"


def state_dir(name: str) -> Path:
    return state_root() / name


def state_path(name: str) -> Path:
    return state_dir(name) / "state.json"


def progress_path(name: str) -> Path:
    return state_dir(name) / "progress.jsonl"


def quiet_path() -> Path:
    return state_root() / "quiet"


def new_state(cursor: dict) -> dict:
    return {"version": VERSION, "cursor": cursor, "queue": [], "failed": [], "sent": 0,
            "inbound": {"offset": None, "messages": {}, "replied": [], "strangers": 0}}


def _check(doc, path: Path) -> dict:
    def bad(field: str, reason: str):
        return InvalidInput(reason, file=path, field=field, code="bad_connector_state")

    if doc.get("version") != VERSION:
        raise bad("version", f"must be {VERSION}")
    cursor = doc.get("cursor")
    if (not isinstance(cursor, dict) or type(cursor.get("offset")) is not int
            or cursor["offset"] < 0):
        raise bad("cursor", "must be {offset, line, afterId}")
    for key in ("queue", "failed"):
        if not isinstance(doc.get(key), list) or not all(isinstance(i, dict) for i in doc[key]):
            raise bad(key, "must be a list of objects")
    for i, item in enumerate(doc["queue"]):
        if not isinstance(item.get("id"), str) or not isinstance(item.get("done"), list):
            raise bad(f"queue/{i}", "needs id and done")
    if not isinstance(doc.get("inbound"), dict):
        raise bad("inbound", "must be an object")
    return doc


def load(name: str) -> dict | None:
    """The state, or None when the connector has none yet."""
    path = state_path(name)
    doc = fs.read_json(path, missing=None, max_bytes=16 * 1024 * 1024)
    if doc is None:
        return None
    _check(doc, path)
    log = jsonl.JsonlFile(progress_path(name), durable=False)
    for line in log.iter_forward():
        replay(doc, line.record)
    return doc


def replay(doc: dict, record: dict) -> None:
    """Apply one progress line (a line for an item no longer queued changes nothing)."""
    item = next((i for i in doc["queue"] if i["id"] == record.get("id")), None)
    if item is None:
        return
    if record.get("op") == "part" and record.get("key") not in item["done"]:
        item["done"].append(record["key"])
    elif record.get("op") == "sent":
        doc["queue"].remove(item)
        doc["sent"] = doc.get("sent", 0) + 1


def note(name: str, doc: dict, record: dict) -> None:
    """Record one step of progress (and apply it to ``doc``) with one append."""
    replay(doc, record)
    jsonl.JsonlFile(progress_path(name), durable=False).append(record)


def save(name: str, doc: dict) -> None:
    failed = doc["failed"]
    if len(failed) > FAILED_KEPT:
        del failed[:len(failed) - FAILED_KEPT]
    messages = doc["inbound"]["messages"]
    if len(messages) > MESSAGES_KEPT:
        for key in list(messages)[:len(messages) - MESSAGES_KEPT]:
            del messages[key]
    replied = doc["inbound"]["replied"]
    if len(replied) > MESSAGES_KEPT:
        del replied[:len(replied) - MESSAGES_KEPT]
    # Not fsynced: a killed process loses nothing (the page cache outlives it);
    # a power cut can roll the file back to an earlier write, which repeats
    # parts (their entries are taken or queued again), never loses an entry.
    fs.atomic_write_json(state_path(name), doc, indent=None, mode=0o600, durable=False)
    if os.path.exists(progress_path(name)):
        fs.remove_file(progress_path(name))


@contextmanager
def delivery_lock(name: str):
    """The connector's sender lock, without waiting: one sender per connector
    (the scan, ``deliver`` and ``run`` exclude each other); Busy when held."""
    path = state_path(name)
    fs.ensure_dir(path.parent, 0o700)
    with fs.locked_file(path, blocking=False):
        yield


def _stat_key(path: Path) -> str:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def marker_text(entries: Path, next_due: int | None, inbound: bool) -> str:
    due = "-" if next_due is None else str(next_due)
    return (f"v1 {_stat_key(entries)} {_stat_key(connectors_dir())} {due} "
            f"{1 if inbound else 0}\n")


def write_quiet(entries: Path, next_due: int | None, inbound: bool) -> None:
    fs.atomic_write_text(quiet_path(), marker_text(entries, next_due, inbound), mode=0o600)


def clear_quiet() -> None:
    if quiet_path().parent.is_dir():
        fs.remove_file(quiet_path())
