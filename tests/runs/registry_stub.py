"""A minimal stand-in for ``openalice.runs.tasks`` and ``openalice.runs.admission``.

Used by the supervisor tests only while the scheduling capability's modules
are not importable; it implements just the contract calls the supervisor
makes (one JSON file per task under ``$OPENALICE_HOME/state/stub-tasks/``).
"""

from __future__ import annotations

import base64
import os
import types
from pathlib import Path

from openalice.core import fs, paths
from openalice.core.errors import NotFound


def _root() -> Path:
    return paths.state_dir() / "stub-tasks"


def task_dir(task_id: str) -> Path:
    return _root() / task_id


def new_task_id() -> str:
    return "run-" + base64.urlsafe_b64encode(os.urandom(6)).decode()


def create_task(record: dict) -> dict:
    fs.ensure_dir(task_dir(record["taskId"]), 0o700)
    fs.atomic_write_json(task_dir(record["taskId"]) / "record.json", record)
    return record


def find_task(task_id: str) -> dict | None:
    return fs.read_json(task_dir(task_id) / "record.json", missing=None)


def load_task(task_id: str) -> dict:
    record = find_task(task_id)
    if record is None:
        raise NotFound(f"no task {task_id!r}")
    return record


def update_task(task_id: str, changes) -> dict:
    path = task_dir(task_id) / "record.json"
    with fs.locked_file(path):
        record = load_task(task_id)
        record = changes(dict(record)) if callable(changes) else {**record, **changes}
        fs.atomic_write_json(path, record)
    return record


def list_tasks(*, workspace_id=None, issue_id=None, status=None, limit=50, before=None) -> list[dict]:
    out = []
    root = _root()
    if root.is_dir():
        for child in root.iterdir():
            record = find_task(child.name)
            if record is None:
                continue
            if workspace_id and record.get("workspaceId") != workspace_id:
                continue
            if issue_id and record.get("issueId", (record.get("trigger") or {}).get("issueId")) != issue_id:
                continue
            if status and record.get("status") != status:
                continue
            out.append(record)
    out.sort(key=lambda r: r.get("createdAt", ""), reverse=True)
    return out[:limit]


RELEASED: list[str] = []


def release(task_id: str) -> None:
    RELEASED.append(task_id)


def modules() -> tuple[types.ModuleType, types.ModuleType]:
    tasks = types.ModuleType("openalice.runs.tasks")
    for name in ("task_dir", "new_task_id", "create_task", "find_task", "load_task", "update_task",
                 "list_tasks"):
        setattr(tasks, name, globals()[name])
    admission = types.ModuleType("openalice.runs.admission")
    admission.release = release
    admission.RELEASED = RELEASED
    return tasks, admission
