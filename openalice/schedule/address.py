"""Finding the issue a command names: ``ISSUE`` in the current (or given)
workspace, or ``WORKSPACE/ISSUE`` anywhere."""

from __future__ import annotations

from openalice import workspaces
from openalice.core.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["resolve_issue", "load_issue", "read_issues"]


def resolve_issue(spec: str, *, workspace: str | None = None) -> tuple[Any, str]:
    """``(Workspace, issueId)`` for ``spec``.

    ``WS/ISSUE`` names the workspace by id (workspace ids and issue ids never
    contain ``/``); a bare ``ISSUE`` uses ``--workspace``, else the run
    environment's workspace, else the registered workspace holding the cwd.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError("an issue id is required", code="usage")
    spec = spec.strip()
    if "/" in spec and workspace is None:
        ws_id, _, issue_id = spec.rpartition("/")
        if not ws_id or not issue_id:
            raise UsageError(f"expected ISSUE or WORKSPACE/ISSUE, got {spec!r}", code="usage")
        return workspaces.get(ws_id), issue_id
    if "/" in spec:
        raise UsageError("give either --workspace with a bare ISSUE, or WORKSPACE/ISSUE", code="usage")
    return workspaces.resolve(workspace), spec


def load_issue(ws: Any, issue_id: str) -> Any:
    """The live issue (NotFound exit 2, InvalidInput for a malformed file),
    through the issue index (:mod:`openalice.issues.index`)."""
    from openalice.issues import index  # lazy: (as read_issues)

    return index.load_issue(ws, issue_id)


def read_issues(ws: Any) -> Any:
    """Every issue of ``ws`` through the issue index: an unchanged file is not parsed."""
    from openalice.issues import index  # lazy: only the readers of many issues need it

    return index.read_issues(ws)
