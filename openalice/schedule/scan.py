"""The scanner: every registered workspace, every due issue, one run each.

``scan(now=...)`` takes the non-blocking scan lock (``locks/scan.lock``; held
→ status ``busy``), then for each registered workspace lists its issue files
and, for each scheduled, non-terminal issue that is due (:mod:`.due`):

1. checks its run can start on this machine (:mod:`.readiness`: owner,
   agent, credential, executable);
2. catches the cursor up if the task registry already holds a scheduled run
   newer than the cursor (a scanner died between the record and the cursor);
3. asks for admission (:func:`openalice.runs.admission.admit`), which writes
   the durable task record;
4. advances the cursor;
5. launches the detached supervisor and returns at once.

A refused admission leaves the cursor alone, so the issue stays due (except
for catchUp:false issues, whose slot is then skipped).  A scan never retries
a run that was accepted.

The scan cache (``state/schedule/scan-cache.marshal``) makes the common case,
nothing due, cost a directory listing per workspace: for each issue file it
keeps the file's (mtime_ns, size, inode) and what the scan needs (status,
whether it is scheduled, the next due instant given the cursor).  A workspace
whose files all match its cached stats is not parsed at all unless one of its
issues is due, and when nothing at all is due :mod:`.fastpath` answers without
importing this module.  The cache is derived data: deleting it only costs one
slower scan.

Debug settings (docs/conventions.md; never set in normal use):
``OPENALICE_TEST_CRASH_AFTER=task-record|cursor|launch`` SIGKILLs the scanner
right after that step of the first fire (:func:`openalice.core.crash.crash_point`),
and ``OPENALICE_TEST_LAUNCH=none`` admits runs without launching supervisors
(:func:`.launching.resolve_launch`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from openalice import workspaces as registry
from openalice.core import fs, locks
from openalice.core.clock import floor_ms, to_iso
from openalice.core.derived import environment_key
from openalice.core.errors import AliceError, Busy, InvalidInput
from openalice.issues import cursors, due
from openalice.runs import tasks

from .fastpath import CACHE_VERSION, epoch_ms, file_stat, lock_file, registry_file
from .scan_workspaces import Findings, ScanCache, WorkspacePass, cache_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["CACHE_VERSION", "scan", "scan_lock_path", "cache_path", "busy_result", "epoch_ms"]

_UTC = timezone.utc


def scan_lock_path():
    return Path(lock_file())


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return to_iso(value)


_ms = epoch_ms  # the cache compares instants as integer epoch milliseconds


def busy_result(now: datetime) -> dict:
    return {"status": "busy", "now": _iso(now), "dryRun": False, "fired": [], "skipped": [],
            "repaired": [], "invalid": [], "workspaces": []}


def scan(*, now: datetime, dry_run: bool = False,
         reader: Callable[[Any], Any] | None = None,
         launch: Callable[[str], int] | None = None,
         workspaces: list | None = None,
         capacity: int | None = None,
         use_cache: bool = True, lock_held: bool = False, cache: dict | None = None) -> dict:
    """Scan every registered workspace once; returns the scan report.

    ``reader(ws)`` reads a workspace's issues (default
    :func:`openalice.issues.read_issues`); ``launch(task_id) -> pid`` starts
    the supervisor (default :func:`openalice.runs.supervisor.launch`).
    ``dry_run`` computes the same report without writing or launching
    anything.  ``lock_held``: the caller holds the scan lock already
    (:func:`openalice.schedule.fastpath.take_lock`); ``cache``: the scan cache
    it already loaded.
    """
    now = floor_ms(now.astimezone(_UTC))
    if dry_run or lock_held:
        return _Scanner(now, dry_run=dry_run, reader=reader, launch=launch, workspaces=workspaces,
                        capacity=capacity, use_cache=use_cache, cache=cache).run()
    try:
        lock = locks.acquire(scan_lock_path(), blocking=False)
    except Busy:
        return busy_result(now)
    try:
        return _Scanner(now, dry_run=False, reader=reader, launch=launch, workspaces=workspaces,
                        capacity=capacity, use_cache=use_cache, cache=cache).run()
    finally:
        lock.release()


class _Scanner:
    def __init__(self, now: datetime, *, dry_run: bool, reader, launch, workspaces, capacity,
                 use_cache: bool, cache: dict | None = None) -> None:
        self.now = now
        self.now_iso = _iso(now)
        self.now_ms = _ms(now)
        self.dry_run = dry_run
        self._launch = launch
        self._launch_resolved = launch is not None
        self._workspaces = workspaces
        self.capacity = capacity
        # The explicit pieces of one scan (schedule/scan_workspaces.py):
        self.cache = ScanCache(use_cache=use_cache, dry_run=dry_run, preloaded=cache)
        self.findings = Findings()
        self.workspace_pass = WorkspacePass(self.cache, self.findings, reader=reader, dry_run=dry_run,
                                            now_ms=self.now_ms)
        self.planned_live: int | None = None  # dry-run capacity bookkeeping
        self.dry_live: set | None = None  # dry-run: the live (workspace, issue) pairs, read once
        self.admissions = None  # the admission batch, opened at the first due issue

    # -- main loop -----------------------------------------------------------

    def run(self) -> dict:
        previous = self.cache.load()
        workspaces = self._workspaces
        if workspaces is None:
            registry_stat = file_stat(registry_file())  # taken first: a later change shows
            workspaces = registry.list_workspaces()
        else:
            registry_stat = [-1, -1, -1]  # an explicit list: never matches, never trusted
        self.cache.data = {"version": CACHE_VERSION, "environment": environment_key(),
                      "lastScanAt": previous.get("lastScanAt"),
                      "lastScanMs": previous.get("lastScanMs"),
                      "lastSweep": previous.get("lastSweep"),
                      "registry": registry_stat,
                      "order": [[ws.id, ws.path] for ws in workspaces], "workspaces": {}}
        last_scan = previous.get("lastScanMs")
        clock_backwards = isinstance(last_scan, int) and last_scan > self.now_ms
        cached_ws = previous.get("workspaces", {})
        try:
            for ws in workspaces:
                self.workspace_pass.scan(ws, cached_ws.get(ws.id), self._issue)
        finally:
            if self.admissions is not None:
                self.admissions.__exit__(None, None, None)
                self.admissions = None
        sweep_all = False
        if self.cache.changed and not self.dry_run:
            sweep_all = self.cache.full_sweep_due()
            if sweep_all:
                self.cache.data["lastSweep"] = int(time.time())
        self.cache.save(previous, now_iso=self.now_iso, now_ms=self.now_ms)
        if self.cache.changed and not self.dry_run:
            self.cache.sweep_temp_files(everything=sweep_all)
        found = self.findings
        report = {"status": "ok", "now": self.now_iso, "dryRun": self.dry_run,
                  "fired": found.fired, "skipped": found.skipped, "repaired": found.repaired,
                  "invalid": found.invalid, "workspaces": found.workspaces}
        if clock_backwards:
            report["clockBackwards"] = True
        return report
    # -- one issue -----------------------------------------------------------

    def _issue(self, ws, issue, item: dict) -> dict:
        """Evaluate one scheduled, non-terminal issue; returns its new cache item."""
        schedule = due.parse_schedule(issue.when)
        new_item = {"status": getattr(issue, "status", None), "scheduled": True,
                    "terminal": bool(getattr(issue, "is_terminal", False))}
        if schedule.problem:
            new_item["problem"] = schedule.problem
            new_item["nextDue"] = None
            self.findings.skip(ws.id, issue.id, "never_fires", schedule.problem)
            return new_item
        try:
            cursor = cursors.read_cursor(ws.id, issue.id)
        except AliceError as exc:
            self.findings.skip(ws.id, issue.id, "cursor_invalid", str(exc),
                       hint="fix or delete the cursor file; deleting it treats the issue as never fired")
            new_item["nextDue"] = None
            new_item["recheck"] = True
            return new_item
        decision = due.decide(schedule, cursor, self.now)
        if decision.action == "fire":
            try:
                cursor = self._catch_up_cursor(ws, issue, cursor, decision)
            except _UnreadableTask as exc:
                # A run may have happened: firing again could run it twice.
                self.findings.skip(ws.id, issue.id, "task_invalid", str(exc.error),
                           hint="fix or delete the task record it names")
                new_item["nextDue"] = None
                new_item["recheck"] = True
                return new_item
            if cursor is not None and cursor.get("_repaired"):
                cursor = {k: v for k, v in cursor.items() if k != "_repaired"}
                decision = due.decide(schedule, cursor, self.now)
        new_cursor = cursor
        if decision.action == "fire":
            new_cursor = self._fire(ws, issue, schedule, cursor, decision)
        elif decision.action == "skip":
            new_cursor = cursors.skipped(cursor, ws.id, issue.id, now=self.now)
            self.findings.skip(ws.id, issue.id, "catch_up_disabled",
                       f"{decision.count}{'+' if decision.overflow else ''} elapsed slot(s) skipped "
                       "(catchUp: false)")
            self._write_cursor(new_cursor)
        elif decision.action == "clock_backwards":
            self.findings.skip(ws.id, issue.id, "clock_backwards",
                       "the clock is before this issue's last fire or scan; nothing fires")
        elif decision.action == "never":
            new_item["problem"] = decision.problem
            self.findings.skip(ws.id, issue.id, "never_fires", decision.problem)
        elif decision.action == "wait" and schedule.kind == "cron" and cursor is None:
            new_cursor = cursors.first_seen(None, ws.id, issue.id, now=self.now)
            self._write_cursor(new_cursor, durable=False)
        if decision.action == "clock_backwards":
            # Re-evaluate once the clock is past the cursor again.
            marks = [due.parse_iso(cursor.get(k)) for k in ("lastFire", "lastScanAt") if cursor]
            marks = [m for m in marks if m is not None]
            new_item["nextDue"] = _ms(max(marks)) if marks else None
        else:
            new_item["nextDue"] = _ms(due.next_due(schedule, new_cursor, self.now))
        return new_item

    def _write_cursor(self, cursor: dict, *, durable: bool = True) -> None:
        if self.dry_run:
            return
        self.cache.touched.add(cursor["workspaceId"])
        fs.atomic_write_json(cursors.cursor_path(cursor["workspaceId"], cursor["issueId"]), cursor,
                             durable=durable)

    def _catch_up_cursor(self, ws, issue, cursor: dict | None, decision) -> dict | None:
        """If a scheduled run newer than the cursor exists (the scanner died
        after its task record, before its cursor), move the cursor to it."""
        last_fire = due.parse_iso(cursor.get("lastFire")) if cursor else None
        for i, entry in enumerate(tasks.iter_index(workspace_id=ws.id, issue_id=issue.id)):
            if i >= 50:
                break
            if entry.get("fire") != "schedule" or not entry.get("slot"):
                continue
            slot = due.parse_iso(entry["slot"])
            if slot is None or (last_fire is not None and slot <= last_fire):
                return cursor  # the newest scheduled run is already on the cursor
            try:
                record = tasks.find_task(entry["taskId"])
            except InvalidInput as exc:
                raise _UnreadableTask(exc) from None
            if record is None:
                continue  # its creation never finished: it never ran
            repaired = cursors.repaired(cursor, ws.id, issue.id, task=record, now=self.now)
            self._write_cursor(repaired)
            self.findings.repaired.append({"workspaceId": ws.id, "issueId": issue.id,
                                  "taskId": record["taskId"], "slot": record["trigger"]["slot"]})
            return {**repaired, "_repaired": True}
        return cursor

    def _resolve_launch(self):
        from .launching import resolve_launch  # lazy: only a due issue launches
        if not self._launch_resolved:
            self._launch = resolve_launch()
            self._launch_resolved = True
        return self._launch

    def _fire(self, ws, issue, schedule, cursor: dict | None, decision) -> dict | None:
        slot_iso = _iso(decision.slot)
        # lazy: only a due issue is admitted, checked and launched (the scan after an edit
        # with nothing due must not pay for them)
        from openalice.core.crash import crash_point
        from openalice.issues.readiness import run_blocker
        from openalice.runs import admission

        from .launching import start

        blocker = run_blocker(ws, issue)
        if blocker is not None:
            self.findings.skip(ws.id, issue.id, blocker.reason, blocker.detail, slot=slot_iso,
                       **({"hint": blocker.hint} if blocker.hint else {}))
            return cursor
        launch = self._resolve_launch()
        capacity = self.capacity if self.capacity is not None else admission.default_capacity()
        if self.dry_run:
            return self._dry_fire(ws, issue, cursor, decision, capacity)
        if self.admissions is None:
            # One hold of the admission lock for the whole scan: the live runs
            # are read once, not once per due issue (see runs.admission).
            self.admissions = admission.Admissions().__enter__()
        try:
            record = self.admissions.admit(ws, issue, fire="schedule", now=self.now,
                                           capacity=capacity, slot=slot_iso,
                                           missed=decision.missed,
                                           missed_overflow=decision.overflow)
        except AliceError as exc:
            self.findings.skip(ws.id, issue.id, exc.code, exc.message, slot=slot_iso,
                       **({"taskId": exc.details["taskId"]} if exc.details.get("taskId") else {}))
            if schedule.kind == "cron" and not schedule.catch_up:
                # catchUp:false means "now or not at all": a refused slot is skipped.
                skipped = cursors.skipped(cursor, ws.id, issue.id, now=self.now)
                self._write_cursor(skipped)
                return skipped
            return cursor
        crash_point("task-record")
        new_cursor = cursors.fired(cursor, ws.id, issue.id, slot=decision.slot, now=self.now,
                                   task_id=record["taskId"], missed=decision.missed,
                                   overflow=decision.overflow)
        self._write_cursor(new_cursor)
        crash_point("cursor")
        fired = {"workspaceId": ws.id, "issueId": issue.id, "taskId": record["taskId"],
                 "slot": slot_iso, "missed": decision.missed}
        if decision.overflow:
            fired["missedOverflow"] = True
        fired.update(start(record["taskId"], launch, now=self.now))
        if fired.get("error"):  # its supervisor never started and the run was released
            self.admissions.forget(record["taskId"])
        self.findings.fired.append(fired)
        crash_point("launch")
        return new_cursor

    def _dry_fire(self, ws, issue, cursor, decision, capacity: int) -> dict | None:
        from openalice.runs import admission  # lazy: (as _fire)

        if self.dry_live is None:
            runs = admission.live_runs()
            self.planned_live = len(runs)
            self.dry_live = {(m["workspaceId"], m["issueId"]) for m in runs}
        slot_iso = _iso(decision.slot)
        latest = tasks.latest_task(ws.id, issue.id)
        if (ws.id, issue.id) in self.dry_live or (latest is not None and latest.get("status") == "running"):
            self.findings.skip(ws.id, issue.id, "already_running", "a run of this issue is live", slot=slot_iso)
            return cursor
        if self.planned_live >= capacity:
            self.findings.skip(ws.id, issue.id, "capacity", f"{self.planned_live} runs would be live "
                       f"(capacity {capacity})", slot=slot_iso)
            return cursor
        self.planned_live += 1
        fired = {"workspaceId": ws.id, "issueId": issue.id, "taskId": None, "slot": slot_iso,
                 "missed": decision.missed}
        if decision.overflow:
            fired["missedOverflow"] = True
        fired["launched"] = False
        self.findings.fired.append(fired)
        return cursors.fired(cursor, ws.id, issue.id, slot=decision.slot, now=self.now,
                             task_id="run-dryrun00", missed=decision.missed, overflow=decision.overflow)


class _UnreadableTask(Exception):
    """The newest scheduled run's record is malformed: whether it ran is unknown."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error
