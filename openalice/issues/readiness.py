"""Can this issue's run start on this machine now?  The one rule.

Every path that asks it gets the same answer:

- the scanner, before admitting a due issue: a blocker is a skip with its
  reason; no run is created, the cursor does not move and the issue stays
  due, so fixing the cause lets the next scan run it (``scan --dry-run`` says
  "would be blocked: REASON");
- ``run-now`` / ``retry-now``, before admitting (exit 3 with the reason);
- ``automationHealth``: a blocked issue is ``blocked``, not ``due``;
- ``alice issue validate`` / ``create`` / ``update``: a warning naming the
  field to fix (an invalid ``@resume-…`` id is an error there: no machine can
  ever run it);
- ``alice doctor``: one finding per blocked scheduled issue.

The checks follow what the runner will do (``openalice.runs.supervisor``):
a ``@resume-…`` owner needs its session file, whose frozen binding names the
agent and credential; any other owner gets a binding from
:func:`openalice.sessions.resolve_binding`, exactly as the runner calls it.
Then the agent must run headless, a vault credential must exist with its key
stored, and the agent's executable must be on the ``PATH`` the run will get
(the runner's own, with the toolkit's tool directory first).

Reasons (the scan's skip reasons): ``owner_invalid``, ``owner_missing``,
``owner_unbound``, ``unknown_agent``, ``not_headless``, ``runtime_invalid``,
``credential_missing``, ``agent_not_installed``.  Health and doctor add
``not_logged_in`` (:func:`login_blocker`), which the scan never applies.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from openalice.core import executables
from openalice.core.errors import AliceError
from openalice.core.records import record_class

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["REASONS", "Blocker", "owner_state", "invalid_owner", "run_blocker", "native_login",
           "login_blocker"]

REASONS = ("owner_invalid", "owner_missing", "owner_unbound", "unknown_agent", "not_headless",
           "runtime_invalid", "credential_missing", "agent_not_installed")


@record_class(frozen=True)
class Blocker:
    """Why the run cannot start: ``reason`` (one of REASONS), a ``detail`` for
    people, the issue ``field`` to look at, and a ``hint`` when there is one."""

    reason: str
    detail: str
    field: str
    hint: str | None = None

    def to_dict(self) -> dict:
        out = {"reason": self.reason, "detail": self.detail, "field": self.field}
        if self.hint:
            out["hint"] = self.hint
        return out


def _field(issue: Any, name: str) -> Any:
    return issue.get(name) if isinstance(issue, dict) else getattr(issue, name, None)


def _resume_id(issue: Any) -> str | None:
    assignee = _field(issue, "assignee")
    if isinstance(assignee, str) and assignee.startswith("@resume-"):
        return assignee[1:]
    return None


def owner_state(ws: Any, issue: Any) -> tuple[str, str | None]:
    """``workspace`` for ``@new-…`` owners; for ``@resume-…`` owners ``ready``,
    ``invalid`` (not a session id), ``missing`` or ``unbound``, with a detail."""
    resume_id = _resume_id(issue)
    if resume_id is None:
        return "workspace", None
    invalid = invalid_owner(issue)
    if invalid is not None:
        return "invalid", invalid.detail
    from openalice import sessions  # lazy: the scan's report reads REASONS alone

    try:
        binding = sessions.load_session(ws, resume_id)
    except AliceError as exc:
        state = "missing" if exc.code in ("session_not_found", "not_found") else "unbound"
        return state, exc.message
    if not getattr(binding, "agent", None):
        return "unbound", f"session {resume_id} has no agent"
    return "ready", None


def invalid_owner(issue: Any) -> Blocker | None:
    """An ``owner_invalid`` blocker when the ``@resume-…`` assignee is not a
    session id at all (no session can ever have it), else None.  Reads nothing."""
    resume_id = _resume_id(issue)
    if resume_id is None:
        return None
    from openalice import sessions  # lazy: the scan's report reads REASONS alone

    try:
        sessions.check_resume_id(resume_id, field="assignee")
    except AliceError as exc:
        return Blocker("owner_invalid", f"{exc.message} (session ids use letters, digits, `_` and `-`)",
                       "assignee")
    return None


def _binding(ws: Any, issue: Any) -> tuple[str, dict, str | None] | Blocker:
    """``(agent, credential)`` the run would use, or why there is none."""
    resume_id = _resume_id(issue)
    if resume_id is not None:
        state, detail = owner_state(ws, issue)
        if state != "ready":
            hint = ("see 'alice session list'; or assign @new-then-resume to start a new session"
                    if state == "missing" else None)
            return Blocker(f"owner_{state}", detail or state, "assignee", hint)
        from openalice import sessions  # lazy: the scan's report reads REASONS alone

        binding = sessions.load_session(ws, resume_id)
        return binding.agent, dict(binding.credential or {"source": "native"}), binding.model
    from openalice import sessions  # lazy: the scan's report reads REASONS alone

    credential = _field(issue, "credential")
    source = _field(issue, "credential_source") or _field(issue, "credentialSource")
    try:
        resolved = sessions.resolve_binding(
            ws, surface="headless", agent=_field(issue, "agent"), credential=credential,
            native_credential=source == "native", model=_field(issue, "model"),
            effort=_field(issue, "effort"))
    except AliceError as exc:
        code = exc.code
        if code == "unknown_agent":
            return Blocker("unknown_agent", exc.message, "agent", (exc.details or {}).get("hint"))
        if code == "not_headless":
            return Blocker("not_headless", exc.message, "agent")
        if code == "credential_not_found":
            return Blocker("credential_missing", f"credential {credential!r} is not in the vault",
                           "credential", "add it with 'alice credential add', or see "
                                         "'alice credential list'")
        return Blocker("runtime_invalid", exc.message, exc.field or "agent")
    return resolved["agent"], dict(resolved["credential"]), resolved.get("model")


def _run_path(environ: Mapping[str, str]) -> str:
    """The ``PATH`` a run gets (:func:`openalice.agents.child_env`)."""
    # lazy: the scan's report reads REASONS alone
    from openalice.agents import compose_path, shims_dir

    return compose_path(shims_dir(), environ.get("PATH", os.defpath))


def run_blocker(ws: Any, issue: Any, *, environ: Mapping[str, str] | None = None) -> Blocker | None:
    """Why ``issue``'s headless run cannot start now, or None.  Reads the
    session file, the workspace settings, the vault records (never a secret)
    and ``PATH`` (``environ``, default the process environment)."""

    from openalice import agents  # lazy: the scan's report reads REASONS alone

    environ = os.environ if environ is None else environ
    got = _binding(ws, issue)
    if isinstance(got, Blocker):
        return got
    agent, credential, _model = got
    field = "assignee" if _resume_id(issue) else "agent"
    try:
        adapter = agents.get_adapter(agent)
    except AliceError as exc:
        return Blocker("unknown_agent", exc.message, field, (exc.details or {}).get("hint"))
    capabilities = adapter.capabilities
    if not capabilities.headless:
        return Blocker("not_headless", f"agent {agent!r} cannot run headless", field)
    if credential.get("source") == "vault":
        from openalice import credentials  # lazy: the scan's report reads REASONS alone

        slug = credential.get("credentialSlug")
        cred_field = "assignee" if _resume_id(issue) else "credential"
        try:
            credentials.get(slug)
        except AliceError:
            return Blocker("credential_missing", f"credential {slug!r} is not in the vault", cred_field,
                           "add it with 'alice credential add', or see 'alice credential list'")
        if not credentials.has_secret(slug):
            return Blocker("credential_missing", f"credential {slug!r} has no key stored", cred_field,
                           f"store it with 'alice credential add {slug} --replace'")
    executable = capabilities.executable
    if executables.which(executable, path=_run_path(environ)) is None:
        where = "is not executable" if os.path.isabs(executable) else "is not on PATH"
        return Blocker("agent_not_installed", f"agent {agent!r}: {executable!r} {where}", field,
                       "install it, or run 'alice doctor' to see which agents are found; a timer "
                       "uses the PATH it was installed with")
    return None


def native_login(ws: Any, issue: Any, *, environ: Mapping[str, str] | None = None):
    """The agent's native login (:func:`openalice.agents.login.evidence`, the
    cheap answer) when ``issue`` runs on native auth, else None.  Never part
    of :func:`run_blocker`: the scan does not refuse a run for a login (a
    login the check cannot see must still run); health and doctor warn."""
    from openalice.agents import login  # lazy: only native-auth issues ask

    got = _binding(ws, issue)
    if isinstance(got, Blocker):
        return None
    agent, credential, model = got
    if credential.get("source", "native") != "native" or not login.needs_login(agent, model):
        return None
    return login.evidence(agent, os.environ if environ is None else environ)


def login_blocker(found, *, workspace: str | None = None, issue: str | None = None) -> Blocker | None:
    """A ``not_logged_in`` blocker from :func:`native_login`'s answer (its
    hint names the issue when ``workspace`` and ``issue`` are given)."""
    if found is None or found.state != "logged_out":
        return None
    hint = found.hint
    if hint and workspace and issue:
        hint = hint.replace("alice issue update ISSUE", f"alice issue update {issue} --workspace {workspace}")
    return Blocker("not_logged_in", f"agent {found.agent!r} is not logged in ({found.how}) and the issue "
                                    "names no credential", "credential", hint)
