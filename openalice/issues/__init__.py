"""Markdown issues: ``<workspace>/.alice/issues/<id>.md`` and their comments.

The API other parts use (docs/issues.md), the scheduler and the runner
included:

* :func:`read_issues` (ws) -> :class:`IssueSet` — every issue of a workspace,
  bad files as :class:`InvalidIssue` without hiding the others;
* :func:`load_issue` (ws, id) -> :class:`Issue`;
* :func:`claim_new_then_resume`, :func:`mark_done` — the scheduler's rewrites;
* :func:`schedule_problem` (issue or when, now) — why a schedule can never fire;
* :func:`create`, :func:`update`, :func:`add_comment`, :func:`list_comments`;
* :mod:`.due` (when a schedule is due, from its cursor), :mod:`.cursors` (the
  per-issue schedule memory the scanner writes) and :mod:`.readiness`
  (whether an issue's run can start on this machine: the one rule the
  scanner, run-now, health, validation and the doctor ask);

Only the declaration and reader are imported here (the scan must be cheap);
the rest load on first use.  Who may write which workspace's issues is
:func:`openalice.workspaces.authorize_write` (scope ``issues``).
"""

from __future__ import annotations

from openalice.core import lazy

from .declaration import (
    ASSIGNEE_POLICIES,
    EFFORTS,
    PRIORITIES,
    STATUSES,
    TERMINAL_STATUSES,
    TIMEOUTS,
    FieldError,
    InvalidIssue,
    Issue,
    declare,
    what_of,
)
from .reader import IssueSet, find_issue_file, issue_path, issues_dir, load_issue, read_issues

__all__ = [
    "ASSIGNEE_POLICIES", "EFFORTS", "PRIORITIES", "STATUSES", "TERMINAL_STATUSES", "TIMEOUTS",
    "FieldError", "InvalidIssue", "Issue", "IssueSet", "declare", "what_of",
    "issues_dir", "issue_path", "find_issue_file", "read_issues", "load_issue",
    "schedule_problem", "schedule_summary", "create", "update", "claim_new_then_resume",
    "mark_done", "add_comment", "list_comments",
]

_LAZY = {
    "schedule_problem": "schedule", "schedule_summary": "schedule",
    "create": "store", "update": "store", "claim_new_then_resume": "store", "mark_done": "store",
    "add_comment": "comments", "list_comments": "comments",
}


__getattr__ = lazy.exports(__name__, globals(), _LAZY)
