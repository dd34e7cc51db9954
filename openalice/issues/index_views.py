"""The listing views of the issue index (:mod:`.index`), with the two pieces
that depend on more than the file cached beside them with their inputs:

- the ``schedule`` summary, with the window of instants ``[lo, hi)`` it holds
  for (epoch ms) and, for ``every``, the identity of the workspace's cursor
  directory (the scanner writes a cursor only by renaming a new file into it,
  which changes the directory's stamps).  A cron slot
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

from .declaration import InvalidIssue
from .index import ENTRY_DATA, ENTRY_DELIV, ENTRY_SCHED, RACY_NS, dumps, file_identity, issue_from_entry

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from datetime import datetime

    from .index import Snapshot

__all__ = ["views", "window"]

_FOREVER = 1 << 62
_NOW_JSON: list = [None, None]


def _now_json(now: datetime) -> str:
    """``now`` as the JSON string a summary spells it (computed once per instant)."""
    if _NOW_JSON[0] is not now:
        from openalice.core.clock import to_iso  # lazy: (as the window)

        _NOW_JSON[:] = [now, dumps(to_iso(now))]
    return _NOW_JSON[1]


def views(snap: Snapshot, now: datetime, now_ms: int, status: str | None = None) -> list[tuple[list, str]]:
    """``(meta, JSON text)`` of each valid issue of ``snap`` as ``list``/``board``
    print it, in file-name order (``meta``: [id, status, priority, telegramConnector])."""
    if snap.cold is not None:
        from .board import with_deliveries  # lazy: (board imports the index)
        from .views import issue_json

        return [([i.id, i.status, i.priority, bool(i.telegram_connector)],
                 dumps(with_deliveries(issue_json(i, now, workspace_id=snap.ws_id), i)))
                for i in snap.cold.issues if status is None or i.status == status]
    out = []
    for row in snap.rows:
        if isinstance(row, InvalidIssue):
            continue
        entry, name, comments = row
        data = entry[ENTRY_DATA]
        meta = data[0]
        if status is not None and meta[1] != status:
            continue
        sched = entry[ENTRY_SCHED]
        if (type(sched) is not list or len(sched) != 5 or not sched[0] <= now_ms < sched[1]
                or (sched[3] is not None and sched[3] != _cursor_key(snap, meta[0]))):
            sched = _summary(snap, entry, name, now, now_ms)
        summary = sched[2] if sched[4] is None else '{"nextFireAt":' + _now_json(now) + sched[4]
        if comments is None:
            out.append((meta, data[1] + summary + data[2]))
        else:  # the counts go last, inside the closing brace
            out.append((meta, data[1] + summary + data[2][:-1]
                        + _deliveries(snap, entry, name, meta[0], comments) + "}"))
    return out


def _summary(snap: Snapshot, entry: list, name: str, now: datetime, now_ms: int) -> list:
    from .schedule import schedule_summary  # lazy: only a summary past its window

    issue = issue_from_entry(entry[ENTRY_DATA], snap.directory / name)
    cursor_key = None
    when = issue.when
    if when is not None and not issue.is_terminal and when.get("kind") == "every" and snap.ws_id:
        cursor_key = _cursor_key(snap, issue.id)  # before the cursor is read: a race re-reads
    summary = schedule_summary(issue, now, workspace_id=snap.ws_id)
    held = window(when, issue.is_terminal, summary, now_ms)
    if cursor_key is not None and len(cursor_key) == 4 and cursor_key[3] > snap.stamp_ns - RACY_NS:
        held = None  # the cursors changed too recently for their stamps to prove anything
    if held is None:
        return [0, 0, dumps(summary), None, None]
    text = dumps(summary)
    due_now = None
    if len(held) == 3:  # `nextFireAt` (the first key) is the instant asked about: keep the rest
        head = '{"nextFireAt":' + dumps(summary["nextFireAt"])
        due_now = text[len(head):] if text.startswith(head) else None
    if len(held) == 3 and due_now is None:
        return [0, 0, text, None, None]
    sched = [held[0], held[1], text, cursor_key, due_now]
    entry[ENTRY_SCHED] = sched
    snap.dirty = True
    return sched


def _cursor_key(snap: Snapshot, issue_id: str) -> tuple:
    """The identity of the workspace's cursor directory: the scanner writes a
    cursor only by an atomic rename into it (and removes one by unlinking),
    so any cursor change of the workspace changes it (one ``lstat`` per
    workspace, not one per issue)."""
    if snap.cursor_dir is None:
        from . import cursors  # lazy: only `every` schedules have a cursor to key on

        try:
            snap.cursor_dir = file_identity(os.lstat(cursors.cursor_path(snap.ws_id or "-", "x").parent))
        except OSError:
            snap.cursor_dir = (-1,)
    return snap.cursor_dir


def _deliveries(snap: Snapshot, entry: list, name: str, issue_id: str, comments: os.stat_result) -> str:
    """``,"deliveries":{...}`` when the sidecar can be counted, else ``""``."""
    key = file_identity(comments)
    cached = entry[ENTRY_DELIV]
    if type(cached) is list and len(cached) == 2 and cached[0] == key and type(cached[1]) is str:
        return cached[1]
    from .board import with_deliveries  # lazy: (board imports the index)

    counted = with_deliveries({}, _Named(issue_id, snap.directory / name)).get("deliveries")
    text = "" if counted is None else ',"deliveries":' + dumps(counted)
    if key[3] <= snap.stamp_ns - RACY_NS:
        entry[ENTRY_DELIV] = [key, text]
        snap.dirty = True
    return text


class _Named:
    __slots__ = ("id", "path")

    def __init__(self, issue_id: str, path: Path) -> None:
        self.id = issue_id
        self.path = path


def window(when: dict | None, terminal: bool, summary: dict, now_ms: int) -> tuple | None:
    """The instants ``[lo, hi)`` (epoch ms) for which ``summary`` holds as it
    is (a third item ``"now"``: its ``nextFireAt`` is the instant asked about);
    None when it holds only for ``now`` itself."""
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
        # "due now" (an `every` never fired or past its interval): the answer is
        # now itself for as long as the cursor stays as it is
        if kind == "every" and str(summary.get("note")).startswith("due now"):
            return now_ms, _FOREVER, "now"
        return None
    return (-_FOREVER if kind == "at" else now_ms), fire_ms
