"""The Workspace Manager: attended sessions that belong to no single workspace.

A manager session runs in its own directory under ``$OPENALICE_HOME/manager/``,
with guidance (``AGENTS.md`` = ``CLAUDE.md``) naming every registered
workspace and how to work across them; its bindings are frozen in
``$OPENALICE_HOME/workspaces/state/workspace-manager-sessions/<resumeId>.json``.
Its child carries ``ALICE_MANAGER_SESSION``, so the caller rule
(:mod:`openalice.workspaces.access`) asks the person at the terminal before any
write of a workspace's issues and commits it there.
"""

from .home import (
    GUIDANCE_FILES,
    ManagerHome,
    guidance_text,
    manager_home,
    new_binding,
    prepare,
)

__all__ = ["GUIDANCE_FILES", "ManagerHome", "guidance_text", "manager_home", "new_binding", "prepare"]
