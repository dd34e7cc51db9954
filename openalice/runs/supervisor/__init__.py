"""Run supervision: one headless agent turn per task record.

    pid = launch(task_id)          # detached `python -m openalice.runs.supervisor TASK_ID`
    record = run_task(task_id)     # the same work in this process (tests, `--foreground`)

A supervisor owns exactly one task record that admission created with status
``running``.  It records itself (``supervisor: {pid, startToken}``) first,
resolves the runtime binding (a new session for ``@new-then-resume`` /
``@new-each-run``, the frozen one for ``@resume-…``), projects argv/env
through the engine's adapter, starts the engine as the leader of its own
process group, normalizes its stdout into ``structured.json`` while it runs,
enforces the watchdog, and finally writes the terminal status, records the
engine's native session id for the next resume, journals the run, and
releases the admission marker.  See docs/runs.md ("Runner").

The package, one job per module, each step an object given what it needs
when it is made (no mixins): :mod:`.state` (``RunState``: the task record,
the facts' seqs, interruption and the watchdog's kill, the process: what every
step shares), :mod:`.context` (``RunContext``: what runs: workspace, issue,
session binding), :mod:`.engine` (``Engine``: projection, spawn, watchdog,
hand-off to the normalizer), :mod:`.capture` (pipes into capped logs through
:mod:`openalice.core.pipes`, ``structured.json`` snapshots), :mod:`.finish`
(``Finish``) and :mod:`.outcome` (the terminal record, the status rule, the
``runtime.*`` facts), :mod:`.run` (one run from claim to release: the order).

Nothing here writes the child's environment or argv anywhere: the environment
holds credential secrets, and argv is only ever used to exec.
"""

from __future__ import annotations

import signal
import sys

from openalice.core import fs, proc
from openalice.core.errors import AliceError, InvalidInput
from openalice.runs import results, tasks

from .outcome import JOURNAL_TEXT_BYTES, PREVIEW_CHARS, output_summary, status_for

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from .run import Run

__all__ = [
    "launch", "run_task", "main", "status_for", "output_summary", "interrupt_current",
    "PREVIEW_CHARS", "JOURNAL_TEXT_BYTES",
]


# -- launching ------------------------------------------------------------------------------------

def launch(task_id: str) -> int:
    """Start a detached supervisor for ``task_id`` and return its pid at once.

    The supervisor runs detached (:func:`openalice.core.proc.launch_detached`)
    with its own diagnostics appended to ``<task_dir>/supervisor.log``.
    """
    _check_task_id(task_id)
    directory = fs.ensure_dir(tasks.task_dir(task_id), 0o700)
    return proc.launch_detached("openalice.runs.supervisor", [task_id],
                                log_path=directory / results.SUPERVISOR_LOG)


def _check_task_id(task_id: str) -> str:
    if (not isinstance(task_id, str) or not task_id or len(task_id) > 128 or task_id.startswith("-")
            or "/" in task_id or "\\" in task_id or task_id in (".", "..") or "\x00" in task_id):
        raise InvalidInput(f"invalid task id {task_id!r}", field="taskId", code="bad_task_id")
    return task_id


# -- entry points -----------------------------------------------------------------------------------

_current: Run | None = None


def run_task(task_id: str, *, handle_signals: bool = False) -> dict:
    """Supervise ``task_id`` in this process until the run ends; the final record.

    With ``handle_signals`` (the ``python -m`` entry), SIGTERM, SIGINT and
    SIGHUP stop the agent's group and end the run ``interrupted``.
    """
    global _current
    # lazy: launch() runs inside the scan's process, which must not load the engine stack
    from .run import Run

    _check_task_id(task_id)
    tasks.load_task(task_id)  # NotFound (exit 2) before anything else happens
    run = Run(task_id)
    previous: dict = {}
    if handle_signals:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            previous[signum] = signal.signal(
                signum, lambda n, _f: run.interrupt(f"supervisor received {proc.signal_name(n)}"))
    _current = run
    try:
        try:
            return run.execute()
        except BaseException as exc:
            run.crash(exc)
            if not isinstance(exc, Exception):
                raise
            return run.record
        finally:
            run.release()
    finally:
        _current = None
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def interrupt_current(reason: str) -> bool:
    """Interrupt the run this process supervises (tests; signal handlers)."""
    run = _current
    if run is None:
        return False
    run.interrupt(reason)
    return True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m openalice.runs.supervisor TASK_ID", file=sys.stderr)
        return 2
    try:
        record = run_task(args[0], handle_signals=True)
    except AliceError as exc:
        print(f"supervisor: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0 if record.get("status") in tasks.ENDED_STATUSES else 1
