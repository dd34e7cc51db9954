"""automationHealth and the run-failure classification, computed at read
time from the issue, its cursor, its runs and its owner; never stored.

Run failure (first match wins; every kind is retryable):

1. ``running`` / ``done`` → no failure;
2. ``interrupted`` → ``interrupted`` when it says why (``interruptionReason``),
   else ``launcher_restarted``;
3. ``killed`` with a budget (``timeoutMs``; an absent key is a historical
   record with the 30 min default, ``null`` means no limit) →
   ``system_paused`` when the run outlived its budget by 60 s or more (the
   machine slept), else ``timeout``;
4. ``error`` set → ``launch_error``;
5. a ``signal``, or an exit code other than 0 → ``process_exit``;
6. anything else → ``runtime_error``.

automationHealth (first match wins): status done/canceled → ``inactive``;
latest run running → ``running``; owner invalid/missing/retired/deleted/unbound
→ ``blocked``; the run cannot start on this machine (:mod:`.readiness`: agent
unknown or not installed, credential missing, ...) → ``blocked`` (the scan
would skip it, so it is not ``due``); latest run interrupted, or failed as ``system_paused`` →
``interrupted``; latest run failed → ``failed``; no next fire → ``blocked``;
next fire at or before now → ``due``; latest run done → ``healthy``; else
``not_started``.
"""

from __future__ import annotations

from datetime import datetime

from openalice.core import clock
from openalice.core.errors import AliceError
from openalice.runs import tasks

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


__all__ = ["FAILURE_KINDS", "HEALTH_STATES", "HISTORICAL_TIMEOUT_MS", "PAUSE_MARGIN_MS",
           "classify_failure", "automation_health", "issue_health", "health_report"]

FAILURE_KINDS = ("launcher_restarted", "interrupted", "system_paused", "timeout", "launch_error",
                 "process_exit", "runtime_error")
HEALTH_STATES = ("inactive", "running", "blocked", "interrupted", "failed", "due", "healthy",
                 "not_started")
HISTORICAL_TIMEOUT_MS = 30 * 60 * 1000
PAUSE_MARGIN_MS = 60 * 1000
_BLOCKING_OWNER_STATES = ("invalid", "missing", "retired", "deleted", "unbound")


def _limit_text(ms: int) -> str:
    minutes, rest = divmod(ms // 1000, 60)
    return f"{minutes}m" if not rest else f"{minutes}m{rest}s"


def classify_failure(record: dict | None) -> dict | None:
    """``{kind, message, retryable, reason?, detail?, next?}`` for a finished
    unsuccessful run, or None.  ``reason`` is the run's (or, for an old record,
    one derived from its fields: :func:`openalice.runs.reasons.from_record`);
    when it says more than the kind, the message is its words."""
    failure = _classify(record)
    if failure is None:
        return None
    from openalice.runs import reasons  # lazy: only a failed run needs the words

    code, detail = reasons.from_record(record)
    told = reasons.explain(code, record.get("agent") or (record.get("runtimeRequest") or {}).get("agent"),
                           workspace=record.get("workspaceId"), issue=record.get("issueId"))
    if told is None:
        return failure
    failure["reason"] = code
    if detail:
        failure["detail"] = detail
    failure["next"] = told["next"]
    if code not in _GENERIC_REASONS:
        words = told["words"][:1].upper() + told["words"][1:]
        failure["message"] = f"{words}" + (f": {detail}" if detail else "") + "."
    return failure


# Reasons that say no more than the failure kind's own message.
_GENERIC_REASONS = ("interrupted", "timeout", "killed", "exit_nonzero", "launch_failed")


def _classify(record: dict | None) -> dict | None:
    if not record:
        return None
    status = record.get("status")
    if status in ("running", "done") or status is None:
        return None
    if status == "interrupted":
        reason = record.get("interruptionReason")
        if reason:
            return _failure("interrupted", f"The run was interrupted ({reason}).")
        return _failure("launcher_restarted", "The run was interrupted when the launcher restarted.")
    budget = record["timeoutMs"] if "timeoutMs" in record else HISTORICAL_TIMEOUT_MS
    if record.get("killed") and budget is not None:
        duration = record.get("durationMs")
        if isinstance(duration, (int, float)) and duration - budget >= PAUSE_MARGIN_MS:
            return _failure("system_paused", "The machine was asleep or suspended during the run; "
                            f"it outlived its {_limit_text(budget)} execution limit by "
                            f"{int((duration - budget) // 1000)}s.")
        return _failure("timeout", f"The run did not finish within the {_limit_text(budget)} "
                        "execution limit.")
    if record.get("error"):
        return _failure("launch_error", f"Agent could not start: {record['error']}")
    exit_code = record.get("exitCode")
    if record.get("signal"):
        return _failure("process_exit", f"The agent was killed by signal {record['signal']}.")
    if exit_code not in (0, None):
        return _failure("process_exit", f"The agent exited with code {exit_code}.")
    return _failure("runtime_error", "The agent reported an error after its last reply.")


def _failure(kind: str, message: str) -> dict:
    return {"kind": kind, "message": message, "retryable": True}


def automation_health(*, status: str | None, latest: dict | None, owner_state: str,
                      next_due: datetime | None, now: datetime, problem: str | None = None,
                      owner_detail: str | None = None, blocker: str | None = None) -> dict:
    """``{state, message, latestTaskId?}`` from the pieces (pure).  ``blocker``
    is why the run cannot start now (:func:`.readiness.run_blocker`'s detail)."""
    out: dict[str, Any] = {}
    if latest is not None:
        out["latestTaskId"] = latest.get("taskId")
    latest_status = None if latest is None else latest.get("status")
    failure = classify_failure(latest)
    if status in ("done", "canceled"):
        return {"state": "inactive", "message": f"The issue is {status}; it no longer fires.", **out}
    if latest_status == "running":
        return {"state": "running", "message": "A run is in progress.", **out}
    if owner_state in _BLOCKING_OWNER_STATES:
        detail = f": {owner_detail}" if owner_detail else ""
        return {"state": "blocked", "message": f"The owner session is {owner_state}{detail}.", **out}
    if blocker:
        return {"state": "blocked", "message": f"The run cannot start: {blocker}.", **out}
    if latest_status == "interrupted" or (failure and failure["kind"] == "system_paused"):
        return {"state": "interrupted", "message": failure["message"] if failure else
                "The last run was interrupted.", **out}
    if latest_status == "failed":
        return {"state": "failed", "message": failure["message"] if failure else
                "The last run failed.", **out}
    if next_due is None:
        return {"state": "blocked", "message": problem or "The schedule has no next fire time.", **out}
    if next_due <= now:
        return {"state": "due", "message": "A run is due; the next scan starts it.", **out}
    if latest_status == "done":
        return {"state": "healthy", "message": "The last run succeeded.", **out}
    return {"state": "not_started", "message": "Waiting for the first fire.", **out}


def issue_health(ws: Any, issue: Any, *, now: datetime) -> dict:
    """The health entry of one scheduled issue (reads cursor, runs, owner)."""
    # lazy: the runs listing imports classify_failure, not the report
    from openalice.issues import cursors, due
    from openalice.issues.readiness import login_blocker, native_login, owner_state, run_blocker  # lazy: (as above)

    schedule = due.parse_schedule(issue.when)
    problem = schedule.problem if schedule else "no schedule"
    cursor_error = None
    try:
        cursor = cursors.read_cursor(ws.id, issue.id)
    except AliceError as exc:
        cursor, cursor_error = None, str(exc)
    next_fire = None
    if schedule is not None and cursor_error is None:
        next_fire = due.next_due(schedule, cursor, now)
        if next_fire is None and not problem and schedule.kind == "cron":
            problem = "cron: no fire time within the search horizon"
        if next_fire is None and schedule.kind == "at" and not problem:
            problem = "at: already fired"
    if cursor_error:
        problem = f"cursor unreadable: {cursor_error}"
    latest = tasks.latest_task(ws.id, issue.id, predicate=_issue_run)
    state, detail = owner_state(ws, issue)
    blocker = found = None
    if not getattr(issue, "is_terminal", False) and (latest or {}).get("status") != "running":
        blocker = run_blocker(ws, issue)
        if blocker is None:
            found = native_login(ws, issue)
            # A login the cheap check cannot see is proven by a run that succeeded.
            if (latest or {}).get("status") != "done":
                blocker = login_blocker(found, workspace=ws.id, issue=issue.id)
    health = automation_health(status=getattr(issue, "status", None), latest=latest,
                               owner_state=state, next_due=next_fire, now=now, problem=problem,
                               owner_detail=detail,
                               blocker=None if blocker is None else blocker.detail)
    entry: dict[str, Any] = {
        "workspaceId": ws.id, "issueId": issue.id, "title": getattr(issue, "title", None),
        "status": getattr(issue, "status", None), "assignee": getattr(issue, "assignee", None),
        "when": _when_dict(issue.when), "ownerState": state, **health,
        "nextDue": None if next_fire is None else clock.to_iso(next_fire),
    }
    if latest is not None:
        entry["latestStatus"] = latest.get("status")
        failure = classify_failure(latest)
        if failure:
            entry["failure"] = failure
    if cursor:
        entry["cursor"] = {k: cursor[k] for k in ("lastFire", "lastTaskId", "missed", "skippedThrough",
                                                  "firstSeenAt") if k in cursor}
    if found is not None:
        entry["login"] = found.to_dict()
    if blocker is not None and health["state"] == "blocked":
        entry["blocker"] = blocker.to_dict()
    elif problem and health["state"] == "blocked":
        entry["problem"] = problem
    if entry["title"] is None:
        del entry["title"]
    return entry


def _issue_run(index_line: dict) -> bool:
    # A comment turn (fire "comment", docs/conversations.md) is not a run of the
    # issue: its failure is a failed delivery, counted apart.
    return index_line.get("fire") != "comment"


def _when_dict(when: Any) -> dict:
    if isinstance(when, dict):
        return dict(when)
    return {k: getattr(when, k) for k in ("kind", "at", "every", "cron", "timezone", "catchUp")
            if getattr(when, k, None) is not None}


def health_report(*, now: datetime, workspaces: list | None = None, reader=None,
                  issue_id: str | None = None) -> dict:
    """Health of every scheduled issue of the given (default: all registered)
    workspaces; invalid issue files and unreadable workspaces are listed."""
    if workspaces is None:
        # lazy: the runs listing imports classify_failure, not the report
        from openalice import workspaces as registry

        workspaces = registry.list_workspaces()
    if reader is None:
        # lazy: the runs listing imports classify_failure, not the report
        from .address import read_issues as reader
    from openalice.core import once  # lazy: (as above)

    issues_out: list[dict] = []
    invalid: list[dict] = []
    ws_out: list[dict] = []
    deliveries: dict = {"unanswered": 0, "failed": 0, "failedComments": []}
    with once.report():  # every issue's readiness reads its settings and PATH: once per report
        for ws in workspaces:
            _workspace_health(ws, reader, issue_id, now, issues_out, invalid, ws_out, deliveries)
    counts: dict[str, int] = {}
    for entry in issues_out:
        counts[entry["state"]] = counts.get(entry["state"], 0) + 1
    return {"now": clock.to_iso(now), "issues": issues_out, "counts": counts, "invalid": invalid,
            "workspaces": ws_out, "deliveries": deliveries}


def _workspace_health(ws, reader, issue_id, now, issues_out, invalid, ws_out, deliveries) -> None:
    """One workspace's part of :func:`health_report` (appended to its lists)."""
    try:
        issue_set = reader(ws)
    except AliceError as exc:
        ws_out.append({"id": ws.id, "state": "unreadable", "error": str(exc)})
        return
    item = {"id": ws.id, "state": issue_set.state}
    if getattr(issue_set, "error", None):
        item["error"] = str(issue_set.error)
    ws_out.append(item)
    for bad in issue_set.invalid or ():
        if issue_id is None or bad.id == issue_id:
            invalid.append({"workspaceId": ws.id, "issueId": bad.id, "path": str(bad.path),
                            "errors": [{"field": getattr(e, "field", "") or "",
                                        "reason": getattr(e, "reason", str(e))}
                                       for e in (bad.errors or ())]})
    for issue in issue_set.issues:
        if issue_id is None or issue.id == issue_id:
            _count_deliveries(ws, issue, deliveries)
        if not getattr(issue, "when", None) or (issue_id is not None and issue.id != issue_id):
            continue
        issues_out.append(issue_health(ws, issue, now=now))


def _count_deliveries(ws, issue, out: dict) -> None:
    """Comment deliveries of one issue (docs/conversations.md): failed ones
    need attention (retried only by ``alice issue redeliver``).  A sidecar
    that cannot be read is left to ``alice issue validate`` to report."""
    from openalice.core import fs  # lazy: only an issue with a comments file reads it

    path = issue.path.parent / f"{issue.id}.comments.json"
    if not path.exists():
        return
    try:
        doc = fs.read_json(path, missing=None, max_bytes=64 * 1024 * 1024, root=ws.root)
    except (OSError, AliceError):
        return
    listed = doc.get("comments") if isinstance(doc, dict) else None
    for comment in listed if isinstance(listed, list) else ():
        delivery = comment.get("delivery") if isinstance(comment, dict) else None
        state = delivery.get("state") if isinstance(delivery, dict) else None
        if state == "pending":
            out["unanswered"] += 1
        elif state == "failed":
            out["failed"] += 1
            out["failedComments"].append({"workspaceId": ws.id, "issueId": issue.id,
                                          "commentId": str(comment.get("id")),
                                          "error": str(delivery.get("error") or "")[:300]})
