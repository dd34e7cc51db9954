"""Run now and Retry now: an extra run of a scheduled issue, on demand.

Neither ever moves the issue's schedule cursor.  Both re-read the live issue
(prompt, owner, runtime and timeout come from the file as it is now) and go
through the same admission as the scanner, so an issue never has two live
runs whichever path started them.  Retry additionally needs the issue's
latest run to be ``failed`` or ``interrupted`` and records ``retryOfTaskId``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from openalice.core.errors import Conflict, Unavailable
from openalice.issues.readiness import run_blocker
from openalice.runs import admission

from .address import load_issue
from .launching import resolve_launch, start

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["fire_now"]


def fire_now(ws: Any, issue_id: str, *, fire: str, now: datetime, capacity: int | None = None,
             loader: Callable[[Any, str], Any] | None = None,
             launch: Callable[[str], int] | None = None) -> dict:
    """Admit and launch one ``run-now`` or ``retry`` run; returns
    ``{"task": record, "launched": bool, "pid"?: int, "error"?: str}``."""
    if fire not in ("run-now", "retry"):
        raise ValueError(f"unknown manual fire {fire!r}")
    issue = (loader or load_issue)(ws, issue_id)
    if not getattr(issue, "when", None):
        raise Conflict(f"{ws.id}/{issue.id} has no schedule (no `when`)", code="not_scheduled",
                       details={"hint": "only scheduled issues run headless"})
    if getattr(issue, "is_terminal", False):
        raise Conflict(f"{ws.id}/{issue.id} is {issue.status}; it no longer fires",
                       code="not_fireable", details={"hint": "set its status back to todo to run it"})
    blocker = run_blocker(ws, issue)
    if blocker is not None:
        raise Unavailable(f"{ws.id}/{issue.id} cannot run headless now: {blocker.detail}",
                          code=blocker.reason, field=blocker.field,
                          details={"hint": blocker.hint} if blocker.hint else None)
    if launch is None:
        launch = resolve_launch()
    record = admission.admit(ws, issue, fire=fire, now=now, capacity=capacity)
    return {"task": record, **start(record["taskId"], launch, now=now)}
