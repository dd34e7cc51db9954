"""The end of a run: its terminal record, the issue's and session's updates, the runtime facts."""

from __future__ import annotations

from openalice import issues, sessions
from openalice.core import proc
from openalice.core.errors import AliceError
from openalice.runs import reasons, results

from .context import RunContext
from .outcome import JOURNAL_TEXT_BYTES, clip_utf8, iso, output_summary, status_for
from .state import RunState

TAIL_BYTES = 64 * 1024               # of stdout.log the classifier reads (stderr.log: an eighth)

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import Any

    from .engine import Ended


class Finish:
    """How the run ``state`` describes ended, recorded: its terminal task record, the issue's
    and session's updates, the ``runtime.*`` facts.  ``context`` is what it ran (its binding may
    still be None when the launch failed before one was resolved)."""

    def __init__(self, state: RunState, context: RunContext) -> None:
        self.state = state
        self.context = context

    def record_native_session(self, native_session: str | None) -> None:
        context = self.context
        if not native_session or context.binding is None:
            return
        try:
            sessions.record_native_session(context.ws, context.binding.resume_id, native_session,
                                           self.state.now())
        except (AliceError, OSError) as exc:
            self.state.note(f"native session id not recorded: {exc}")

    def remember_launch(self, exit_status: int | None = None) -> None:
        """The session's last launch and, once the process started, the workspace's recent
        headless choice (the secret-free tuple); neither may fail the run."""
        ws, binding = self.context.ws, self.context.binding
        try:
            sessions.record_launch(ws, binding.resume_id, surface="headless", now=self.state.now(),
                                   exit_status=exit_status)
            if exit_status is None:
                sessions.remember_recent(ws, binding, surface="headless")
        except (AliceError, OSError) as exc:
            self.state.note(f"launch not remembered: {exc}")

    def started(self, ended: Ended, elapsed: float) -> dict:
        """The engine ran (``ended``: what its stream said); ``elapsed`` seconds since the claim."""
        state = self.state
        structured, native_session = ended.structured, ended.native_session
        code = state.proc.returncode
        if code is not None:
            self.remember_launch(code if code >= 0 else 128 - code)
        status = status_for(exit_code=code, killed=state.killed, interrupted=state.interruption is not None,
                            engine_failed=ended.engine_failed, error_after_text=ended.error_after_text)
        self.record_native_session(native_session)
        changes: dict[str, Any] = {"status": status, "finishedAt": iso(state.now()),
                                   "durationMs": int(elapsed * 1000), "killed": state.killed,
                                   "output": output_summary(structured)}
        if code is not None and code >= 0:
            changes["exitCode"] = code
        elif code is not None:
            changes["signal"] = proc.signal_name(-code)
        if native_session:
            changes["agentSessionId"] = native_session
        if status == "interrupted":
            changes["interruptionReason"] = state.interruption
        reason, detail = self.reason_for(status, structured, changes)
        if reason:
            changes["reason"] = reason
            if detail:
                changes["detail"] = detail
        state.update(changes)
        if status == "done":
            self.mark_issue_done()
        stopped: dict[str, Any] = {"taskId": state.task_id, "resumeId": self.context.binding.resume_id,
                                   "status": status, "metrics": structured.get("metrics", {}),
                                   "truncated": bool(structured.get("truncated"))}
        for key in ("exitCode", "signal"):
            if key in changes:
                stopped[key] = changes[key]
        if state.killed:
            stopped["killed"] = True
        if status != "done":
            stopped["error"] = self.failure_text(structured, changes)
        for key in ("reason", "detail"):
            if key in changes:
                stopped[key] = changes[key]
        if structured.get("assistantText"):
            stopped["assistantText"] = clip_utf8(structured["assistantText"], JOURNAL_TEXT_BYTES)
        if ended.skipped_turns:
            stopped["turnEventsNotJournalled"] = ended.skipped_turns
        state.journal("runtime.stopped", stopped, caused_by=state.started_seq)
        return state.record

    def reason_for(self, status: str, structured: dict, changes: dict) -> tuple[str | None, str | None]:
        """Why the run failed (:mod:`openalice.runs.reasons`), from its error
        blocks, exit status and the ends of its logs."""
        if status == "done":
            return None, None
        state, binding = self.state, self.context.binding
        credential = getattr(binding, "credential", None) or {}
        timeout_ms = state.record.get("timeoutMs")
        errors = [b.get("message") for b in structured.get("blocks") or () if b.get("type") == "error"]
        try:
            return reasons.classify(
                agent=binding.agent, status=status, exit_code=changes.get("exitCode"),
                signal=changes.get("signal"), killed=state.killed, interruption=state.interruption,
                errors=errors, native=credential.get("source", "native") == "native",
                stdout_tail=results.read_tail(state.dir / results.STDOUT_LOG, TAIL_BYTES),
                stderr_tail=results.read_tail(state.dir / results.STDERR_LOG, TAIL_BYTES // 8),
                timeout_s=int(timeout_ms) // 1000 if isinstance(timeout_ms, (int, float)) and timeout_ms else None)
        except Exception as exc:
            state.note(f"no reason classified: {exc}")
            return None, None

    def failure_text(self, structured: dict, changes: dict) -> str:
        state = self.state
        if state.interruption:
            return state.interruption
        if state.killed:
            return f"stopped by the watchdog after {int(state.record.get('timeoutMs') or 0) // 1000}s"
        errors = [b.get("message") for b in structured.get("blocks") or () if b.get("type") == "error"]
        if errors and errors[-1]:
            return clip_utf8(errors[-1], JOURNAL_TEXT_BYTES)
        if "signal" in changes:
            return f"the agent was killed by {changes['signal']}"
        if changes.get("exitCode"):
            return f"the agent exited with code {changes['exitCode']}"
        return "the agent reported a failure"

    def unstarted(self, *, error: str | None = None, code: str | None = None,
                  interrupted: bool = False) -> dict:
        """Nothing ran: the launch failed, or the supervisor was stopped first."""
        state, binding = self.state, self.context.binding
        changes: dict[str, Any] = {"finishedAt": iso(state.now()), "processStarted": False}
        if interrupted or (state.interruption and error is None):
            changes.update(status="interrupted", interruptionReason=state.interruption or "interrupted")
        else:
            changes.update(status="failed", error=error or "launch failed", exitCode=-1)
            if code:
                changes["launchErrorCode"] = code
        reason, detail = reasons.classify(
            agent=getattr(binding, "agent", None), status=changes["status"], process_started=False,
            interruption=changes.get("interruptionReason"), launch_error=changes.get("error"), launch_code=code)
        changes["reason"] = reason
        if detail:
            changes["detail"] = detail
        state.update(changes)
        payload: dict[str, Any] = {"taskId": state.task_id}
        if binding is not None:
            payload.update(resumeId=binding.resume_id, agent=binding.agent)
        if changes["status"] == "interrupted":
            payload.update(status="interrupted", error=changes["interruptionReason"],
                           metrics={"textBlocks": 0, "toolCalls": 0, "toolFailures": 0}, truncated=False)
            state.journal("runtime.stopped", payload, caused_by=state.started_seq)
        else:
            if code:
                payload["launchErrorCode"] = code
            payload["error"] = changes["error"]
            payload["reason"] = changes["reason"]
            state.journal("runtime.spawn_failed", payload, caused_by=state.started_seq or state.born_seq)
        return state.record

    def mark_issue_done(self) -> None:
        """A one-shot (``at``) issue is done after its first successful run
        (a comment turn is not a run of the issue)."""
        context = self.context
        issue = context.issue
        if (self.state.record.get("kind") == "comment" or issue is None or not isinstance(issue.when, dict)
                or issue.when.get("kind") != "at"):
            return
        try:
            issues.mark_done(context.ws, context.issue_id)
        except Exception as exc:
            self.state.note(f"could not mark issue {context.issue_id!r} done: {exc}")
