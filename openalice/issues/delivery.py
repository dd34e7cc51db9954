"""The delivery state of a comment: who it goes to, and whether it was answered.

A comment a person adds to an issue owned by a session (``@resume-…``) is
kept with ``delivery`` (docs/conversations.md)::

    {"state": "pending", "targetResumeId"}                      waiting for a turn
    {"state": "pending", "targetResumeId", "taskId"}            claimed: a turn runs (or died)
    {"state": "replied", "targetResumeId", "taskId", "replyCommentId"}
    {"state": "failed",  "targetResumeId", "taskId"?, "error"}

The transitions, each one write of the sidecar under its lock:

* :func:`claim` — unclaimed pending → claimed (the caller holds the
  admission lock, so two deliverers can never claim one comment);
* :func:`settle` — claimed by *that* task → replied (the reply comment is
  appended in the same write, id ``reply-<taskId>``) or failed; settling
  twice, or with another task's id, changes nothing;
* :func:`reopen` — failed → unclaimed pending (``alice issue redeliver``;
  never automatic).

A pending comment also leaves a marker file
``$OPENALICE_HOME/state/conversations/pending/<ws>~<issue>.json``, so the
timer's scan sees "something to deliver" with one directory lookup; the
marker is removed, under the sidecar's lock, once nothing of that issue is
pending.  This module knows nothing of runs: the conversations package runs
the turns.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from openalice.core import fs, paths
from openalice.core.clock import to_iso
from openalice.core.errors import Conflict, InvalidInput, NotFound

__all__ = ["STATES", "REPLY_PREFIX", "pending_root", "marker_path", "mark_pending",
           "pending_markers", "target_for", "find", "claim", "settle", "reopen",
           "clear_marker_if_idle", "counts", "is_unclaimed", "journal_fact", "PREVIEW_CHARS"]

STATES = ("pending", "replied", "failed")
REPLY_PREFIX = "reply-"
MAX_ERROR_CHARS = 1000
PREVIEW_CHARS = 120     # the most of a comment's text a journal fact carries


def pending_root() -> Path:
    return paths.state_dir() / "conversations" / "pending"


def marker_path(workspace_id: str, issue_id: str) -> Path:
    # One flat directory, so "anything pending?" is one listing (the scan's
    # fast path).  An issue id never holds `~`, so the last one splits the name.
    return pending_root() / f"{paths.safe_name(workspace_id)}~{paths.safe_name(issue_id)}.json"


def mark_pending(workspace_id: str, issue_id: str) -> None:
    """Note that ``issue_id`` has a comment to deliver (no fsync: a lost
    marker after a power cut is rebuilt by ``alice issue redeliver``)."""
    fs.atomic_write_json(marker_path(workspace_id, issue_id),
                         {"workspaceId": workspace_id, "issueId": issue_id}, durable=False)


def pending_markers() -> list[tuple[str, str]]:
    """``(workspaceId, issueId)`` of every marker, sorted; unreadable ones are skipped."""
    out = []
    try:
        entries = sorted(os.scandir(pending_root()), key=lambda e: e.name)
    except FileNotFoundError:
        return out
    for entry in entries:
        if not entry.name.endswith(".json") or entry.name.startswith("."):
            continue
        try:
            doc = fs.read_json(entry.path, missing=None, max_bytes=4096)
        except InvalidInput:
            continue
        if (isinstance(doc, dict) and isinstance(doc.get("workspaceId"), str)
                and isinstance(doc.get("issueId"), str)):
            out.append((doc["workspaceId"], doc["issueId"]))
    return out


def target_for(assignee: object, author: str, comments: list[dict],
               reply_to: str | None) -> str | None:
    """The session a new comment goes to, or None.

    An answer to a question (``replyTo`` a comment marked ``question`` by a
    session) goes to the session that asked; otherwise a comment goes to the
    issue's session owner.  A session never delivers to itself."""
    target = None
    if reply_to is not None:
        for comment in comments:
            if (comment.get("id") == reply_to and comment.get("question")
                    and str(comment.get("author", "")).startswith("@resume-")):
                target = comment["author"][1:]
    if target is None and isinstance(assignee, str) and assignee.startswith("@resume-"):
        target = assignee[1:]
    if target is None or author == f"@{target}":
        return None
    return target


def find(doc: dict, comment_id: str, path: Path | None = None) -> dict:
    for comment in doc.get("comments", ()):
        if comment.get("id") == comment_id:
            return comment
    raise NotFound(f"no comment {comment_id!r} on issue {doc.get('issueId')!r}", file=path,
                   field="commentId", code="unknown_comment")


def is_unclaimed(comment: dict) -> bool:
    delivery = comment.get("delivery")
    return (isinstance(delivery, dict) and delivery.get("state") == "pending"
            and not delivery.get("taskId"))


def _update(ws, issue_id: str, change) -> dict:
    from .comments import update_sidecar  # lazy: comments imports this module for its markers

    return update_sidecar(ws, issue_id, change)


def claim(ws, issue_id: str, comment_id: str, task_id: str) -> dict:
    """Mark an unclaimed pending comment as delivered by ``task_id``; Conflict
    (``not_pending``) if it is not unclaimed and pending."""
    claimed: list[dict] = []

    def change(doc: dict) -> dict:
        comment = find(doc, comment_id)
        if not is_unclaimed(comment):
            state = (comment.get("delivery") or {}).get("state") or "no delivery"
            raise Conflict(f"comment {comment_id} is not waiting for delivery ({state})",
                           field="delivery", code="not_pending")
        comment["delivery"] = {**comment["delivery"], "taskId": task_id}
        claimed.append(comment)
        return doc

    _update(ws, issue_id, change)
    return claimed[0]


def settle(ws, issue_id: str, comment_id: str, task_id: str, *, now: datetime,
           reply: str | None = None, error: str | None = None) -> tuple[dict, dict | None, bool]:
    """End the delivery claimed by ``task_id``: with ``reply``, append it as a
    comment (author the target session, ``replyTo`` the comment) and mark the
    comment replied; else mark it failed with ``error``.  Returns ``(comment,
    reply comment or None, changed)``; a comment no longer claimed by
    ``task_id`` is returned unchanged (settling is idempotent)."""
    out: list = []

    def change(doc: dict) -> dict:
        comment = find(doc, comment_id)
        delivery = comment.get("delivery")
        if (not isinstance(delivery, dict) or delivery.get("state") != "pending"
                or delivery.get("taskId") != task_id):
            out.extend([comment, None, False])
            return doc
        target = delivery.get("targetResumeId")
        if reply is not None:
            reply_id = REPLY_PREFIX + task_id
            record = next((c for c in doc["comments"] if c.get("id") == reply_id), None)
            if record is None:
                record = {"id": reply_id, "author": f"@{target}", "at": to_iso(now),
                          "markdown": reply, "replyTo": comment_id, "via": "turn"}
                doc["comments"].append(record)
            comment["delivery"] = {"state": "replied", "targetResumeId": target,
                                   "taskId": task_id, "replyCommentId": reply_id}
        else:
            record = None
            comment["delivery"] = {"state": "failed", "targetResumeId": target, "taskId": task_id,
                                   "error": (error or "the delivery failed")[:MAX_ERROR_CHARS],
                                   "failedAt": to_iso(now)}
        out.extend([comment, record, True])
        return doc

    _update(ws, issue_id, change)
    return out[0], out[1], out[2]


def reopen(ws, issue_id: str, comment_id: str) -> dict:
    """A failed delivery back to pending (explicit retry only)."""
    reopened: list[dict] = []

    def change(doc: dict) -> dict:
        comment = find(doc, comment_id)
        delivery = comment.get("delivery")
        state = delivery.get("state") if isinstance(delivery, dict) else None
        if state is None:
            raise InvalidInput(f"comment {comment_id} has no delivery (its issue has no session "
                               "owner, or a session wrote it)", field="delivery",
                               code="no_delivery")
        if state != "failed":
            raise Conflict(f"comment {comment_id} is {state}, not failed: only a failed delivery "
                           "is retried", field="delivery", code="not_failed")
        attempts = int(delivery.get("attempts") or 1) + 1
        comment["delivery"] = {"state": "pending", "targetResumeId": delivery["targetResumeId"],
                               "attempts": attempts}
        reopened.append(comment)
        return doc

    _update(ws, issue_id, change)
    mark_pending(ws.id, issue_id)
    return reopened[0]


def clear_marker_if_idle(ws, issue_id: str) -> bool:
    """Remove the issue's marker when none of its comments is pending; the
    check and the removal hold the sidecar's lock, so a comment added
    meanwhile keeps its marker.  True when removed."""
    from .comments import comments_path, read_sidecar  # lazy: see _update

    path = comments_path(ws, issue_id)
    with fs.locked_file(path, root=ws.root, dir_mode=0o755):
        doc = read_sidecar(ws, issue_id, path)
        if any((c.get("delivery") or {}).get("state") == "pending" for c in doc["comments"]
               if isinstance(c.get("delivery"), dict)):
            return False
        return fs.remove_file(marker_path(ws.id, issue_id))


def counts(comments: list[dict]) -> dict:
    """``{"unanswered", "failed"}`` of a thread: pending and failed deliveries."""
    unanswered = failed = 0
    for comment in comments:
        delivery = comment.get("delivery")
        if isinstance(delivery, dict):
            if delivery.get("state") == "pending":
                unanswered += 1
            elif delivery.get("state") == "failed":
                failed += 1
    return {"unanswered": unanswered, "failed": failed}


def journal_fact(type_: str, workspace_id: str, issue_id: str, comment: dict, *, now: datetime,
                 **extra) -> None:
    """``comment.added|delivered|replied|failed``: ids and a short preview,
    never the whole body.  A journal that cannot be written never undoes the
    comment (the recorder warns and goes on)."""
    from openalice import journal  # lazy: only writers journal

    text = " ".join(str(comment.get("markdown", "")).split())
    payload = {"workspaceId": workspace_id, "issueId": issue_id, "commentId": comment.get("id"),
               "author": comment.get("author"),
               "preview": text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS - 1] + "…"}
    delivery = comment.get("delivery")
    if isinstance(delivery, dict):
        payload["delivery"] = delivery.get("state")
        if delivery.get("targetResumeId"):
            payload["targetResumeId"] = delivery["targetResumeId"]
    if comment.get("via"):
        payload["via"] = comment["via"]
    payload.update({k: v for k, v in extra.items() if v is not None})
    journal.record(type_, payload, now=now)  # never raises for I/O (it warns)
