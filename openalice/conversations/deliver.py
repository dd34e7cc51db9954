"""Who delivers: the timer's scan (:func:`deliver_pending`), ``alice issue
comment --wait`` (:func:`wait_for_reply`) and ``alice issue redeliver``
(:func:`redeliver`).  Nothing else starts a comment turn, and a failed
delivery is never retried by itself."""

from __future__ import annotations

import os
import time
from datetime import datetime

from openalice import workspaces
from openalice.core.errors import AliceError, Busy, InvalidInput
from openalice.issues import comments, delivery
from openalice.runs import admission

from . import turns

__all__ = ["MAX_PER_SCAN", "launch_mode", "deliver_pending", "wait_for_reply", "redeliver",
           "find_comment", "check_target"]

MAX_PER_SCAN = 8      # turns one scan starts at most (one per session; the rest wait a scan)


def launch_mode() -> str:
    """``none`` under the debug setting ``OPENALICE_TEST_LAUNCH=none`` (as the scan), else detached."""
    return "none" if os.environ.get("OPENALICE_TEST_LAUNCH") == "none" else "detached"


def deliver_pending(*, now: datetime, limit: int = MAX_PER_SCAN, capacity: int | None = None,
                    launch: str | None = None) -> dict:
    """The scan's delivery pass: settle ended turns, then start the oldest
    unclaimed comment of each session that is free, at most ``limit``.

    A session's comments go in order, one turn each: a later comment never
    overtakes an earlier one still waiting for it.  Markers of issues with
    nothing pending are removed."""
    launch = launch or launch_mode()
    report: dict = {"delivered": [], "settled": [], "skipped": []}
    waiting = []
    for ws_id, issue_id in delivery.pending_markers():
        try:
            ws = workspaces.get(ws_id)
            for comment in turns.reconcile(ws, issue_id, now=now):
                report["settled"].append(_ref(ws.id, issue_id, comment))
            thread = comments.list_comments(ws, issue_id)
        except AliceError as exc:
            report["skipped"].append({"workspaceId": ws_id, "issueId": issue_id,
                                      "reason": exc.code or "unreadable", "detail": exc.message})
            if exc.code in ("unknown_workspace", "unknown_issue"):
                _drop_marker(ws_id, issue_id)  # nothing left to deliver to
            continue
        mine = [c for c in thread if delivery.is_unclaimed(c)]
        waiting += [(c["at"], ws, issue_id, c) for c in mine]
        if not any(_pending(c) for c in thread):
            delivery.clear_marker_if_idle(ws, issue_id)
    waiting.sort(key=lambda item: item[0])
    started, seen = [], set()
    if waiting:
        with admission.Admissions() as batch:
            for _at, ws, issue_id, comment in waiting:
                target = comment["delivery"]["targetResumeId"]
                if target in seen:
                    continue  # its earlier comment goes first
                seen.add(target)
                ref = _ref(ws.id, issue_id, comment)
                if len(started) >= limit:
                    report["skipped"].append({**ref, "reason": "scan_limit",
                                              "detail": f"{limit} turns per scan"})
                    continue
                try:
                    record = turns.start_turn(ws, issue_id, comment["id"], now=now, batch=batch,
                                              capacity=capacity)
                except AliceError as exc:
                    report["skipped"].append({**ref, "reason": exc.code or "refused",
                                              "detail": exc.message})
                    continue
                if record is not None:
                    started.append((ref, record["taskId"]))
    for ref, task_id in started:  # after the admission lock: a turn's end needs it
        report["delivered"].append({**ref, "taskId": task_id,
                                    **turns.launch_turn(task_id, launch, now=now)})
    return report


def wait_for_reply(ws, issue_id: str, comment_id: str, *, now: datetime, timeout: float,
                   launch: str | None = None) -> dict:
    """Deliver the comment now (or as soon as its session is free) and wait
    for the outcome; the comment once replied or failed.  ``Busy``
    (``still_pending``, exit 3) after ``timeout`` seconds: it stays pending
    and the scan delivers it (or settles the turn under way)."""
    launch = launch or launch_mode()
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        turns.reconcile(ws, issue_id, now=now)
        comment = delivery.find(comments.read_sidecar(ws, issue_id), comment_id)
        state = (comment.get("delivery") or {}).get("state")
        if state is None:
            raise InvalidInput(f"comment {comment_id} has no delivery: nothing to wait for",
                               field="delivery", code="no_delivery")
        if state != "pending":
            return comment
        if delivery.is_unclaimed(comment):
            try:
                record = turns.start_turn(ws, issue_id, comment_id, now=now)
            except Busy:
                record = None  # the session (or the issue) has a live run: wait for it
            if record is not None:
                turns.launch_turn(record["taskId"], launch, now=now)
                continue
        left = deadline - time.monotonic()
        if left <= 0:
            task = (comment.get("delivery") or {}).get("taskId")
            raise Busy(f"no reply to {comment_id} after {timeout:g}s; it stays pending",
                       code="still_pending",
                       details={"commentId": comment_id, **({"taskId": task} if task else {}),
                                "hint": f"follow it with: alice issue thread {issue_id} --follow"})
        time.sleep(min(delay, left))
        delay = min(delay * 2, 0.5)


def redeliver(ws, comment_id: str, *, now: datetime, issue_id: str | None = None,
              launch: str | None = None) -> dict:
    """Retry a failed delivery: back to pending and, when its session is
    free, a turn now.  ``{"issueId", "comment", "taskId"?, "launched"?}``."""
    issue_id = issue_id or find_comment(ws, comment_id)
    comment = delivery.reopen(ws, issue_id, comment_id)
    out: dict = {"issueId": issue_id, "comment": comment}
    try:
        record = turns.start_turn(ws, issue_id, comment_id, now=now)
    except Busy as exc:
        out["waiting"] = exc.code
        return out
    if record is not None:
        out["taskId"] = record["taskId"]
        out.update(turns.launch_turn(record["taskId"], launch or launch_mode(), now=now))
        out["comment"] = delivery.find(comments.read_sidecar(ws, issue_id), comment_id)
    return out


def check_target(ws, issue_id: str, *, author: str, reply_to: str | None = None) -> str | None:
    """The session a new comment would be delivered to, checked before anything
    is written: a session that does not exist (any more) is NotFound naming it
    (exit 2).  None when the comment would get no delivery."""
    from openalice import sessions  # lazy: only a comment for a session checks it
    from openalice.issues import load_issue

    try:
        assignee = load_issue(ws, issue_id).assignee
    except InvalidInput:
        return None  # an invalid issue file: the comment is kept with no delivery
    target = delivery.target_for(assignee, author, comments.list_comments(ws, issue_id), reply_to)
    if target is not None:
        sessions.load_session(ws, target)
    return target


def find_comment(ws, comment_id: str) -> str:
    """The issue of the workspace holding ``comment_id`` (NotFound naming it)."""
    from openalice.core.errors import NotFound  # lazy: only when the id is searched
    from openalice.issues import issues_dir

    if not comments.COMMENT_ID_RE.match(comment_id or ""):
        raise InvalidInput(f"{str(comment_id)[:80]!r} is not a comment id", field="commentId",
                           code="unknown_comment")
    directory = issues_dir(ws)
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        names = []
    for name in names:
        if name.startswith(".") or not name.endswith(".comments.json"):
            continue
        issue_id = name[:-len(".comments.json")]
        try:
            if any(c.get("id") == comment_id for c in comments.list_comments(ws, issue_id)):
                return issue_id
        except AliceError:
            continue
    raise NotFound(f"no comment {comment_id!r} in workspace {ws.id}", file=directory,
                   field="commentId", code="unknown_comment")


def _pending(comment: dict) -> bool:
    d = comment.get("delivery")
    return isinstance(d, dict) and d.get("state") == "pending"


def _ref(ws_id: str, issue_id: str, comment: dict) -> dict:
    ref = {"workspaceId": ws_id, "issueId": issue_id, "commentId": comment.get("id")}
    target = (comment.get("delivery") or {}).get("targetResumeId")
    if target:
        ref["targetResumeId"] = target
    return ref


def _drop_marker(ws_id: str, issue_id: str) -> None:
    from openalice.core import fs  # lazy: rare

    fs.remove_file(delivery.marker_path(ws_id, issue_id))
