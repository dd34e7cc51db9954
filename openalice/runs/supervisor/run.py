"""One supervised run: the task record's lifecycle from claim to release."""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from pathlib import Path

from openalice import journal
from openalice.core import clock
from openalice.core import proc as procs
from openalice.runs import admission, results, tasks
from openalice.runs.streams import normalizer_for

from .context import ContextSteps, LaunchError
from .engine import KILL_GRACE, EngineSteps
from .finish import FinishSteps
from .outcome import iso

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import Any


class Run(ContextSteps, EngineSteps, FinishSteps):
    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.tasks = tasks
        self.dir = Path(tasks.task_dir(task_id))
        self.record: dict = {}
        self.ws = None
        self.issue = None
        self.binding = None
        self.born_seq: int | None = None
        self.started_seq: int | None = None
        self.interruption: str | None = None
        self.killed = False
        self.proc = None
        self.lock = threading.Lock()          # guards the normalizer
        self.normalizer = None
        self.journalled_turns = 0
        self.skipped_turns = 0
        self.structured_path = self.dir / results.STRUCTURED

    # -- helpers --
    def now(self):
        return clock.now()

    def note(self, message: str) -> None:
        """A diagnostic line in supervisor.log (stderr); never secrets."""
        print(f"supervisor {self.task_id}: {message}", file=sys.stderr, flush=True)

    def journal(self, type_: str, payload: dict, caused_by: int | None = None) -> int | None:
        stored = journal.record(type_, payload, now=self.now(), caused_by=caused_by)
        return stored.get("seq") if isinstance(stored, dict) else None

    def update(self, changes: dict) -> dict:
        self.record = self.tasks.update_task(self.task_id, changes)
        return self.record

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

        self.record = self.tasks.update_task(self.task_id, claim)
        if refused:
            self.note(f"not running: {refused[0]}")
            return False
        return True

    # -- the whole run --
    def execute(self) -> dict:
        if not self.claim_supervision():
            return self.record
        monotonic_start = time.monotonic()
        try:
            self.load_context()
            if self.interruption:
                return self.finish_unstarted(interrupted=True)
            native_id = self.resolve_binding()
            adapter, projection, model = self.project(native_id)
            self.normalizer = normalizer_for(adapter.capabilities.stream)
        except LaunchError as exc:
            return self.finish_unstarted(error=exc.message, code=exc.code)

        changes: dict[str, Any] = {"resumeId": self.binding.resume_id, "agent": self.binding.agent,
                                   "startedAt": iso(self.now())}
        for key, value in (("model", model), ("effort", self.binding.reasoning_effort),
                           ("displayName", self.binding.display_name), ("parentTaskId", self.parent_task())):
            if value:
                changes[key] = value
        self.update(changes)
        cause = ({"kind": "issue", "workspaceId": self.trigger.get("workspaceId", self.ws.id),
                  "issueId": self.issue_id, "fire": self.trigger.get("fire")}
                 if self.issue_id else {"kind": "run"})
        started = {"taskId": self.task_id, "resumeId": self.binding.resume_id, "workspaceId": self.ws.id,
                   "agent": self.binding.agent, "resumed": native_id is not None, "cause": cause}
        if model:
            started["model"] = model
        if self.binding.reasoning_effort:
            started["effort"] = self.binding.reasoning_effort
        self.started_seq = self.journal("runtime.started", started, caused_by=self.born_seq)

        if self.interruption:
            return self.finish_unstarted(interrupted=True)
        try:
            self.proc = self.spawn(projection)
        except LaunchError as exc:
            return self.finish_unstarted(error=exc.message, code=exc.code)
        self.update({"processStarted": True})
        self.remember_launch()
        return self.supervise(projection, monotonic_start)

    def release(self) -> None:
        try:
            admission.release(self.task_id)
        except Exception as exc:
            self.note(f"admission marker not released: {exc}")

    def crash(self, exc: BaseException) -> None:
        """An unexpected error: the record must not stay ``running`` forever."""
        traceback.print_exc(file=sys.stderr)
        proc = self.proc
        if proc is not None and proc.returncode is None:
            procs.terminate_group(proc.pid, grace=KILL_GRACE, proc=proc)
        try:
            current = self.tasks.load_task(self.task_id)
            if current.get("status") == "running":
                changes = {"status": "failed", "finishedAt": iso(self.now())}
                changes.update(reason="crashed", detail=f"supervisor error: {type(exc).__name__}"[:200])
                if proc is None:
                    # Nothing started: the run reads as a launch failure.
                    changes.update(processStarted=False, exitCode=-1,
                                   error=f"supervisor error: {type(exc).__name__}: {exc}"[:1000])
                else:
                    changes["killed"] = self.killed
                    if proc.returncode is not None and proc.returncode >= 0:
                        changes["exitCode"] = proc.returncode
                self.update(changes)
        except Exception as inner:
            self.note(f"could not record the failure: {inner}")
