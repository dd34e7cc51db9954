"""Writes from inside a headless run stay inside that run's workspace.

The runner sets ``ALICE_RUN_ID`` and ``ALICE_WORKSPACE_ID`` for every child;
an agent there may change its own workspace's preferences and sessions, but
not another workspace's, and never the machine's credential vault (exit 4).
"""

from __future__ import annotations

__all__ = ["refuse_foreign_write", "refuse_vault_write"]


def refuse_foreign_write(ws) -> None:
    from openalice import workspaces
    from openalice.core.errors import Forbidden

    run = workspaces.run_environment()
    if run is not None and ws.id != run.workspace_id:
        raise Forbidden(f"run {run.run_id} belongs to workspace '{run.workspace_id}' and may not write to "
                        f"workspace '{ws.id}'", code="cross_workspace_write")


def refuse_vault_write() -> None:
    from openalice import workspaces
    from openalice.core.errors import Forbidden

    run = workspaces.run_environment()
    if run is not None:
        raise Forbidden(f"run {run.run_id} may not change the credential vault; a person does that "
                        "outside headless runs", code="vault_write_from_run")
