"""One supervised run: the task record's lifecycle from claim to release.

The steps are objects, each given what it needs when it is made (no mixins):
:class:`~.state.RunState` (the task record, the facts' seqs, how the run was
stopped: the one state every step shares), :class:`~.context.RunContext` (what
runs: workspace, issue, binding), :class:`~.engine.Engine` (the agent's
process), :class:`~.finish.Finish` (the terminal record and facts).
"""

from __future__ import annotations

import sys
import time
import traceback

from openalice.core import proc as procs
from openalice.runs import admission, tasks

from .context import LaunchError, RunContext
from .engine import Engine
from .finish import Finish
from .outcome import iso
from .state import KILL_GRACE, RunState

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import Any


class Run:
    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.state = RunState(task_id)

    @property
    def record(self) -> dict:
        return self.state.record

    def interrupt(self, reason: str) -> None:
        """Stop the run (a signal, a test): see :meth:`RunState.interrupt`."""
        self.state.interrupt(reason)

    # -- the whole run --
    def execute(self) -> dict:
        state = self.state
        if not state.claim_supervision():
            return state.record
        monotonic_start = time.monotonic()
        context = RunContext(state)
        finish = Finish(state, context)
        try:
            context.load()
            if state.interruption:
                return finish.unstarted(interrupted=True)
            native_id = context.resolve_binding()
            engine = Engine(state, context)
            adapter, projection, model = engine.project(native_id)
        except LaunchError as exc:
            return finish.unstarted(error=exc.message, code=exc.code)

        binding, ws = context.binding, context.ws
        changes: dict[str, Any] = {"resumeId": binding.resume_id, "agent": binding.agent,
                                   "startedAt": iso(state.now())}
        for key, value in (("model", model), ("effort", binding.reasoning_effort),
                           ("displayName", binding.display_name), ("parentTaskId", context.parent_task())):
            if value:
                changes[key] = value
        state.update(changes)
        cause = ({"kind": "issue", "workspaceId": state.trigger.get("workspaceId", ws.id),
                  "issueId": state.issue_id, "fire": state.trigger.get("fire")}
                 if state.issue_id else {"kind": "run"})
        started = {"taskId": self.task_id, "resumeId": binding.resume_id, "workspaceId": ws.id,
                   "agent": binding.agent, "resumed": native_id is not None, "cause": cause}
        if model:
            started["model"] = model
        if binding.reasoning_effort:
            started["effort"] = binding.reasoning_effort
        state.started_seq = state.journal("runtime.started", started, caused_by=state.born_seq)

        if state.interruption:
            return finish.unstarted(interrupted=True)
        try:
            engine.spawn(projection)
        except LaunchError as exc:
            return finish.unstarted(error=exc.message, code=exc.code)
        state.update({"processStarted": True})
        finish.remember_launch()
        ended = engine.supervise(projection)
        return finish.started(ended, time.monotonic() - monotonic_start)

    def release(self) -> None:
        try:
            admission.release(self.task_id)
        except Exception as exc:
            self.state.note(f"admission marker not released: {exc}")

    def crash(self, exc: BaseException) -> None:
        """An unexpected error: the record must not stay ``running`` forever."""
        traceback.print_exc(file=sys.stderr)
        state = self.state
        proc = state.proc
        if proc is not None and proc.returncode is None:
            procs.terminate_group(proc.pid, grace=KILL_GRACE, proc=proc)
        try:
            current = tasks.load_task(self.task_id)
            if current.get("status") == "running":
                changes = {"status": "failed", "finishedAt": iso(state.now())}
                changes.update(reason="crashed", detail=f"supervisor error: {type(exc).__name__}"[:200])
                if proc is None:
                    # Nothing started: the run reads as a launch failure.
                    changes.update(processStarted=False, exitCode=-1,
                                   error=f"supervisor error: {type(exc).__name__}: {exc}"[:1000])
                else:
                    changes["killed"] = state.killed
                    if proc.returncode is not None and proc.returncode >= 0:
                        changes["exitCode"] = proc.returncode
                state.update(changes)
        except Exception as inner:
            state.note(f"could not record the failure: {inner}")
