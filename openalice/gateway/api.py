"""The JSON API: each route checks its input, runs one CLI verb with ``--json``
and maps the exit code to an HTTP status (2→400, 3→503, 4→403, 1→500, as
``errors.STATUS_FOR_EXIT`` says), passing the CLI's document through unchanged.

Nothing here reads a state file: the answer is always the CLI's.  Values go
to the child as separate argv items (``--flag=value``, so a value starting
with ``-`` is never read as a flag); bodies and secrets go on stdin (the
mappings of request bodies to argv are :mod:`.fields`).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Callable, Sequence

from openalice.core.errors import AliceError
from openalice.journal import make_filter
from openalice.runs.tasks import STATUSES as RUN_STATUSES

from . import delivery
from .api_issues import ISSUE_ROUTES, IssueRoutes
from .api_runs import RUN_ROUTES, RunRoutes
from .api_studio import STUDIO_ROUTES, StudioRoutes
from .api_workspace import WORKSPACE_ROUTES, WorkspaceRoutes
from .errors import STATUS_FOR_EXIT, HttpError, error_document
from .fields import ISSUE_CREATE_FIELDS, ISSUE_UPDATE_FIELDS, adapter_action_args, issue_args
from .params import Query, check_param, json_body, text_value
from .runner import CliResult, CliRunner

__all__ = ["Request", "Response", "Stream", "Api", "ROUTES"]


class Request:
    __slots__ = ("method", "segments", "query", "headers", "body", "params", "spawned",
                 "cli_seconds")

    def __init__(self, method: str, segments: Sequence[str], query: list[tuple[str, str]],
                 headers, body: bytes = b"") -> None:
        self.method = method
        self.segments = list(segments)
        self.query = query
        self.headers = headers
        self.body = body
        self.params: dict[str, str] = {}
        self.spawned = 0
        self.cli_seconds = 0.0  # time spent in children (Server-Timing)


class Response:
    __slots__ = ("status", "body", "headers")

    def __init__(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body
        self.headers = {"Content-Type": "application/json"} if headers is None else headers

    @classmethod
    def json(cls, status: int, document: Any) -> "Response":
        return cls(status, json.dumps(document, ensure_ascii=False).encode("utf-8"))

    @classmethod
    def unreadable(cls, verb: str) -> "Response":
        """502: ``verb`` printed a document the gateway cannot read."""
        return cls.json(502, {"error": {"code": "cli_failed", "exit": 1,
                                        "message": f"{verb} returned a document the gateway cannot read"}})

    @classmethod
    def error(cls, err: HttpError) -> "Response":
        response = cls.json(err.status, error_document(err))
        response.headers.update(err.headers)
        return response


class Stream:
    """A Server-Sent-Events response fed by a long-lived CLI child."""

    __slots__ = ("tool", "args")

    def __init__(self, tool: str, args: Sequence[str]) -> None:
        self.tool = tool
        self.args = list(args)


# (method, path pattern, handler name, query keys).  ``{kind}`` segments are
# checked with params.PARAM_CHECKS[kind] before the handler runs.
ROUTES: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("GET", "/api/workspaces", "workspaces", ()),
    ("GET", "/api/adapters", "adapters", ("probe",)),
    ("GET", "/api/adapters/{adapter}", "adapter_show", ("probe",)),
    ("GET", "/api/adapters/{adapter}/available-models", "adapter_models", ("refresh",)),
    ("POST", "/api/adapters/{adapter}", "adapter_action", ()),
    ("GET", "/api/issues", "issues_board", ()),
    ("POST", "/api/issues", "issue_create", ()),
    ("GET", "/api/issues/{workspace}/{issue}", "issue_show", ()),
    ("PATCH", "/api/issues/{workspace}/{issue}", "issue_update", ()),
    ("POST", "/api/issues/{workspace}/{issue}/run-now", "issue_run_now", ()),
    ("GET", "/api/issues/{workspace}/{issue}/thread", "issue_thread", ()),
    ("POST", "/api/issues/{workspace}/{issue}/comments", "issue_comment", ()),
    ("GET", "/api/runs", "runs", ("limit", "before", "status", "workspace", "issue")),
    ("GET", "/api/runs/{task}", "run_show", ()),
    ("GET", "/api/health", "health", ("workspace",)),
    ("GET", "/api/inbox", "inbox_list", ("limit", "before", "unread", "workspace")),
    ("GET", "/api/inbox/unread-count", "inbox_count", ("workspace",)),
    ("POST", "/api/inbox/mark-all-read", "inbox_mark_all_read", ()),
    ("GET", "/api/inbox/{entry}", "inbox_show", ()),
    ("GET", "/api/inbox/{entry}/files", "inbox_files", ()),
    ("GET", "/api/inbox/{entry}/files/{index}", "inbox_file", ("require",)),
    ("POST", "/api/inbox/{entry}/read", "inbox_read", ()),
    ("POST", "/api/inbox/{entry}/unread", "inbox_unread", ()),
    ("GET", "/api/connectors", "connectors", ()),
    ("POST", "/api/connectors/{connector}/test", "connector_test", ()),
    ("GET", "/api/agent-runtime", "journal",
     ("afterSeq", "family", "type", "limit", "page")),
    ("GET", "/api/agent-runtime/stream", "journal_stream", ("afterSeq", "family", "type")),
    *RUN_ROUTES,  # the run detail view's routes (api_runs.py)
    *ISSUE_ROUTES,  # the issue detail view's and issue forms' routes (api_issues.py)
    *WORKSPACE_ROUTES, *STUDIO_ROUTES,  # the workspace view's (api_workspace.py, api_studio.py)
]

_COMPILED = [(method, pattern.strip("/").split("/"), name, keys)
             for method, pattern, name, keys in ROUTES]
# More literal segments first, so /api/inbox/unread-count wins over /api/inbox/{entry}.
_COMPILED.sort(key=lambda r: (len(r[1]), -sum(not s.startswith("{") for s in r[1])))


def _shape_matches(pattern: list[str], segments: list[str]) -> bool:
    return len(pattern) == len(segments) and all(
        p.startswith("{") or p == s for p, s in zip(pattern, segments))


def match(method: str, segments: list[str]) -> tuple[str, dict[str, str], tuple[str, ...]]:
    """``(handler name, params, query keys)``; HttpError 404 / 405 / 400."""
    shaped = [r for r in _COMPILED if _shape_matches(r[1], segments)]
    if not shaped:
        raise HttpError(404, "no such API route", code="not_found")
    best = max(sum(not s.startswith("{") for s in r[1]) for r in shaped)
    shaped = [r for r in shaped if sum(not s.startswith("{") for s in r[1]) == best]
    for route_method, pattern, name, keys in shaped:
        if route_method == method:
            params = {}
            for p, s in zip(pattern, segments):
                if p.startswith("{"):
                    kind = p[1:-1]
                    params[kind] = check_param(kind, s)
            return name, params, keys
    allowed = sorted({r[0] for r in shaped})
    raise HttpError(405, f"{method} is not allowed here (allowed: {', '.join(allowed)})",
                    code="method_not_allowed", headers={"Allow": ", ".join(allowed)})


class Api(RunRoutes, IssueRoutes, WorkspaceRoutes, StudioRoutes):
    """Route handlers.  Each returns a Response or a Stream."""

    def __init__(self, runner: CliRunner) -> None:
        self.runner = runner

    def handle(self, request: Request) -> Response | Stream:
        name, params, keys = match(request.method, request.segments)
        request.params = params
        query = Query(request.query, keys)
        handler: Callable[[Request, Query], Response | Stream] = getattr(self, "route_" + name)
        return handler(request, query)

    # -- running a verb -------------------------------------------------------------
    def call(self, request: Request, tool: str, args: Sequence[str], *,
             stdin: bytes | None = None) -> CliResult:
        request.spawned += 1
        result = self.runner.run(tool, args, stdin=stdin)
        request.cli_seconds += result.seconds
        return result

    def passthrough(self, request: Request, tool: str, args: Sequence[str], *,
                    stdin: bytes | None = None) -> Response:
        return self.respond(self.call(request, tool, args, stdin=stdin))

    @staticmethod
    def respond(result: CliResult) -> Response:
        """The CLI's document with the status its exit code maps to."""
        verb = " ".join(a for a in result.args[:2] if not a.startswith("-"))
        if result.timed_out:
            return Response.json(504, {"error": {
                "code": "cli_timeout", "exit": 3,
                "message": f"{result.tool} {verb} did not finish in time"}})
        status = STATUS_FOR_EXIT.get(result.exit_code, 500)
        body = result.stdout.strip()
        if body[:1] in (b"{", b"["):
            return Response(status, body)
        return Response.json(502 if status == 200 else status, {"error": {
            "code": "cli_failed", "exit": 1,
            "message": f"{result.tool} {verb} exited {result.exit_code} without a JSON document"}})

    # -- workspaces, adapters ---------------------------------------------------------
    def route_workspaces(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice", ["workspace", "list", "--json"])

    def route_adapters(self, req: Request, q: Query) -> Response:
        probe = q.flag("probe") if q.has("probe") else True
        return self.passthrough(req, "harness-adapter",
                                ["list", "--json"] + (["--probe"] if probe else []))

    def route_adapter_show(self, req: Request, q: Query) -> Response:
        args = ["show", req.params["adapter"], "--json"] + (["--probe"] if q.flag("probe") else [])
        return self.passthrough(req, "harness-adapter", args)

    def route_adapter_models(self, req: Request, q: Query) -> Response:
        args = ["available-models", req.params["adapter"], "--json"]
        return self.passthrough(req, "harness-adapter",
                                args + (["--refresh"] if q.flag("refresh") else []))

    def route_adapter_action(self, req: Request, q: Query) -> Response:
        args, stdin = adapter_action_args(req.params["adapter"], req.body)
        return self.passthrough(req, "harness-adapter", args, stdin=stdin)

    # -- issues --------------------------------------------------------------------------
    def route_issues_board(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice", ["issue", "board", "--json"])

    def route_issue_create(self, req: Request, q: Query) -> Response:
        data = json_body(req.body, allowed=ISSUE_CREATE_FIELDS, required=("workspace", "title"))
        workspace = check_param("workspace", text_value(data["workspace"], "workspace"),
                                field="workspace")
        args = ["issue", "create", f"--workspace={workspace}", "--json"]
        if data.get("id") is not None:
            args.append(f"--id={check_param('issue', text_value(data['id'], 'id'), field='id')}")
        if data.get("unset") is not None:
            raise HttpError(400, "unset applies to updates only", code="bad_field", field="unset")
        fields, stdin = issue_args(data, create=True)
        return self.passthrough(req, "alice", args + fields, stdin=stdin)

    def route_issue_show(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice", ["issue", "show", req.params["issue"],
                                               f"--workspace={req.params['workspace']}", "--json"])

    def route_issue_update(self, req: Request, q: Query) -> Response:
        data = json_body(req.body, allowed=ISSUE_UPDATE_FIELDS)
        fields, stdin = issue_args(data, create=False)
        if not fields:
            raise HttpError(400, "nothing to change: give a field, body or unset",
                            code="missing_field")
        args = ["issue", "update", req.params["issue"], f"--workspace={req.params['workspace']}",
                "--json"]
        return self.passthrough(req, "alice", args + fields, stdin=stdin)

    def route_issue_run_now(self, req: Request, q: Query) -> Response:
        json_body(req.body, allowed=())
        return self.passthrough(req, "alice-schedule", [
            "run-now", req.params["issue"], f"--workspace={req.params['workspace']}", "--json"])

    # -- conversations (docs/conversations.md) -------------------------------------------
    #: ``wait`` is bounded below the child's own time limit, so the CLI's exit 3
    #: (still pending) answers, not the runner's timeout.
    COMMENT_WAIT_SECONDS = 90

    def route_issue_thread(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice", ["issue", "thread", req.params["issue"],
                                               f"--workspace={req.params['workspace']}", "--json"])

    def route_issue_comment(self, req: Request, q: Query) -> Response:
        data = json_body(req.body, allowed=("body", "replyTo", "wait"), required=("body",))
        body = text_value(data["body"], "body", max_chars=64 * 1024)
        args = ["issue", "comment", req.params["issue"], f"--workspace={req.params['workspace']}",
                "--body-file=-", "--via=web", "--json"]
        if data.get("replyTo") is not None:
            args.append(f"--reply-to={text_value(data['replyTo'], 'replyTo', max_chars=128)}")
        if data.get("wait") is not None:
            if not isinstance(data["wait"], bool):
                raise HttpError(400, "wait must be true or false", code="bad_field", field="wait")
            if data["wait"]:
                args += ["--wait", f"--timeout={self.COMMENT_WAIT_SECONDS}"]
        return self.passthrough(req, "alice", args, stdin=body.encode("utf-8"))

    # -- runs and health --------------------------------------------------------------------
    @staticmethod
    def _flags(q: Query, **kinds: str) -> list[str]:
        """``--key=value`` for each query value given, checked as its ``kind``."""
        return [f"--{key}={value}" for key, kind in kinds.items()
                if (value := q.text(key, kind)) is not None]

    def route_runs(self, req: Request, q: Query) -> Response:
        args = ["runs", "--json", f"--limit={q.integer('limit', low=1, high=1000, default=50)}"]
        status = q.choice("status", RUN_STATUSES)
        args += self._flags(q, before="task") + ([f"--status={status}"] if status else [])
        args += self._flags(q, workspace="workspace", issue="issue")
        if q.has("issue") and not q.has("workspace"):
            raise HttpError(400, "issue needs workspace", code="missing_field", field="workspace")
        return self.passthrough(req, "alice-schedule", args)

    def route_run_show(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice-schedule", ["run", req.params["task"], "--json"])

    def route_health(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice-schedule",
                                ["health", "--json", *self._flags(q, workspace="workspace")])

    # -- inbox ------------------------------------------------------------------------------
    def route_inbox_list(self, req: Request, q: Query) -> Response:
        args = ["list", "--json", f"--limit={q.integer('limit', low=1, high=1000, default=50)}"]
        args += self._flags(q, before="entry") + (["--unread"] if q.flag("unread") else [])
        args += self._flags(q, workspace="workspace")
        return self.passthrough(req, "alice-inbox", args)

    def route_inbox_count(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice-inbox",
                                ["count", "--json", *self._flags(q, workspace="workspace")])

    def route_inbox_mark_all_read(self, req: Request, q: Query) -> Response:
        data = json_body(req.body, allowed=("workspace",))
        args = ["mark-all-read", "--json"]
        if data.get("workspace") is not None:
            workspace = check_param("workspace", text_value(data["workspace"], "workspace"),
                                    field="workspace")
            args.append(f"--workspace={workspace}")
        return self.passthrough(req, "alice-inbox", args)

    def route_inbox_show(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice-inbox", ["show", req.params["entry"], "--json"])

    def route_inbox_files(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice-inbox", ["files", req.params["entry"], "--json"])

    def route_inbox_read(self, req: Request, q: Query) -> Response:
        json_body(req.body, allowed=())
        return self.passthrough(req, "alice-inbox", ["read", req.params["entry"], "--json"])

    def route_inbox_unread(self, req: Request, q: Query) -> Response:
        json_body(req.body, allowed=())
        return self.passthrough(req, "alice-inbox", ["unread", req.params["entry"], "--json"])

    def route_inbox_file(self, req: Request, q: Query) -> Response:
        """The entry's file, re-checked by ``cat`` on every read (entry, workspace,
        containment, revision); served per :mod:`delivery`."""
        require = q.choice("require", ("revision",))
        args = ["cat", req.params["entry"], f"--index={int(req.params['index'])}", "--json"]
        if require:
            args.append("--require-revision")
        result = self.call(req, "alice-inbox", args)
        if result.exit_code != 0:
            return self.respond(result)
        try:
            doc = json.loads(result.stdout)
            if doc["encoding"] == "base64":
                data = base64.b64decode(doc["content"], validate=True)
            else:
                data = doc["content"].encode("utf-8")
            path, matches = doc["path"], doc["matchesRevision"]
        except (ValueError, KeyError, TypeError, binascii.Error):
            return Response.unreadable("alice-inbox cat")
        return Response(200, data, delivery.file_headers(path, data, matches))

    # -- connectors ------------------------------------------------------------------------------
    def route_connectors(self, req: Request, q: Query) -> Response:
        return self.passthrough(req, "alice", ["connector", "list", "--json"])

    def route_connector_test(self, req: Request, q: Query) -> Response:
        json_body(req.body, allowed=())
        return self.passthrough(req, "alice", ["connector", "test", req.params["connector"],
                                               "--json"])

    # -- the activity journal -----------------------------------------------------------------
    @staticmethod
    def _journal_filters(q: Query) -> list[str]:
        """``--family``/``--type`` checked against the journal's registry (code, not
        state), so a follower never starts only to refuse its filter."""
        family, fact_type = q.text("family"), q.text("type")
        try:
            make_filter(family, fact_type)
        except AliceError as err:
            raise HttpError(400, err.message, code=err.code,
                            field="family" if family and "family" in err.code else "type") from None
        return ([f"--family={family}"] if family else []) + ([f"--type={fact_type}"] if fact_type else [])

    def route_journal(self, req: Request, q: Query) -> Response:
        args = ["journal", "--json", *self._journal_filters(q)]
        after = q.integer("afterSeq", low=0, high=2**53)
        page = q.integer("page", low=1, high=10**9)
        limit = q.integer("limit", low=1, high=500)
        if after is not None:
            args.append(f"--after-seq={after}")
        if page is not None:
            args.append(f"--page={page}")
        if limit is not None:
            args.append(f"--limit={limit}")
        return self.passthrough(req, "alice", args)

    def route_journal_stream(self, req: Request, q: Query) -> Stream:
        args = ["journal", "--follow", "--json", *self._journal_filters(q)]
        after = q.integer("afterSeq", low=0, high=2**53)
        last_event = req.headers.get("Last-Event-ID")
        if last_event is not None and last_event.isascii() and last_event.isdigit():
            after = max(after or 0, int(last_event))
        if after is not None:
            args.append(f"--after-seq={after}")
        return Stream("alice", args)
