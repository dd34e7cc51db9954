"""Starting the supervisor of an admitted task (shared by scan and run-now).

The default launcher is :func:`openalice.runs.supervisor.launch`, which starts
a detached supervisor process (own session) and returns its pid at once.
``OPENALICE_TEST_LAUNCH=none`` (a debug setting, docs/conventions.md) admits
runs without launching anything.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime

from openalice.core import clock, proc
from openalice.runs import admission, tasks

__all__ = ["resolve_launch", "start"]

Launcher = Callable[[str], int]


def resolve_launch() -> Launcher | None:
    """The launcher; None when launching is switched off (the debug setting
    ``OPENALICE_TEST_LAUNCH=none``, docs/conventions.md)."""
    if os.environ.get("OPENALICE_TEST_LAUNCH") == "none":
        return None
    from openalice.runs.supervisor import launch  # lazy: the supervisor module is the heaviest one

    return launch


def start(task_id: str, launch: Launcher | None, *, now: datetime) -> dict:
    """Launch the supervisor of ``task_id``; ``{"launched", "pid"?, "error"?}``.

    A launch failure is that run's single attempt: the task is marked failed
    (``launchErrorCode: spawn_failed``) and its live marker released.
    """
    if launch is None:
        return {"launched": False}
    try:
        pid = launch(task_id)
    except Exception as exc:
        message = f"could not start the supervisor: {exc}"
        tasks.update_task(task_id, {"status": "failed", "error": message,
                                    "launchErrorCode": "spawn_failed",
                                    "finishedAt": clock.to_iso(now)})
        admission.release(task_id)
        return {"launched": False, "error": message}
    if not (isinstance(pid, int) and pid > 0):
        return {"launched": True}
    token = proc.start_token(pid)
    if token is None:  # already gone (or a zombie): it wrote its own record
        return {"launched": True, "pid": pid}

    def note_supervisor(record: dict) -> dict:
        # The supervisor writes this itself first thing; writing it here too
        # means a supervisor that dies before that still reads as dead.
        if not record.get("supervisor") and record.get("status") == "running":
            record["supervisor"] = {"pid": pid, "startToken": token}
        return record

    tasks.update_task(task_id, note_supervisor)
    return {"launched": True, "pid": pid}
