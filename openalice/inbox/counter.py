"""The unread badge in O(1): ``counts.json``, a derived counter beside the entries.

``count`` (and the web page's badge, which shells out to it) would otherwise
read every entry after the read state's watermark: 0.4 s of CPU at a million
entries with 5% unread.  The counter holds the answer with the identity of the
two files it was computed from::

    {"version": 1, "entries": [dev, ino, size, mtimeNs, ctimeNs],
     "readState": [dev, ino, size, mtimeNs, ctimeNs] | null,
     "total": 1000000, "unread": 50000, "workspaces": {"notes": 50000},
     "problems": [{"offset", "reason"}], "readStateProblem": null, "check": crc32}

It is **never trusted over the files**: it answers only while both files
``stat`` exactly as recorded (an append by any writer changes the size, an
atomic replace the inode, an edit the times) and its ``check`` (the crc32 of
the rest) holds; anything else — missing, corrupt, truncated, another
writer's append — is a miss, the counts are computed from the files (the
read state's watermark path) and the repaired counter is written back, so only
the first read after a change pays.

Writers keep it current under the lock they already hold, each recording only
the identities it *saw*: an append (entries lock) moves ``entries`` and adds
the new entry; ``read``/``unread``/``mark-all-read`` (read-state lock) move
``readState`` and apply their change.  A counter that does not match the
files it was read with is left alone (the next read repairs it), so two
writers racing can leave a stale counter, never a wrong trusted one.
"""

from __future__ import annotations

import os
import zlib

from openalice.core import fs

__all__ = ["COUNTER_FILE", "identity", "load", "save", "valid_for", "note_append", "answer"]

COUNTER_FILE = "counts.json"
VERSION = 1


def counter_path(store) -> str:
    return os.path.join(store.directory, COUNTER_FILE)


def identity(path) -> list[int] | None:
    """What says a file is unchanged: device, inode, size, mtime and ctime (ns)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _check(doc: dict) -> int:
    body = {k: v for k, v in doc.items() if k != "check"}
    return zlib.crc32(fs.dump_json(body, indent=None).encode("utf-8"))


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _well_formed(doc: object) -> bool:
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        return False
    if not (_count(doc.get("total")) and _count(doc.get("unread")) and doc["unread"] <= doc["total"]):
        return False
    ws = doc.get("workspaces")
    if not isinstance(ws, dict) or not all(_count(v) for v in ws.values()):
        return False
    if sum(ws.values()) != doc["unread"] or not isinstance(doc.get("entries"), list):
        return False
    problems = doc.get("problems")
    if not isinstance(problems, list) or not all(
            isinstance(p, dict) and _count(p.get("offset")) and isinstance(p.get("reason"), str)
            for p in problems):
        return False
    if not isinstance(doc.get("readStateProblem"), (str, type(None))):
        return False
    return doc.get("check") == _check(doc)


def load(store) -> dict | None:
    """The counter document if it is well formed (not yet matched to the files)."""
    try:
        doc = fs.read_json(counter_path(store), missing=None)
    except Exception:
        return None
    return doc if _well_formed(doc) else None


def valid_for(doc: dict | None, entries: list | None, read_state: list | None) -> bool:
    return doc is not None and entries is not None and doc["entries"] == entries \
        and doc.get("readState") == read_state


def save(store, entries: list | None, read_state: list | None, result: dict) -> None:
    """Write the counter for files that stat as ``entries``/``read_state``.
    ``result``: total, unread, workspaces, problems, readStateProblem.  A
    failure to write is ignored: the counter is only ever a shortcut."""
    if entries is None:
        return
    doc = {"version": VERSION, "entries": entries, "readState": read_state,
           "total": result["total"], "unread": result["unread"],
           "workspaces": {k: v for k, v in sorted(result["workspaces"].items()) if v},
           "problems": result["problems"], "readStateProblem": result.get("readStateProblem")}
    doc["check"] = _check(doc)
    try:
        fs.atomic_write_json(counter_path(store), doc, indent=None, durable=False)
    except Exception:
        pass


def answer(store, doc: dict, workspace_id: str | None) -> dict:
    """The counts of a matching counter, its problems noted on the store (as a cold read does)."""
    for problem in doc["problems"]:
        store.note_problem(problem["offset"], problem["reason"])
    if doc.get("readStateProblem") is not None:
        store.read_state_problem = doc["readStateProblem"]
    out = {"total": doc["total"], "unread": doc["unread"]}
    if workspace_id is not None:
        out["workspaceUnread"] = doc["workspaces"].get(workspace_id, 0)
    return out


def note_append(store, before: list | None, record: dict, size: int) -> None:
    """After an append of ``size`` bytes under the entries lock: move a counter
    that matched the file before it.  Nothing is done when the file grew by
    anything else (a torn tail cut, a writer without the lock)."""
    doc = load(store)
    rs = identity(store.read_state_path)
    if not valid_for(doc, before, rs):
        return
    after = identity(store.entries_path)
    if after is None or after[:2] != before[:2] or after[2] != before[2] + size:
        return
    from .readstate import document  # lazy: only a push with a live counter needs the marks

    state = document.load(store)
    if identity(store.read_state_path) != rs:
        return
    is_read = record["id"] in state
    ws = dict(doc["workspaces"])
    if not is_read:
        ws[record["workspaceId"]] = ws.get(record["workspaceId"], 0) + 1
    save(store, after, rs, {"total": doc["total"] + 1, "unread": doc["unread"] + (not is_read),
                            "workspaces": ws, "problems": doc["problems"],
                            "readStateProblem": doc.get("readStateProblem")})
