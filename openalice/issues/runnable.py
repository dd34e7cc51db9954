"""What the scheduler would refuse, told when an issue is validated or written.

The rule is the scanner's own, :func:`.readiness.run_blocker`
(no second copy here); this module only sorts its answer for the file's
author, for scheduled issues that are not done or canceled:

- an **error** (``validate`` flags it, ``create``/``update`` refuse to write):
  an ``@resume-…`` assignee that is not a session id at all, which no machine
  can ever run (``owner_invalid``) — for an unscheduled issue too, since its
  comments are delivered to that session (the conversations);
- a **warning** (reported, the file is written and valid): what depends on
  this machine now — no such session, an unknown agent or one that cannot
  run headless, a credential missing from the vault, an agent that is not
  installed (checked against the ``PATH`` of the process asking; a timer uses
  the ``PATH`` it was installed with).  The scan skips such an issue with that
  reason, and ``alice-schedule health`` shows it ``blocked``.
"""

from __future__ import annotations

from .declaration import FieldError
from .readiness import invalid_owner, run_blocker

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["ERROR_REASONS", "runtime_findings", "due_blocker", "warning_text"]

ERROR_REASONS = frozenset({"owner_invalid"})


def runtime_findings(ws: Any, issue: Any) -> tuple[list[FieldError], list[dict]]:
    """``(errors, warnings)`` for one valid issue; each warning is
    ``{field, reason, code, hint?}`` (``code`` is the scan's skip reason)."""
    if getattr(issue, "is_terminal", False):
        return [], []
    if not getattr(issue, "when", None):
        # Unscheduled, it still owns a conversation: comments go to its session.
        invalid = invalid_owner(issue)
        return ([FieldError(invalid.field, invalid.detail)] if invalid else []), []
    blocker = run_blocker(ws, issue)
    if blocker is None:
        return [], []
    if blocker.reason in ERROR_REASONS:
        return [FieldError(blocker.field, blocker.detail)], []
    return [], [_warning(blocker)]


def due_blocker(ws: Any, issue: dict) -> dict | None:
    """For an issue view that says "due now" (:func:`.views.issue_json`): the
    warning of :func:`runtime_findings` when the next scan will refuse to start
    it (any skip reason, ``owner_invalid`` included), else None.  Only due
    issues are asked, so a listing pays for the readiness rule per due issue,
    not per issue."""
    schedule = issue.get("schedule") or {}
    if issue.get("terminal") or not (schedule.get("note") or "").startswith("due now"):
        return None
    blocker = run_blocker(ws, issue)
    return None if blocker is None else _warning(blocker)


def _warning(blocker: Any) -> dict:
    warning = {"field": blocker.field, "reason": blocker.detail, "code": blocker.reason}
    if blocker.hint:
        warning["hint"] = blocker.hint
    return warning


def warning_text(path: Any, warning: dict) -> str:
    """``<file>:<field>: <reason> (the scan skips it: <code>)``."""
    return (f"{path}:{warning['field']}: {warning['reason']} "
            f"(the scan skips it until this is fixed: {warning['code']})")
