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

How it is fast (docs/benchmarks.md, "Studio proxy"): HTTP/1.1 heads are parsed
here, once per message, straight from the socket's bytes (no ``http.server``,
no ``http.client``, no ``email`` header objects); client connections are kept
alive and each keeps its upstream connection, which goes back to a small pool
when the client leaves; a small reply leaves in one ``sendmsg`` with its head; a
body moves through one reused buffer (``recv_into``) or, on Linux, through a
pipe with ``os.splice`` (the bytes never enter Python); a chunked response
passes through as it is, only its chunk sizes are read to find its end; socket
timeouts are kernel timeouts (``SO_RCVTIMEO``), so a read is one system call.
"""

from __future__ import annotations

import os
import re
import socket
import socketserver
import struct
import sys
import threading
import time
from urllib.parse import urlsplit

from openalice.core.net import is_loopback_ip as is_loopback_host
from openalice.studio import state

__all__ = ["DEFAULT_PORT", "BIND_HOST", "STRIPPED_REQUEST_HEADERS", "HOP_BY_HOP", "RouteTable", "SurfaceProxy",
           "make_server", "is_loopback_host", "record_running", "forget_running"]

DEFAULT_PORT = 47331
BIND_HOST = "127.0.0.1"
STRIPPED_REQUEST_HEADERS = frozenset((
    "authorization", "cookie", "host", "connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "transfer-encoding", "upgrade", "x-csrf-token", "x-openalice-token",
))
HOP_BY_HOP = frozenset(("connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "transfer-encoding", "upgrade"))
_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
# A head's header block is kept as bytes, "\r\nName: value" per header and a final "\r\n"; the
# rules below run over it in C (one regex pass each) rather than header by header in Python.
_BLOCK_OK = re.compile(rb"(?:\r\n" + _TOKEN + rb":[^\r\n\0]*)*\r\n")
_DROP_REQUEST = re.compile(rb"\r\n(?:" + b"|".join(re.escape(h.encode()) for h in sorted(
    STRIPPED_REQUEST_HEADERS | {"content-length", "forwarded"})) + rb"|x-forwarded-" + _TOKEN + rb"):[^\r\n]*",
    re.I)   # and every x-forwarded-* the client sent (the proxy sets its own)
_DROP_RESPONSE = re.compile(rb"\r\n(?:" + b"|".join(re.escape(h.encode()) for h in sorted(HOP_BY_HOP))
                            + rb"|content-length):[^\r\n]*", re.I)
_ORIGIN_OR_REFERER = re.compile(rb"\r\n(origin|referer):[ \t]*([^\r\n]*?)[ \t]*(?=\r\n)", re.I)
_LOCATION = re.compile(rb"\r\n(location):[ \t]*([^\r\n]*?)[ \t]*(?=\r\n)", re.I)
_ALWAYS_DROPPED = frozenset((b"close", b"keep-alive", b"upgrade"))
BUFFER = 256 * 1024
RECV = 64 * 1024              # one read of a head (and whatever body came with it)
CONNECT_TIMEOUT = 5.0
UPSTREAM_TIMEOUT = 300.0      # an idle upstream read (long polls and event streams are fine below this)
CLIENT_IDLE_TIMEOUT = 120.0   # an idle keep-alive client connection is closed after this
MAX_HEAD = 64 * 1024
POOL_PER_UPSTREAM = 16        # idle keep-alive connections kept per upstream address
POOL_IDLE = 30.0              # an idle pooled connection older than this is closed, not reused
SPLICE_MIN = 256 * 1024       # bodies at least this long go through a pipe (os.splice), when available
SPLICE_CHUNK = 16 * 1024      # chunks of a chunked body at least this long, too
SIZE_LINE_READ = 512          # while chunks are spliced: peek this much to read the next size line

_REASONS = {400: "Bad Request", 404: "Not Found", 431: "Request Header Fields Too Large", 502: "Bad Gateway",
            505: "HTTP Version Not Supported"}
_METHOD = re.compile(_TOKEN + rb"\Z")
_TARGET_BAD = re.compile(rb"[\x00-\x20\x7f]")
_SPLICE = getattr(os, "splice", None)


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


def _origin(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _tokens(values) -> set[bytes]:
    """The lowercased tokens of comma-separated header values (``Connection``)."""
    out = set()
    for value in values:
        for token in value.split(b","):
            token = token.strip().lower()
            if token:
                out.add(token)
    return out


# -- the wire ---------------------------------------------------------------------------------------

class BadMessage(Exception):
    """A head we refuse to parse (the connection ends after the answer)."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.status = status


def _timeouts(sock: socket.socket, seconds: float) -> None:
    """Kernel read/write timeouts on a blocking socket: each read stays one system call
    (a Python-level timeout polls before every read).  A timeout raises BlockingIOError."""
    sock.settimeout(None)
    whole = int(seconds)
    value = struct.pack("ll", whole, int((seconds - whole) * 1_000_000))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, value)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, value)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Reader:
    """Bytes read from a socket and not yet used (a head, the start of a body, a pipelined request)."""

    __slots__ = ("sock", "buf")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()

    def fill(self) -> bool:
        data = self.sock.recv(RECV)
        if not data:
            return False
        self.buf += data
        return True

    def head(self) -> bytes | None:
        """The next head (without its blank line), None at a clean end of stream."""
        buf = self.buf
        if not buf:
            # The usual case: nothing left over, and one read brings the whole head (and
            # maybe a small body, kept for the caller).
            data = self.sock.recv(RECV)
            if not data:
                return None
            end = data.find(b"\r\n\r\n")
            if end > 0 and data[:2] != b"\r\n":
                if end + 4 < len(data):
                    buf += memoryview(data)[end + 4:]
                return data[:end]
            buf += data
        while buf[:2] == b"\r\n":          # a CRLF between messages is allowed
            del buf[:2]
        searched = 0
        while True:
            end = buf.find(b"\r\n\r\n", max(0, searched - 3))
            if end > MAX_HEAD:
                raise BadMessage("the head is larger than 64 KiB", 431)
            if end >= 0:
                head = bytes(buf[:end])
                del buf[:end + 4]
                return head
            if len(buf) > MAX_HEAD:
                raise BadMessage("the head is larger than 64 KiB", 431)
            searched = len(buf)
            if not self.fill():
                if buf:
                    raise ConnectionError("the stream ended inside a head")
                return None
            while buf[:2] == b"\r\n":
                del buf[:2]
                searched = 0

    def readline(self) -> bytes:
        """One line (with its ending); b"" at end of stream."""
        while True:
            end = self.buf.find(b"\n")
            if end >= 0:
                line = bytes(self.buf[:end + 1])
                del self.buf[:end + 1]
                return line
            if len(self.buf) > MAX_HEAD:
                raise BadMessage("a line is longer than 64 KiB")
            if not self.fill():
                line = bytes(self.buf)
                self.buf.clear()
                return line

    def take(self, limit: int) -> bytes:
        """Up to ``limit`` bytes (buffered ones first); b"" at end of stream."""
        if not self.buf and not self.fill():
            return b""
        data = bytes(self.buf[:limit])
        del self.buf[:limit]
        return data


class Head:
    """A parsed head: its start line and its header block (see ``_BLOCK_OK``), checked once:
    a header line must be ``token ":" value`` (no obsolete folding, no space before the colon,
    no NUL), else BadMessage."""

    __slots__ = ("start", "block", "lowered")

    def __init__(self, raw: bytes) -> None:
        end = raw.find(b"\r\n")
        if end < 0:
            self.start, self.block = raw, b"\r\n"
        else:
            self.start, self.block = raw[:end], raw[end:] + b"\r\n"
            if not _BLOCK_OK.fullmatch(self.block):
                raise BadMessage("malformed header line")
        self.lowered = self.block.lower()

    def get(self, key: bytes) -> bytes | None:
        """The first value of a header; ``key`` is ``b"\\r\\nname:"``, lowercase."""
        at = self.lowered.find(key)
        if at < 0:
            return None
        return self.block[at + len(key):self.block.find(b"\r\n", at + 2)].strip(b" \t")

    def values(self, key: bytes) -> list[bytes]:
        """Every value of a header (usually one)."""
        out = []
        at = self.lowered.find(key)
        while at >= 0:
            out.append(self.block[at + len(key):self.block.find(b"\r\n", at + 2)].strip(b" \t"))
            at = self.lowered.find(key, at + 2)
        return out


def _without(block: bytes, drop: re.Pattern, named: set[bytes], already: frozenset = frozenset()) -> bytes:
    """``block`` without the headers ``drop`` matches and those a ``Connection`` header names."""
    block = drop.sub(b"", block)
    extra = named - already
    if extra:
        block = re.sub(rb"\r\n(?:" + b"|".join(re.escape(t) for t in sorted(extra)) + rb"):[^\r\n]*", b"",
                       block, flags=re.I)
    return block


def send_parts(sock: socket.socket, parts: list) -> None:
    """``sendmsg`` until every byte of ``parts`` is out (a blocking send may still be partial)."""
    sent = sock.sendmsg(parts)
    if sent == sum(map(len, parts)):
        return
    parts = list(parts)
    while parts and sent >= len(parts[0]):
        sent -= len(parts[0])
        parts.pop(0)
    if parts and sent:
        parts[0] = memoryview(parts[0])[sent:]
    while parts:
        sent = sock.sendmsg(parts)
        while parts and sent >= len(parts[0]):
            sent -= len(parts[0])
            parts.pop(0)
        if parts and sent:
            parts[0] = memoryview(parts[0])[sent:]


class ChunkedEnd:
    """Where a chunked body ends, read off the stream as it passes: only the chunk-size lines
    and the trailer section are looked at, never copied out of the buffer."""

    __slots__ = ("left", "line", "trailers")

    def __init__(self) -> None:
        self.left = 0          # bytes of chunk data (and its CRLF) still to pass
        self.line = b""        # a size or trailer line cut by the end of a block
        self.trailers = False

    def scan(self, block, start: int, stop: int) -> int:
        """The index just past the body's end within ``block[start:stop]``, or -1."""
        i = start
        while i < stop:
            if self.left:
                step = min(self.left, stop - i)
                i += step
                self.left -= step
                continue
            end = block.find(b"\n", i, stop)
            if end < 0:
                self.line += bytes(block[i:stop])
                if len(self.line) > 4096:
                    raise BadMessage("a chunk-size line is too long")
                return -1
            line = (self.line + bytes(block[i:end])).rstrip(b"\r")
            self.line = b""
            i = end + 1
            if self.trailers:
                if not line:
                    return i
                continue
            size_text = line.split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise BadMessage("malformed chunk size") from None
            if size < 0 or not size_text:
                raise BadMessage("malformed chunk size")
            if size == 0:
                self.trailers = True
            else:
                self.left = size + 2
        return -1


def _copy_exact(source: socket.socket, target: socket.socket, count: int, view: memoryview, pipe) -> None:
    """Move exactly ``count`` bytes from ``source`` to ``target``: through a pipe with
    ``os.splice`` (the kernel moves pages; nothing enters Python) when ``pipe`` is given,
    else through ``view`` (one reused buffer)."""
    if pipe is not None:
        read_end, write_end = pipe
        src, dst = source.fileno(), target.fileno()
        while count:
            moved = _SPLICE(src, write_end, min(count, BUFFER), flags=os.SPLICE_F_MOVE)
            if not moved:
                raise ConnectionError("the upstream closed inside a body")
            count -= moved
            while moved:
                moved -= _SPLICE(read_end, dst, moved, flags=os.SPLICE_F_MOVE)
        return
    size = len(view)
    while count:
        n = source.recv_into(view[:count] if count < size else view)
        if not n:
            raise ConnectionError("the peer closed inside a body")
        target.sendall(view[:n])
        count -= n


def copy_dechunked(reader: Reader, target: socket.socket, *, reframe: bool) -> None:
    """Copy the data of the chunked body ``reader`` is at: as new chunks without extensions
    or trailers (``reframe``), or bare (for an HTTP/1.0 client)."""
    while True:
        line = reader.readline()
        if not line:
            raise ConnectionError("the stream closed inside a chunked body")
        try:
            size = int(line.split(b";")[0].strip(), 16)
        except ValueError:
            raise BadMessage("malformed chunk size") from None
        if size == 0:
            while reader.readline() not in (b"\r\n", b"\n", b""):
                pass
            if reframe:
                target.sendall(b"0\r\n\r\n")
            return
        if reframe:
            target.sendall(b"%x\r\n" % size)
        left = size
        while left:
            data = reader.take(min(left, BUFFER))
            if not data:
                raise ConnectionError("the stream closed inside a chunk")
            target.sendall(data)
            left -= len(data)
        if reframe:
            target.sendall(b"\r\n")
        reader.readline()


def _chunk_ahead(peeked: bytes) -> int:
    """The length of the next whole chunk (size line, data, CRLF) from a peek at its size line;
    0 when it cannot be told (the line is not all there, the last chunk, a bad size)."""
    end = peeked.find(b"\n")
    if end < 0:
        return 0
    try:
        size = int(peeked[:end].rstrip(b"\r").split(b";", 1)[0].strip(), 16)
    except ValueError:
        return 0
    return end + 1 + size + 2 if size > 0 else 0


class Upstream:
    """One connection to an app, reused for request after request while it stays framed."""

    __slots__ = ("address", "sock", "reader", "since")

    def __init__(self, address: tuple[str, int], sock: socket.socket | None = None) -> None:
        self.address = address
        if sock is None:
            sock = socket.create_connection(address, timeout=CONNECT_TIMEOUT)
            _timeouts(sock, UPSTREAM_TIMEOUT)
        self.sock = sock
        self.reader = Reader(sock)
        self.since = 0.0

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def is_idle_and_open(self) -> bool:
        """No byte waiting and not closed by the app (checked without blocking)."""
        if self.reader.buf:
            return False
        try:
            self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return True          # nothing to read: open and idle
        except OSError:
            pass
        return False             # closed by the app, or bytes nobody asked for


class UpstreamPool:
    """Idle keep-alive upstream connections, a few per address, shared by client connections."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[Upstream]] = {}
        self._lock = threading.Lock()

    def take(self, address: tuple[str, int]) -> Upstream | None:
        now = time.monotonic()
        while True:
            with self._lock:
                idle = self._idle.get(address)
                conn = idle.pop() if idle else None
            if conn is None:
                return None
            if now - conn.since < POOL_IDLE and conn.is_idle_and_open():
                return conn
            conn.close()

    def idle(self, address: tuple[str, int]) -> int:
        """How many idle connections to ``address`` are kept."""
        with self._lock:
            return len(self._idle.get(address, ()))

    def give(self, conn: Upstream) -> None:
        conn.since = time.monotonic()
        with self._lock:
            idle = self._idle.setdefault(conn.address, [])
            if len(idle) < POOL_PER_UPSTREAM:
                idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            conns = [c for idle in self._idle.values() for c in idle]
            self._idle.clear()
        for conn in conns:
            conn.close()


class _Retry(Exception):
    """A reused upstream connection was already closed by the app: try once on a fresh one."""


# -- one client connection ----------------------------------------------------------------------------

class ProxyHandler(socketserver.BaseRequestHandler):
    """Requests of one client connection, in order, until either side ends it."""

    server: "SurfaceProxy"

    def setup(self) -> None:
        self.sock: socket.socket = self.request
        _timeouts(self.sock, CLIENT_IDLE_TIMEOUT)
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
        if count >= threshold and _SPLICE is not None:
            if self.pipe is None:
                self.pipe = os.pipe()
                try:
                    import fcntl

                    # One splice then moves a whole buffer (the default pipe holds 64 KiB).
                    fcntl.fcntl(self.pipe[1], getattr(fcntl, "F_SETPIPE_SZ", 1031), BUFFER)
                except OSError:
                    pass
            pipe = self.pipe
        try:
            _copy_exact(source, target, count, self._body_buffer(), pipe)
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
        if request.bad_length:
            self.closing = True
            self.send_plain(400, "bad Content-Length")
            return False
        if request.websocket:
            self.tunnel_websocket(request, upstream)
            return False
        self.forward(request, upstream)
        return not self.closing

    def upstream_head(self, request: "Request", upstream: tuple[str, int], *, websocket: bool = False) -> bytes:
        """The request head for the app: the header rules applied to the block in C passes."""
        head = request.head
        block = _without(head.block, _DROP_REQUEST, request.connection_tokens, _ALWAYS_DROPPED)
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

            block = _ORIGIN_OR_REFERER.sub(rewrite, block)
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
            except _Retry:
                self._drop_upstream()
                continue
            except BadMessage as exc:
                self._drop_upstream()
                return self._bad_gateway(exc)
            except (ConnectionError, BlockingIOError, TimeoutError, OSError) as exc:
                self._drop_upstream()
                return self._bad_gateway(exc)
        else:   # pragma: no cover - the second attempt never raises _Retry
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
                    raise _Retry() from None
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
        copy_dechunked(self.reader, sock, reframe=True)

    def _read_response_head(self, conn: Upstream, *, retryable: bool) -> tuple[int, Head, bytes]:
        while True:
            try:
                raw = conn.reader.head()
            except ConnectionResetError:
                if retryable:
                    raise _Retry() from None
                raise
            if raw is None:
                if retryable:
                    raise _Retry()
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
            return status, head, status_line[9:]

    def _relay(self, request: "Request", conn: Upstream, upstream, status: int, head: Head, status_text: bytes
               ) -> None:
        """Answer the client: the app's status (``status_text``: code and reason as sent), its
        headers under the response rules, its body under the framing the client can read."""
        lowered = head.lowered
        upstream_close = head.start[:8] == b"HTTP/1.0"
        named: set[bytes] = set()
        if b"\r\nconnection:" in lowered:
            named = _tokens(head.values(b"\r\nconnection:"))
            if b"close" in named:
                upstream_close = True
            elif upstream_close and b"keep-alive" in named:
                upstream_close = False
        length = head.get(b"\r\ncontent-length:")
        if length is not None and not (length.isdigit() and len(length) < 19):
            length = None      # not a length: the body is delimited by the upstream closing
        encoding = head.get(b"\r\ntransfer-encoding:")
        chunked = encoding is not None and encoding.lower().rstrip().endswith(b"chunked")
        block = _without(head.block, _DROP_RESPONSE, named)
        if b"\r\nlocation:" in lowered:
            block = _LOCATION.sub(lambda m: b"\r\n" + m.group(1) + b": "
                                  + self.rewrite_location(m.group(2), upstream, request), block)
        bodyless = request.method == b"HEAD" or status in (204, 304) or 100 <= status < 200
        if bodyless:
            framing = b"\r\nContent-Length: " + length if length is not None else b""
            mode = "none"
        elif chunked:
            mode = "chunked" if request.version == b"HTTP/1.1" else "dechunk"
            framing = b"\r\nTransfer-Encoding: chunked" if mode == "chunked" else b""
        elif length is not None:
            mode = "length"
            framing = b"\r\nContent-Length: " + length
        else:
            upstream_close = True      # the body ends when the upstream closes
            mode = "rechunk" if request.version == b"HTTP/1.1" else "eof"
            framing = b"\r\nTransfer-Encoding: chunked" if mode == "rechunk" else b""
        if mode in ("dechunk", "eof"):
            self.closing = True
        if len(status_text) < 5:
            status_text = status_text[:3] + b" " + _STATUS_REASON.get(status, b"")
        out = b"".join((b"HTTP/1.1 ", status_text, block[:-2], framing,
                        b"\r\nConnection: close\r\n\r\n" if self.closing else b"\r\n\r\n"))
        if mode == "length":
            self._relay_length(conn, out, int(length))
        elif mode == "none":
            self.sock.sendall(out)
        elif mode == "chunked":
            self._relay_chunked(conn, out)
        elif mode == "dechunk":
            self._relay_dechunked(conn, out)
        else:
            self._relay_until_close(conn, out, rechunk=mode == "rechunk")
        if upstream_close:
            self._drop_upstream()

    def _relay_length(self, conn: Upstream, head: bytes, length: int) -> None:
        buffered = conn.reader.buf
        first = bytes(buffered[:length]) if buffered else b""
        if first:
            del buffered[:length]
        send_parts(self.sock, [head, first] if first else [head])
        left = length - len(first)
        if left:
            self._copy(conn.sock, self.sock, left)

    def _relay_chunked(self, conn: Upstream, head: bytes) -> None:
        """Pass the chunked body through unchanged; only its end is looked for."""
        scanner = ChunkedEnd()
        buffered = conn.reader.buf
        if buffered:
            end = scanner.scan(buffered, 0, len(buffered))
            cut = len(buffered) if end < 0 else end
            first = bytes(buffered[:cut])
            del buffered[:cut]
            send_parts(self.sock, [head, first])
            if end >= 0:
                return
        else:
            self.sock.sendall(head)
        view = self._body_buffer()
        block = self.buffer
        source, target = conn.sock, self.sock
        splicing = _SPLICE is not None
        while True:
            if splicing:
                if scanner.left >= SPLICE_CHUNK:
                    # Inside a long chunk: its bytes go through the pipe, never through Python.
                    self._copy(source, target, scanner.left, threshold=SPLICE_CHUNK)
                    scanner.left = 0
                    continue
                if not scanner.left and not scanner.trailers and not scanner.line:
                    # At a size line: peek at it; a long chunk moves whole (line, data, CRLF)
                    # through the pipe.
                    whole = _chunk_ahead(source.recv(SIZE_LINE_READ, socket.MSG_PEEK))
                    if whole >= SPLICE_CHUNK:
                        self._copy(source, target, whole, threshold=SPLICE_CHUNK)
                        continue
            n = source.recv_into(view)
            if not n:
                raise ConnectionError("the upstream closed inside a chunked body")
            end = scanner.scan(block, 0, n)
            if end >= 0:
                target.sendall(view[:end])
                if end < n:
                    self._drop_upstream()     # bytes beyond the answer: this connection is not reused
                return
            target.sendall(view[:n])

    def _relay_dechunked(self, conn: Upstream, head: bytes) -> None:
        """A chunked body to an HTTP/1.0 client: the data only, then the connection closes."""
        self.sock.sendall(head)
        copy_dechunked(conn.reader, self.sock, reframe=False)

    def _relay_until_close(self, conn: Upstream, head: bytes, *, rechunk: bool) -> None:
        pending: bytes | None = head
        buffered = conn.reader.buf
        view = self._body_buffer()
        while True:
            if buffered:
                data = bytes(buffered)
                buffered.clear()
                n = len(data)
                chunk = data
            else:
                n = conn.sock.recv_into(view)
                chunk = view[:n]
            if not n:
                break
            parts = [b"%x\r\n" % n, chunk, b"\r\n"] if rechunk else [chunk]
            if pending is not None:
                parts.insert(0, pending)
                pending = None
            send_parts(self.sock, parts)
        closing = [b"0\r\n\r\n"] if rechunk else []
        if pending is not None:
            closing.insert(0, pending)
        if closing:
            send_parts(self.sock, closing)

    def rewrite_location(self, value: bytes, upstream: tuple[str, int], request: "Request") -> bytes:
        """A redirect to the upstream's own origin points at the public origin instead."""
        text = value.decode("latin-1")
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError:
            return value
        if (parts.scheme in ("http", "") and parts.hostname
                and (is_loopback_host(parts.hostname) or parts.hostname == "localhost")
                and port == upstream[1]):
            rest = text.split(parts.netloc, 1)[1] if parts.netloc else text
            return (f"http://{request.host}" + (rest or "/")).encode("latin-1")
        return value

    # -- WebSocket ----------------------------------------------------------------------------------
    def tunnel_websocket(self, request: "Request", upstream: tuple[str, int]) -> None:
        self.closing = True
        self._drop_upstream()
        try:
            sock = socket.create_connection(upstream, timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            return self._bad_gateway(exc)
        try:
            _timeouts(sock, UPSTREAM_TIMEOUT)
            sock.sendall(self.upstream_head(request, upstream, websocket=True))
            reader = Reader(sock)
            raw = reader.head()
            if raw is None:
                raise ConnectionError("upstream closed during the WebSocket handshake")
            head = Head(raw)
            code = head.start[9:12]
            if head.start[:7] != b"HTTP/1." or not code.isdigit():
                raise BadMessage("malformed status line")
            status = int(code)
        except (OSError, ValueError, BadMessage) as exc:
            sock.close()
            return self._bad_gateway(exc)
        if status != 101:
            # Not upgraded: relay the answer as an ordinary response and close.
            conn = Upstream(upstream, sock)
            conn.reader = reader
            self.upstream = conn
            try:
                self._relay(request, conn, upstream, status, head, head.start[9:])
            except (OSError, BadMessage):
                pass
            self._drop_upstream()
            return None
        kept = re.sub(rb"\r\n(?:connection|upgrade|content-length):[^\r\n]*", b"", head.block, flags=re.I)
        self.sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade"
                          + kept + b"\r\n" + bytes(reader.buf))
        early = bytes(self.reader.buf)      # frames the client sent right behind its handshake
        self.reader.buf.clear()
        for s in (sock, self.sock):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", 0, 0))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 0))
        if early:
            sock.sendall(early)
        _pipe_both_ways(self.sock, sock)


class Request:
    """What the proxy needs of a request head (BadMessage for one it refuses)."""

    __slots__ = ("head", "method", "target", "version", "host", "host_bytes", "connection_tokens", "close",
                 "framing", "length", "bad_length", "websocket", "expects_continue")

    def __init__(self, head: Head) -> None:
        self.head = head
        parts = head.start.split(b" ")
        if len(parts) != 3:
            raise BadMessage("malformed request line")
        method, target, version = parts
        if version != b"HTTP/1.1" and version != b"HTTP/1.0":
            raise BadMessage("unsupported HTTP version", 505 if version.startswith(b"HTTP/") else 400)
        if not _METHOD.match(method) or _TARGET_BAD.search(target):
            raise BadMessage("malformed request line")
        self.method, self.target, self.version = method, target, version
        lowered = head.lowered
        if lowered.count(b"\r\nhost:") > 1:
            raise BadMessage("more than one Host header")
        host = head.get(b"\r\nhost:")
        self.host_bytes = host or b""
        self.host = host.decode("latin-1") if host else None
        tokens = _tokens(head.values(b"\r\nconnection:")) if b"\r\nconnection:" in lowered else set()
        self.connection_tokens = tokens
        self.close = b"close" in tokens or (version == b"HTTP/1.0" and b"keep-alive" not in tokens)
        self.bad_length = False
        self.length = 0
        chunked = (b"\r\ntransfer-encoding:" in lowered
                   and any(b"chunked" in v.lower() for v in head.values(b"\r\ntransfer-encoding:")))
        has_length = b"\r\ncontent-length:" in lowered
        if chunked:
            self.framing = "chunked"
            if has_length:
                self.close = True      # both: chunked wins, and this connection ends after the answer
        elif has_length:
            self.framing = "length"
            values = set(head.values(b"\r\ncontent-length:"))
            value = values.pop() if len(values) == 1 else b""
            if not value.isdigit() or len(value) > 18:
                self.bad_length = True
            else:
                self.length = int(value)
        else:
            self.framing = "none"
        self.websocket = (b"upgrade" in tokens and b"\r\nupgrade:" in lowered
                          and (head.get(b"\r\nupgrade:") or b"").lower() == b"websocket")
        self.expects_continue = (b"\r\nexpect:" in lowered
                                 and (head.get(b"\r\nexpect:") or b"").lower() == b"100-continue")


def _status_reasons() -> dict[int, bytes]:
    from http import HTTPStatus

    return {s.value: s.phrase.encode("latin-1") for s in HTTPStatus}


_STATUS_REASON = _status_reasons()


def _pipe_both_ways(client: socket.socket, upstream: socket.socket) -> None:
    """Copy bytes client → upstream in a thread and upstream → client here, until both sides end."""

    def client_to_upstream() -> None:
        try:
            while True:
                data = client.recv(65536)
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
            client.sendall(data)
    except OSError:
        pass
    finally:
        try:
            client.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        pump.join(5.0)
        upstream.close()


class SurfaceProxy(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, port: int, *, workspace: str | None = None, verbose: bool = True) -> None:
        self.routes = RouteTable(workspace)
        self.pool = UpstreamPool()
        self.verbose = verbose
        super().__init__((BIND_HOST, port), ProxyHandler)

    @property
    def port(self) -> int:
        return self.server_address[1]

    def server_close(self) -> None:
        super().server_close()
        self.pool.close()

    def handle_error(self, request, client_address) -> None:
        if self.verbose:
            import traceback

            sys.stderr.write(f"alice-harness proxy: internal error on a connection from {client_address[0]}:\n")
            traceback.print_exc()


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
