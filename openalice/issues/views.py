"""JSON shapes of issues, invalid files and workspace states (``spec/issue*.schema.json``)."""

from __future__ import annotations

import math
from datetime import datetime

from .declaration import InvalidIssue, Issue
from .reader import IssueSet
from .schedule import schedule_summary

__all__ = ["issue_json", "issue_view", "invalid_json", "workspace_json", "workspace_state"]


def issue_json(issue: Issue, now: datetime, *, workspace_id: str | None = None) -> dict:
    """One issue as ``show``/``list``/``board`` print it."""
    out = issue_view(issue, workspace_id=workspace_id)
    out["schedule"] = schedule_summary(issue, now, workspace_id=workspace_id or issue.workspace_id)
    return out


def issue_view(issue: Issue, *, workspace_id: str | None = None) -> dict:
    """:func:`issue_json` with ``schedule`` left None: everything that
    depends on the file alone (what the issue index keeps)."""
    return {
        "id": issue.id,
        "workspaceId": workspace_id or issue.workspace_id,
        "path": str(issue.path),
        "title": issue.title,
        "status": issue.status,
        "priority": issue.priority,
        "assignee": issue.assignee,
        "when": issue.when,
        "agent": issue.agent,
        "credential": issue.credential,
        "credentialSource": issue.credential_source,
        "model": issue.model,
        "effort": issue.effort,
        "timeout": issue.timeout,
        "timeoutSeconds": issue.timeout_seconds,
        "commentPrompt": issue.comment_prompt,
        "telegramConnector": issue.telegram_connector,
        "scheduled": issue.when is not None,
        "terminal": issue.is_terminal,
        "schedule": None,
        "what": issue.what,
        "extra": _jsonable(issue.extra),
    }


def invalid_json(item: InvalidIssue, workspace_id: str | None) -> dict:
    return {"workspaceId": workspace_id, "id": item.id, "path": str(item.path),
            "errors": [e.to_dict() for e in item.errors]}


def workspace_state(found: IssueSet) -> str:
    """``ok``, ``absent``, ``invalid``, or ``unreadable`` (missing, permissions)."""
    if found.state == "invalid" and not found.readable:
        return "unreadable"
    return found.state


def workspace_json(ws, found: IssueSet) -> dict:
    out = {"id": ws.id, "label": ws.label, "path": str(ws.path), "state": workspace_state(found)}
    if found.error:
        out["error"] = found.error
    return out


def _jsonable(value: object, depth: int = 0) -> object:
    """Unknown keys can hold YAML values JSON cannot spell (.inf, .nan)."""
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if value != value else (".inf" if value > 0 else "-.inf")
    if isinstance(value, dict):
        return {k: _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v, depth + 1) for v in value]
    return value
