"""Per-issue schedule cursors: one small JSON file each, written atomically.

``$OPENALICE_HOME/state/schedule/cursors/<workspaceId>/<issueId>.json``::

    {"version": 1, "workspaceId", "issueId",
     "firstSeenAt"?,      first scan that saw this cron issue (never-fired base)
     "lastFire"?,         the accepted slot instant of the last scheduled run
     "lastFiredAt"?,      the scan time that accepted it
     "lastTaskId"?, "missed"?, "missedOverflow"?,
     "skippedThrough"?,   catchUp:false: elapsed slots up to here were skipped
     "lastScanAt"}        the scan time of this write

The cursor is the memory of an issue's schedule, so it lives with the issue
and its due math (:mod:`.due`): the issue views read it to say when an
``every`` issue fires next.  Only the scanner (:mod:`openalice.schedule.scan`)
writes cursors (under the scan lock).  A cursor moves when a
run is accepted (its task record is durable), when a catchUp:false issue's
elapsed slots are skipped, and when a never-fired cron issue is first seen.
It is never reset because an issue was invalid or a workspace unreadable
during one scan; it is removed only when its workspace was read fine and the
issue file is gone.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from openalice.core import clock, fs, paths
from openalice.core.errors import InvalidInput
from openalice.core.paths import safe_name

__all__ = ["CURSOR_VERSION", "cursors_dir", "cursor_path", "read_cursor",
           "remove_cursor", "cursor_issue_ids", "fired", "skipped", "first_seen", "repaired"]

CURSOR_VERSION = 1
_INSTANT_KEYS = ("firstSeenAt", "lastFire", "lastFiredAt", "skippedThrough", "lastScanAt")


def _issue_id_of(path: str, stem: str) -> str | None:
    """The issue id a cursor file belongs to (from its name when the name is
    reversible, else from its content)."""
    if not stem.startswith("~"):
        return stem
    if not stem.startswith("~h"):
        try:
            return bytes.fromhex(stem[1:]).decode("utf-8")
        except ValueError:
            pass
    try:
        data = fs.read_json(path, missing=None)
    except InvalidInput:
        return None
    issue_id = data.get("issueId") if isinstance(data, dict) else None
    return issue_id if isinstance(issue_id, str) else None


def cursors_dir() -> Path:
    return paths.state_path("schedule/cursors")


def cursor_path(workspace_id: str, issue_id: str) -> Path:
    return cursors_dir().joinpath(safe_name(workspace_id), f"{safe_name(issue_id)}.json")


def _check(data: object, path: Path) -> dict:
    if not isinstance(data, dict):
        raise InvalidInput("cursor is not an object", file=path, code="bad_cursor")
    if data.get("version") != CURSOR_VERSION:
        raise InvalidInput(f"unsupported cursor version {data.get('version')!r}", file=path,
                           field="version", code="bad_cursor")
    for key in _INSTANT_KEYS:
        value = data.get(key)
        if value is not None:
            try:
                clock.parse_instant(value, field=key, file=path)
            except InvalidInput as exc:
                raise InvalidInput(exc.message, file=path, field=key, code="bad_cursor") from None
    missed = data.get("missed")
    if missed is not None and (not isinstance(missed, int) or isinstance(missed, bool) or missed < 0):
        raise InvalidInput("missed must be a non-negative integer", file=path, field="missed",
                           code="bad_cursor")
    return data


def read_cursor(workspace_id: str, issue_id: str) -> dict | None:
    """The cursor, or None when the issue never had one.  A malformed file
    raises InvalidInput (code ``bad_cursor``) naming it; it is never treated
    as absent, which would refire the issue."""
    path = cursor_path(workspace_id, issue_id)
    try:
        data = fs.read_json(path, missing=None, max_bytes=64 * 1024)
    except InvalidInput as exc:  # keep the file it names (a directory in the way, say)
        raise InvalidInput(exc.message, file=exc.file or path, code="bad_cursor") from None
    return None if data is None else _check(data, path)


def remove_cursor(workspace_id: str, issue_id: str) -> bool:
    return fs.remove_file(cursor_path(workspace_id, issue_id))


def cursor_issue_ids(workspace_id: str) -> list[str]:
    """Issue ids that have a cursor in this workspace."""
    try:
        entries = os.scandir(cursors_dir() / safe_name(workspace_id))
    except (FileNotFoundError, NotADirectoryError):
        return []  # none (a file in the way is reported by read_cursor, per issue)
    with entries:
        names = [(e.path, e.name[:-5]) for e in entries
                 if e.name.endswith(".json") and not e.name.startswith(".")]
    ids = (_issue_id_of(path, stem) for path, stem in names)
    return sorted(i for i in ids if i is not None)


def _base(cursor: dict | None, workspace_id: str, issue_id: str) -> dict:
    out = {"version": CURSOR_VERSION, "workspaceId": workspace_id, "issueId": issue_id}
    if cursor:
        out.update({k: v for k, v in cursor.items() if k not in out})
    return out


def fired(cursor: dict | None, workspace_id: str, issue_id: str, *, slot: datetime,
          now: datetime, task_id: str, missed: int, overflow: bool = False) -> dict:
    """The cursor after a run of ``slot`` was accepted."""
    out = _base(cursor, workspace_id, issue_id)
    out.update(lastFire=clock.to_iso(slot), lastFiredAt=clock.to_iso(now), lastTaskId=task_id,
               missed=int(missed), lastScanAt=clock.to_iso(now))
    if overflow:
        out["missedOverflow"] = True
    else:
        out.pop("missedOverflow", None)
    return out


def skipped(cursor: dict | None, workspace_id: str, issue_id: str, *, now: datetime) -> dict:
    """The cursor after catchUp:false skipped every slot up to ``now``."""
    out = _base(cursor, workspace_id, issue_id)
    out.update(skippedThrough=clock.to_iso(now), lastScanAt=clock.to_iso(now))
    return out


def first_seen(cursor: dict | None, workspace_id: str, issue_id: str, *, now: datetime) -> dict:
    """The cursor of a cron issue seen for the first time (nothing due)."""
    out = _base(cursor, workspace_id, issue_id)
    out.setdefault("firstSeenAt", clock.to_iso(now))
    out["lastScanAt"] = clock.to_iso(now)
    return out


def repaired(cursor: dict | None, workspace_id: str, issue_id: str, *, task: dict,
             now: datetime) -> dict:
    """The cursor caught up with a scheduled task that was accepted but whose
    cursor write never happened (the scanner died in between)."""
    trigger = task.get("trigger") or {}
    out = _base(cursor, workspace_id, issue_id)
    out.update(lastFire=trigger["slot"], lastFiredAt=task.get("createdAt") or clock.to_iso(now),
               lastTaskId=task["taskId"], missed=int(trigger.get("missed") or 0),
               lastScanAt=clock.to_iso(now))
    if trigger.get("missedOverflow"):
        out["missedOverflow"] = True
    else:
        out.pop("missedOverflow", None)
    return out
