"""A comment turn: one headless turn of the comment's target session, as a run.

:func:`start_turn` admits it (``runs.admission``: one live run per issue, one
turn per session, the capacity), claims the comment for the new task
(``issues.delivery.claim``, under the admission lock, so two deliverers can
never both claim it) and launches ``python -m openalice.conversations
TASK_ID``, which supervises the turn (``runs.supervisor.run_task``: the
session's frozen binding, its native session resumed) and then
:func:`settle_record`: the final assistant text becomes the reply comment,
anything else a failed delivery with :func:`failure_of`.

A turn whose process was killed leaves its comment claimed by a task that
no longer runs; :func:`reconcile` (the scan, ``--wait``) settles it from the
task record: failed (interrupted), or replied if the turn had ended.
"""

from __future__ import annotations

from datetime import datetime

from openalice import workspaces
from openalice.core import clock, proc
from openalice.core.errors import AliceError
from openalice.issues import comments, delivery, load_issue
from openalice.runs import admission, results, tasks

from .prompt import comment_prompt

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import Any

__all__ = ["DEFAULT_TIMEOUT_MS", "LAUNCH_MODES", "failure_of", "build_record", "start_turn",
           "launch_turn", "run_turn", "settle_record", "reconcile"]

DEFAULT_TIMEOUT_MS = 30 * 60 * 1000   # a comment turn's watchdog when the issue names no timeout
LAUNCH_MODES = ("detached", "inline", "none")


def failure_of(record: dict, structured: dict | None = None) -> str:
    """Why a finished comment turn did not reply: the words a failed run shows.

    The one place a delivery's ``error`` is made from a task record: the run
    failure vocabulary (:mod:`openalice.runs.reasons`: ``code: words (detail) —
    next step``); a turn that ended ``done`` without a final text says so."""
    from openalice.runs import reasons  # lazy: only a failed delivery needs the failure words

    code, detail = reasons.from_record(record)
    if code is None and record.get("status") == "done":
        return "the turn ended without a reply (no final assistant text)"
    if code is None:
        errors = [b.get("message") for b in (structured or {}).get("blocks") or ()
                  if isinstance(b, dict) and b.get("type") == "error" and b.get("message")]
        code, detail = "agent_error", (str(errors[-1])[:200] if errors else None)
    return f"{code}: {reasons.describe(code, detail, record.get('agent'))}"


def build_record(ws, issue_id: str, comment: dict, issue: Any, *, now: datetime) -> dict:
    """The task record of the turn delivering ``comment`` (not yet stored)."""
    target = comment["delivery"]["targetResumeId"]
    timeout = getattr(issue, "timeout_seconds", None)
    record = {
        "version": tasks.RECORD_VERSION, "status": "running", "kind": "comment",
        "workspaceId": ws.id, "issueId": issue_id, "commentId": comment["id"],
        "trigger": {"kind": "comment", "workspaceId": ws.id, "issueId": issue_id,
                    "commentId": comment["id"], "fire": admission.COMMENT_FIRE},
        "owner": f"@{target}", "resumeId": target, "runtimeRequest": {},
        "prompt": comment_prompt(issue, comment, ws.id),
        "timeoutMs": DEFAULT_TIMEOUT_MS if timeout is None else int(timeout) * 1000,
        "createdAt": clock.to_iso(now), "processStarted": False,
    }
    if getattr(issue, "title", None):
        record["issueTitle"] = issue.title
    return record


def start_turn(ws, issue_id: str, comment_id: str, *, now: datetime,
               batch: admission.Admissions | None = None, capacity: int | None = None) -> dict | None:
    """Admit and claim the turn of one unclaimed pending comment; its task
    record (not launched yet: :func:`launch_turn`), or None when the comment
    is no longer waiting.  ``Busy`` (exit 3) when the session, the issue or
    the capacity is busy: the comment stays pending."""
    if batch is None:
        with admission.Admissions() as own:
            return start_turn(ws, issue_id, comment_id, now=now, batch=own, capacity=capacity)
    # Read under the admission lock: every claimer holds it, so what is
    # unclaimed here is still unclaimed when the claim is written.
    batch.live()
    comment = delivery.find(comments.read_sidecar(ws, issue_id), comment_id)
    if not delivery.is_unclaimed(comment):
        return None
    try:
        issue = load_issue(ws, issue_id)
    except AliceError:
        issue = None  # the default wrapper names the id; the turn still answers
    record = build_record(ws, issue_id, comment, issue, now=now)

    def claim(stored: dict) -> None:
        try:
            delivery.claim(ws, issue_id, comment_id, stored["taskId"])
        except AliceError:
            tasks.update_task(stored["taskId"], {"status": "failed", "processStarted": False,
                                                 "error": "the comment's claim was lost",
                                                 "finishedAt": clock.to_iso(now)})
            raise

    stored = batch.admit_turn(record, capacity=capacity, claim=claim)
    delivery.journal_fact("comment.delivered", ws.id, issue_id, comment, now=now,
                          taskId=stored["taskId"])
    return stored


def launch_turn(task_id: str, mode: str = "detached", *, now: datetime) -> dict:
    """Start the turn's process: ``detached`` (the default), ``inline`` (in
    this process, until it ends: tests) or ``none`` (the debug setting
    ``OPENALICE_TEST_LAUNCH=none``).  ``{"launched", "pid"?, "error"?}``."""
    if mode == "none":
        return {"launched": False}
    if mode == "inline":
        run_turn(task_id)
        return {"launched": True}
    try:
        pid = proc.launch_detached("openalice.conversations", [task_id],
                                   log_path=tasks.task_dir(task_id) / results.SUPERVISOR_LOG)
    except OSError as exc:
        message = f"could not start the comment turn: {exc}"
        record = tasks.update_task(task_id, {"status": "failed", "error": message,
                                             "launchErrorCode": "spawn_failed",
                                             "finishedAt": clock.to_iso(now)})
        admission.release(task_id)
        settle_record(record, now=now)
        return {"launched": False, "error": message}
    token = proc.start_token(pid)

    def note_supervisor(record: dict) -> dict:
        # As the scan does: a turn process that dies before its first write still reads as dead.
        if token is not None and not record.get("supervisor") and record.get("status") == "running":
            record["supervisor"] = {"pid": pid, "startToken": token}
        return record

    tasks.update_task(task_id, note_supervisor)
    return {"launched": True, "pid": pid}


def run_turn(task_id: str, *, handle_signals: bool = False) -> dict:
    """Supervise the turn in this process, then settle its comment."""
    from openalice.runs import supervisor  # lazy: the engine stack loads only in the turn's process

    record = supervisor.run_task(task_id, handle_signals=handle_signals)
    settle_record(record, now=clock.now())
    return record


def settle_record(record: dict, *, now: datetime) -> dict | None:
    """Settle the comment a finished turn delivered (None while it runs, or
    when the record is not a comment turn).  Idempotent."""
    record = tasks.effective(record)
    if record.get("kind") != "comment" or record.get("status") == "running":
        return None
    ws = workspaces.get(record["workspaceId"])
    issue_id, comment_id, task_id = record["issueId"], record["commentId"], record["taskId"]
    reply = error = None
    structured, _problem = results.read_structured(task_id)
    if record.get("status") == "done":
        text = (structured or {}).get("assistantText")
        if isinstance(text, str) and text.strip():
            reply = text.strip()[:comments.MAX_COMMENT_CHARS]
    if reply is None:
        error = failure_of(record, structured)
    comment, reply_comment, changed = delivery.settle(ws, issue_id, comment_id, task_id, now=now,
                                                      reply=reply, error=error)
    if changed:
        delivery.clear_marker_if_idle(ws, issue_id)
        if reply_comment is not None:
            delivery.journal_fact("comment.replied", ws.id, issue_id, reply_comment, now=now,
                                  taskId=task_id, replyTo=comment_id)
        else:
            delivery.journal_fact("comment.failed", ws.id, issue_id, comment, now=now,
                                  taskId=task_id, error=error[:200])
    return comment


def reconcile(ws, issue_id: str, *, now: datetime) -> list[dict]:
    """Settle every comment of the issue claimed by a turn that has ended
    (its process killed, or gone before settling); the comments settled."""
    settled = []
    for comment in comments.list_comments(ws, issue_id):
        d = comment.get("delivery")
        if not (isinstance(d, dict) and d.get("state") == "pending" and d.get("taskId")):
            continue
        try:
            record = tasks.find_task(d["taskId"])
        except AliceError:
            continue  # a malformed record: whether the turn runs is unknown; left claimed
        if record is None:
            record = {"kind": "comment", "taskId": d["taskId"], "status": "failed",
                      "workspaceId": ws.id, "issueId": issue_id, "commentId": comment["id"],
                      "error": "the turn's task record is missing"}
            comment, _reply, changed = delivery.settle(ws, issue_id, comment["id"], d["taskId"],
                                                       now=now, error=record["error"])
            settled.append(comment)
            continue
        done = settle_record(record, now=now)
        if done is not None:
            settled.append(done)
    return settled
