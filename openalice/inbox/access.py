"""Who may change an entry's read state or delete it.

Inside a headless run, writes touch only the run's own workspace
(:func:`openalice.workspaces.authorize_write`): a run may mark read, mark
unread or delete only its own workspace's entries (Forbidden, exit 4), and
``mark-all-read`` inside a run covers only the run's workspace.  Outside a
run every entry is the person's own.

Not imported by :mod:`openalice.inbox` itself: the read verbs never need it.
"""

from __future__ import annotations

from collections.abc import Mapping

from openalice import workspaces

__all__ = ["confine_write", "mark_all_read_scope"]


def confine_write(workspace_id: str, *, env: Mapping[str, str] | None = None) -> None:
    """Inside a headless run, writes touch only the run's own workspace."""
    workspaces.authorize_write(workspaces.Caller.of_process(env=env), workspace_id)


def mark_all_read_scope(workspace_id: str | None, *,
                        env: Mapping[str, str] | None = None) -> str | None:
    """The workspace ``mark-all-read`` covers (None: every one).  Inside a run
    it is the run's own; naming another one is refused."""
    run = workspaces.run_environment(env)
    if run is None:
        return workspace_id
    if workspace_id is not None:
        confine_write(workspace_id, env=env)
    return run.workspace_id
