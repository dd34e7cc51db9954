"""What every step of one run reads and writes: the task record, the facts it caused, how it
was stopped.  One :class:`RunState` per run, handed to each step (:class:`~.context.RunContext`,
:class:`~.engine.Engine`, :class:`~.finish.Finish`) at its construction."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from openalice import journal
from openalice.core import clock
from openalice.core import proc as procs
from openalice.runs import results, tasks

KILL_GRACE = 5.0                     # SIGTERM → SIGKILL


class RunState:
    """The task record of ``task_id`` as this supervisor last wrote it, and the run's flags.

    ``born_seq``/``started_seq``: the ``session.born`` and ``runtime.started`` facts the later
    facts name as their cause.  ``interruption``: why the run was told to stop (None: it was
    not).  ``killed``: the watchdog stopped it.  ``proc``: the engine's process, once spawned.
    """

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.dir = Path(tasks.task_dir(task_id))
        self.structured_path = self.dir / results.STRUCTURED
        self.record: dict = {}
        self.born_seq: int | None = None
        self.started_seq: int | None = None
        self.interruption: str | None = None
        self.killed = False
        self.proc = None

    def now(self):
        return clock.now()

    def note(self, message: str) -> None:
        """A diagnostic line in supervisor.log (stderr); never secrets."""
        print(f"supervisor {self.task_id}: {message}", file=sys.stderr, flush=True)

    def journal(self, type_: str, payload: dict, caused_by: int | None = None) -> int | None:
        stored = journal.record(type_, payload, now=self.now(), caused_by=caused_by)
        return stored.get("seq") if isinstance(stored, dict) else None

    def update(self, changes) -> dict:
        self.record = tasks.update_task(self.task_id, changes)
        return self.record

    @property
    def trigger(self) -> dict:
        trigger = self.record.get("trigger")
        return trigger if isinstance(trigger, dict) else {}

    @property
    def issue_id(self) -> str | None:
        return self.trigger.get("issueId") or self.record.get("issueId")

    def interrupt(self, reason: str) -> None:
        """Stop the run: the agent's group gets SIGTERM, then SIGKILL after the grace."""
        if self.interruption is None:
            self.interruption = reason
        proc = self.proc
        if proc is not None and proc.returncode is None:
            threading.Thread(target=procs.terminate_group, args=(proc.pid,),
                             kwargs={"grace": KILL_GRACE, "proc": proc}, name="interrupt", daemon=True).start()

    def claim_supervision(self) -> bool:
        """Record this process as the supervisor; False if the task is not ours to run."""
        me = {"pid": os.getpid(), "startToken": procs.start_token(os.getpid())}
        refused: list[str] = []

        def claim(record: dict) -> dict:
            if record.get("status") != "running":
                refused.append(f"task is {record.get('status')}")
                return record
            other = record.get("supervisor")
            if (isinstance(other, dict) and other.get("pid") not in (None, me["pid"])
                    and procs.is_alive(other.get("pid"), other.get("startToken"))):
                refused.append(f"supervised by live pid {other.get('pid')}")
                return record
            return {**record, "supervisor": me}

        self.update(claim)
        if refused:
            self.note(f"not running: {refused[0]}")
            return False
        return True
