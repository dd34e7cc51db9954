"""Studio state on disk: one record per workspace, one file per published route.

    $OPENALICE_HOME/state/studio/<workspace-id>/state.json       the generation record (studio-state schema)
    $OPENALICE_HOME/state/studio/<workspace-id>/operation.lease  serializes start/stop/restart
    $OPENALICE_HOME/state/studio/<workspace-id>/studio.log       the app's output (+ studio.log.1)
    $OPENALICE_HOME/state/studio/<workspace-id>/supervisor.log   the supervisor's own diagnostics
    $OPENALICE_HOME/state/studio/routes/<surface-id>.json        a ready generation's route (studio-route schema)
    $OPENALICE_HOME/state/studio/proxy.json                      the running proxy (studio-proxy schema)

State is per machine (the processes it describes run here), so it lives in the
home, not in the workspace.  Every change to a record goes through
:func:`update_state`, under the record's lock, and names the generation it
is about: a writer whose generation is no longer current changes nothing.
Route files are written and removed under that same lock, so a route is
never published for a generation that is being stopped.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path

from openalice.core import fs, paths, patterns
from openalice.core.errors import AliceError, InvalidInput
from openalice.core.resources import schema_validator

__all__ = [
    "PHASES", "LIVE_PHASES", "HOST_SUFFIX", "studio_root", "workspace_dir", "state_path", "lease_path",
    "log_path", "supervisor_log_path", "routes_dir", "route_path", "proxy_path", "empty_state",
    "read_state", "update_state", "new_surface_id", "host_for", "surface_id_of_host", "publish_route",
    "withdraw_route", "read_route",
]

PHASES = ("stopped", "starting", "ready", "failed", "stopping")
LIVE_PHASES = ("starting", "ready", "stopping")
SCHEMA_VERSION = 1
HOST_PREFIX = "oa-surface-"
HOST_SUFFIX = ".localhost"
_SURFACE_ID_RE = patterns.compile(r"[0-9a-f]{24}\Z")
_HOST_RE = patterns.compile(r"oa-surface-([0-9a-f]{24})\.localhost\Z")
_WS_ID_RE = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")


def studio_root() -> Path:
    return paths.state_dir() / "studio"


def workspace_dir(workspace_id: str) -> Path:
    if not isinstance(workspace_id, str) or not _WS_ID_RE.match(workspace_id) or workspace_id in (".", ".."):
        raise InvalidInput(f"invalid workspace id {workspace_id!r}", field="workspaceId", code="bad_workspace_id")
    if workspace_id == "routes":
        # The routes directory shares the parent; a workspace of that id gets a distinct folder.
        return studio_root() / "ws-routes"
    return studio_root() / workspace_id


def state_path(workspace_id: str) -> Path:
    return workspace_dir(workspace_id) / "state.json"


def lease_path(workspace_id: str) -> Path:
    return workspace_dir(workspace_id) / "operation.lease"


def log_path(workspace_id: str) -> Path:
    return workspace_dir(workspace_id) / "studio.log"


def supervisor_log_path(workspace_id: str) -> Path:
    return workspace_dir(workspace_id) / "supervisor.log"


def routes_dir() -> Path:
    return studio_root() / "routes"


def proxy_path() -> Path:
    return studio_root() / "proxy.json"


def route_path(surface_id: str) -> Path:
    if not isinstance(surface_id, str) or not _SURFACE_ID_RE.match(surface_id):
        raise InvalidInput(f"invalid surface id {surface_id!r}", field="surfaceId", code="bad_surface_id")
    return routes_dir() / f"{surface_id}.json"


def empty_state(workspace_id: str) -> dict:
    return {"schemaVersion": SCHEMA_VERSION, "workspaceId": workspace_id, "phase": "stopped",
            "generation": 0, "host": None, "ports": {}, "pid": None, "error": None}


def read_state(workspace_id: str) -> dict:
    """The workspace's record (a never-started workspace reads as ``stopped``, generation 0)."""
    path = state_path(workspace_id)
    data = fs.read_json(path, missing=None)
    if data is None:
        return empty_state(workspace_id)
    if not isinstance(data, dict) or data.get("phase") not in PHASES or not isinstance(data.get("generation"), int):
        raise InvalidInput("not a Studio state record (phase/generation missing)", file=path,
                           code="malformed_studio_state")
    violations = schema_validator("studio-state").errors(data)
    if violations:  # a pid that is a list would be signalled, a host that is a path published
        first = violations[0]
        raise InvalidInput(f"not a Studio state record: {first.message}", file=path,
                           field=first.instance_path or "/", code="malformed_studio_state")
    return data


def update_state(workspace_id: str, change: Callable[[dict], dict | None]) -> dict:
    """Read-modify-write the record under its lock; ``change`` returns the new
    record, or None to leave it as it is.  Returns the record as stored."""
    path = state_path(workspace_id)
    fs.ensure_dir(path.parent, 0o700)
    with fs.locked_file(path):
        current = read_state(workspace_id)
        new = change(dict(current))
        if new is None or new == current:
            return current
        fs.atomic_write_json(path, new, mode=0o600)
        return new


# -- routes -----------------------------------------------------------------------------------------

def new_surface_id() -> str:
    """24 random hex digits: the opaque part of a generation's host."""
    return secrets.token_hex(12)


def host_for(surface_id: str) -> str:
    return f"{HOST_PREFIX}{surface_id}{HOST_SUFFIX}"


def surface_id_of_host(host_header: str | None) -> str | None:
    """The surface id a Host header names, or None.

    Case is ignored and a ``:port`` suffix is dropped (the proxy may listen on
    any port); nothing else matches: no other name, no IP, no path routing.
    """
    if not host_header:
        return None
    host = host_header.strip().lower()
    if host.startswith("["):
        return None
    name, sep, port = host.rpartition(":")
    if sep:
        if not port.isdigit():
            return None
        host = name
    match = _HOST_RE.match(host)
    return match.group(1) if match else None


def publish_route(surface_id: str, record: dict) -> Path:
    path = route_path(surface_id)
    fs.ensure_dir(path.parent, 0o700)
    fs.atomic_write_json(path, record, mode=0o600)
    return path


def withdraw_route(host: str | None) -> bool:
    """Remove the route of ``host``; False if there was none."""
    surface_id = surface_id_of_host(host)
    if surface_id is None:
        return False
    return fs.remove_file(route_path(surface_id))


def read_route(surface_id: str) -> dict | None:
    """The published route of ``surface_id`` or None (missing or unreadable: no route)."""
    try:
        data = fs.read_json(route_path(surface_id), missing=None, max_bytes=64 * 1024)
    except AliceError:
        return None
    return data if isinstance(data, dict) else None

