"""The routes of the page's issue detail view and its richer issue forms
(docs/web.md "Issues"): an issue's next fire times, and the choices the form
offers — the agents the machine knows with their install state, the vault
credentials, the offline model table.

A mixin of :class:`~.api.Api`, kept apart so each file stays small.  As
everywhere, the ids are checked (by the route's ``{kind}`` segments) before
any shell-out, values go as separate argv items, and the answer is the CLI's
own: ``/api/agents`` only keeps the fields of ``alice doctor``'s agent list
and ``harness-adapter list`` that the form shows (no machine paths).
"""

from __future__ import annotations

import json

__all__ = ["ISSUE_ROUTES", "IssueRoutes", "NEXT_COUNT"]

ISSUE_ROUTES = [
    ("GET", "/api/issues/{workspace}/{issue}/next", "issue_next", ("count",)),
    ("GET", "/api/agents", "agents", ()),
    ("GET", "/api/credentials", "credentials", ()),
    ("GET", "/api/models", "models", ()),
]

#: How many upcoming fire instants the detail view shows by default.
NEXT_COUNT = 5
#: ``alice doctor --timeout``: each found agent's ``--version`` is bounded by it.
DOCTOR_TIMEOUT = 3


def _document(result):
    """The CLI's JSON document, or None when stdout is not one."""
    try:
        return json.loads(result.stdout)
    except ValueError:
        return None


class IssueRoutes:
    """Route handlers mixed into :class:`~.api.Api` (``call``/``respond``/``passthrough``)."""

    def route_issue_next(self, req, q):
        count = q.integer("count", low=1, high=50, default=NEXT_COUNT)
        return self.passthrough(req, "alice-schedule", [
            "next", req.params["issue"], f"--workspace={req.params['workspace']}",
            f"--count={count}", "--json"])

    def route_credentials(self, req, q):
        return self.passthrough(req, "alice", ["credential", "list", "--json"])

    def route_models(self, req, q):
        return self.passthrough(req, "alice", ["models", "list", "--json"])

    def route_agents(self, req, q):
        """Every agent the toolkit knows: the built-in engines with whether their
        CLI is on the PATH (``alice doctor``: exit 3 only means a finding needs
        attention, the agent list is still whole) and the adapter catalog's
        engines (``harness-adapter list``), each ``installed`` or not."""
        from .api import Response  # lazy: api imports this module

        doctor = self.call(req, "alice", ["doctor", f"--timeout={DOCTOR_TIMEOUT}", "--json"])
        doc = _document(doctor)
        if not isinstance(doc, dict) or not isinstance(doc.get("agents"), list):
            return self.respond(doctor) if doctor.exit_code not in (0, 3) else \
                Response.unreadable("alice doctor")
        agents = []
        for item in doc["agents"]:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                agents.append({"name": item["name"], "kind": "builtin",
                               "installed": bool(item.get("found")),
                               "version": item.get("version"), "pinned": item.get("pinned"),
                               "problem": item.get("problem")})
        catalog = self.call(req, "harness-adapter", ["list", "--json"])
        listed = _document(catalog) if catalog.exit_code == 0 else None
        known = {a["name"] for a in agents}
        for item in listed if isinstance(listed, list) else []:
            if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"] not in known:
                agents.append({"name": item["id"], "kind": "adapter", "label": item.get("label"),
                               "installed": bool(item.get("enabled")),
                               "problem": None if item.get("enabled") else "adapter disabled"})
        return Response.json(200, {"agents": agents,
                                   "catalog": "ok" if listed is not None else "unavailable"})
