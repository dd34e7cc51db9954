"""A run's results: the files of its task directory, its structured output,
and waiting for it to end.

The task directory (:func:`openalice.runs.tasks.task_dir`) holds, beside the
record ``task.json``::

    stdout.log        the engine's stdout, capped (the supervisor's capture)
    stderr.log        the engine's stderr, capped
    structured.json   the normalized output, rewritten while the run goes on
    supervisor.log    the supervisor's own diagnostics
    engine/           the engine's private run directory
"""

from __future__ import annotations

import time

from openalice.core import fs
from openalice.core.errors import AliceError, Busy

from . import tasks

__all__ = ["STDOUT_LOG", "STDERR_LOG", "STRUCTURED", "SUPERVISOR_LOG", "ENGINE_DIR",
           "log_paths", "read_structured", "read_tail", "stderr_lines", "wait_until_ended"]

STDOUT_LOG = "stdout.log"
STDERR_LOG = "stderr.log"
STRUCTURED = "structured.json"
SUPERVISOR_LOG = "supervisor.log"
ENGINE_DIR = "engine"


def log_paths(task_id: str) -> dict[str, str]:
    """Where a run's stdout, stderr and structured output are (whether or not they exist yet)."""
    directory = tasks.task_dir(task_id)
    return {"stdout": str(directory / STDOUT_LOG), "stderr": str(directory / STDERR_LOG),
            "structured": str(directory / STRUCTURED)}


def read_tail(path, limit: int) -> str:
    """The last ``limit`` bytes of a log (decoded with replacement; "" if absent)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            data = fh.read(limit)
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def stderr_lines(task_id: str, count: int = 3) -> list[str]:
    """The last ``count`` non-blank lines of a run's stderr.log, redacted and
    cut short (they are shown in the run views)."""
    from openalice.core import redact  # lazy: only a failed run's view shows them

    text = read_tail(tasks.task_dir(task_id) / STDERR_LOG, 4096)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return [redact.summarize(line, limit=160) for line in lines[-count:]]


def read_structured(task_id: str) -> tuple[dict | None, str | None]:
    """The run's structured output (None before it has any) and, instead, what is wrong with it."""
    try:
        data = fs.read_json(tasks.task_dir(task_id) / STRUCTURED, missing=None)
    except AliceError as exc:  # state JSON is read strictly: a non-object is malformed
        return None, str(exc)
    return data, None


def wait_until_ended(task_id: str, *, timeout: float | None = None) -> dict:
    """The run's record (as :func:`~openalice.runs.tasks.effective` reads it)
    once it is no longer ``running``; Busy (exit 3) after ``timeout`` seconds.

    The record is polled, the delay doubling from 50 ms up to 0.5 s."""
    record = tasks.effective(tasks.load_task(task_id))
    deadline = None if timeout is None else time.monotonic() + timeout
    delay = 0.05
    while record.get("status") == "running":
        if deadline is not None and time.monotonic() >= deadline:
            raise Busy(f"{task_id} is still running after {timeout:g}s",
                       code="still_running", details={"taskId": task_id})
        time.sleep(delay if deadline is None else max(0.0, min(delay, deadline - time.monotonic())))
        delay = min(delay * 2, 0.5)
        record = tasks.effective(tasks.load_task(task_id))
    return record
