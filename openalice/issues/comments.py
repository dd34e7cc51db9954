"""Issue comments: the ``<id>.comments.json`` sidecar beside each issue file.

::

    {"version": 1, "issueId": "<id>",
     "comments": [{"id": "comment-<uuid>", "author": "human" | "@resume-..." | "ws:<label>",
                   "at": "<UTC ISO>", "markdown": "...", "replyTo"?: "<comment id>", ...}]}

Appends are serialized per issue by the sidecar's lock
(``fs.locked_update_json``), so concurrent writers never lose a comment.  A
caller-chosen comment id makes the append idempotent: the same id with the
same text is a no-op, with other text a Conflict.  Keys written by other
parts (``delivery``, ``via``) are kept.  A malformed sidecar is an error
naming the file; it is never replaced.  The sidecar is read and written below
the workspace root only (``root=``), never through a link.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from openalice.core import fs, patterns
from openalice.core.clock import to_iso
from openalice.core.errors import Conflict, InvalidInput

from .reader import find_issue_file, workspace_directory

__all__ = ["SIDECAR_VERSION", "MAX_COMMENT_CHARS", "COMMENT_ID_RE", "VIA_RE", "comments_path",
           "list_comments", "add_comment", "check_sidecar", "new_comment_id", "read_sidecar",
           "update_sidecar"]

SIDECAR_VERSION = 1
MAX_COMMENT_CHARS = 64 * 1024
COMMENT_ID_RE = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}\Z")
_SURROGATE = patterns.compile("[\ud800-\udfff]")
VIA_CHANNELS = ("telegram", "web")
AUTHOR_RE = patterns.compile(r"(?:human|@resume-\S{1,200}|ws:[^\n]{1,120})\Z")
VIA_RE = patterns.compile(r"[a-z][a-z0-9-]{0,31}\Z")   # the channel a comment came through: telegram, web...


def comments_path(ws, issue_id: str) -> Path:
    """The sidecar of an existing issue (NotFound if the issue is not there)."""
    issue_file = find_issue_file(ws, issue_id)
    return issue_file.parent / f"{issue_id}.comments.json"


def new_comment_id() -> str:
    import uuid  # lazy: `alice issue show` reads comments and must not load uuid
    return f"comment-{uuid.uuid4()}"


def list_comments(ws, issue_id: str) -> list[dict]:
    """The comments of an issue, oldest first ([] when there is no sidecar)."""
    return read_sidecar(ws, issue_id)["comments"]


def read_sidecar(ws, issue_id: str, path: Path | None = None) -> dict:
    """The whole sidecar document (an empty one when there is no file)."""
    path = path or comments_path(ws, issue_id)
    _refuse_symlink(path)
    doc = fs.read_json(path, missing=None, max_bytes=64 * 1024 * 1024, root=workspace_directory(ws))
    if doc is None:
        return {"version": SIDECAR_VERSION, "issueId": issue_id, "comments": []}
    check_sidecar(doc, path, issue_id)
    return doc


def update_sidecar(ws, issue_id: str, change) -> dict:
    """Read-modify-write the sidecar under its lock (``change(doc)`` returns
    the new document; raising writes nothing)."""
    path = comments_path(ws, issue_id)
    _refuse_symlink(path)

    def checked(doc: dict) -> dict:
        check_sidecar(doc, path, issue_id)
        return change(doc)

    return fs.locked_update_json(path, checked, default=lambda: {
        "version": SIDECAR_VERSION, "issueId": issue_id, "comments": []}, mode=0o644,
        root=workspace_directory(ws), dir_mode=0o755)


def add_comment(ws, issue_id: str, markdown: str, *, author: str, now: datetime,
                comment_id: str | None = None, reply_to: str | None = None,
                via: str | None = None, question: bool = False,
                deliver: bool = True) -> tuple[dict, bool]:
    """Append one comment; returns ``(comment, created)``.  ``created`` is False
    when ``comment_id`` was already there with the same text.

    A comment by someone other than the issue's session owner (or, for an
    answer, the session that asked) gets ``delivery: {state: pending,
    targetResumeId}`` and the pending marker (:mod:`.delivery`); nothing is
    started here.  ``via`` names the channel (``telegram``, ``web``);
    ``question`` marks a session's question (``alice issue ask``)."""
    from . import delivery as deliveries  # lazy: only writers need it

    path = comments_path(ws, issue_id)
    _refuse_symlink(path)
    if not isinstance(markdown, str) or not markdown.strip():
        raise InvalidInput("comment body is empty", file=path, field="markdown",
                           code="invalid_comment")
    if "\x00" in markdown:
        raise InvalidInput("comment body contains a NUL character", file=path, field="markdown",
                           code="invalid_comment")
    if len(markdown) > MAX_COMMENT_CHARS:
        raise InvalidInput(f"comment body is longer than {MAX_COMMENT_CHARS} characters",
                           file=path, field="markdown", code="invalid_comment")
    if not isinstance(author, str) or not AUTHOR_RE.match(author):
        raise InvalidInput(f"author must be human, @resume-<id> or ws:<label> (got {author!r})",
                           field="author", code="invalid_comment")
    if _SURROGATE.search(markdown) or _SURROGATE.search(author):
        raise InvalidInput("comment is not valid UTF-8 text (check the terminal's or file's "
                           "encoding)", file=path, field="markdown", code="invalid_comment")
    if comment_id is None:
        comment_id = new_comment_id()
    elif not COMMENT_ID_RE.match(comment_id):
        raise InvalidInput(f"comment id {comment_id!r} must start with a letter or digit and use "
                           "only letters, digits and `_.:-` (at most 128)", field="id",
                           code="invalid_comment")
    if reply_to is not None and not COMMENT_ID_RE.match(reply_to):
        raise InvalidInput(f"replyTo {reply_to!r} is not a comment id", field="replyTo",
                           code="invalid_comment")
    if via is not None and not (isinstance(via, str) and VIA_RE.match(via)):
        raise InvalidInput(f"via {str(via)[:40]!r} must be a lowercase channel name (telegram, "
                           "web...)", field="via", code="invalid_comment")
    markdown = markdown.replace("\r\n", "\n").strip("\n")
    record = {"id": comment_id, "author": author, "at": to_iso(now), "markdown": markdown}
    if reply_to is not None:
        record["replyTo"] = reply_to
    if via is not None:
        if via not in VIA_CHANNELS:
            raise InvalidInput(f"via must be one of {', '.join(VIA_CHANNELS)}", field="via",
                               code="invalid_comment")
        record["via"] = via
    if question:
        record["question"] = True
    assignee = _assignee_of(ws, issue_id) if deliver else None

    def append(doc: dict) -> dict:
        check_sidecar(doc, path, issue_id)
        for existing in doc["comments"]:
            if existing.get("id") == comment_id:
                if existing.get("markdown") == markdown:
                    raise _AlreadyThere(existing)
                raise Conflict(f"comment id {comment_id!r} is already used by another comment",
                               file=path, field="id", code="comment_exists")
        if reply_to is not None and not any(c.get("id") == reply_to for c in doc["comments"]):
            raise InvalidInput(f"replyTo {reply_to!r}: no such comment on this issue", file=path,
                               field="replyTo", code="invalid_comment")
        target = (deliveries.target_for(assignee, author, doc["comments"], reply_to)
                  if deliver else None)
        if target is not None:
            record["delivery"] = {"state": "pending", "targetResumeId": target}
            # The marker first: one left by a write that then fails only costs a look.
            deliveries.mark_pending(ws.id, issue_id)
        doc["comments"].append(record)
        return doc

    try:
        fs.locked_update_json(path, append, default=lambda: {
            "version": SIDECAR_VERSION, "issueId": issue_id, "comments": []}, mode=0o644,
            root=workspace_directory(ws), dir_mode=0o755)
    except _AlreadyThere as already:
        return already.comment, False
    deliveries.journal_fact("comment.added", ws.id, issue_id, record, now=now)
    return record, True


def check_sidecar(doc: object, path: Path, issue_id: str) -> None:
    """Raise InvalidInput naming the file and the field if ``doc`` is not a sidecar."""
    def bad(field: str, reason: str) -> InvalidInput:
        return InvalidInput(reason, file=path, field=field, code="invalid_comments_file")

    if not isinstance(doc, dict):
        raise bad("comments", "the comments file must be a JSON object")
    if doc.get("version") != SIDECAR_VERSION:
        raise bad("version", f"unsupported comments file version {doc.get('version')!r} "
                             f"(expected {SIDECAR_VERSION})")
    if doc.get("issueId") != issue_id:
        raise bad("issueId", f"belongs to issue {doc.get('issueId')!r}, not {issue_id!r}")
    comments = doc.get("comments")
    if not isinstance(comments, list):
        raise bad("comments", "must be a list")
    for i, comment in enumerate(comments):
        if not isinstance(comment, dict):
            raise bad(f"comments/{i}", "must be an object")
        for key in ("id", "author", "at", "markdown"):
            if not isinstance(comment.get(key), str):
                raise bad(f"comments/{i}/{key}", "is required and must be a string")


def _assignee_of(ws, issue_id: str) -> str | None:
    """The issue's assignee, or None when the file cannot be read as an issue
    (the comment is still kept, with no delivery)."""
    from openalice.core.errors import AliceError  # lazy: writers only

    from .reader import load_issue

    try:
        return load_issue(ws, issue_id).assignee
    except AliceError:
        return None


def _refuse_symlink(path: Path) -> None:
    if os.path.islink(path):
        raise InvalidInput("the comments file is a symbolic link; it is not followed", file=path,
                           code="invalid_comments_file")


class _AlreadyThere(Exception):
    def __init__(self, comment: dict) -> None:
        super().__init__(comment.get("id"))
        self.comment = comment
