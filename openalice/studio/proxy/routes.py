"""Host header → upstream, from the route files the supervisor publishes (``state/studio/routes/``)."""

from __future__ import annotations

import os
import threading

from openalice.core.net import is_loopback_ip as is_loopback_host
from openalice.studio import state


class RouteTable:
    """Host → upstream, read from the route files.  The route file is stat'ed on every
    request; a parsed file is reused while its (inode, mtime, size) stays the same, so a
    withdrawn or replaced route is seen on the very next request."""

    MAX_HOSTS = 1024

    def __init__(self, workspace: str | None = None) -> None:
        self.workspace = workspace
        self.directory = os.fspath(state.routes_dir())   # the home is fixed for the process
        self._paths: dict[str, str | None] = {}           # Host header → route file (None: not a surface host)
        self._cache: dict[str, tuple[tuple, tuple | None]] = {}
        self._lock = threading.Lock()

    def lookup(self, host_header: str | None) -> tuple[dict, tuple[str, int] | None] | None:
        """(route, upstream) for a published host, or None; ``upstream`` is None when the
        route does not name a loopback address and port."""
        try:
            path = self._paths[host_header]
        except KeyError:
            surface_id = state.surface_id_of_host(host_header)
            path = f"{self.directory}/{surface_id}.json" if surface_id is not None else None
            with self._lock:
                if len(self._paths) >= self.MAX_HOSTS:
                    self._paths.clear()
                self._paths[host_header] = path
        if path is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            with self._lock:
                self._cache.pop(path, None)
            return None
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        cached = self._cache.get(path)
        if cached is None or cached[0] != key:
            surface_id = os.path.basename(path)[:-len(".json")]
            route = state.read_route(surface_id)
            if route is None:
                return None
            found = None
            if ((self.workspace is None or route.get("workspaceId") == self.workspace)
                    and route.get("host") == state.host_for(surface_id)):
                found = (route, _upstream_of(route))
            cached = (key, found)
            with self._lock:
                self._cache[path] = cached
        return cached[1]


def _upstream_of(route: dict) -> tuple[str, int] | None:
    upstream = route.get("upstream") or {}
    host, port = upstream.get("host"), upstream.get("port")
    if not isinstance(host, str) or not is_loopback_host(host):
        return None
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        return None
    return host, port

