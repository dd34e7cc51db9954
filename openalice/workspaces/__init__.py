"""Workspaces: the registry of agent workspaces, how a command finds its own,
and the one rule of who may write which workspace (:mod:`.access`).

Registry ``$OPENALICE_HOME/workspaces.json``::

    {"version": 1, "workspaces": [{"id", "label", "path", "template", "createdAt"}]}

A workspace is a directory with an ``.alice/`` folder.  Registering never
copies or moves user files; unregistering never deletes them.
"""

from .access import Access, Caller, authorize_attended, authorize_write
from .registry import (
    INIT_PROJECTORS,
    TEMPLATES,
    RunEnvironment,
    Workspace,
    alice_dir,
    available_root,
    find,
    get,
    id_base,
    init,
    list_workspaces,
    registry_path,
    remove,
    resolve,
    run_environment,
)

__all__ = [
    "INIT_PROJECTORS", "TEMPLATES", "Workspace", "RunEnvironment", "alice_dir", "available_root", "find", "get",
    "id_base", "init", "list_workspaces", "registry_path", "remove", "resolve", "run_environment",
    "Caller", "Access", "authorize_write", "authorize_attended",
]
