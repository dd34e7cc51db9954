"""What another capability may learn about a run to stamp an origin.

The inbox stamps a push made inside a headless run with that run's identity
(:func:`openalice.inbox.stamp_origin`); it asks here rather than reading the
task registry itself, so the registry's record stays private to ``runs``.
"""

from __future__ import annotations

from . import tasks

__all__ = ["ORIGIN_FIELDS", "run_for_origin"]

#: The record fields an origin stamp may name (trigger: the issue the run serves).
ORIGIN_FIELDS = ("taskId", "workspaceId", "resumeId", "agent", "trigger")


def run_for_origin(run_id: str) -> dict | None:
    """The :data:`ORIGIN_FIELDS` of run ``run_id`` that its record holds;
    None when there is no such run.  A record that cannot be read raises
    (:func:`openalice.runs.tasks.find_task`)."""
    record = tasks.find_task(run_id)
    if record is None:
        return None
    return {key: record[key] for key in ORIGIN_FIELDS if key in record}
