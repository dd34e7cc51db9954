"""Execution admission: at most one live run per issue, at most N in all.

Every path that starts an issue run (the scanner, run-now, retry-now) goes
through :func:`admit`, which under one lock (``locks/admission.lock``):

1. drops live markers whose run is no longer running (finished, or its
   supervisor is gone: :func:`openalice.runs.tasks.effective`);
2. refuses a second live run of the same issue (``Busy``, ``already_running``),
   a second live run of the same ``@resume-…`` owner (``owner_busy``) and more
   than ``capacity`` live runs (``capacity``); for a retry, requires the issue's
   latest run to be ``failed`` or ``interrupted`` (``not_retryable``);
3. creates the task record (status ``running``) and the issue's live marker
   ``state/runs/live/<ws>/<issue>.json``.

The supervisor calls :func:`release` when the run ends.  A marker left behind
by a dead supervisor is harmless: step 1 of the next admission removes it.

A scan that admits many runs uses one :class:`Admissions` batch: the lock is
taken once and held until the scan ends, the live runs are read once (step 1)
and then kept up to date by the batch itself, since nobody else can admit or
release while the lock is held.  So admitting K due issues costs O(K), not
O(K²) reads of markers and records.  The live marker is written without an
fsync: after a power cut no run is live anyway, and the task record (durable,
status ``running``) still refuses a second run until it reads as interrupted.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from openalice.core import clock, fs, locks, paths
from openalice.core.errors import Busy, Conflict, InvalidInput

from . import tasks

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["DEFAULT_CAPACITY", "CAPACITY_ENV", "FIRES", "Admissions", "admit", "release",
           "live_runs", "live_dir", "marker_path", "build_record", "admission_lock_path",
           "default_capacity", "COMMENT_FIRE", "is_issue_run"]

DEFAULT_CAPACITY = 8
CAPACITY_ENV = "OPENALICE_RUN_CAPACITY"
FIRES = ("schedule", "run-now", "retry")
COMMENT_FIRE = "comment"      # a comment turn (docs/conversations.md): never an issue run
LOCK_TIMEOUT_SECONDS = 30.0
_RETRYABLE = ("failed", "interrupted")


def live_dir() -> Path:
    return tasks.runs_dir() / "live"


def marker_path(workspace_id: str, issue_id: str) -> Path:
    return live_dir() / paths.safe_name(workspace_id) / f"{paths.safe_name(issue_id)}.json"


def default_capacity() -> int:
    """``OPENALICE_RUN_CAPACITY`` when set (0-1000), else 8."""
    text = os.environ.get(CAPACITY_ENV)
    if text is None or text == "":
        return DEFAULT_CAPACITY
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 1000:
        raise InvalidInput(f"{CAPACITY_ENV} must be an integer 0-1000, got {text[:40]!r}",
                           field=CAPACITY_ENV, code="bad_capacity")
    return value


def admission_lock_path() -> Path:
    return paths.locks_dir() / "admission.lock"


def _field(issue: Any, *names: str) -> Any:
    for name in names:
        if isinstance(issue, dict):
            if name in issue:
                return issue[name]
        elif hasattr(issue, name):
            return getattr(issue, name)
    return None


def _resume_owner(assignee: object) -> str | None:
    if isinstance(assignee, str) and assignee.startswith("@resume-"):
        return assignee[1:]
    return None


def build_record(workspace_id: str, issue: Any, *, fire: str, now: datetime,
                 slot: str | None = None, missed: int = 0, missed_overflow: bool = False,
                 retry_of: str | None = None, parent_task_id: str | None = None) -> dict:
    """The new task record for one run of ``issue`` (not yet stored)."""
    issue_id = _field(issue, "id")
    trigger: dict[str, Any] = {"kind": "issue", "workspaceId": workspace_id, "issueId": issue_id,
                               "fire": fire}
    if slot is not None:
        trigger["slot"] = slot
        trigger["missed"] = int(missed)
        if missed_overflow:
            trigger["missedOverflow"] = True
    request = {}
    for key, names in (("agent", ("agent",)), ("credential", ("credential",)),
                       ("credentialSource", ("credentialSource", "credential_source")),
                       ("model", ("model",)), ("effort", ("effort",))):
        value = _field(issue, *names)
        if value is not None:
            request[key] = value
    timeout_seconds = _field(issue, "timeout_seconds", "timeoutSeconds")
    owner = _field(issue, "assignee")
    record: dict[str, Any] = {
        "version": tasks.RECORD_VERSION,
        "status": "running",
        "workspaceId": workspace_id,
        "issueId": issue_id,
        "issueTitle": _field(issue, "title"),
        "trigger": trigger,
        "owner": owner,
        "runtimeRequest": request,
        "prompt": _field(issue, "what") or "",
        # An issue run always records its budget: null means "no limit" (an
        # absent key would mean a historical record with the 30 m default).
        "timeoutMs": None if timeout_seconds is None else int(timeout_seconds) * 1000,
        "createdAt": clock.to_iso(now),
        "processStarted": False,
    }
    resume_id = _resume_owner(owner)
    if resume_id:
        record["resumeId"] = resume_id
    if parent_task_id:
        record["parentTaskId"] = parent_task_id
    if retry_of:
        record["retryOfTaskId"] = retry_of
    if record["issueTitle"] is None:
        del record["issueTitle"]
    return record


def _read_marker(path: Path) -> dict | None:
    try:
        data = fs.read_json(path, missing=None)
    except InvalidInput:
        return {}  # unreadable marker: treated as stale and replaced
    return data if isinstance(data, dict) else {}


def _iter_markers() -> list[tuple[Path, dict]]:
    out: list[tuple[Path, dict]] = []
    root = live_dir()
    try:
        ws_dirs = sorted(os.scandir(root), key=lambda e: e.name)
    except FileNotFoundError:
        return out
    for ws_dir in ws_dirs:
        if not ws_dir.is_dir(follow_symlinks=False):
            continue
        for entry in sorted(os.scandir(ws_dir.path), key=lambda e: e.name):
            if entry.name.endswith(".json") and not entry.name.startswith("."):
                marker = _read_marker(Path(entry.path))
                if marker is not None:
                    out.append((Path(entry.path), marker))
    return out


def _live(*, sweep: bool) -> list[dict]:
    """Markers whose task is still running (effective); with ``sweep`` the
    others are deleted (callers hold the admission lock)."""
    out = []
    for path, marker in _iter_markers():
        task_id = marker.get("taskId")
        try:
            record = tasks.find_task(task_id) if tasks.is_task_id(task_id) else None
        except InvalidInput:
            # A malformed record may belong to a run still going: it keeps its
            # place (never swept) until the record is fixed or deleted.
            out.append({**marker, "task": None})
            continue
        if record is not None and tasks.effective(record).get("status") == "running":
            out.append({**marker, "task": record})
        elif sweep:
            fs.remove_file(path)
    return out


def live_runs(workspace_id: str | None = None) -> list[dict]:
    """The live runs (their markers: ``taskId``, ``workspaceId``, ``issueId``,
    ``resumeId``?, ``createdAt``), of one workspace when ``workspace_id`` is
    given; read-only.  The check upgrades make before they change a workspace."""
    return [{k: v for k, v in m.items() if k != "task"} for m in _live(sweep=False)
            if workspace_id is None or m.get("workspaceId") == workspace_id]


def admit(ws: Any, issue: Any, *, fire: str, now: datetime, capacity: int | None = None,
          retry_of: str | None = None, slot: str | None = None, missed: int = 0,
          missed_overflow: bool = False) -> dict:
    """Admit one run of ``issue`` (of workspace ``ws``) and return its new
    task record; raise ``Busy`` (exit 3) or ``Conflict`` (exit 2) otherwise.
    ``capacity`` defaults to :func:`default_capacity`.

    ``ws`` is a Workspace or a workspace id; ``issue`` an Issue (or a mapping
    with the same fields).
    """
    with Admissions() as batch:
        return batch.admit(ws, issue, fire=fire, now=now, capacity=capacity, retry_of=retry_of,
                           slot=slot, missed=missed, missed_overflow=missed_overflow)


class Admissions:
    """Several admissions under one hold of the admission lock (a scan).

    ``with Admissions() as batch: batch.admit(...)`` — the same checks as
    :func:`admit`, with the live runs read once, at the first admission, and
    then kept by the batch (new runs added; :meth:`forget` drops a run whose
    supervisor could not be started and was released)."""

    def __init__(self) -> None:
        self._hold = None
        self._live: list[dict] | None = None

    def __enter__(self) -> "Admissions":
        self._hold = locks.locked(admission_lock_path(), timeout=LOCK_TIMEOUT_SECONDS)
        self._hold.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        hold, self._hold = self._hold, None
        if hold is not None:
            hold.__exit__(*exc_info)

    def live(self) -> list[dict]:
        if self._live is None:
            self._live = _live(sweep=True)
        return self._live

    def forget(self, task_id: str) -> None:
        if self._live is not None:
            self._live = [m for m in self._live if m.get("taskId") != task_id]

    def admit(self, ws: Any, issue: Any, *, fire: str, now: datetime,
              capacity: int | None = None, retry_of: str | None = None,
              slot: str | None = None, missed: int = 0, missed_overflow: bool = False) -> dict:
        if fire not in FIRES:
            raise ValueError(f"unknown fire {fire!r}")
        if capacity is None:
            capacity = default_capacity()
        workspace_id = ws if isinstance(ws, str) else ws.id
        issue_id = _field(issue, "id")
        owner_resume = _resume_owner(_field(issue, "assignee"))
        record = _admit_locked(self.live(), workspace_id, issue, issue_id, owner_resume,
                               fire=fire, now=now, capacity=capacity, retry_of=retry_of,
                               slot=slot, missed=missed, missed_overflow=missed_overflow)
        self._live.append({**_marker_of(record, owner_resume), "task": record})
        return record


    def admit_turn(self, record: dict, *, capacity: int | None = None,
                   claim: Any = None) -> dict:
        """Admit a turn that is not an issue run (a comment turn): ``record``
        names ``workspaceId``, ``issueId`` and ``resumeId``.  The same rule as
        :meth:`admit` — one live run per issue, one turn per session, the
        capacity — so a comment turn and the issue's scheduled runs never
        overlap.  ``claim(record)`` runs after the record is stored and before
        its marker (a failed claim removes nothing: the record, never
        launched, reads as interrupted and blocks nobody once its marker is
        gone)."""
        if capacity is None:
            capacity = default_capacity()
        live = self.live()
        workspace_id, issue_id = record["workspaceId"], record["issueId"]
        owner_resume = record["resumeId"]
        for marker in live:
            if marker.get("workspaceId") == workspace_id and marker.get("issueId") == issue_id:
                raise _already_running(workspace_id, issue_id, marker.get("taskId"))
            if marker.get("resumeId") == owner_resume:
                raise Busy(f"owner @{owner_resume} already has a running turn "
                           f"({marker.get('taskId')})", code="owner_busy",
                           details={"taskId": marker.get("taskId")})
        latest = tasks.latest_task(workspace_id, issue_id)
        if latest is not None and latest.get("status") == "running":
            raise _already_running(workspace_id, issue_id, latest.get("taskId"))
        if len(live) >= capacity:
            raise Busy(f"{len(live)} runs are live (capacity {capacity})", code="capacity",
                       details={"live": len(live), "capacity": capacity})
        stored = tasks.create_task(record)
        if claim is not None:
            claim(stored)
        marker = _marker_of(stored, owner_resume)
        fs.atomic_write_json(marker_path(workspace_id, issue_id), marker, durable=False)
        live.append({**marker, "task": stored})
        return stored


def _marker_of(record: dict, owner_resume: str | None) -> dict:
    marker = {"version": 1, "taskId": record["taskId"], "workspaceId": record["workspaceId"],
              "issueId": record["issueId"], "createdAt": record["createdAt"]}
    if owner_resume:
        marker["resumeId"] = owner_resume
    return marker


def _admit_locked(live: list[dict], workspace_id: str, issue: Any, issue_id: Any,
                  owner_resume: str | None, *, fire: str, now: datetime, capacity: int,
                  retry_of: str | None, slot: str | None, missed: int,
                  missed_overflow: bool) -> dict:
    """Steps 2 and 3 under the admission lock, given the live runs."""
    for marker in live:
        if marker.get("workspaceId") == workspace_id and marker.get("issueId") == issue_id:
            raise _already_running(workspace_id, issue_id, marker.get("taskId"))
    latest = tasks.latest_task(workspace_id, issue_id)
    if latest is not None and latest.get("status") == "running":
        raise _already_running(workspace_id, issue_id, latest.get("taskId"))
    if fire == "retry":
        latest = tasks.latest_task(workspace_id, issue_id, predicate=is_issue_run)
        if latest is None or latest.get("status") not in _RETRYABLE:
            state = "no run yet" if latest is None else f"latest run {latest['taskId']} is {latest['status']}"
            raise Conflict(f"nothing to retry for {workspace_id}/{issue_id}: {state}",
                           code="not_retryable",
                           details={"hint": "retry needs the latest run failed or interrupted; "
                                            "use run-now for an extra run"})
        if retry_of is not None and retry_of != latest["taskId"]:
            raise Conflict(f"{retry_of} is not the latest run of {workspace_id}/{issue_id} "
                           f"(that is {latest['taskId']})", code="not_retryable")
        retry_of = latest["taskId"]
    if owner_resume:
        for marker in live:
            if marker.get("resumeId") == owner_resume:
                raise Busy(f"owner @{owner_resume} already has a running turn "
                           f"({marker.get('taskId')})", code="owner_busy",
                           details={"taskId": marker.get("taskId")})
    if len(live) >= capacity:
        raise Busy(f"{len(live)} runs are live (capacity {capacity})", code="capacity",
                   details={"live": len(live), "capacity": capacity})
    parent = _previous_of_owner(workspace_id, issue_id, owner_resume) if owner_resume else None
    record = tasks.create_task(build_record(
        workspace_id, issue, fire=fire, now=now, slot=slot, missed=missed,
        missed_overflow=missed_overflow, retry_of=retry_of, parent_task_id=parent))
    fs.atomic_write_json(marker_path(workspace_id, issue_id), _marker_of(record, owner_resume),
                         durable=False)
    return record


def is_issue_run(index_line: dict) -> bool:
    """An index line of an issue run, not of a comment turn (health and retry
    look at the issue's own runs)."""
    return index_line.get("fire") != COMMENT_FIRE


def _previous_of_owner(workspace_id: str, issue_id: str, resume_id: str) -> str | None:
    for i, entry in enumerate(tasks.iter_index(workspace_id=workspace_id, issue_id=issue_id)):
        if i >= 100:
            break
        try:
            record = tasks.find_task(entry["taskId"])
        except InvalidInput:
            continue
        if record is not None and record.get("resumeId") == resume_id:
            return record["taskId"]
    return None


def _already_running(workspace_id: str, issue_id: str, task_id: object) -> Busy:
    return Busy(f"{workspace_id}/{issue_id} already has a running run ({task_id})",
                code="already_running", details={"taskId": task_id})


def release(task_id: str) -> bool:
    """Remove the live marker of ``task_id`` (only if it is still that task's
    marker); False when there was none.  Called by the supervisor at the end."""
    record = tasks.find_task(task_id)
    if record is None or not record.get("workspaceId") or not record.get("issueId"):
        return False
    path = marker_path(record["workspaceId"], record["issueId"])
    with locks.locked(admission_lock_path(), timeout=LOCK_TIMEOUT_SECONDS):
        marker = _read_marker(path)
        if not marker or marker.get("taskId") != task_id:
            return False
        return fs.remove_file(path)
