"""``stickers status``: what a workspace's stickers are against the library (drift, personal
files, an available update, problems); it recovers an interrupted apply and writes nothing else."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from openalice import managed
from openalice.core import fs
from openalice.core.errors import AliceError

from . import library
from .ownership import SKILL_FILES, STICKER_DIR, check_layout, journal_store, read_state
from .projection import recover_workspace

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


def status(ws, *, now: datetime) -> dict:
    """What the workspace's stickers are, against the library: owned files
    changed here, personal files, an available update, problems.  Recovers an
    interrupted apply first; writes nothing else."""
    root = Path(ws.path)
    doc: dict[str, Any] = {"workspaceId": ws.id, "path": ws.path, "template": ws.template, "available": True,
                           "enabled": False, "packId": None, "revision": None, "pack": None,
                           "updateAvailable": False, "owned": 0, "drift": [], "personal": [],
                           "recovered": [], "pendingTransaction": False, "problems": []}
    problems = doc["problems"]
    if not (root / ".alice").is_dir():
        doc["available"] = False
        problems.append(f"the workspace directory {root} (or its .alice/) is missing")
        doc["upToDate"] = False
        return doc
    try:
        doc["recovered"] = [{"outcome": r.outcome, "digest": r.digest, "paths": r.paths}
                            for r in recover_workspace(ws, now=now)]
    except AliceError as exc:
        problems.append(_problem(exc))
    doc["pendingTransaction"] = os.path.lexists(journal_store(root).journal_path)
    state = None
    try:
        check_layout(root)
        state = read_state(root)
    except AliceError as exc:
        problems.append(_problem(exc))
    if state is not None:
        doc.update(enabled=state["enabled"], packId=state["packId"], revision=state["revision"],
                   owned=len(state["files"]))
        try:
            pack = library.get(state["packId"], field="packId")
            doc["pack"] = {"id": pack.id, "name": pack.name, "version": pack.version, "revision": pack.revision,
                           "source": pack.source}
            doc["updateAvailable"] = state["enabled"] and pack.revision != state["revision"]
        except AliceError as exc:
            problems.append(_problem(exc))
        safe: set = set()
        for rel, sha in sorted(state["files"].items()):
            entry = managed.inspect(root, rel, safe_dirs=safe)
            if entry.kind == "missing":
                doc["drift"].append({"path": rel, "kind": "deleted"})
            elif entry.kind == "other":
                doc["drift"].append({"path": rel, "kind": "unsafe", "detail": entry.detail})
            elif entry.fingerprint != "file:" + sha:
                doc["drift"].append({"path": rel, "kind": "modified"})
        copies = [managed.inspect(root, rel).fingerprint for rel in SKILL_FILES]
        if state["enabled"] and copies[0] != copies[1] and not any(d["path"] in SKILL_FILES for d in doc["drift"]):
            doc["drift"].append({"path": SKILL_FILES[1], "kind": "copy-differs"})
    owned = set(state["files"]) if state else set()
    sticker_dir = root / STICKER_DIR
    if sticker_dir.is_dir() and not sticker_dir.is_symlink():
        doc["personal"] = sorted(f"{STICKER_DIR}/{e.name}" for e in os.scandir(sticker_dir)
                                 if f"{STICKER_DIR}/{e.name}" not in owned and not e.name.startswith(fs.TEMP_PREFIX))
    doc["upToDate"] = not (problems or doc["updateAvailable"] or doc["pendingTransaction"]
                           or any(d["kind"] in ("unsafe", "copy-differs") for d in doc["drift"]))
    return doc


def _problem(exc: AliceError) -> str:
    where = f"{exc.file}" + (f": {exc.field}" if exc.field else "") if exc.file else (exc.field or "")
    return f"{where}: {exc.message}" if where else exc.message
