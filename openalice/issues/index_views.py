"""The listing views of the issue index (:mod:`.index`), with the two pieces
that depend on more than the file cached beside them with their inputs:

- the ``schedule`` summary, with the window of instants ``[lo, hi)`` it holds
  for (epoch ms) and, for ``every``, the identity of the issue's cursor file
  (the scanner replaces it atomically: a new inode per write).  A cron slot
  computed at ``now`` holds until that slot (no slot lies between); a future
  ``at`` holds until it passes, a past one from then on; a value that can never
  fire, an unscheduled or a terminal issue forever; "due now" is never cached;
- the comment counts (``deliveries``), with the identity of the
  ``<id>.comments.json`` sidecar; a sidecar that changed within
  :data:`.index.RACY_NS` is counted again on every call.

Without a sidecar in the directory listing, no file is opened for it.
"""

from __future__ import annotations

import os
from pathlib import Path

from openalice.core.paths import safe_name

from .declaration import InvalidIssue
from .index import _DATA, _DELIV, _SCHED, RACY_NS, _issue, _key

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from datetime import datetime

    from .index import Snapshot

__all__ = ["views", "window"]

_FOREVER = 1 << 62


def views(snap: Snapshot, now: datetime, now_ms: int, status: str | None = None) -> list[dict]:
    """Each valid issue of ``snap`` as ``list``/``board`` print it, in file-name order."""
    if snap.cold is not None:
        from .board import with_deliveries  # lazy: (board imports the index)
        from .views import issue_json

        return [with_deliveries(issue_json(i, now, workspace_id=snap.ws_id), i)
                for i in snap.cold.issues if status is None or i.status == status]
    out = []
    for row in snap.rows:
        if isinstance(row, InvalidIssue):
            continue
        entry, name, comments = row
        view = entry[_DATA][0]
        if status is not None and view["status"] != status:
            continue
        view = dict(view)  # the entry's own view is written back as it was read
        sched = entry[_SCHED]
        if (sched is None or not sched[0] <= now_ms < sched[1]
                or (sched[3] is not None and sched[3] != _cursor_key(snap, view["id"]))):
            sched = _summary(snap, entry, name, now, now_ms)
        view["schedule"] = sched[2]
        if comments is not None:
            _deliveries(snap, entry, name, view, comments)
        out.append(view)
    return out


def _summary(snap: Snapshot, entry: list, name: str, now: datetime, now_ms: int) -> list:
    from .schedule import schedule_summary  # lazy: only a summary past its window

    view = entry[_DATA][0]
    issue = _issue(entry[_DATA], snap.directory / name)
    cursor_key = None
    when = view["when"]
    if when is not None and not view["terminal"] and when.get("kind") == "every" and snap.ws_id:
        cursor_key = _cursor_key(snap, view["id"])  # before the cursor is read: a race re-reads
    summary = schedule_summary(issue, now, workspace_id=snap.ws_id)
    held = window(when, view["terminal"], summary, now_ms)
    if held is None:
        return [0, 0, summary, None]
    sched = [held[0], held[1], summary, cursor_key]
    entry[_SCHED] = sched
    snap.dirty = True
    return sched


def _cursor_key(snap: Snapshot, issue_id: str) -> list:
    if snap.cursor_dir is None:
        from . import cursors  # lazy: only `every` schedules have a cursor to key on

        snap.cursor_dir = str(cursors.cursor_path(snap.ws_id or "-", "x").parent)
    try:
        st = os.lstat(os.path.join(snap.cursor_dir, safe_name(issue_id) + ".json"))
    except OSError:
        return [-1]
    return _key(st)


def _deliveries(snap: Snapshot, entry: list, name: str, view: dict, comments: os.stat_result) -> None:
    key = _key(comments)
    cached = entry[_DELIV]
    if cached is not None and cached[0] == key:
        if cached[1] is not None:
            view["deliveries"] = dict(cached[1])
        return
    from .board import with_deliveries  # lazy: (board imports the index)

    counted = with_deliveries({}, _Named(view["id"], snap.directory / name)).get("deliveries")
    if counted is not None:
        view["deliveries"] = counted
    if key[3] <= snap.stamp_ns - RACY_NS:
        entry[_DELIV] = [key, None if counted is None else dict(counted)]
        snap.dirty = True


class _Named:
    __slots__ = ("id", "path")

    def __init__(self, issue_id: str, path: Path) -> None:
        self.id = issue_id
        self.path = path


def window(when: dict | None, terminal: bool, summary: dict, now_ms: int) -> tuple[int, int] | None:
    """The instants ``[lo, hi)`` (epoch ms) for which ``summary`` holds as it
    is; None when it holds only for ``now`` itself."""
    if when is None or terminal:
        return -_FOREVER, _FOREVER
    kind = when.get("kind") if isinstance(when, dict) else None
    problem, fire = summary.get("problem"), summary.get("nextFireAt")
    if problem is not None:
        if kind == "at":
            return now_ms, _FOREVER  # "in the past" holds from now on
        if fire is None and kind == "cron" and "50 years" in problem:
            return None
        return -_FOREVER, _FOREVER  # a bad value: its problem never changes
    if fire is None:
        return None
    from openalice.core import clock  # lazy: only a window needs the instant

    fire_ms = clock.to_ms(clock.parse_instant(fire))
    if fire_ms <= now_ms:
        return None  # "due now": the answer is now itself
    return (-_FOREVER if kind == "at" else now_ms), fire_ms
