"""One HTTP request: the head budget, the guards in order (every one from the headers, before
any body byte is read: :mod:`.limits`), the body, the route, the answer (a JSON document, the
page, or a Server-Sent-Events stream relayed from a CLI follower)."""

from __future__ import annotations

import json
import os
import selectors
import socket
import time
import traceback
from http import HTTPStatus
from http.client import LineTooLong
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qsl, unquote, urlsplit

from openalice.core.pipes import READ_SIZE, LineSplitter

from .api import Request, Response, Stream
from .errors import HttpError
from .limits import MAX_BODY_BYTES, MAX_HEAD_BYTES, HeadBudget, check_json, content_length, linger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .server import Gateway, HttpServer

HEARTBEAT_SECONDS = 15.0
#: The longest journal line the event stream relays (core.pipes cuts a longer one, which is
#: then never a fact): it bounds what one follower can make the gateway hold.
FACT_LINE_BYTES = 16 * 1024 * 1024

COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}
JSON_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox"
# http.server's own refusals (a malformed request line, a head over the budget), as envelopes.
_PROTOCOL_CODES = {400: "bad_request", 408: "request_timeout", 414: "uri_too_long",
                   431: "headers_too_large", 501: "not_implemented",
                   505: "http_version_not_supported"}


def _decode_segments(path: str) -> list[str]:
    if not path.startswith("/"):
        raise HttpError(400, "the request target must be a path", code="bad_request")
    try:
        return [unquote(s, errors="strict") for s in path[1:].split("/")]
    except UnicodeDecodeError:
        raise HttpError(400, "the path is not valid UTF-8 once decoded",
                        code="bad_parameter") from None


class RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # a read or write that stalls this long ends the connection (idle heads: .conns)
    # The head and the body go out in two writes: with Nagle on, the body's last
    # segment waits for the client's delayed ACK of the head (40 ms on Linux).
    disable_nagle_algorithm = True
    server: HttpServer

    def version_string(self) -> str:
        return "openalice-gateway"

    def log_message(self, format: str, *args) -> None:
        pass  # one line per request is written by _handle; argv and bodies never are

    def setup(self) -> None:
        super().setup()
        self.rfile = HeadBudget(self.rfile)
        self._unread = 0     # body bytes announced and not read (drained after the answer)

    def handle_one_request(self) -> None:
        """http.server's, with the request line inside the head budget."""
        self.rfile.start_head()
        try:
            self.raw_requestline = self.rfile.readline(MAX_HEAD_BYTES + 1)
        except LineTooLong:   # the head budget
            self.requestline, self.request_version, self.command = "", "HTTP/1.1", ""
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
            return
        except OSError:       # a timeout, a reset
            self.close_connection = True
            return
        if not self.raw_requestline:
            self.close_connection = True
            return
        try:
            if not self.parse_request():
                return
        except OSError:
            self.close_connection = True
            return
        handler = getattr(self, "do_" + self.command, None)
        if handler is None:
            self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"unsupported method {self.command[:20]!r}")
            return
        try:
            handler()
            self.wfile.flush()
        except TimeoutError:
            self.close_connection = True

    def send_error(self, code, message=None, explain=None) -> None:
        """http.server's own refusals in the gateway's envelope; the connection ends."""
        self.close_connection = True
        status = int(code)
        if status == 431 and self.rfile.exceeded:
            message = f"the request head exceeds {MAX_HEAD_BYTES} bytes"
        elif status == 414:
            message = f"the request line exceeds {MAX_HEAD_BYTES} bytes"
        text = message or HTTPStatus(status).phrase
        err = HttpError(status, text, code=_PROTOCOL_CODES.get(status, "bad_request"))
        if not getattr(self, "request_version", None) or self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.1"
        self._send(Response.error(err), json_api=True)

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PATCH = do_PUT = do_DELETE = do_OPTIONS = do_HEAD = do_GET

    # -- the request ----------------------------------------------------------------------------
    def _handle(self) -> None:
        gateway: Gateway = self.server.gateway
        connections = self.server.connections
        if not connections.busy(self.connection):
            self.close_connection = True     # evicted while its head arrived: never run it
            return
        started = time.monotonic()
        request: Request | None = None
        path = urlsplit(self.path).path if self.path.startswith("/") else "?"
        try:
            request, response = self._route(gateway)
        except HttpError as err:
            response = Response.error(err)
        except Exception as exc:
            # A bug in one request must not end the server (the process-level handler of
            # cli/_run.py only runs when serve itself fails): this request gets a 500 with
            # the envelope, the log one line, the client never a traceback.
            gateway.log(f"request failed: {exc.__class__.__name__}: {exc}")
            if os.environ.get("OPENALICE_DEBUG"):
                traceback.print_exc()
            response = Response.json(500, {"error": {"code": "gateway_failed", "exit": 1,
                                                     "message": "the gateway failed while handling "
                                                                "this request"}})
        if self._unread:
            self.close_connection = True   # the body left on the wire is no next request
        if isinstance(response, Stream):
            status = self._stream(gateway, request, response)
        else:
            status = response.status
            if request is not None and request.spawned:
                # What the CLI took, and what the gateway added around it (bench/bench_gateway.py).
                cli_ms = request.cli_seconds * 1000
                own_ms = (time.monotonic() - started) * 1000 - cli_ms
                response.headers["Server-Timing"] = f"cli;dur={cli_ms:.2f}, gateway;dur={own_ms:.2f}"
            self._send(response, json_api=path.startswith("/api/"))
        spawned = request.spawned if request is not None else 0
        gateway.log(f'{self.client_address[0]} "{self.command} {path[:200]}" {status} '
                    f"{(time.monotonic() - started) * 1000:.0f}ms cli={spawned}")
        connections.waiting(self.connection)   # until its next head, or while a body drains
        if self._unread:
            try:
                self.wfile.flush()
            except OSError:
                pass
            linger(self.connection, self._unread)
            self._unread = 0

    def _read_body(self, length: int) -> bytes:
        """The body, once the request has passed every guard of its headers."""
        if length > MAX_BODY_BYTES:
            raise HttpError(413, f"the body exceeds {MAX_BODY_BYTES} bytes", code="too_large")
        self._unread = 0
        body = self.rfile.read(length) if length else b""
        if len(body) < length:
            self.close_connection = True
            raise HttpError(400, "the body ended before its Content-Length", code="bad_request")
        return body

    def _route(self, gateway: Gateway) -> tuple[Request | None, Response | Stream]:
        try:
            length = content_length(self.headers)
        except HttpError:
            self.close_connection = True     # where this body ends cannot be told
            raise
        self._unread = length
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1 or not gateway.guard.host_allowed(hosts[0]):
            raise HttpError(403, "the Host header is not this gateway's loopback address "
                                 "(DNS-rebinding guard)", code="bad_host")
        if not self.path.startswith("/"):
            raise HttpError(400, "the request target must be a path", code="bad_request")
        target = urlsplit(self.path)
        segments = _decode_segments(target.path)
        try:
            query = parse_qsl(target.query, keep_blank_values=True, max_num_fields=40,
                              errors="strict")
        except (ValueError, UnicodeDecodeError):
            raise HttpError(400, "malformed query string", code="bad_parameter") from None
        method = self.command
        if target.path == "/" and method == "GET" and any(k in ("token", "code") for k, _ in query):
            return None, self._exchange(gateway, query)
        if not gateway.guard.authenticated(self.headers):
            raise HttpError(401, "open the URL that 'alice serve' printed (it carries the "
                                 "token), or send 'Authorization: Bearer TOKEN'",
                            code="unauthenticated",
                            headers={"WWW-Authenticate": 'Bearer realm="openalice"'})
        if method not in ("GET", "HEAD"):
            refusal = gateway.guard.state_change_refusal(self.headers)
            if refusal is not None:
                raise HttpError(403, refusal[1], code=refusal[0])
        if method == "HEAD":
            raise HttpError(405, "HEAD is not supported", code="method_not_allowed",
                            headers={"Allow": "GET"})
        body = self._read_body(length)
        if target.path == "/":
            if method != "GET":
                raise HttpError(405, f"{method} is not allowed here", code="method_not_allowed",
                                headers={"Allow": "GET"})
            return None, gateway.page()
        if segments[0] != "api":
            raise HttpError(404, "not found", code="not_found")
        if body and method in ("POST", "PATCH", "PUT"):
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                raise HttpError(415, "request bodies must be application/json",
                                code="unsupported_media_type")
            check_json(body)
        request = Request(method, segments, query, self.headers, body)
        return request, gateway.api.handle(request)

    def _exchange(self, gateway: Gateway, query: list[tuple[str, str]]) -> Response:
        """``/?token=T`` (the printed URL) or ``/?code=C`` (the one-time code ``--open`` gave
        the browser) for the cookie, and a 303 to ``/`` so neither stays in the address bar."""
        tokens = [v for k, v in query if k == "token"]
        codes = [v for k, v in query if k == "code"]
        if codes:
            if tokens or len(codes) != 1 or not gateway.guard.redeem_code(codes[0]):
                raise HttpError(401, "this one-time code is unknown, used or expired; open the "
                                     "URL that 'alice serve' printed", code="bad_code")
        elif len(tokens) != 1 or not gateway.guard.token_matches(tokens[0]):
            raise HttpError(401, "this token is not the one 'alice serve' printed",
                            code="bad_token")
        return Response(303, b"", {"Location": "/", "Set-Cookie": gateway.guard.set_cookie_header(),
                                   "Content-Type": "text/plain"})

    # -- responses ----------------------------------------------------------------------------------
    def _send(self, response: Response, *, json_api: bool) -> None:
        try:
            self.send_response(response.status)
            headers = dict(COMMON_HEADERS)
            if json_api and response.headers.get("Content-Type") == "application/json":
                headers["Content-Security-Policy"] = JSON_CSP
            headers.update(response.headers)
            if response.status >= 400 and self.close_connection:
                headers["Connection"] = "close"
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(response.body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _stream(self, gateway: Gateway, request: Request, stream: Stream) -> int:
        """Relay ``alice journal --follow --json`` as Server-Sent Events until the
        client goes away, the child ends, or the gateway stops."""
        try:
            child = gateway.runner.follow(stream.tool, stream.args)
        except RuntimeError:
            self._send(Response.json(503, {"error": {"code": "shutting_down", "exit": 3,
                                                     "message": "the gateway is shutting down"}}),
                       json_api=True)
            return 503
        request.spawned += 1
        self.close_connection = True
        selector = selectors.DefaultSelector()
        try:
            self.send_response(200)
            for name, value in COMMON_HEADERS.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Connection", "close")
            self.send_header("X-Accel-Buffering", "no")
            self.end_headers()
            self.wfile.write(b"retry: 2000\n\n")
            self.wfile.flush()
            out_fd = child.stdout.fileno()
            selector.register(out_fd, selectors.EVENT_READ, "child")
            selector.register(self.connection, selectors.EVENT_READ, "client")
            lines = LineSplitter(FACT_LINE_BYTES)  # a longer line is cut, so never relayed
            unrelayed = b""  # lines that are not facts: an error document, if the child failed
            while not gateway.stopping.is_set():
                events = selector.select(timeout=HEARTBEAT_SECONDS)
                if not events:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                for key, _ in events:
                    if key.data == "client":
                        if not self.connection.recv(1, socket.MSG_PEEK):
                            return 200  # the browser closed the stream
                        # Bytes after the request (a pipelined one) are never read here: stop
                        # watching the socket rather than wake up for them forever.
                        selector.unregister(self.connection)
                        continue
                    chunk = os.read(out_fd, READ_SIZE)
                    if not chunk:
                        self._send_end(unrelayed + b"".join(line for line, _ in lines.end()))
                        return 200
                    for line, cut in lines.feed(chunk):
                        if line.strip() and (cut or not self._relay(line)):
                            unrelayed += line if line.endswith(b"\n") else line + b"\n"
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            selector.close()
            gateway.runner.stop(child)
        return 200

    def _relay(self, line: bytes) -> bool:
        """Send one journal record as an SSE ``fact`` event (its seq as the id)."""
        try:
            record = json.loads(line)
        except ValueError:
            return False
        if not isinstance(record, dict) or not isinstance(record.get("seq"), int):
            return False
        self.wfile.write(f"id: {record['seq']}\nevent: fact\n".encode()
                         + b"data: " + json.dumps(record, ensure_ascii=False).encode("utf-8")
                         + b"\n\n")
        return True

    def _send_end(self, leftover: bytes) -> None:
        """The follower ended by itself: say why (its error document, if any)."""
        try:
            document = json.loads(leftover)
        except ValueError:
            document = None
        if not isinstance(document, dict) or "error" not in document:
            document = {"error": {"code": "stream_ended", "exit": 1,
                                  "message": "the journal follower ended"}}
        self.wfile.write(b"event: error\ndata: "
                         + json.dumps(document, ensure_ascii=False).encode("utf-8") + b"\n\n")
        self.wfile.flush()
