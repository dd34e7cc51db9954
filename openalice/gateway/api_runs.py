"""The run routes of the page's run detail view (docs/web.md "Runs"): retry a
run's issue, and a run's own log files as downloads.

Kept apart from :mod:`.api` (a mixin of :class:`~.api.Api`) so the file stays
small.  As everywhere, the ids are checked before any shell-out, values go as
separate argv items, and the answer is the CLI's own: the gateway never opens
a run's directory itself (``alice-schedule log`` reads the log, picked by the
checked task id and a fixed stream name, so no path ever comes from a request).
"""

from __future__ import annotations

import json

from . import delivery
from .errors import HttpError
from .params import check_param, json_body

__all__ = ["RUN_ROUTES", "RETRYABLE", "RunRoutes"]

RUN_ROUTES = [
    ("POST", "/api/runs/{task}/retry", "run_retry", ()),
    ("GET", "/api/runs/{task}/logs/{log}", "run_log", ()),
    ("POST", "/api/issues/{workspace}/{issue}/run", "issue_run_now", ()),
]

#: The run statuses Retry is offered on (``retry-now`` itself judges the issue's latest run).
RETRYABLE = ("failed", "interrupted")


class RunRoutes:
    """Route handlers mixed into :class:`~.api.Api` (``call``/``respond``/``passthrough``)."""

    def route_run_retry(self, req, q):
        """``alice-schedule run TASK`` names the issue, then ``retry-now`` retries it;
        its refusal (already running: exit 3) is passed through as it is."""
        json_body(req.body, allowed=())
        shown = self.call(req, "alice-schedule", ["run", req.params["task"], "--json"])
        if shown.exit_code != 0:
            return self.respond(shown)
        try:
            task = json.loads(shown.stdout)["task"]
            status, workspace, issue = task.get("status"), task.get("workspaceId"), task.get("issueId")
        except (ValueError, KeyError, TypeError, AttributeError):
            from .api import Response  # lazy: api imports this module

            return Response.unreadable("alice-schedule run")
        if not issue:
            raise HttpError(400, f"run {req.params['task']} belongs to no issue; nothing to retry",
                            code="not_retryable", field="task")
        if status not in RETRYABLE:
            raise HttpError(400, f"run {req.params['task']} is {status}; only a failed or "
                                 "interrupted run is retried", code="not_retryable", field="task")
        workspace = check_param("workspace", str(workspace), field="workspaceId")
        issue = check_param("issue", str(issue), field="issueId")
        return self.passthrough(req, "alice-schedule",
                                ["retry-now", issue, f"--workspace={workspace}", "--json"])

    def route_run_log(self, req, q):
        """The run's stderr or stdout log as a text download (never rendered)."""
        from .api import Response  # lazy: api imports this module

        task, stream = req.params["task"], req.params["log"]
        result = self.call(req, "alice-schedule", ["log", task, f"--stream={stream}", "--json"])
        if result.exit_code != 0:
            return self.respond(result)
        try:
            content = json.loads(result.stdout)["content"].encode("utf-8")
        except (ValueError, KeyError, TypeError, AttributeError):
            return Response.unreadable("alice-schedule log")
        return Response(200, content, {
            "Content-Type": "text/plain; charset=utf-8",
            "Content-Disposition": delivery.content_disposition(f"{task}-{stream}.log", inline=False),
            "Content-Security-Policy": delivery.FILE_CSP,
            "X-Content-Type-Options": "nosniff",
        })
