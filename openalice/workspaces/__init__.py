"""Workspaces: the registry of agent workspaces, how a command finds its own,
and the one rule of who may write which workspace (:mod:`.access`).

Registry ``$OPENALICE_HOME/workspaces.json``::

    {"version": 1, "workspaces": [{"id", "label", "path", "template", "createdAt"}]}

A workspace is a directory with an ``.alice/`` folder.  Registering never
copies or moves user files; unregistering never deletes them.
"""

from .registry import (  # noqa: F401
    INIT_PROJECTORS, TEMPLATES, Workspace, RunEnvironment, alice_dir, find, get, init,
    list_workspaces, registry_path, remove, resolve, run_environment,
)

__all__ = [
    "INIT_PROJECTORS", "TEMPLATES", "Workspace", "RunEnvironment", "alice_dir", "find", "get",
    "init", "list_workspaces", "registry_path", "remove", "resolve", "run_environment",
    "Caller", "Access", "authorize_write",
]

_LAZY = {"Caller": "access", "Access": "access", "authorize_write": "access"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'openalice.workspaces' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
