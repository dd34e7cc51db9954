"""One client connection: its requests in order, each checked, routed by Host and sent upstream
under the request header rules (the answer side is :mod:`.relay`)."""

from __future__ import annotations

import fcntl
import os
import re
import socket
import socketserver
import sys

from .body import BUFFER, SPLICE, SPLICE_MIN, copy_dechunked, copy_exact
from .relay import ResponseRelay
from .upstream import StaleUpstream, Upstream
from .wire import (
    ALWAYS_DROPPED,
    DROP_REQUEST_HEADERS,
    ORIGIN_OR_REFERER,
    BadBody,
    BadMessage,
    Head,
    Reader,
    Request,
    codings,
    own_cookies_removed,
    send_parts,
    set_kernel_timeouts,
    without_headers,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .server import SurfaceProxy

CLIENT_IDLE_TIMEOUT = 120.0   # an idle keep-alive client connection is closed after this
_REASONS = {400: "Bad Request", 404: "Not Found", 417: "Expectation Failed", 431: "Request Header Fields Too Large",
            501: "Not Implemented", 502: "Bad Gateway", 505: "HTTP Version Not Supported"}


def _origin(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class ProxyHandler(ResponseRelay, socketserver.BaseRequestHandler):
    """Requests of one client connection, in order, until either side ends it."""

    server: "SurfaceProxy"

    def setup(self) -> None:
        self.sock: socket.socket = self.request
        set_kernel_timeouts(self.sock, CLIENT_IDLE_TIMEOUT)
        self.reader = Reader(self.sock)
        self.upstream: Upstream | None = None
        self.buffer: bytearray | None = None
        self.pipe: tuple[int, int] | None = None
        self.closing = False

    def finish(self) -> None:
        if self.upstream is not None:
            # Only a connection whose last answer was relayed whole is still here (every
            # failure drops it): the next client connection may use it.
            self.server.pool.give(self.upstream)
            self.upstream = None
        self._close_pipe()

    def _close_pipe(self) -> None:
        if self.pipe is not None:
            for fd in self.pipe:
                os.close(fd)
            self.pipe = None

    def log_error(self, fmt: str, *args) -> None:
        if self.server.verbose:
            sys.stderr.write(f"alice-harness proxy: {fmt % args}\n")

    def handle(self) -> None:
        try:
            while not self.closing:
                if not self.one_request():
                    break
        except (ConnectionError, BlockingIOError, TimeoutError):
            self._drop_upstream()   # the client went away or idled out
        except OSError as exc:
            self._drop_upstream()
            self.log_error("connection ended: %s", exc)
        except BaseException:
            self._drop_upstream()
            raise

    # -- plumbing -----------------------------------------------------------------------------------
    def _drop_upstream(self) -> None:
        if self.upstream is not None:
            self.upstream.close()
            self.upstream = None

    def send_plain(self, status: int, text: str, *, head_only: bool = False) -> None:
        body = (text.rstrip("\n") + "\n").encode("utf-8")
        head = (f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
                f"Content-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n")
        if self.closing:
            head += "Connection: close\r\n"
        self.sock.sendall(head.encode("latin-1") + b"\r\n" + (b"" if head_only else body))

    def _body_buffer(self) -> memoryview:
        if self.buffer is None:
            self.buffer = bytearray(BUFFER)
        return memoryview(self.buffer)

    def _copy(self, source: socket.socket, target: socket.socket, count: int, *, threshold: int = SPLICE_MIN
              ) -> None:
        """Exactly ``count`` body bytes from ``source`` to ``target`` (a pipe and os.splice from
        ``threshold`` bytes on, where the platform has it)."""
        pipe = None
        if count >= threshold and SPLICE is not None:
            if self.pipe is None:
                self.pipe = os.pipe()
                try:
                    # One splice then moves a whole buffer (the default pipe holds 64 KiB).
                    fcntl.fcntl(self.pipe[1], getattr(fcntl, "F_SETPIPE_SZ", 1031), BUFFER)
                except OSError:
                    pass
            pipe = self.pipe
        try:
            copy_exact(source, target, count, self._body_buffer(), pipe)
        except BaseException:
            self._close_pipe()     # it may hold bytes of this body
            raise

    # -- one request --------------------------------------------------------------------------------
    def one_request(self) -> bool:
        """Serve the next request; False when the connection is over."""
        try:
            head = self.reader.head()
        except BadMessage as exc:
            self.closing = True
            self.send_plain(exc.status, str(exc))
            return False
        if head is None:
            return False
        try:
            request = Request(Head(head))
        except BadMessage as exc:
            self.closing = True
            self.send_plain(exc.status, str(exc))
            return False
        if request.close:
            self.closing = True
        target = request.target
        head_only = request.method == b"HEAD"
        found = self.server.routes.lookup(request.host)
        if found is None:
            if request.framing != "none" or request.length:
                self.closing = True       # a refused request's body must not be read as the next request
            self.send_plain(404, "no Studio surface is published for this host", head_only=head_only)
            return True
        route, upstream = found
        if upstream is None:
            self.closing = True
            self.log_error("route %s does not name a loopback upstream; refused", route.get("host"))
            self.send_plain(502, "this surface's route does not name a loopback upstream", head_only=head_only)
            return False
        if not target.startswith(b"/"):
            self.closing = True
            self.send_plain(400, "request target must be an origin-relative path")
            return False
        if request.websocket:
            self.tunnel_websocket(request, upstream)
            return False
        self.forward(request, upstream)
        return not self.closing

    def upstream_head(self, request: "Request", upstream: tuple[str, int], *, websocket: bool = False) -> bytes:
        """The request head for the app: the header rules applied to the block in C passes."""
        head = request.head
        block = without_headers(head.block, DROP_REQUEST_HEADERS, request.connection_tokens, ALWAYS_DROPPED)
        upstream_origin = _origin(*upstream).encode("latin-1")
        if b"\r\norigin:" in head.lowered or b"\r\nreferer:" in head.lowered:
            public = b"http://" + request.host_bytes
            public_lower = public.lower()

            def rewrite(match: re.Match) -> bytes:
                name, value = match.group(1), match.group(2)
                if name.lower() == b"origin":
                    if value.lower() == public_lower:
                        value = upstream_origin
                elif value[:len(public) + 1].lower() == public_lower + b"/":
                    value = upstream_origin + value[len(public):]
                return b"\r\n" + name + b": " + value

            block = ORIGIN_OR_REFERER.sub(rewrite, block)
        if b"\r\ncookie:" in head.lowered:
            cookie = own_cookies_removed(head.values(b"\r\ncookie:"))
            if cookie is not None:
                block = block[:-2] + b"\r\nCookie: " + cookie + b"\r\n"
        if websocket:
            framing = b"\r\nUpgrade: websocket\r\nConnection: Upgrade"
        elif request.framing == "chunked":
            framing = b"\r\nTransfer-Encoding: chunked"
        elif request.framing == "length":
            framing = b"\r\nContent-Length: " + str(request.length).encode()
        else:
            framing = b""
        return b"".join((request.method, b" ", request.target, b" HTTP/1.1\r\nHost: ",
                         upstream_origin[7:], block[:-2], b"\r\nX-Forwarded-Host: ", request.host_bytes,
                         b"\r\nX-Forwarded-Proto: http", framing, b"\r\n\r\n"))

    def _connection_for(self, upstream: tuple[str, int]) -> tuple[Upstream, bool]:
        conn = self.upstream
        if conn is not None and conn.address == upstream:
            return conn, True
        self._drop_upstream()
        conn = self.server.pool.take(upstream)
        reused = conn is not None
        if conn is None:
            conn = Upstream(upstream)
        self.upstream = conn
        return conn, reused

    def forward(self, request: "Request", upstream: tuple[str, int]) -> None:
        head = self.upstream_head(request, upstream)
        if request.expects_continue and request.version == b"HTTP/1.1" and request.framing != "none":
            self.sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        for attempt in (1, 2):
            try:
                conn, reused = self._connection_for(upstream)
            except OSError as exc:
                return self._bad_gateway(exc)
            try:
                self._send_request(conn, head, request, retryable=reused and attempt == 1)
                response = self._read_response_head(conn, retryable=reused and attempt == 1
                                                    and request.framing == "none")
                break
            except StaleUpstream:
                self._drop_upstream()
                continue
            except BadBody as exc:
                # The client's chunked body broke its framing: the app gets a cut request on a
                # connection that is dropped, the client its 400 now.
                self._drop_upstream()
                self.closing = True
                self.log_error("refused a request body: %s", exc)
                try:
                    self.send_plain(400, str(exc))
                except OSError:
                    pass
                return None
            except BadMessage as exc:
                self._drop_upstream()
                return self._bad_gateway(exc)
            except (ConnectionError, BlockingIOError, TimeoutError, OSError) as exc:
                self._drop_upstream()
                return self._bad_gateway(exc)
        else:   # pragma: no cover - the second attempt never raises StaleUpstream
            return None
        try:
            self._relay(request, conn, upstream, *response)
        except (ConnectionError, BlockingIOError, TimeoutError, OSError, BadMessage) as exc:
            # The client or the upstream went away mid-body: this connection cannot continue.
            self.closing = True
            self._drop_upstream()
            self.log_error("stream ended early: %s", exc)

    def _bad_gateway(self, exc: BaseException) -> None:
        self.closing = True
        self.log_error("upstream failed: %s", exc)
        try:
            self.send_plain(502, "the Studio app did not answer")
        except OSError:
            pass

    def _send_request(self, conn: Upstream, head: bytes, request: "Request", *, retryable: bool) -> None:
        sock = conn.sock
        if request.framing == "none":
            try:
                sock.sendall(head)
            except (BrokenPipeError, ConnectionResetError):
                if retryable:
                    raise StaleUpstream() from None
                raise
            return
        if request.framing == "length":
            buffered = self.reader.buf
            first = bytes(buffered[:request.length])
            del buffered[:request.length]
            send_parts(sock, [head, first] if first else [head])
            left = request.length - len(first)
            if left:
                self._copy(self.sock, sock, left)
            return
        sock.sendall(head)
        # Re-framed: extensions and trailers are dropped (a trailer must never carry what the
        # header rules strip).
        try:
            copy_dechunked(self.reader, sock, reframe=True)
        except BadMessage as exc:
            raise BadBody(str(exc)) from None

    def _read_response_head(self, conn: Upstream, *, retryable: bool) -> tuple[int, Head, bytes]:
        while True:
            try:
                raw = conn.reader.head()
            except ConnectionResetError:
                if retryable:
                    raise StaleUpstream() from None
                raise
            if raw is None:
                if retryable:
                    raise StaleUpstream()
                raise ConnectionError("the upstream closed the connection without answering")
            head = Head(raw)
            status_line = head.start
            code = status_line[9:12]
            if not (status_line[:7] == b"HTTP/1." and status_line[8:9] == b" " and code.isdigit()
                    and status_line[12:13] in (b"", b" ")):
                raise BadMessage("malformed status line")
            status = int(code)
            if 100 <= status < 200 and status != 101:
                continue     # an interim answer (100 Continue, 103): the final one follows
            if head.lowered.count(b"\r\ncontent-length:") > 1 and len(set(head.values(b"\r\ncontent-length:"))) > 1:
                raise BadMessage("the upstream sent conflicting Content-Length headers")
            if (b"\r\ntransfer-encoding:" in head.lowered
                    and codings(head.values(b"\r\ntransfer-encoding:")) != [b"chunked"]):
                raise BadMessage("the upstream sent a transfer coding other than chunked")
            return status, head, status_line[9:]
