"""The scanner's pass over one workspace: the scan cache, the issue files'
stats, reading the issues when they changed, and the sweep of dead writers'
temp files.  A mixin of :class:`openalice.schedule.scan._Scanner`."""

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
    from typing import Any


def cache_path():
    return Path(cache_file())


class WorkspacePass:
    """The per-workspace steps of :class:`~.scan._Scanner` (a mixin)."""

    # -- cache ---------------------------------------------------------------

    def _load_cache(self) -> dict:
        if not self.use_cache:
            return {}
        if self._preloaded is not None:
            return self._preloaded
        return load_cache()

    def _save_cache(self, previous: dict) -> None:
        if self.dry_run or not self.use_cache:
            return
        if (not self.cache_changed and previous.get("workspaces") == self.cache["workspaces"]
                and all(previous.get(k) == self.cache[k] for k in ("registry", "order"))):
            return
        self.cache["lastScanAt"] = self.now_iso
        self.cache["lastScanMs"] = self.now_ms
        # Not fsynced: it is derived data, and a lost write only costs a full scan.
        derived.store(cache_file(), CACHE_MAGIC, self.cache)


    #: A sweep of every cursor directory at most this often (real seconds):
    #: it walks one directory per workspace, and only files older than an
    #: hour are removed anyway.
    FULL_SWEEP_SECONDS = 3600

    def _full_sweep_due(self) -> bool:
        last = self.cache.get("lastSweep")
        now = time.time()
        return not isinstance(last, int) or not 0 <= now - last < self.FULL_SWEEP_SECONDS

    def _sweep_temp_files(self, *, everything: bool) -> None:
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

    # -- one workspace -------------------------------------------------------

    def _scan_workspace(self, ws, cached: dict | None) -> None:
        report = {"id": ws.id, "state": "ok", "issues": 0, "scheduled": 0}
        self.ws_report.append(report)
        try:
            files = list_issue_files(ws.path)
        except OSError as exc:
            report["state"] = "unreadable"
            report["error"] = f"cannot list issues: {exc.strerror}"
            self._keep_cached(ws, cached)
            return
        if files is None:
            if not os.path.isdir(ws.path):
                report["state"] = "missing"
                report["error"] = "the workspace directory is missing"
                self._keep_cached(ws, cached)
                return
            if legacy_issue_file(ws.path) is None:
                report["state"] = "absent"  # no issues directory: nothing scheduled
                self.cache["workspaces"][ws.id] = {"path": ws.path, "state": "absent", "files": None,
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
                self._keep_cached(ws, cached)
                return
            if issue_set.state != "ok":
                reason = getattr(issue_set, "reason", None)
                report["state"] = reason if reason in ("missing", "unreadable") else issue_set.state
                if getattr(issue_set, "error", None):
                    report["error"] = str(issue_set.error)
                return
            entry = self._entry_from(ws, issue_set, files or {})
            self.cache_changed = True
            self.touched.add(ws.id)
        report["issues"] = len(entry["issues"]) + len(entry["invalid"])
        for bad in entry["invalid"]:
            self.invalid.append({"workspaceId": ws.id, **bad})
        issues_by_id = None if issue_set is None else {i.id: i for i in issue_set.issues}
        for issue_id in sorted(entry["issues"]):
            item = entry["issues"][issue_id]
            if not item.get("scheduled"):
                continue
            report["scheduled"] += 1
            if item.get("terminal"):
                continue
            if item.get("problem"):
                self._skip(ws.id, issue_id, "never_fires", item["problem"])
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
                self.cache_changed = True
                continue
            new_item = self._issue(ws, issue, item)
            if new_item != item:
                entry["issues"][issue_id] = new_item
                self.cache_changed = True
        if entry is not None:
            self.cache["workspaces"][ws.id] = entry
        if not reuse and issue_set is not None and issue_set.state == "ok" and not self.dry_run:
            self._prune(ws.id, issue_set)

    def _keep_cached(self, ws, cached: dict | None) -> None:
        # An unreadable workspace keeps its cache entry (and, above all, its
        # cursors); the next successful read replaces it.
        if cached is not None:
            self.cache["workspaces"][ws.id] = cached

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
        filled in per issue by :meth:`_issue`)."""
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
