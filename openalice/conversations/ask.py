"""A session's question and a person's answer (docs/conversations.md, "Ask").

:func:`ask` (inside a run): a question comment by the run's session (never
delivered, not even to the issue's owner) and an Inbox entry marked as a
question, so it shows among the person's unread reports with the issue named.
:func:`answer`: the person's reply to that comment, delivered back to the
session that asked (``issues.delivery.target_for``).
"""

from __future__ import annotations

from datetime import datetime

from openalice import inbox
from openalice.core.errors import InvalidInput, UsageError
from openalice.issues import comments, load_issue

__all__ = ["ask", "answer", "question_of", "QUESTION_SUMMARY_CHARS"]

QUESTION_SUMMARY_CHARS = 200


def ask(ws, issue_id: str, question: str, *, resume_id: str | None, now: datetime,
        origin: dict | None = None) -> dict:
    """Post ``question`` as the session ``resume_id``; ``{comment, entryId}``."""
    if not resume_id:
        raise UsageError("`alice issue ask` is a session's question: run it inside a headless run "
                         "(ALICE_RESUME_ID); a person comments with `alice issue comment`",
                         field="ALICE_RESUME_ID", code="not_in_a_run")
    issue = load_issue(ws, issue_id)
    comment, _created = comments.add_comment(ws, issue_id, question, author=f"@{resume_id}",
                                             now=now, question=True, deliver=False)
    body = (f"## Question on issue {issue.title} ({issue_id})\n\n{comment['markdown']}\n\n"
            f"Answer with `alice inbox answer ENTRY --body ...` or `alice issue comment {issue_id} "
            f"--workspace {ws.id} --reply-to {comment['id']} --body ...`; the answer goes back to "
            f"@{resume_id}.")
    result = inbox.push(body, workspace=ws, origin=origin, now=now,
                        question={"workspaceId": ws.id, "issueId": issue_id,
                                  "commentId": comment["id"]})
    return {"workspaceId": ws.id, "issueId": issue_id, "comment": comment,
            "entryId": result.entry["id"]}


def question_of(entry_id: str) -> dict:
    """``{workspaceId, issueId, commentId}`` of the question an Inbox entry
    carries; NotFound (unknown entry) or InvalidInput (not a question)."""
    entry = inbox.InboxStore().get(entry_id).record
    question = entry.get("question")
    if not (isinstance(question, dict) and all(isinstance(question.get(k), str)
                                               for k in ("workspaceId", "issueId", "commentId"))):
        raise InvalidInput(f"inbox entry {entry_id} is not a question (only entries posted by "
                           "`alice issue ask` can be answered)", field="ENTRY",
                           code="not_a_question")
    return question


def answer(ws, question: dict, text: str, *, author: str, now: datetime) -> dict:
    """Answer ``question`` (:func:`question_of`) in workspace ``ws``;
    ``{workspaceId, issueId, comment, created}`` (pending for the asker)."""
    if question["workspaceId"] != ws.id:
        raise InvalidInput(f"the question belongs to workspace {question['workspaceId']!r}",
                           field="workspaceId", code="wrong_workspace")
    comment, created = comments.add_comment(ws, question["issueId"], text, author=author, now=now,
                                            reply_to=question["commentId"])
    return {"workspaceId": ws.id, "issueId": question["issueId"], "comment": comment,
            "created": created}
