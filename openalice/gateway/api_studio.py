"""The workspace view's other routes (docs/web.md "A workspace"): its Studio
(status, start/stop/restart, the log's tail), its sessions (binding, last
launch), and the connectors (enable, disable, add with the secret on stdin).

A mixin of :class:`~.api.Api`, as :mod:`.api_workspace` is: ids checked by the
route's ``{kind}`` segments and :mod:`.fields_workspace` before any
shell-out, argv items only, the CLI's document passed through.
"""

from __future__ import annotations

from .fields_workspace import connector_add_args, studio_action
from .params import json_body

__all__ = ["STUDIO_ROUTES", "StudioRoutes", "LOG_BYTES"]

STUDIO_ROUTES = [
    ("GET", "/api/workspaces/{workspace}/studio", "studio_status", ()),
    ("POST", "/api/workspaces/{workspace}/studio", "studio_action", ()),
    ("GET", "/api/workspaces/{workspace}/studio/logs", "studio_logs", ("bytes",)),
    ("GET", "/api/workspaces/{workspace}/sessions", "sessions", ()),
    ("POST", "/api/connectors", "connector_add", ()),
    ("POST", "/api/connectors/{connector}/enable", "connector_enable", ()),
    ("POST", "/api/connectors/{connector}/disable", "connector_disable", ()),
]

#: The log tail the view shows by default (the CLI's cap is 64 KiB).
LOG_BYTES = 16 * 1024


class StudioRoutes:
    """Route handlers mixed into :class:`~.api.Api` (``call``/``respond``/``passthrough``)."""

    def route_studio_status(self, req, q):
        return self.passthrough(req, "alice-harness", [
            "studio", "status", f"--workspace={req.params['workspace']}", "--json"])

    def route_studio_action(self, req, q):
        """``studio start|stop|restart``: start waits until ready (exit 0) or failed
        (exit 3, the status in ``error.details.status``)."""
        return self.passthrough(req, "alice-harness", [
            "studio", studio_action(req.body), f"--workspace={req.params['workspace']}", "--json"])

    def route_studio_logs(self, req, q):
        count = q.integer("bytes", low=1, high=65536, default=LOG_BYTES)
        return self.passthrough(req, "alice-harness", [
            "studio", "logs", f"--workspace={req.params['workspace']}", f"--bytes={count}", "--json"])

    def route_sessions(self, req, q):
        return self.passthrough(req, "alice", [
            "session", "list", f"--workspace={req.params['workspace']}", "--json"])

    def route_connector_add(self, req, q):
        args, stdin = connector_add_args(req.body)
        return self.passthrough(req, "alice", args, stdin=stdin)

    def route_connector_enable(self, req, q):
        json_body(req.body, allowed=())
        return self.passthrough(req, "alice", ["connector", "enable", req.params["connector"], "--json"])

    def route_connector_disable(self, req, q):
        json_body(req.body, allowed=())
        return self.passthrough(req, "alice", ["connector", "disable", req.params["connector"], "--json"])
