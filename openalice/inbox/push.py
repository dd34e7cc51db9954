"""Publishing an Inbox entry: target workspace, origin stamp, revisions, append, journal.

The author gives only the body.  Everything else is stamped out of band:

* the **workspace** is ``--workspace``, else the run environment's, else the
  registered workspace holding the cwd; inside a headless run only the run's
  own workspace may be the target (another one is ``Forbidden``, exit 4);
* the **origin** is ``{"kind": "manual"}`` outside a run.  Inside a run
  (``ALICE_RUN_ID`` set) the run id is looked up in the task registry: a task
  of this run, workspace and session gives ``{"kind": "headless", runId,
  resumeId, issueId?, issueWorkspaceId?, agent?}``; anything else (unknown id,
  no registry yet, a mismatch) gives **no origin at all**: never a forged one
  and never "manual";
* **revisions** are hashed before the append lock is taken, so a large file
  never blocks other publishers; a reference that does not resolve is kept in
  the body, reported unavailable, and gets no revision.

The ``inbox.received`` journal fact is recorded only after the entry is on
disk; a journal failure is a warning, never a failed push.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from openalice.core.errors import InvalidInput
from openalice.core.records import record_class

from . import files as inbox_files
from .references import References, parse
from .store import InboxStore

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from datetime import datetime

__all__ = [
    "MAX_BODY_BYTES", "PushResult", "check_body", "target_workspace", "stamp_origin",
    "default_task_lookup", "push", "summary_of",
]

MAX_BODY_BYTES = 1024 * 1024
SUMMARY_CHARS = 200

TaskLookup = Callable[[str], "dict | None"]


@record_class(frozen=True)
class PushResult:
    entry: dict
    files: list
    references: References
    journal_seq: int | None


def check_body(body: str, *, field: str = "--body") -> str:
    """Refuse an empty (after trimming) or oversized body; return it unchanged."""
    if not isinstance(body, str) or not body.strip():
        raise InvalidInput("the body is empty", field=field, code="empty_body")
    if len(body.encode("utf-8", "surrogatepass")) > MAX_BODY_BYTES:
        raise InvalidInput(f"the body exceeds {MAX_BODY_BYTES} bytes", field=field,
                           code="too_large")
    try:
        body.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("the body is not valid UTF-8 text", field=field,
                           code="not_utf8") from None
    return body


def target_workspace(spec: str | None = None, *, env: Mapping[str, str] | None = None,
                     cwd: os.PathLike | str | None = None):
    """The workspace to publish to, confined to the run's own inside a run
    (:func:`openalice.workspaces.authorize_write`)."""
    from openalice import workspaces  # lazy: the read verbs load this module; only a push needs it

    env = os.environ if env is None else env
    ws = workspaces.resolve(spec, cwd=cwd, env=env)
    workspaces.authorize_write(workspaces.Caller.of_process(env=env, cwd=cwd), ws)
    return ws


def default_task_lookup() -> TaskLookup:
    """The runs package's lookup for origin stamps (:func:`openalice.runs.origin.run_for_origin`)."""
    # lazy: the inbox read verbs load this module; only a push from inside a run needs the registry
    from openalice.runs.origin import run_for_origin

    return run_for_origin


def stamp_origin(workspace, *, env: Mapping[str, str] | None = None,
                 find_task: TaskLookup | None | bool = True,
                 warn: Callable[[str], None] | None = None) -> dict | None:
    """The origin of a push from this environment (see the module docstring).

    ``find_task`` is the task-registry lookup; ``True`` means the real one
    (:func:`default_task_lookup`), ``None`` means no registry.
    """
    env = os.environ if env is None else env
    run_id = env.get("ALICE_RUN_ID")
    if not run_id:
        return {"kind": "manual"}
    lookup = default_task_lookup() if find_task is True else find_task
    if lookup is None:
        return None
    try:
        task = lookup(run_id)
    except Exception as exc:  # a broken registry must not fail the push
        if warn is not None:
            warn(f"origin not stamped: task registry unreadable ({exc})")
        return None
    if not isinstance(task, dict):
        return None
    env_ws = env.get("ALICE_WORKSPACE_ID")
    env_resume = env.get("ALICE_RESUME_ID")
    resume_id = task.get("resumeId")
    if (task.get("taskId", run_id) != run_id or not env_ws or task.get("workspaceId") != env_ws
            or env_ws != workspace.id or not isinstance(resume_id, str) or not resume_id
            or (env_resume and env_resume != resume_id)):
        return None
    origin: dict = {"kind": "headless", "runId": run_id, "resumeId": resume_id}
    trigger = task.get("trigger")
    if isinstance(trigger, dict) and trigger.get("kind") in ("issue", "comment"):
        if isinstance(trigger.get("issueId"), str):
            origin["issueId"] = trigger["issueId"]
        if isinstance(trigger.get("workspaceId"), str):
            origin["issueWorkspaceId"] = trigger["workspaceId"]
    if isinstance(task.get("agent"), str):
        origin["agent"] = task["agent"]
    return origin


def summary_of(body: str) -> str | None:
    """The first non-blank line, without heading marks, at most 200 characters."""
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS - 1] + "…"
    return None


def push(body: str, *, workspace, origin: dict | None, now: datetime,
         store: InboxStore | None = None, record_fact: bool = True,
         question: dict | None = None) -> PushResult:
    """Publish ``body`` to ``workspace``'s Inbox; returns the stored entry and its files.
    ``question`` (``{workspaceId, issueId, commentId}``) marks a session's
    question (``alice issue ask``), answered by ``alice inbox answer``."""
    check_body(body)
    store = store or InboxStore()
    refs = parse(body)
    statuses = []
    revisions: dict[str, str] = {}
    for rel in refs.paths:
        status = inbox_files.inspect(workspace.root, rel, None)
        if status.available:
            revisions[rel] = status.current
            status = inbox_files.FileStatus(rel, status.current, True, None, status.current)
        statuses.append(status)
    from openalice.core import clock  # lazy: a listing imports this module, only a push needs it

    ts = clock.to_ms(now)

    def build(entry_id: str) -> dict:
        entry = {"id": entry_id, "ts": ts, "workspaceId": workspace.id,
                 "workspaceLabel": workspace.label, "body": body, "fileRevisions": revisions}
        if origin is not None:
            entry["origin"] = origin
        if question is not None:
            entry["question"] = question
        return entry

    entry = store.append(build, now_ms=ts)
    seq = None
    if record_fact:
        from openalice import journal  # lazy: the read verbs load this module; only a push records

        payload: dict = {"workspaceId": workspace.id, "inboxEntryId": entry["id"],
                         "workspaceLabel": workspace.label}
        if origin is not None:
            payload["originKind"] = origin["kind"]
            for src, dst in (("runId", "taskId"), ("resumeId", "resumeId"), ("agent", "agent")):
                if src in origin:
                    payload[dst] = origin[src]
        summary = summary_of(body)
        if summary:
            payload["summary"] = summary
        payload["documentCount"] = len(refs.paths)
        fact = journal.record("inbox.received", payload, now=now)
        seq = fact["seq"] if fact else None
    return PushResult(entry, statuses, refs, seq)
