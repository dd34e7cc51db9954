"""What a run runs: its workspace and issue, and the session binding its owner names."""

from __future__ import annotations

from openalice import issues, journal, sessions, workspaces
from openalice.core.errors import AliceError
from openalice.runs import tasks

from .state import RunState

BORN_LOOKBACK = 200                  # journal lines searched for the session.born fact of a new session


class LaunchError(Exception):
    """The engine could not be started (nothing ran)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class RunContext:
    """What a run runs, settled before anything starts: its workspace (``ws``), its issue (if
    it is an issue's run and the issue reads), and the session ``binding`` (after
    :meth:`resolve_binding`).  Writes to ``state``: ``born_seq`` of a new session."""

    def __init__(self, state: RunState) -> None:
        self.state = state
        self.ws = None
        self.issue = None
        self.binding = None

    @property
    def issue_id(self) -> str | None:
        return self.state.issue_id

    def load(self) -> None:
        ws_id = self.state.record.get("workspaceId")
        try:
            self.ws = workspaces.get(ws_id)
        except AliceError as exc:
            raise LaunchError(f"workspace {ws_id!r} is not available: {exc}") from None
        if not self.ws.root.is_dir():
            raise LaunchError(f"workspace directory {self.ws.root} does not exist")
        issue_id = self.issue_id
        if issue_id:
            try:
                self.issue = issues.load_issue(self.ws, issue_id)
            except AliceError as exc:
                # The record carries the prompt and the owner: the admitted run still runs.
                self.state.note(f"issue {issue_id!r} not readable now ({exc}); running from the task record")

    def resolve_binding(self) -> str | None:
        """The session to run and its native id (None → a fresh native session)."""
        owner = self.state.record.get("owner") or "@new-each-run"
        try:
            if owner.startswith("@resume-"):
                self.binding = sessions.load_session(self.ws, owner[1:])
                return sessions.native_session_id(self.ws, self.binding.resume_id)
            if owner not in ("@new-then-resume", "@new-each-run"):
                raise LaunchError(f"owner {owner!r} cannot run headless")
            request = self.state.record.get("runtimeRequest") or {}
            resolved = sessions.resolve_binding(
                self.ws, surface="headless", agent=request.get("agent"), credential=request.get("credential"),
                native_credential=request.get("credentialSource") == "native", model=request.get("model"),
                effort=request.get("effort"))
            self.binding = sessions.create_session(
                self.ws, agent=resolved["agent"], credential=resolved["credential"],
                model=resolved.get("model"), effort=resolved.get("reasoningEffort"),
                display_name=self.display_name(), now=self.state.now(), born_on="headless")
        except AliceError as exc:
            raise LaunchError(f"cannot resolve the runtime of owner {owner}: {exc}") from None
        self.state.born_seq = self.born_fact_seq(self.binding.resume_id)
        if owner == "@new-then-resume" and self.issue_id:
            self.claim_issue(self.binding.resume_id)
        return None

    def born_fact_seq(self, resume_id: str) -> int | None:
        """The seq of the ``session.born`` fact ``create_session`` just journalled.

        Only the newest few facts are looked at: the fact was appended a moment
        ago, and a journal that could not be written must not cost a full scan.
        """
        try:
            for count, line in enumerate(journal.open_journal().iter_backward()):
                record = line.record
                if (record.get("type") == "session.born"
                        and (record.get("payload") or {}).get("resumeId") == resume_id):
                    return record.get("seq")
                if count >= BORN_LOOKBACK:
                    break
        except Exception as exc:
            self.state.note(f"session.born fact not found: {exc}")
        return None

    def display_name(self) -> str | None:
        record = self.state.record
        name = (record.get("displayName") or record.get("issueTitle")
                or (self.issue.title if self.issue is not None else None))
        if not isinstance(name, str):
            return None
        name = " ".join(name.split())
        return name[:120] or None

    def claim_issue(self, resume_id: str) -> None:
        """The issue now names its session; a concurrent edit wins (logged, the run goes on)."""
        try:
            claimed = issues.claim_new_then_resume(self.ws, self.issue_id, resume_id)
        except Exception as exc:
            self.state.note(f"could not claim issue {self.issue_id!r} for @{resume_id}: {exc}")
            return
        if not claimed:
            self.state.note(f"issue {self.issue_id!r} no longer says @new-then-resume; left as it is")

    def parent_task(self) -> str | None:
        """The previous task of the same session, for resumed runs."""
        if self.state.record.get("parentTaskId") or not self.issue_id:
            return self.state.record.get("parentTaskId")
        try:
            earlier = tasks.list_tasks(workspace_id=self.ws.id, issue_id=self.issue_id, limit=20)
        except Exception:
            return None
        for item in earlier:
            if item.get("taskId") != self.state.task_id and item.get("resumeId") == self.binding.resume_id:
                return item.get("taskId")
        return None
