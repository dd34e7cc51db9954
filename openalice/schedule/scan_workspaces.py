"""The scanner's pass over one workspace: the scan cache, the issue files'
stats, reading the issues when they changed, and the sweep of dead writers'
temp files.

Three explicit objects, which the scanner (:mod:`.scan`) builds and passes in
(no mixin: every piece of state is visible at the call):

- :class:`ScanCache` — what the last scan saved and what this one will save,
  whether it changed, and which workspaces this scan re-read or wrote to;
- :class:`Findings` — the report's lists (fired, skipped, repaired, invalid,
  workspaces);
- :class:`WorkspacePass` — one workspace's files against the cache; each
  scheduled issue that needs evaluating goes to the ``evaluate`` function the
  caller gives to :meth:`WorkspacePass.scan` (the scanner's per-issue rule).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from openalice.core import derived, fs, paths
from openalice.core.errors import AliceError
from openalice.issues import cursors
from openalice.issues.reader import legacy_issue_file

from .fastpath import CACHE_MAGIC, cache_file, list_issue_files, load_cache

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from collections.abc import Callable
    from typing import Any


def cache_path():
    return Path(cache_file())


class ScanCache:
    """The scan cache as one scan sees it: ``data`` is what this scan will
    save (filled in by the scanner and the workspace pass), ``changed`` whether
    anything in it differs from what was read, ``touched`` the workspaces this
    scan re-read or wrote a cursor of."""

    #: A sweep of every cursor directory at most this often (real seconds):
    #: it walks one directory per workspace, and only files older than an
    #: hour are removed anyway.
    FULL_SWEEP_SECONDS = 3600

    def __init__(self, *, use_cache: bool, dry_run: bool, preloaded: dict | None = None) -> None:
        self.use_cache = use_cache
        self.dry_run = dry_run
        self.preloaded = preloaded
        self.data: dict = {}
        self.changed = False
        self.touched: set[str] = set()

    def load(self) -> dict:
        """What the last scan saved ({} when the cache is off, missing or in doubt)."""
        if not self.use_cache:
            return {}
        if self.preloaded is not None:
            return self.preloaded
        return load_cache()

    def save(self, previous: dict, *, now_iso: str, now_ms: int) -> None:
        if self.dry_run or not self.use_cache:
            return
        if (not self.changed and previous.get("workspaces") == self.data["workspaces"]
                and all(previous.get(k) == self.data[k] for k in ("registry", "order"))):
            return
        self.data["lastScanAt"] = now_iso
        self.data["lastScanMs"] = now_ms
        # Not fsynced: it is derived data, and a lost write only costs a full scan.
        derived.store(cache_file(), CACHE_MAGIC, self.data)

    def full_sweep_due(self) -> bool:
        last = self.data.get("lastSweep")
        now = time.time()
        return not isinstance(last, int) or not 0 <= now - last < self.FULL_SWEEP_SECONDS

    def sweep_temp_files(self, *, everything: bool) -> None:
        """Temp files of writers that died mid-write (cursors, markers): in the
        live-run markers and the cursor directories of the workspaces this
        scan read or wrote, and in every cursor directory once an hour."""
        if everything:
            directories = [paths.state_dir() / "schedule"]
        else:
            directories = [cursors.cursor_path(ws_id, "x").parent for ws_id in sorted(self.touched)]
        directories.append(paths.state_dir() / "runs" / "live")
        for directory in directories:
            if directory.is_dir():
                fs.sweep_temp_files(directory, recursive=True)

    def keep(self, ws, cached: dict | None) -> None:
        # An unreadable workspace keeps its cache entry (and, above all, its
        # cursors); the next successful read replaces it.
        if cached is not None:
            self.data["workspaces"][ws.id] = cached


class Findings:
    """The scan report's lists, in the order things were found."""

    def __init__(self) -> None:
        self.fired: list[dict] = []
        self.skipped: list[dict] = []
        self.repaired: list[dict] = []
        self.invalid: list[dict] = []
        self.workspaces: list[dict] = []

    def skip(self, workspace_id: str, issue_id: str, reason: str, detail: str | None = None,
             **extra: Any) -> None:
        item = {"workspaceId": workspace_id, "issueId": issue_id, "reason": reason}
        if detail:
            item["detail"] = detail
        item.update(extra)
        self.skipped.append(item)


class WorkspacePass:
    """One workspace's issue files against the scan cache.  ``reader``: a
    function of a workspace to its IssueSet (default: through the issue index)."""

    def __init__(self, cache: ScanCache, findings: Findings, *, reader, dry_run: bool, now_ms: int) -> None:
        self.cache = cache
        self.findings = findings
        self._reader = reader
        self.dry_run = dry_run
        self.now_ms = now_ms

    # -- one workspace -------------------------------------------------------

    def scan(self, ws, cached: dict | None, evaluate: Callable[[Any, Any, dict], dict]) -> None:
        """Scan ``ws`` (``cached``: its entry in the last scan's cache);
        ``evaluate(ws, issue, item)`` gives each scheduled issue that needs it
        its new cache item (and fires it when due)."""
        report = {"id": ws.id, "state": "ok", "issues": 0, "scheduled": 0}
        self.findings.workspaces.append(report)
        try:
            files = list_issue_files(ws.path)
        except OSError as exc:
            report["state"] = "unreadable"
            report["error"] = f"cannot list issues: {exc.strerror}"
            self.cache.keep(ws, cached)
            return
        if files is None:
            if not os.path.isdir(ws.path):
                report["state"] = "missing"
                report["error"] = "the workspace directory is missing"
                self.cache.keep(ws, cached)
                return
            if legacy_issue_file(ws.path) is None:
                report["state"] = "absent"  # no issues directory: nothing scheduled
                self.cache.data["workspaces"][ws.id] = {"path": ws.path, "state": "absent", "files": None,
                                                        "issues": {}, "invalid": []}
                return
        reuse = (cached is not None and files is not None and cached.get("path") == ws.path
                 and cached.get("files") == files and cached.get("state") == "ok")
        if reuse:
            entry = {**cached, "issues": dict(cached["issues"])}
            issue_set = None
        else:
            issue_set = self._read(ws, report)
            if issue_set is None:
                self.cache.keep(ws, cached)
                return
            if issue_set.state != "ok":
                reason = getattr(issue_set, "reason", None)
                report["state"] = reason if reason in ("missing", "unreadable") else issue_set.state
                if getattr(issue_set, "error", None):
                    report["error"] = str(issue_set.error)
                return
            entry = self._entry_from(ws, issue_set, files or {})
            self.cache.changed = True
            self.cache.touched.add(ws.id)
        report["issues"] = len(entry["issues"]) + len(entry["invalid"])
        for bad in entry["invalid"]:
            self.findings.invalid.append({"workspaceId": ws.id, **bad})
        issues_by_id = None if issue_set is None else {i.id: i for i in issue_set.issues}
        for issue_id in sorted(entry["issues"]):
            item = entry["issues"][issue_id]
            if not item.get("scheduled"):
                continue
            report["scheduled"] += 1
            if item.get("terminal"):
                continue
            if item.get("problem"):
                self.findings.skip(ws.id, issue_id, "never_fires", item["problem"])
                continue
            due_at = item.get("nextDue")
            if reuse and (due_at is None or due_at > self.now_ms) and not item.get("recheck"):
                continue
            if issues_by_id is None:
                issue_set = self._read(ws, report)
                if issue_set is None or issue_set.state != "ok":
                    # Changed under our feet: the next scan sees new stats.
                    entry = None
                    break
                issues_by_id = {i.id: i for i in issue_set.issues}
            issue = issues_by_id.get(issue_id)
            if issue is None:
                entry["issues"][issue_id] = {**item, "recheck": True}
                self.cache.changed = True
                continue
            new_item = evaluate(ws, issue, item)
            if new_item != item:
                entry["issues"][issue_id] = new_item
                self.cache.changed = True
        if entry is not None:
            self.cache.data["workspaces"][ws.id] = entry
        if not reuse and issue_set is not None and issue_set.state == "ok" and not self.dry_run:
            self._prune(ws.id, issue_set)

    def _read(self, ws, report: dict):
        if self._reader is None:
            # through the issue index: of a changed workspace only the changed files are parsed
            from openalice.issues import index  # lazy: only a workspace whose files changed

            save = not self.dry_run
            self._reader = lambda w: index.read_issues(w, save=save)
        try:
            return self._reader(ws)
        except AliceError as exc:
            report["state"] = "unreadable"
            report["error"] = str(exc)
            return None
        except OSError as exc:
            report["state"] = "unreadable"
            report["error"] = f"cannot read issues: {exc.strerror or exc}"
            return None

    def _entry_from(self, ws, issue_set, files: dict) -> dict:
        """A fresh cache entry for a workspace just read (due instants are
        filled in per issue by the ``evaluate`` function of :meth:`scan`)."""
        issues: dict[str, dict] = {}
        for issue in issue_set.issues:
            scheduled = bool(getattr(issue, "when", None))
            item: dict[str, Any] = {"status": getattr(issue, "status", None), "scheduled": scheduled}
            if scheduled:
                item["terminal"] = bool(getattr(issue, "is_terminal", False))
                item["nextDue"] = None
                item["recheck"] = True  # not evaluated yet
            issues[issue.id] = item
        invalid = []
        for bad in getattr(issue_set, "invalid", ()) or ():
            errors = [{"field": getattr(e, "field", None) or "", "reason": getattr(e, "reason", str(e))}
                      for e in (getattr(bad, "errors", None) or ())]
            invalid.append({"issueId": bad.id, "path": str(getattr(bad, "path", "")), "errors": errors})
        return {"path": ws.path, "state": "ok", "files": files, "issues": issues, "invalid": invalid}

    def _prune(self, workspace_id: str, issue_set) -> None:
        present = {i.id for i in issue_set.issues} | {b.id for b in (issue_set.invalid or ())}
        for issue_id in cursors.cursor_issue_ids(workspace_id):
            if issue_id not in present:
                cursors.remove_cursor(workspace_id, issue_id)
