"""A loopback fake model server for running the real agent CLIs in tests.

It speaks just enough of three wire protocols for Claude Code, Codex, opencode
and pi to complete a headless turn:

- Anthropic Messages: ``POST /v1/messages`` (SSE or JSON), ``POST
  /v1/messages/count_tokens``, and ``HEAD /`` (Claude Code probes the base URL);
- OpenAI Responses: ``POST /v1/responses`` (SSE or JSON);
- OpenAI chat completions: ``POST /v1/chat/completions`` (SSE or JSON).

Every model request is answered with the assistant text
``FAKE-REPLY[<n>] model=<model> effort=<effort>`` where ``n`` counts the model
requests this server has seen and ``model``/``effort`` are what the request
carried on the wire, so one assertion on a CLI's stdout proves both that the
CLI's argv reached the wire and that its stream was parsed.

Prompt triggers (in the last user message), for tests that cannot reach the
server object, e.g. a turn started by the scheduler:

- ``FAKE_HTTP_ERROR:<status>`` answers that HTTP error instead;
- ``FAKE_TOOL: <shell command>`` answers with a call of the CLI's own shell tool
  (whichever of ``Bash``/``bash``/``exec_command``/``shell`` the request offers);
  once the conversation ends with the tool's result, the plain reply follows.

Every request is recorded (secrets in headers redacted) in ``.requests`` and,
when ``log_path`` is given, appended to a JSONL file.  Standard library only.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

__all__ = ["FakeModelServer", "reply_text", "error_message", "error_body", "API_PATHS", "ERROR_TRIGGER", "TOOL_TRIGGER"]

ERROR_TRIGGER = "FAKE_HTTP_ERROR:"
TOOL_TRIGGER = "FAKE_TOOL:"
API_PATHS = {
    "/v1/messages": "anthropic-messages",
    "/v1/responses": "openai-responses",
    "/v1/chat/completions": "openai-chat",
}
SHELL_TOOLS = ("Bash", "bash", "exec_command", "shell", "shell_command")
MAX_BODY = 64 * 1024 * 1024
_SECRET_HEADER = re.compile(r"(^|-)(authorization|cookie|key|token|secret|auth)($|-)", re.I)
_ERROR_RE = re.compile(re.escape(ERROR_TRIGGER) + r"\s*(\d{3})")
USAGE = {"input": 11, "output": 7}
LOG_TEXT = 400


def error_message(status: int) -> str:
    """The error text of an HTTP error reply.  It avoids words such as "server
    error" or "overloaded" that make some CLIs (opencode) retry a 4xx for minutes."""
    return f"fake API error (HTTP {status})"


# The vendors' error types for the statuses the failure recordings use (401
# bad key, 403, 404 unknown model, 429 rate limit), so a CLI reacts as it
# would to the real service; any other status is a plain invalid request.
_ANTHROPIC_TYPES = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                    429: "rate_limit_error"}
_OPENAI_TYPES = {401: ("invalid_request_error", "invalid_api_key"),
                 403: ("invalid_request_error", "unsupported_country_region_territory"),
                 404: ("invalid_request_error", "model_not_found"),
                 429: ("requests", "rate_limit_exceeded")}


# The vendors' own wording for those statuses (what a CLI shows its user).
_ANTHROPIC_MESSAGES = {401: "invalid x-api-key", 403: "Request not allowed", 404: "model: {model}",
                       429: "Number of requests has exceeded your rate limit"}
_OPENAI_MESSAGES = {401: "Incorrect API key provided. You can find your API key at "
                         "https://platform.openai.com/account/api-keys.",
                    403: "Country, region, or territory not supported",
                    404: "The model `{model}` does not exist or you do not have access to it.",
                    429: "Rate limit reached for requests"}


def vendor_error_message(api: str, status: int, model: object) -> str:
    """What the vendor says for ``status`` (401, 403, 404, 429), else :func:`error_message`."""
    table = _ANTHROPIC_MESSAGES if api == "anthropic-messages" else _OPENAI_MESSAGES
    text = table.get(status)
    return error_message(status) if text is None else text.format(model=model)


def error_body(api: str, status: int, message: str) -> dict:
    """The JSON body of an HTTP error reply, in the vendor's shape."""
    if api == "anthropic-messages":
        kind = _ANTHROPIC_TYPES.get(status, "invalid_request_error" if status < 500 else "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind, code = _OPENAI_TYPES.get(status, ("invalid_request_error", "fake_error"))
    return {"error": {"type": kind, "code": code, "message": message, "param": None}}


def reply_text(n: int, model: object, effort: object) -> str:
    """The assistant text of the ``n``-th model request."""
    return f"FAKE-REPLY[{n}] model={model} effort={'unset' if effort is None else effort}"


class FakeModelServer:
    """``with FakeModelServer() as server:`` serves on ``server.url`` until exit.

    ``error_status`` (settable at any time) answers every model request with
    that HTTP status; ``require_key`` answers 401 to a model request that
    carries no key, as the vendors do (a CLI that is not logged in).  ``netns`` is an object with ``call(fn)`` that runs ``fn``
    inside another network namespace (see ``netns.LoopbackNetns``): the listening
    socket is then created there, reachable only from processes in that namespace.
    """

    def __init__(self, *, log_path=None, error_status: int | None = None, netns=None,
                 label: str | None = None, require_key: bool = False) -> None:
        self.log_path = log_path
        self.error_status = error_status
        self.require_key = require_key
        self.label = label
        self.requests: list[dict] = []
        self._netns = netns
        self._lock = threading.Lock()
        self._turns = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> "FakeModelServer":
        if self._httpd is not None:
            return self
        handler = type("Handler", (_Handler,), {"fake": self})
        make = lambda: _Server(("127.0.0.1", 0), handler)
        self._httpd = self._netns.call(make) if self._netns is not None else make()
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name=f"fake-model-server:{self.port}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> "FakeModelServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake model server is not running")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Base URL without a path (Anthropic clients add ``/v1`` themselves)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def model_requests(self) -> list[dict]:
        """The recorded requests that were model turns (``n`` is set)."""
        with self._lock:
            return [r for r in self.requests if r.get("n") is not None]

    # -- called from handler threads

    def _next_turn(self) -> int:
        with self._lock:
            self._turns += 1
            return self._turns

    def _record(self, record: dict) -> None:
        with self._lock:
            record["seq"] = len(self.requests) + 1
            if self.label:
                record["run"] = self.label
            self.requests.append(record)
            if self.log_path is not None:
                line = json.dumps(_loggable(record), ensure_ascii=False, default=str)
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write(line + "\n")


def _loggable(record: dict) -> dict:
    """The record without the body, history texts cut short (system prompts run
    to tens of kilobytes)."""
    out = {k: v for k, v in record.items() if k != "body"}
    if "history" in out:
        out["history"] = [{**h, "text": h["text"][:LOG_TEXT] + "..." if h["text"] and len(h["text"]) > LOG_TEXT
                           else h["text"]} for h in out["history"]]
    return out


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeModelServer/1"
    fake: FakeModelServer  # set on the per-server subclass

    def log_message(self, format, *args) -> None:  # keep pytest output clean
        pass

    # -- plumbing

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks, total = [], 0
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                total += size
                if total > MAX_BODY:
                    raise ValueError("request body too large")
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        else:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                raise ValueError("request body too large")
            raw = self.rfile.read(length) if length else b""
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        elif encoding not in ("", "identity"):
            raise ValueError(f"unsupported Content-Encoding {encoding!r}")
        return raw

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if content_type.startswith("text/event-stream"):
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def _send_json(self, status: int, doc: object) -> None:
        self._send(status, json.dumps(doc).encode(), "application/json")

    def _base_record(self) -> dict:
        return {"t": round(time.time(), 3), "method": self.command, "path": self.path,
                "headers": redact_headers(self.headers.items())}

    # -- verbs

    def do_HEAD(self) -> None:
        self.fake._record({**self._base_record(), "body_bytes": 0, "status": 200})
        self._send(200, b"", "text/plain")

    def do_GET(self) -> None:
        path = urlsplit(self.path).path.rstrip("/")
        record = {**self._base_record(), "body_bytes": 0}
        if path == "/v1/models":
            record["status"] = 200
            self.fake._record(record)
            self._send_json(200, {"object": "list", "data": [
                {"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}]})
            return
        record["status"] = 404 if path else 200
        self.fake._record(record)
        if path:
            self._send_json(404, {"error": {"type": "not_found_error", "message": f"no route {path}"}})
        else:
            self._send(200, b"fake model server\n", "text/plain")

    def do_POST(self) -> None:
        record = self._base_record()
        try:
            raw = self._read_body()
            body = json.loads(raw or b"{}")
        except (ValueError, OSError) as exc:
            record.update(status=400, problem=str(exc))
            self.fake._record(record)
            self._send_json(400, {"error": {"type": "invalid_request_error", "message": str(exc)}})
            return
        path = urlsplit(self.path).path.rstrip("/")
        record["body_bytes"] = len(raw)
        if path == "/v1/messages/count_tokens":
            record["status"] = 200
            self.fake._record(record)
            self._send_json(200, {"input_tokens": USAGE["input"]})
            return
        api = API_PATHS.get(path)
        if api is None or not isinstance(body, dict):
            record["status"] = 404
            self.fake._record(record)
            self._send_json(404, {"error": {"type": "not_found_error", "message": f"no route {path}"}})
            return
        self._model_turn(api, body, record)

    # -- a model turn

    def _model_turn(self, api: str, body: dict, record: dict) -> None:
        fake = self.fake
        n = fake._next_turn()
        model = body.get("model")
        effort = EFFORT[api](body)
        history = HISTORY[api](body)
        last_user = next((last for role, _, last in reversed(history) if role == "user"), None)
        tool_output = TOOL_OUTPUT[api](body)
        record.update(
            api=api, n=n, model=model, stream=bool(body.get("stream")), effort=effort,
            body_keys=sorted(body), last_user_text=last_user,
            history=[{"role": role, "text": text} for role, text, _ in history],
            tool_names=_tool_names(body.get("tools")),
            credential_sha256=_credential_fingerprint(self.headers),
            body=body,
        )
        for key in ("reasoning", "reasoning_effort", "thinking", "output_config", "max_tokens",
                    "max_output_tokens"):
            if key in body:
                record[key] = body[key]
        if tool_output is not None:
            record["tool_output"] = tool_output

        status = fake.error_status
        if status is None and fake.require_key and record["credential_sha256"] is None:
            status = 401  # as the vendors answer a request that carries no key
        match = _ERROR_RE.search(last_user or "")
        if status is None and match and tool_output is None:
            status = int(match.group(1))
        if status is not None:
            message = vendor_error_message(api, status, model)
            record.update(status=status, reply=None, error=message)
            fake._record(record)
            self._send_json(status, error_body(api, status, message))
            return

        command = None
        if tool_output is None and last_user and TOOL_TRIGGER in last_user:
            command = last_user.split(TOOL_TRIGGER, 1)[1].strip().splitlines()[0].strip()
        call = _shell_call(api, body.get("tools"), command) if command else None
        text = reply_text(n, model, effort)
        record.update(status=200, reply=None if call else text)
        if call:
            record["tool_call"] = {"name": call[0], "arguments": call[1]}
        fake._record(record)
        render = RENDER[api]
        if body.get("stream"):
            self._send(200, render(n, model, text, call, stream=True), "text/event-stream; charset=utf-8")
        else:
            self._send(200, render(n, model, text, call, stream=False), "application/json")


# -- reading requests


def redact_headers(items) -> dict:
    out = {}
    for name, value in items:
        if _SECRET_HEADER.search(name):
            scheme, _, rest = value.partition(" ")
            if rest and scheme.lower() in ("bearer", "basic"):
                out[name] = f"{scheme} {_redacted(rest)}"
            else:
                out[name] = _redacted(value)
        else:
            out[name] = value
    return out


def _redacted(secret: str) -> str:
    return f"<redacted len={len(secret)} prefix={secret[:4]!r}>"


def _credential_fingerprint(headers) -> str | None:
    """sha256 of the credential the client sent, so a test can prove which key
    reached the wire without the key ever being stored."""
    value = headers.get("x-api-key") or headers.get("api-key")
    if value is None:
        auth = headers.get("Authorization") or ""
        scheme, _, rest = auth.partition(" ")
        value = rest if scheme.lower() == "bearer" else None
    return hashlib.sha256(value.encode()).hexdigest() if value else None


def _texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
                if isinstance(block.get("text"), str):
                    out.append(block["text"])
    return out


def _entry(role, content):
    texts = _texts(content)
    return (role, "\n".join(texts) if texts else None, texts[-1] if texts else None)


def _anthropic_history(body):
    return [_entry(m.get("role"), m.get("content")) for m in body.get("messages") or []
            if isinstance(m, dict)]


def _chat_history(body):
    return [_entry(m.get("role"), m.get("content")) for m in body.get("messages") or []
            if isinstance(m, dict)]


def _responses_history(body):
    items = body.get("input")
    if isinstance(items, str):
        return [("user", items, items)]
    out = []
    for item in items or []:
        if isinstance(item, dict) and item.get("role") and item.get("type", "message") == "message":
            out.append(_entry(item["role"], item.get("content")))
    return out


def _anthropic_effort(body):
    config = body.get("output_config")
    if isinstance(config, dict) and config.get("effort"):
        return str(config["effort"])
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type"):
        if thinking.get("type") == "enabled":
            return f"thinking:enabled:{thinking.get('budget_tokens')}"
        return f"thinking:{thinking['type']}"
    return None


def _responses_effort(body):
    reasoning = body.get("reasoning")
    return reasoning.get("effort") if isinstance(reasoning, dict) else None


def _chat_effort(body):
    if body.get("reasoning_effort"):
        return body["reasoning_effort"]
    return _responses_effort(body)


def _anthropic_tool_output(body):
    messages = body.get("messages") or []
    last = messages[-1] if messages else None
    if not isinstance(last, dict) or not isinstance(last.get("content"), list):
        return None
    for block in last["content"]:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            return "\n".join(_texts(block.get("content")))
    return None


def _responses_tool_output(body):
    items = body.get("input")
    last = items[-1] if isinstance(items, list) and items else None
    if isinstance(last, dict) and last.get("type") in ("function_call_output", "custom_tool_call_output"):
        output = last.get("output")
        return output if isinstance(output, str) else "\n".join(_texts(output))
    return None


def _chat_tool_output(body):
    messages = body.get("messages") or []
    last = messages[-1] if messages else None
    if isinstance(last, dict) and last.get("role") == "tool":
        return "\n".join(_texts(last.get("content")))
    return None


def _tool_specs(tools):
    """(name, JSON schema of the arguments) for each tool of any of the three wires."""
    for tool in tools or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("function"), dict):
            yield tool["function"].get("name"), tool["function"].get("parameters") or {}
        else:
            yield tool.get("name"), tool.get("input_schema") or tool.get("parameters") or {}


def _tool_names(tools):
    return [name for name, _ in _tool_specs(tools)] if tools else None


def _shell_call(api, tools, command):
    """(tool name, arguments) calling the request's shell tool with ``command``."""
    specs = dict(_tool_specs(tools))
    for name in SHELL_TOOLS:
        if name in specs:
            props = specs[name].get("properties") or {}
            required = specs[name].get("required") or []
            key = "command" if "command" in props else "cmd" if "cmd" in props else "command"
            value = ["bash", "-lc", command] if (props.get(key) or {}).get("type") == "array" else command
            args = {key: value}
            if "description" in required:
                args["description"] = "fake tool call"
            return name, args
    return None


EFFORT = {"anthropic-messages": _anthropic_effort, "openai-responses": _responses_effort,
          "openai-chat": _chat_effort}
HISTORY = {"anthropic-messages": _anthropic_history, "openai-responses": _responses_history,
           "openai-chat": _chat_history}
TOOL_OUTPUT = {"anthropic-messages": _anthropic_tool_output,
               "openai-responses": _responses_tool_output, "openai-chat": _chat_tool_output}


# -- writing replies


def _sse(events, named=True) -> bytes:
    parts = []
    for event in events:
        if event == "[DONE]":
            parts.append("data: [DONE]\n\n")
        elif named:
            parts.append(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n")
        else:
            parts.append(f"data: {json.dumps(event)}\n\n")
    return "".join(parts).encode()


def _render_anthropic(n, model, text, call, *, stream):
    usage = {"input_tokens": USAGE["input"], "output_tokens": USAGE["output"],
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if call:
        block = {"type": "tool_use", "id": f"toolu_fake_{n}", "name": call[0], "input": call[1]}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": text}
        stop = "end_turn"
    message = {"id": f"msg_fake_{n}", "type": "message", "role": "assistant", "model": model,
               "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
    if not stream:
        return json.dumps(message).encode()
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    if call:
        opened = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
    else:
        opened = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
    return _sse([
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": opened},
        {"type": "ping"},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
         "usage": {"output_tokens": USAGE["output"]}},
        {"type": "message_stop"},
    ])


def _render_responses(n, model, text, call, *, stream):
    created = int(time.time())
    usage = {"input_tokens": USAGE["input"], "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": USAGE["output"], "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": USAGE["input"] + USAGE["output"]}
    if call:
        arguments = json.dumps(call[1])
        item = {"id": f"fc_fake_{n}", "type": "function_call", "status": "completed",
                "call_id": f"call_fake_{n}", "name": call[0], "arguments": arguments}
    else:
        item = {"id": f"msg_fake_{n}", "type": "message", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
    response = {"id": f"resp_fake_{n}", "object": "response", "created_at": created,
                "status": "completed", "model": model, "output": [item], "usage": usage,
                "error": None, "incomplete_details": None}
    if not stream:
        return json.dumps(response).encode()
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    events = [{"type": "response.created", "response": pending},
              {"type": "response.in_progress", "response": pending}]
    if call:
        events += [
            {"type": "response.output_item.added", "output_index": 0,
             "item": {**item, "status": "in_progress", "arguments": ""}},
            {"type": "response.function_call_arguments.delta", "item_id": item["id"],
             "output_index": 0, "delta": arguments},
            {"type": "response.function_call_arguments.done", "item_id": item["id"],
             "output_index": 0, "arguments": arguments},
        ]
    else:
        part = {"type": "output_text", "text": "", "annotations": []}
        ids = {"item_id": item["id"], "output_index": 0, "content_index": 0}
        events += [
            {"type": "response.output_item.added", "output_index": 0,
             "item": {**item, "status": "in_progress", "content": []}},
            {"type": "response.content_part.added", **ids, "part": part},
            {"type": "response.output_text.delta", **ids, "delta": text},
            {"type": "response.output_text.done", **ids, "text": text},
            {"type": "response.content_part.done", **ids, "part": {**part, "text": text}},
        ]
    events += [{"type": "response.output_item.done", "output_index": 0, "item": item},
               {"type": "response.completed", "response": response}]
    for seq, event in enumerate(events):
        event["sequence_number"] = seq
    return _sse(events)


def _render_chat(n, model, text, call, *, stream):
    created = int(time.time())
    usage = {"prompt_tokens": USAGE["input"], "completion_tokens": USAGE["output"],
             "total_tokens": USAGE["input"] + USAGE["output"]}
    base = {"id": f"chatcmpl-fake-{n}", "created": created, "model": model}
    if call:
        tool_call = {"id": f"call_fake_{n}", "type": "function",
                     "function": {"name": call[0], "arguments": json.dumps(call[1])}}
        message = {"role": "assistant", "content": None, "tool_calls": [tool_call]}
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": text}
        finish = "stop"
    if not stream:
        return json.dumps({**base, "object": "chat.completion", "usage": usage, "choices": [
            {"index": 0, "message": message, "finish_reason": finish}]}).encode()

    def chunk(delta, finish_reason=None):
        return {**base, "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    if call:
        deltas = [chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": tool_call["id"], "type": "function",
             "function": {"name": call[0], "arguments": ""}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": tool_call["function"]["arguments"]}}]})]
    else:
        deltas = [chunk({"role": "assistant", "content": ""}), chunk({"content": text})]
    return _sse([*deltas, chunk({}, finish),
                 {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage},
                 "[DONE]"], named=False)


RENDER = {"anthropic-messages": _render_anthropic, "openai-responses": _render_responses,
          "openai-chat": _render_chat}
