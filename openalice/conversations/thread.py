"""Reading a conversation: an issue's comments as one flat list, oldest
first, each with its delivery state and its reply links (``alice issue
thread``), and the compact counts the listings show."""

from __future__ import annotations

from openalice.issues import comments, delivery, load_issue

__all__ = ["thread", "entries", "compact"]


def entries(thread_comments: list[dict]) -> list[dict]:
    """Each comment with ``replies`` (the ids of the comments answering it)."""
    replies: dict[str, list[str]] = {}
    for comment in thread_comments:
        if isinstance(comment.get("replyTo"), str):
            replies.setdefault(comment["replyTo"], []).append(comment["id"])
    return [{**c, "replies": replies.get(c["id"], [])} for c in thread_comments]


def thread(ws, issue_id: str) -> dict:
    """``{workspaceId, issueId, title, assignee, comments, counts}``
    (``spec/issue-thread.schema.json``); NotFound for an unknown issue."""
    issue = load_issue(ws, issue_id)
    listed = comments.list_comments(ws, issue.id)
    return {"workspaceId": ws.id, "issueId": issue.id, "title": issue.title,
            "assignee": issue.assignee, "comments": entries(listed),
            "counts": {"comments": len(listed), **delivery.counts(listed)}}


def compact(listed: list[dict], *, last: int = 5) -> dict:
    """What ``alice issue show`` prints of a thread: the counts and the last few."""
    return {"counts": {"comments": len(listed), **delivery.counts(listed)},
            "last": [c["id"] for c in listed[-last:]]}
