"""Issues across workspaces: the listing, the board, and ``validate``.

A workspace that cannot be read is reported with its reason and the others
are still shown; an invalid file is listed with its id, path and reasons
(the original board dropped them silently).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from openalice.core import fs
from openalice.core.errors import AliceError, InvalidInput

from .declaration import PRIORITY_RANK, STATUSES
from .reader import IssueSet, issues_root, read_frontmatter, read_issues
from .schedule import data_when_problem, when_problem
from .views import invalid_json, workspace_json

__all__ = ["scan", "indexed", "listing", "listing_json", "board_json", "board", "validate", "Problem", "ValidationWarning", "Report"]


def scan(workspaces: list) -> list[tuple[object, IssueSet]]:
    """``read_issues`` for each workspace; an unexpected failure of one
    workspace becomes its ``unreadable`` state, never the caller's error."""
    out = []
    for ws in workspaces:
        try:
            found = read_issues(ws)
        except (OSError, AliceError) as exc:
            found = IssueSet("invalid", error=f"cannot read issues: {exc}", reason="unreadable")
        out.append((ws, found))
    return out


def indexed(workspaces: list) -> list:
    """``(ws, Snapshot)`` for each workspace through the issue index
    (:mod:`.index`); an unexpected failure of one workspace becomes its
    ``unreadable`` state, never the caller's error."""
    from . import index  # lazy: validate reads cold

    out = []
    for ws in workspaces:
        try:
            snap = index.snapshot(ws)
        except (OSError, AliceError) as exc:
            snap = index.Snapshot(getattr(ws, "id", None), Path(ws.path), Path(ws.path) / ".alice" / "issues")
            snap.cold = IssueSet("invalid", error=f"cannot read issues: {exc}", reason="unreadable")
        out.append((ws, snap))
    return out


def _state_of(ws, snap) -> dict:
    return workspace_json(ws, snap.cold if snap.cold is not None else _OK)


_OK = IssueSet("ok")


def _collect(workspaces: list, now: datetime, status: str | None, take) -> tuple[list, list]:
    """``(states, invalid)`` over the workspaces; ``take(ws_id, views)``
    receives each workspace's ``(meta, JSON text)`` views (:meth:`.index.Snapshot.views`)."""
    import gc  # lazy: (built in: free)

    from openalice.core.clock import to_ms  # lazy: (as the index)

    now_ms = to_ms(now)
    states, invalid = [], []
    collecting = gc.isenabled()
    gc.disable()  # the index makes many small acyclic containers: no cycle to collect
    try:
        for ws, snap in indexed(workspaces):
            states.append(_state_of(ws, snap))
            take(ws.id, snap.views(now, now_ms, status))
            invalid.extend(invalid_json(i, ws.id) for i in snap.invalid())
            snap.save()
    finally:
        if collecting:
            gc.enable()
    return states, invalid


def _texts(workspaces: list, now: datetime, status: str | None) -> tuple[list, list, list]:
    texts: list = []
    states, invalid = _collect(workspaces, now, status,
                               lambda ws_id, views: texts.extend([view[1] for view in views]))
    return states, texts, invalid


def listing_json(workspaces: list, now: datetime, *, status: str | None = None, mark=None) -> str:
    """:func:`listing` as compact JSON (``json.dumps(..., separators=(",", ":"),
    ensure_ascii=False)`` of it, character for character), built from the
    index's texts without decoding them.  ``mark``: a function of one issue's
    text to its text, for what the caller adds (the CLI's ``schedule.blocked``)."""
    from .index import dumps  # lazy: (as the index)

    states, texts, invalid = _texts(workspaces, now, status)
    if mark is not None:
        texts = [mark(text) for text in texts]
    return ('{"issues":[' + ",".join(texts) + '],"invalid":' + dumps(invalid)
            + ',"workspaces":' + dumps(states) + "}")


def listing(workspaces: list, now: datetime, *, status: str | None = None) -> dict:
    """``{"issues", "invalid", "workspaces"}`` for ``alice issue list``."""
    import json  # lazy: (the JSON output never decodes the texts)

    states, texts, invalid = _texts(workspaces, now, status)
    return {"issues": [json.loads(text) for text in texts], "invalid": invalid, "workspaces": states}


def _columns(workspaces: list, now: datetime) -> tuple[list, list[tuple[str, list]], list]:
    """``(states, [(status, [text...])], invalid)``: each column by priority, id, workspace."""
    from operator import itemgetter  # lazy: (operator is loaded by datetime already)

    columns: dict = {name: [] for name in STATUSES}
    rank = PRIORITY_RANK

    def take(ws_id: str, views: list) -> None:
        for meta, text in views:
            columns[meta[1]].append((rank[meta[2]], meta[0], ws_id, text))

    states, invalid = _collect(workspaces, now, None, take)
    key = itemgetter(0, 1, 2)
    return states, [(name, [row[3] for row in sorted(columns[name], key=key)]) for name in STATUSES], invalid


def board_json(workspaces: list, now: datetime, *, mark=None) -> str:
    """:func:`board` as compact JSON, character for character (see :func:`listing_json`)."""
    from .index import dumps  # lazy: (as the index)

    states, columns, invalid = _columns(workspaces, now)
    if mark is not None:
        columns = [(name, [mark(text) for text in texts]) for name, texts in columns]
    body = ",".join('{"status":' + dumps(name) + ',"issues":[' + ",".join(texts) + "]}"
                    for name, texts in columns)
    return '{"workspaces":' + dumps(states) + ',"columns":[' + body + '],"invalid":' + dumps(invalid) + "}"


def board(workspaces: list, now: datetime) -> dict:
    """Issues of every workspace grouped by status, each column by priority."""
    import json  # lazy: (as listing)

    states, columns, invalid = _columns(workspaces, now)
    return {
        "workspaces": states,
        "columns": [{"status": name, "issues": [json.loads(t) for t in texts]} for name, texts in columns],
        "invalid": invalid,
    }


def with_deliveries(data: dict, issue) -> dict:
    """``data`` with ``deliveries: {unanswered, failed}`` when the issue has a
    comments file (docs/conversations.md); a sidecar that cannot be read is
    left to ``show`` and ``validate`` to report."""
    path = Path(issue.path).parent / f"{issue.id}.comments.json"
    try:
        doc = fs.read_json(path, missing=None, max_bytes=64 * 1024 * 1024,
                           root=Path(issue.path).parent.parent.parent)
    except (OSError, AliceError):
        return data
    if not isinstance(doc, dict) or not isinstance(doc.get("comments"), list):
        return data
    counts = {"unanswered": 0, "failed": 0}
    for comment in doc["comments"]:
        delivery = comment.get("delivery") if isinstance(comment, dict) else None
        state = delivery.get("state") if isinstance(delivery, dict) else None
        if state == "pending":
            counts["unanswered"] += 1
        elif state == "failed":
            counts["failed"] += 1
    data["deliveries"] = counts
    return data


class Problem:
    """One line of ``alice issue validate``: ``path:field: reason``."""

    __slots__ = ("workspace_id", "issue_id", "path", "field", "reason")

    def __init__(self, workspace_id: str, issue_id: str | None, path: Path | str, field: str,
                 reason: str) -> None:
        self.workspace_id = workspace_id
        self.issue_id = issue_id
        self.path = str(path)
        self.field = field
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}:{self.field}: {self.reason}"

    def to_dict(self) -> dict:
        return {"workspaceId": self.workspace_id, "id": self.issue_id, "path": self.path,
                "field": self.field, "reason": self.reason}


class ValidationWarning(Problem):
    """A valid issue this machine cannot run now (:mod:`.runnable`): the scan
    skips it with ``code`` until it is fixed."""

    __slots__ = ("code", "hint")

    def __init__(self, workspace_id: str, issue_id: str, path: Path | str, warning: dict) -> None:
        super().__init__(workspace_id, issue_id, path, warning["field"], warning["reason"])
        self.code = warning["code"]
        self.hint = warning.get("hint")

    def __str__(self) -> str:
        from .runnable import warning_text  # lazy: listings print no warnings; validate does

        return warning_text(self.path, {"field": self.field, "reason": self.reason,
                                        "code": self.code})

    def to_dict(self) -> dict:
        out = {**super().to_dict(), "code": self.code}
        if self.hint:
            out["hint"] = self.hint
        return out


class Report:
    """What ``validate`` found: ``problems`` (exit 2), ``warnings`` and how
    much it looked at."""

    __slots__ = ("problems", "warnings", "files", "workspaces")

    def __init__(self, problems: list[Problem], files: int, workspaces: int,
                 warnings: list[ValidationWarning] | None = None) -> None:
        self.problems = problems
        self.warnings = warnings or []
        self.files = files
        self.workspaces = workspaces

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"ok": self.ok, "checked": {"workspaces": self.workspaces, "files": self.files},
                "problems": [p.to_dict() for p in self.problems],
                "warnings": [w.to_dict() for w in self.warnings]}


def validate(workspaces: list, now: datetime) -> Report:
    """Everything ``validate`` flags: invalid files, schedules that can never
    fire (an ``at`` in the past only for live issues), malformed comment
    sidecars, workspaces whose issues cannot be read, and what the scan would
    refuse (:mod:`.runnable`: errors, or warnings for what depends on this
    machine)."""
    # lazy: only validate checks sidecars and the runtime; list and board must not load them
    from .comments import check_sidecar
    from .runnable import runtime_findings

    problems: list[Problem] = []
    warnings: list[ValidationWarning] = []
    files = 0
    for ws, found in scan(workspaces):
        root = Path(ws.path)
        if found.state == "invalid":
            where = root / ".alice" / ("issue.json" if found.reason == "legacy_issue_json"
                                       else "issues")
            problems.append(Problem(ws.id, None, where, "workspace", found.error or "invalid"))
            continue
        if found.state != "ok":
            continue
        for item in found.invalid:
            files += 1
            problems.extend(Problem(ws.id, item.id, item.path, e.field, e.reason)
                            for e in item.errors)
            data = _frontmatter_of(ws, item.path)
            problem = data_when_problem(data, now, list(item.errors)) if data else None
            if problem is not None:
                problems.append(Problem(ws.id, item.id, item.path, problem.field, problem.reason))
        for issue in found.issues:
            files += 1
            problem = when_problem(issue.when, now, terminal=issue.is_terminal)
            if problem is not None:
                problems.append(Problem(ws.id, issue.id, issue.path, problem.field, problem.reason))
            errors, found_warnings = runtime_findings(ws, issue)
            problems.extend(Problem(ws.id, issue.id, issue.path, e.field, e.reason) for e in errors)
            warnings.extend(ValidationWarning(ws.id, issue.id, issue.path, w) for w in found_warnings)
            sidecar = issue.path.parent / f"{issue.id}.comments.json"
            problem = _sidecar_problem(sidecar, issue.id, check_sidecar, root)
            if problem is not None:
                problems.append(Problem(ws.id, issue.id, sidecar, *problem))
    return Report(problems, files, len(workspaces), warnings)


def _frontmatter_of(ws, path: Path) -> dict | None:
    try:
        with issues_root(ws) as where:
            return read_frontmatter(path, where)
    except (OSError, AliceError):
        return None


def _sidecar_problem(path: Path, issue_id: str, check, root: Path) -> tuple[str, str] | None:
    if not os.path.lexists(path):
        return None
    if os.path.islink(path):
        return "comments", "the comments file is a symbolic link; it is not followed"
    try:
        check(fs.read_json(path, root=root), path, issue_id)
    except InvalidInput as exc:
        return exc.field or "comments", exc.message
    except AliceError as exc:
        return "comments", exc.message
    return None
