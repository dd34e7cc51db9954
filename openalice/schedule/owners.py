"""Can this issue's owner run headless right now?  (Checked before admission.)

A problem here is an admission skip: the run is not created, the cursor does
not move, and the issue stays due, so fixing the owner (or the agent) lets the
next scan run it.  The checks need the agent-runtime capability; without it
they pass and the runner reports any problem when it resolves the runtime.
"""

from __future__ import annotations

from typing import Any

from openalice.core.errors import AliceError

__all__ = ["owner_problem", "owner_state"]


def _field(issue: Any, name: str) -> Any:
    return issue.get(name) if isinstance(issue, dict) else getattr(issue, name, None)


def _headless_problem(agent: str) -> tuple[str, str] | None:
    try:
        from openalice.agents import get_adapter
    except ImportError:
        return None
    try:
        adapter = get_adapter(agent)
    except AliceError as exc:
        return "unknown_agent", exc.message
    capabilities = getattr(adapter, "capabilities", None)
    if capabilities is not None and not getattr(capabilities, "headless", True):
        return "not_headless", f"agent {agent!r} cannot run headless"
    return None


def owner_state(ws: Any, issue: Any) -> tuple[str, str | None]:
    """``workspace`` for ``@new-…`` owners, else ``ready``, ``missing`` or
    ``unbound`` for ``@resume-…`` owners, with a detail."""
    assignee = _field(issue, "assignee")
    if not (isinstance(assignee, str) and assignee.startswith("@resume-")):
        return "workspace", None
    try:
        from openalice.sessions import load_session
    except ImportError:
        return "ready", None
    try:
        binding = load_session(ws, assignee[1:])
    except AliceError as exc:
        state = "missing" if exc.code in ("session_not_found", "not_found") else "unbound"
        return state, exc.message
    agent = getattr(binding, "agent", None)
    if not agent:
        return "unbound", f"session {assignee[1:]} has no agent"
    return "ready", None


def owner_problem(ws: Any, issue: Any) -> tuple[str, str] | None:
    """``(reason, detail)`` when the issue cannot be run headless now."""
    assignee = _field(issue, "assignee")
    if isinstance(assignee, str) and assignee.startswith("@resume-"):
        state, detail = owner_state(ws, issue)
        if state != "ready":
            return f"owner_{state}", detail or state
        try:
            from openalice.sessions import load_session

            agent = load_session(ws, assignee[1:]).agent
        except (ImportError, AliceError):
            return None
        return _headless_problem(agent)
    agent = _field(issue, "agent")
    if isinstance(agent, str) and agent:
        return _headless_problem(agent)
    return None
