"""The headless task registry: one record per run, append-only indexes.

Layout under ``$OPENALICE_HOME/state/runs/``::

    tasks/<taskId>/task.json        the record (rewritten atomically on update)
    tasks/<taskId>/stdout.log ...   the run's logs and structured.json (task_dir)
    index.jsonl                     one line per task creation, all tasks
    by-workspace/<ws>.jsonl         the same lines, one workspace
    by-issue/<ws>/<issue>.jsonl     the same lines, one issue

A record is never rewritten as part of a growing file: updates touch only its
own ``task.json``, and the indexes only grow by one line per creation.  They
are read backwards (:mod:`openalice.core.jsonl`), so the newest page of any
listing costs O(page) whatever the number of records.

Creation order is: claim the directory (``mkdir``, which also makes the id
unique), append the index lines, write the record.  An index line whose record
is missing is a creation that never finished; every reader skips it, and the
scanner's idempotence check treats it as "never fired".

Liveness is computed at read time (:func:`effective`): a record still saying
``running`` whose supervisor process is gone (pid + start token), or that never
got a supervisor and has not been written for :data:`SUPERVISOR_GRACE_SECONDS`
of real time, reads as ``interrupted``.  Like the pid check, that grace is
measured on the real clock (the record file's modification time), never on a
frozen ``ALICE_NOW``.  The stored record is never changed by reading it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from openalice.core import clock, fs, paths, patterns
from openalice.core.errors import Conflict, InvalidInput, NotFound, OperationalError
from openalice.core.jsonl import JsonlFile

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = [
    "RECORD_VERSION", "STATUSES", "ENDED_STATUSES", "SUPERVISOR_GRACE_SECONDS", "TASK_ID_RE", "new_task_id",
    "is_task_id", "runs_dir", "task_dir", "record_path", "create_task", "load_task",
    "find_task", "check_record", "update_task", "list_tasks", "iter_index", "latest_task", "effective",
]

RECORD_VERSION = 1
STATUSES = ("running", "done", "failed", "interrupted")
ENDED_STATUSES = STATUSES[1:]  # a run in one of these has ended
# A scanner launches the supervisor right after it creates the record and
# notes its pid at once; a record with no supervisor, untouched this long, was
# orphaned (the scanner died in between) and reads as interrupted.
SUPERVISOR_GRACE_SECONDS = 120

TASK_ID_RE = patterns.compile(r"run-[A-Za-z0-9_-]{8}\Z")
# Ids accepted for lookup: new ids are run-XXXXXXXX; this also admits legacy
# UUIDs while keeping every id a single safe path component.
_LOOKUP_ID_RE = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
_INDEX_KEYS = ("taskId", "workspaceId", "issueId", "createdAt")


def new_task_id() -> str:
    """``run-`` + 8 base64url characters (6 random bytes)."""
    import base64  # lazy: only admission makes ids; the read verbs must not load it

    return "run-" + base64.urlsafe_b64encode(os.urandom(6)).decode("ascii")


def is_task_id(text: object) -> bool:
    return isinstance(text, str) and _LOOKUP_ID_RE.match(text) is not None


def runs_dir() -> Path:
    return paths.state_path("runs")


def _check_id(task_id: object) -> str:
    if not is_task_id(task_id):
        raise InvalidInput(f"not a task id: {str(task_id)[:80]!r} (expected run-XXXXXXXX)",
                           field="taskId", code="bad_task_id")
    return task_id  # type: ignore[return-value]


def task_dir(task_id: str) -> Path:
    """The directory holding the record and the run's ``stdout.log``,
    ``stderr.log`` and ``structured.json``."""
    return runs_dir() / "tasks" / _check_id(task_id)


def record_path(task_id: str) -> Path:
    return task_dir(task_id) / "task.json"


def _index_paths(workspace_id: str | None, issue_id: str | None) -> list[Path]:
    base = runs_dir()
    # one joinpath per file, not a Path per component: health asks this for every issue
    out = [base.joinpath("index.jsonl")]
    if workspace_id:
        ws_name = paths.safe_name(workspace_id)
        out.append(base.joinpath("by-workspace", f"{ws_name}.jsonl"))
        if issue_id:
            out.append(base.joinpath("by-issue", ws_name, f"{paths.safe_name(issue_id)}.jsonl"))
    return out


def _index_for(workspace_id: str | None, issue_id: str | None) -> tuple[Path, bool]:
    """The narrowest index for a query, and whether its lines still need
    filtering by issue (an issue id without its workspace uses the global one)."""
    paths_ = _index_paths(workspace_id, issue_id if workspace_id else None)
    return paths_[-1], issue_id is not None and not workspace_id


def _require_str(record: dict, key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"a task record needs a non-empty string {key!r}", field=key,
                           code="bad_task_record")
    return value


def create_task(record: dict) -> dict:
    """Store a new task record durably and index it; returns the stored record.

    ``taskId`` is generated when absent; ``version``, ``status`` (running),
    ``processStarted`` (False) are filled in.  ``workspaceId`` and
    ``createdAt`` are required.  A given ``taskId`` that exists already is a
    Conflict.
    """
    if not isinstance(record, dict):
        raise InvalidInput("a task record must be an object", code="bad_task_record")
    rec = dict(record)
    rec.setdefault("version", RECORD_VERSION)
    rec.setdefault("status", "running")
    rec.setdefault("processStarted", False)
    if rec["status"] not in STATUSES:
        raise InvalidInput(f"unknown status {rec['status']!r}", field="status", code="bad_task_record")
    workspace_id = _require_str(rec, "workspaceId")
    _require_str(rec, "createdAt")
    issue_id = rec.get("issueId")
    tasks_root = fs.ensure_dir(runs_dir() / "tasks")
    given = "taskId" in rec
    for _attempt in range(8):
        task_id = _check_id(rec["taskId"]) if given else new_task_id()
        try:
            os.mkdir(tasks_root / task_id, 0o700)
            break
        except FileExistsError:
            if given:
                raise Conflict(f"task {task_id} exists already", code="task_exists") from None
        except OSError as exc:
            raise OperationalError(f"cannot create task directory: {exc.strerror}",
                                   file=tasks_root / task_id) from exc
    else:  # 8 collisions of 48 random bits: the random source is broken
        raise OperationalError("could not allocate a unique task id", code="task_id_exhausted")
    rec["taskId"] = task_id
    line: dict[str, Any] = {k: rec[k] for k in _INDEX_KEYS if rec.get(k) is not None}
    trigger = rec.get("trigger")
    if isinstance(trigger, dict):
        for key in ("fire", "slot", "missed"):
            if trigger.get(key) is not None:
                line[key] = trigger[key]
    paths_ = _index_paths(workspace_id, issue_id if isinstance(issue_id, str) else None)
    _sweep_unfinished_creations(JsonlFile(paths_[0]))
    for path in paths_:
        JsonlFile(path).append(line)
    fs.atomic_write_json(tasks_root / task_id / "task.json", rec)
    return rec


#: Newest lines of the global index a creation looks at for a killed one.
UNFINISHED_LOOKBACK = 4


def _sweep_unfinished_creations(index) -> None:
    """A creation killed while writing its record leaves an index line, a
    directory and a temp file that no one writes again; it is one of the
    newest lines of the global index, so the next creation looks those up
    (:func:`find_task` removes the temp of a record that never appeared).
    O(1): a few lines read backward from the end."""
    for n, line in enumerate(index.iter_backward()):
        if n >= UNFINISHED_LOOKBACK:
            break
        task_id = line.record.get("taskId")
        if is_task_id(task_id) and not os.path.lexists(record_path(task_id)):
            find_task(task_id)


def find_task(task_id: str) -> dict | None:
    """The stored record, or None when there is no such task (or the id is
    not a task id at all)."""
    if not is_task_id(task_id):
        return None
    path = runs_dir() / "tasks" / task_id / "task.json"
    data = fs.read_json(path, missing=None)
    if data is None:
        # A creation that never finished: nothing will write this directory
        # again, so the temp file of its killed writer goes now (only one whose
        # writer is gone, or an old one: a creation in flight is left alone).
        fs.sweep_temp_files(path.parent, target=path.name)
        return None
    return check_record(data, task_id, path)


def check_record(data: dict, task_id: str, path: Path) -> dict:
    """A stored record has its own id, a known status and its workspace;
    anything else (``{"version": 1}`` alone, say) is malformed, naming the file."""
    def bad(field: str, reason: str) -> InvalidInput:
        return InvalidInput(f"malformed task record: {reason}", file=path, field=field,
                            code="bad_task_record")

    if data.get("taskId") != task_id:
        raise bad("taskId", f"taskId must be {task_id!r} (the directory's name), "
                            f"not {data.get('taskId')!r}")
    if data.get("status") not in STATUSES:
        raise bad("status", f"status must be one of {', '.join(STATUSES)}, "
                            f"not {data.get('status')!r}")
    if not isinstance(data.get("workspaceId"), str) or not data["workspaceId"]:
        raise bad("workspaceId", "workspaceId is required")
    return data


def load_task(task_id: str) -> dict:
    """The stored record; NotFound (exit 2) when there is none."""
    _check_id(task_id)
    record = find_task(task_id)
    if record is None:
        raise NotFound(f"unknown task {task_id}", code="unknown_task",
                       details={"hint": "see 'alice-schedule runs'"})
    return record


def update_task(task_id: str, changes: dict | Callable[[dict], dict]) -> dict:
    """Locked read-modify-write of one record; returns the new record.

    ``changes`` is merged key by key (a value of None is stored as null), or
    is a function from the current record to the new one.  ``taskId`` never
    changes.
    """
    path = record_path(task_id)
    if not path.exists():
        raise NotFound(f"unknown task {task_id}", code="unknown_task")

    def apply(current: dict) -> dict:
        check_record(current, task_id, path)
        new = changes(dict(current)) if callable(changes) else {**current, **changes}
        if not isinstance(new, dict):
            raise InvalidInput("an update must produce an object", code="bad_task_record")
        new["taskId"] = current.get("taskId", task_id)
        if new.get("status") not in STATUSES:
            raise InvalidInput(f"unknown status {new.get('status')!r}", field="status",
                               code="bad_task_record")
        return new

    return fs.locked_update_json(path, apply)


def iter_index(*, workspace_id: str | None = None, issue_id: str | None = None) -> Iterator[dict]:
    """Index lines newest first (``taskId``, ``workspaceId``, ``issueId``,
    ``createdAt``, ``fire``, ``slot``, ``missed``) from the narrowest index."""
    path, filter_issue = _index_for(workspace_id, issue_id)
    for line in JsonlFile(path).iter_backward():
        entry = line.record
        if not is_task_id(entry.get("taskId")):
            continue
        if filter_issue and entry.get("issueId") != issue_id:
            continue
        yield entry


def _readable(task_id: str, problems: list | None) -> dict | None:
    """The record, or None when it is missing or malformed; a malformed one is
    reported in ``problems`` (it never hides its neighbours)."""
    try:
        return find_task(task_id)
    except InvalidInput as exc:
        if problems is not None:
            problems.append({"taskId": task_id, "file": exc.file or str(record_path(task_id)),
                             "reason": exc.message})
        return None


def list_tasks(*, workspace_id: str | None = None, issue_id: str | None = None,
               status: str | None = None, limit: int = 50, before: str | None = None,
               problems: list | None = None) -> list[dict]:
    """Effective records, newest first.

    ``before`` is a task id: only tasks created before it are listed; an id
    the chosen index does not hold gives ``[]``.  Unfiltered (or filtered by
    workspace/issue) a page costs O(limit); a ``status`` filter reads records
    until the page is full.  A malformed record is skipped and described in
    ``problems`` (when given).
    """
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"unknown status {status!r} (choose {', '.join(STATUSES)})",
                           field="status", code="bad_status")
    out: list[dict] = []
    if limit <= 0:
        return out
    waiting = before is not None
    for entry in iter_index(workspace_id=workspace_id, issue_id=issue_id):
        if waiting:
            if entry["taskId"] == before:
                waiting = False
            continue
        record = _readable(entry["taskId"], problems)
        if record is None:
            continue  # a creation that never finished, or a malformed record
        record = effective(record)
        if status is not None and record.get("status") != status:
            continue
        out.append(record)
        if len(out) >= limit:
            break
    return out


def latest_task(workspace_id: str, issue_id: str, *,
                predicate: Callable[[dict], bool] | None = None, depth: int = 200,
                problems: list | None = None) -> dict | None:
    """The newest effective readable record of an issue (matching
    ``predicate``), looking back at most ``depth`` index lines; malformed
    records are skipped (and described in ``problems`` when given)."""
    for i, entry in enumerate(iter_index(workspace_id=workspace_id, issue_id=issue_id)):
        if i >= depth:
            break
        if predicate is not None and not predicate(entry):
            continue
        record = _readable(entry["taskId"], problems)
        if record is not None:
            return effective(record)
    return None


def effective(record: dict) -> dict:
    """The record as it reads now: ``running`` whose supervisor is gone, or
    that never got one (see :data:`SUPERVISOR_GRACE_SECONDS`), becomes
    ``interrupted`` (with ``interruptionReason``).  Other records are
    returned unchanged."""
    if record.get("status") != "running":
        return record
    reason = _dead_reason(record)
    if reason is None:
        return record
    if is_task_id(record.get("taskId")):
        # Its writer (the supervisor, or the scan that never launched it) is
        # gone and no one writes this record again: a temp file of a write it
        # was killed in goes now (only a dead writer's, or an old one).
        fs.sweep_temp_files(task_dir(record["taskId"]), target="task.json")
    return {**record, "status": "interrupted", "interruptionReason": reason}


def _dead_reason(record: dict) -> str | None:
    supervisor = record.get("supervisor")
    if isinstance(supervisor, dict) and isinstance(supervisor.get("pid"), int):
        from openalice.core import proc  # lazy: it loads subprocess; only a running record asks

        if proc.is_alive(supervisor["pid"], supervisor.get("startToken")):
            return None
        return "supervisor_exited"
    written = None
    if is_task_id(record.get("taskId")):
        try:
            written = os.stat(runs_dir() / "tasks" / record["taskId"] / "task.json").st_mtime
        except OSError:
            written = None
    if written is None:  # not a stored record: its own creation time, on the real clock
        created = record.get("createdAt")
        try:
            written = clock.parse_instant(created).timestamp() if isinstance(created, str) else None
        except InvalidInput:
            written = None
    if written is None or time.time() - written > SUPERVISOR_GRACE_SECONDS:
        return "supervisor_never_started"
    return None
