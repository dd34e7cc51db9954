"""The Studio proxy: ready surfaces on 127.0.0.1, routed by Host header only.

    server = make_server(port=47331)          # binds 127.0.0.1 only (port 0: any free port)
    server.serve_forever()                    # threaded; server.shutdown() from another thread

A request's ``Host`` must be ``oa-surface-<24 hex>.localhost[:port]`` naming a
published route (``state/studio/routes/<id>.json``, written by the supervisor
when its generation is ready and removed before it is stopped); anything else
is 404.  There is no path-based route (no ``/proxy/<port>``): the path goes to
the app untouched.  The upstream is always a loopback address, checked on every
request before connecting; a route naming anything else is refused (502).

Request headers ``authorization``, ``cookie``, ``host``, ``connection``,
``keep-alive``, ``proxy-authenticate``, ``proxy-authorization``, ``te``,
``trailer``, ``transfer-encoding``, ``upgrade`` (kept only to open a WebSocket
tunnel), ``x-csrf-token``, ``x-openalice-token``, every header the client's
``Connection`` names, and any ``x-forwarded-*`` the client sent are never
forwarded.  ``Origin`` and ``Referer`` on the public origin are rewritten to the
upstream origin (a foreign origin passes unchanged, so the app can still refuse
it); ``X-Forwarded-Host``/``-Proto`` say what the browser used.  Responses lose
their hop-by-hop headers, and a redirect to the upstream's own origin is
rewritten to the public one.  Bodies stream both ways (no buffering); a
WebSocket upgrade becomes a byte tunnel.
"""

from __future__ import annotations

import http.client
import os
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from openalice.core.net import is_loopback_ip as is_loopback_host
from openalice.studio import state

__all__ = ["DEFAULT_PORT", "BIND_HOST", "STRIPPED_REQUEST_HEADERS", "HOP_BY_HOP", "RouteTable", "SurfaceProxy",
           "make_server", "is_loopback_host"]

DEFAULT_PORT = 47331
BIND_HOST = "127.0.0.1"
STRIPPED_REQUEST_HEADERS = frozenset((
    "authorization", "cookie", "host", "connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "transfer-encoding", "upgrade", "x-csrf-token", "x-openalice-token",
))
HOP_BY_HOP = frozenset(("connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "transfer-encoding", "upgrade"))
# Set by the proxy itself (client values are dropped) or re-framed by it.
_REPLACED = frozenset(("content-length", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto",
                       "x-forwarded-port", "forwarded"))
BUFFER = 256 * 1024
CONNECT_TIMEOUT = 5.0
UPSTREAM_TIMEOUT = 300.0      # an idle upstream read (long polls and event streams are fine below this)
CLIENT_IDLE_TIMEOUT = 120.0   # an idle keep-alive client connection is closed after this
MAX_HEAD = 64 * 1024


class RouteTable:
    """Host → upstream, read from the route files; a parsed file is reused
    while its (inode, mtime, size) stays the same, so a withdrawn or replaced
    route is seen on the very next request."""

    def __init__(self, workspace: str | None = None) -> None:
        self.workspace = workspace
        self.directory = os.fspath(state.routes_dir())   # the home is fixed for the process
        self._cache: dict[str, tuple[tuple, dict, tuple[str, int] | None]] = {}
        self._lock = threading.Lock()

    def lookup(self, host_header: str | None) -> tuple[dict, tuple[str, int] | None] | None:
        """(route, upstream) for a published host, or None; ``upstream`` is None when the
        route does not name a loopback address and port."""
        surface_id = state.surface_id_of_host(host_header)
        if surface_id is None:
            return None
        try:
            st = os.stat(f"{self.directory}/{surface_id}.json")
        except OSError:
            with self._lock:
                self._cache.pop(surface_id, None)
            return None
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        with self._lock:
            cached = self._cache.get(surface_id)
        if cached is None or cached[0] != key:
            route = state.read_route(surface_id)
            if route is None:
                return None
            cached = (key, route, _upstream_of(route))
            with self._lock:
                self._cache[surface_id] = cached
        route = cached[1]
        if self.workspace is not None and route.get("workspaceId") != self.workspace:
            return None
        if route.get("host") != state.host_for(surface_id):
            return None
        return route, cached[2]


def _upstream_of(route: dict) -> tuple[str, int] | None:
    upstream = route.get("upstream") or {}
    host, port = upstream.get("host"), upstream.get("port")
    if not isinstance(host, str) or not is_loopback_host(host):
        return None
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        return None
    return host, port


def _origin(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _connection_tokens(value: str | None) -> set[str]:
    return {token.strip().lower() for token in (value or "").split(",") if token.strip()}


class ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "openalice-studio-proxy"
    timeout = CLIENT_IDLE_TIMEOUT
    disable_nagle_algorithm = True   # our writes are whole heads and whole buffers: never wait for an ACK

    # -- plumbing -----------------------------------------------------------------------------------
    def setup(self) -> None:
        super().setup()
        self._upstream: tuple[tuple[str, int], http.client.HTTPConnection] | None = None

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self._drop_upstream()

    def _drop_upstream(self) -> None:
        if self._upstream is not None:
            self._upstream[1].close()
            self._upstream = None

    def log_message(self, fmt: str, *args) -> None:  # quiet: errors are reported through log_error
        pass

    def log_error(self, fmt: str, *args) -> None:
        if getattr(self.server, "verbose", True):
            sys.stderr.write(f"alice-harness proxy: {fmt % args}\n")

    def send_plain(self, status: int, text: str) -> None:
        body = (text.rstrip("\n") + "\n").encode("utf-8")
        head = (f"HTTP/1.1 {status} {http.client.responses.get(status, 'Error')}\r\n"
                f"Content-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n")
        if self.close_connection:
            head += "Connection: close\r\n"
        self.wfile.write(head.encode("latin-1") + b"\r\n" + (b"" if self.command == "HEAD" else body))

    # -- one request --------------------------------------------------------------------------------
    def handle_request(self) -> None:
        found = self.server.routes.lookup(self.headers.get("Host"))
        if found is None:
            self._discard_body_or_close()
            return self.send_plain(404, "no Studio surface is published for this host")
        route, upstream = found
        if upstream is None:
            self.close_connection = True
            self.log_error("route %s does not name a loopback upstream; refused", route.get("host"))
            return self.send_plain(502, "this surface's route does not name a loopback upstream")
        if not self.path.startswith("/"):
            self.close_connection = True
            return self.send_plain(400, "request target must be an origin-relative path")
        if (self.headers.get("Upgrade", "").lower() == "websocket"
                and "upgrade" in _connection_tokens(self.headers.get("Connection"))):
            return self.tunnel_websocket(upstream)
        self.forward(upstream)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = handle_request

    def _discard_body_or_close(self) -> None:
        """A refused request's body must not be read as the next request."""
        if self.headers.get("Transfer-Encoding") or (self.headers.get("Content-Length") not in (None, "0")):
            self.close_connection = True

    def public_origin(self) -> str:
        return f"http://{self.headers.get('Host', '').strip()}"

    def upstream_headers(self, upstream: tuple[str, int], *, websocket: bool = False) -> list[tuple[str, str]]:
        named = _connection_tokens(self.headers.get("Connection"))
        upstream_origin = _origin(*upstream)
        public = self.public_origin()
        out: list[tuple[str, str]] = [("Host", f"{upstream[0]}:{upstream[1]}")]
        for name, value in self.headers.items():
            lower = name.lower()
            if lower in STRIPPED_REQUEST_HEADERS or lower in _REPLACED or lower in named:
                continue
            if lower == "origin" and value.strip().lower() == public.lower():
                value = upstream_origin
            elif lower == "referer" and value.lower().startswith(public.lower() + "/"):
                value = upstream_origin + value[len(public):]
            out.append((name, value))
        out.append(("X-Forwarded-Host", self.headers.get("Host", "").strip()))
        out.append(("X-Forwarded-Proto", "http"))
        if websocket:
            out.append(("Upgrade", "websocket"))
            out.append(("Connection", "Upgrade"))
        return out

    def response_headers(self, headers: list[tuple[str, str]], upstream: tuple[str, int]) -> list[tuple[str, str]]:
        named = set()
        for name, value in headers:
            if name.lower() == "connection":
                named |= _connection_tokens(value)
        out = []
        for name, value in headers:
            lower = name.lower()
            if lower in HOP_BY_HOP or lower in named or lower == "content-length":
                continue
            if lower == "location":
                value = self.rewrite_location(value, upstream)
            out.append((name, value))
        return out

    def rewrite_location(self, value: str, upstream: tuple[str, int]) -> str:
        """A redirect to the upstream's own origin points at the public origin instead."""
        try:
            parts = urlsplit(value)
            port = parts.port
        except ValueError:
            return value
        if (parts.scheme in ("http", "") and parts.hostname
                and (is_loopback_host(parts.hostname) or parts.hostname == "localhost")
                and port == upstream[1]):
            rest = value.split(parts.netloc, 1)[1] if parts.netloc else value
            return self.public_origin() + (rest or "/")
        return value

    def _request_body_framing(self) -> tuple[str, int]:
        """(``none``|``length``|``chunked``, length)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return "chunked", 0
        length = self.headers.get("Content-Length")
        if length is None:
            return "none", 0
        if not length.strip().isdigit():
            raise ValueError("bad Content-Length")
        return "length", int(length)

    def _connection_for(self, upstream: tuple[str, int]) -> tuple[http.client.HTTPConnection, bool]:
        if self._upstream is not None and self._upstream[0] == upstream:
            return self._upstream[1], True
        self._drop_upstream()
        conn = http.client.HTTPConnection(upstream[0], upstream[1], timeout=CONNECT_TIMEOUT)
        self._upstream = (upstream, conn)
        return conn, False

    def forward(self, upstream: tuple[str, int]) -> None:
        try:
            framing, length = self._request_body_framing()
        except ValueError:
            self.close_connection = True
            return self.send_plain(400, "bad Content-Length")
        headers = self.upstream_headers(upstream)
        for attempt in (1, 2):
            conn, reused = self._connection_for(upstream)
            try:
                conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for name, value in headers:
                    conn.putheader(name, value)
                if framing == "chunked":
                    conn.putheader("Transfer-Encoding", "chunked")
                elif framing == "length":
                    conn.putheader("Content-Length", str(length))
                conn.endheaders()
                if conn.sock is not None:
                    conn.sock.settimeout(UPSTREAM_TIMEOUT)
                    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._send_body(conn, framing, length)
                response = conn.getresponse()
                break
            except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine) as exc:
                self._drop_upstream()
                # A kept-alive upstream connection may have been closed by the app meanwhile:
                # one retry on a fresh connection, only when no body was consumed.
                if reused and attempt == 1 and framing == "none":
                    continue
                return self._bad_gateway(exc)
            except (OSError, http.client.HTTPException) as exc:
                self._drop_upstream()
                return self._bad_gateway(exc)
        self._relay(response, upstream)

    def _bad_gateway(self, exc: BaseException) -> None:
        self.close_connection = True
        self.log_error("upstream failed: %s", exc)
        self.send_plain(502, "the Studio app did not answer")

    def _send_body(self, conn: http.client.HTTPConnection, framing: str, length: int) -> None:
        if framing == "length":
            remaining = length
            while remaining:
                chunk = self.rfile.read(min(BUFFER, remaining))
                if not chunk:
                    raise ConnectionError("client closed before sending the whole body")
                conn.send(chunk)
                remaining -= len(chunk)
        elif framing == "chunked":
            while True:
                line = self.rfile.readline(MAX_HEAD)
                try:
                    size = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    raise ConnectionError("malformed chunked request body") from None
                if size == 0:
                    while self.rfile.readline(MAX_HEAD) not in (b"\r\n", b"\n", b""):
                        pass  # trailers are hop-by-hop: dropped
                    conn.send(b"0\r\n\r\n")
                    return
                remaining = size
                while remaining:
                    chunk = self.rfile.read(min(BUFFER, remaining))
                    if not chunk:
                        raise ConnectionError("client closed inside a chunk")
                    conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    remaining -= len(chunk)
                self.rfile.readline(MAX_HEAD)

    def _relay(self, response: http.client.HTTPResponse, upstream: tuple[str, int]) -> None:
        status = response.status
        headers = self.response_headers(response.getheaders(), upstream)
        bodyless = self.command == "HEAD" or status in (204, 304) or 100 <= status < 200
        length = response.getheader("Content-Length")
        lines = [f"HTTP/1.1 {status} {response.reason or http.client.responses.get(status, '')}"]
        lines += [f"{name}: {value}" for name, value in headers]
        if bodyless:
            if length is not None:
                lines.append(f"Content-Length: {length}")
            mode = "none"
        elif response.chunked or length is None or not length.strip().isdigit():
            if self.request_version == "HTTP/1.1":
                lines.append("Transfer-Encoding: chunked")
                mode = "chunked"
            else:
                self.close_connection = True
                mode = "eof"
        else:
            lines.append(f"Content-Length: {length.strip()}")
            mode = "length"
        if self.close_connection:
            lines.append("Connection: close")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
        try:
            if mode == "none":
                response.read()
                self.wfile.write(head)
            else:
                self._stream(response, head, mode)
        except (ConnectionError, OSError, http.client.HTTPException) as exc:
            # The client or the upstream went away mid-body: this connection cannot continue.
            self.close_connection = True
            self._drop_upstream()
            self.log_error("stream ended early: %s", exc)
            return
        if response.will_close:
            # The upstream ends this connection; the next request opens a new one.
            self._drop_upstream()

    def _stream(self, response: http.client.HTTPResponse, head: bytes, mode: str) -> None:
        """Copy the body as it arrives: one copy into our buffer, then straight to the socket
        (``sendmsg`` of the chunk header, the data and the CRLF: no concatenation)."""
        buffer = bytearray(BUFFER)
        view = memoryview(buffer)
        sock = self.connection
        pending_head: bytes | None = head   # sent with the first bytes: one packet for a small reply
        while True:
            count = response.readinto(buffer)
            if not count:
                break
            parts = [view[:count]]
            if mode == "chunked":
                parts = [b"%x\r\n" % count, view[:count], b"\r\n"]
            if pending_head is not None:
                parts.insert(0, pending_head)
                pending_head = None
            _send_parts(sock, parts)
        closing = [b"0\r\n\r\n"] if mode == "chunked" else []
        if pending_head is not None:
            closing.insert(0, pending_head)
        if closing:
            _send_parts(sock, closing)
        if mode == "eof":
            self.close_connection = True

    # -- WebSocket ----------------------------------------------------------------------------------
    def tunnel_websocket(self, upstream: tuple[str, int]) -> None:
        self.close_connection = True
        self._drop_upstream()
        try:
            sock = socket.create_connection(upstream, timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            return self._bad_gateway(exc)
        try:
            head = [f"{self.command} {self.path} HTTP/1.1"]
            head += [f"{name}: {value}" for name, value in self.upstream_headers(upstream, websocket=True)]
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1", "replace"))
            received = bytearray()
            while b"\r\n\r\n" not in received:
                chunk = sock.recv(65536)
                if not chunk:
                    raise ConnectionError("upstream closed during the WebSocket handshake")
                received += chunk
                if len(received) > MAX_HEAD:
                    raise ConnectionError("upstream handshake too large")
            end = received.index(b"\r\n\r\n") + 4
            head_bytes, rest = bytes(received[:end]), bytes(received[end:])
            status_line, *header_lines = head_bytes.decode("latin-1").split("\r\n")[:-2]
            parts = status_line.split(" ", 2)
            status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 502
            pairs = [tuple(s.strip() for s in line.split(":", 1)) for line in header_lines if ":" in line]
        except (OSError, ValueError) as exc:
            sock.close()
            return self._bad_gateway(exc)
        if status != 101:
            # Not upgraded: relay the answer as an ordinary response and close.
            lines = [status_line] + [f"{k}: {v}" for k, v in self.response_headers(pairs, upstream)]
            length = next((v for k, v in pairs if k.lower() == "content-length"), None)
            body = rest
            if length is not None and length.isdigit():
                lines.append(f"Content-Length: {length}")
                try:
                    while len(body) < int(length):
                        chunk = sock.recv(65536)
                        if not chunk:
                            break
                        body += chunk
                except OSError:
                    pass
            lines.append("Connection: close")
            sock.close()
            self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + body)
            return None
        kept = [(k, v) for k, v in pairs if k.lower() not in ("connection", "upgrade", "content-length")]
        lines = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade"]
        lines += [f"{k}: {v}" for k, v in kept]
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + rest)
        sock.settimeout(None)
        self.connection.settimeout(None)
        _pipe_both_ways(self.rfile, self.connection, sock)


def _send_parts(sock: socket.socket, parts: list) -> None:
    """``sendmsg`` until every byte of ``parts`` is out (a blocking send may still be partial)."""
    while parts:
        sent = sock.sendmsg(parts)
        while parts and sent >= len(parts[0]):
            sent -= len(parts[0])
            parts.pop(0)
        if parts and sent:
            parts[0] = memoryview(parts[0])[sent:]


def _pipe_both_ways(client_reader, client_sock: socket.socket, upstream: socket.socket) -> None:
    """Copy bytes client → upstream in a thread and upstream → client here, until both sides end."""

    def client_to_upstream() -> None:
        try:
            while True:
                data = client_reader.read1(65536)
                if not data:
                    break
                upstream.sendall(data)
        except OSError:
            pass
        finally:
            try:
                upstream.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    pump = threading.Thread(target=client_to_upstream, name="ws-client-to-upstream", daemon=True)
    pump.start()
    try:
        while True:
            data = upstream.recv(65536)
            if not data:
                break
            client_sock.sendall(data)
    except OSError:
        pass
    finally:
        try:
            client_sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        pump.join(5.0)
        upstream.close()


class SurfaceProxy(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, port: int, *, workspace: str | None = None, verbose: bool = True) -> None:
        self.routes = RouteTable(workspace)
        self.verbose = verbose
        super().__init__((BIND_HOST, port), ProxyHandler)

    @property
    def port(self) -> int:
        return self.server_address[1]


def make_server(port: int = DEFAULT_PORT, *, workspace: str | None = None, verbose: bool = True) -> SurfaceProxy:
    """Bind the proxy on ``127.0.0.1:port`` (never another address)."""
    from openalice.core.net import listen_error

    try:
        return SurfaceProxy(port, workspace=workspace, verbose=verbose)
    except OSError as exc:
        raise listen_error(exc, BIND_HOST, port) from None


def record_running(server: SurfaceProxy, now_iso: str) -> None:
    """``state/studio/proxy.json``: so ``studio status`` can print a full URL."""
    from openalice.core import fs, proc

    fs.atomic_write_json(state.proxy_path(), {"schemaVersion": 1, "pid": os.getpid(),
                                              "startToken": proc.start_token(os.getpid()),
                                              "host": BIND_HOST, "port": server.port, "startedAt": now_iso},
                         mode=0o600)


def forget_running() -> None:
    """Remove ``proxy.json`` if it still names this process."""
    from openalice.core import fs
    from openalice.core.errors import AliceError

    try:
        data = fs.read_json(state.proxy_path(), missing=None)
        if isinstance(data, dict) and data.get("pid") == os.getpid():
            fs.remove_file(state.proxy_path())
    except AliceError:
        pass
