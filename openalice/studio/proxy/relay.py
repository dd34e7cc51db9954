"""The answer: an app's response relayed to the client under the response header rules and the
framing the client can read, and a WebSocket upgrade turned into a byte tunnel."""

from __future__ import annotations

import re
import socket
import struct
from urllib.parse import urlsplit

from openalice.core.net import is_loopback_ip as is_loopback_host

from .body import SIZE_LINE_READ, SPLICE, SPLICE_CHUNK, ChunkedEnd, chunk_ahead, copy_dechunked, pipe_both_ways
from .upstream import CONNECT_TIMEOUT, UPSTREAM_TIMEOUT, Upstream
from .wire import (
    DROP_RESPONSE_HEADERS,
    LOCATION_HEADER,
    STATUS_REASON,
    BadMessage,
    Head,
    Reader,
    Request,
    codings,
    header_tokens,
    send_parts,
    set_kernel_timeouts,
    without_headers,
)


class ResponseRelay:
    """The response half of :class:`~.handler.ProxyHandler` (which supplies ``sock``, ``reader``,
    ``upstream``, ``closing``, the body buffer and pipe, and ``upstream_head``)."""

    def _relay(self, request: "Request", conn: Upstream, upstream, status: int, head: Head, status_text: bytes
               ) -> None:
        """Answer the client: the app's status (``status_text``: code and reason as sent), its
        headers under the response rules, its body under the framing the client can read."""
        lowered = head.lowered
        upstream_close = head.start[:8] == b"HTTP/1.0"
        named: set[bytes] = set()
        if b"\r\nconnection:" in lowered:
            named = header_tokens(head.values(b"\r\nconnection:"))
            if b"close" in named:
                upstream_close = True
            elif upstream_close and b"keep-alive" in named:
                upstream_close = False
        length = head.get(b"\r\ncontent-length:")
        if length is not None and not (length.isdigit() and len(length) < 19):
            length = None      # not a length: the body is delimited by the upstream closing
        chunked = b"\r\ntransfer-encoding:" in lowered    # exactly chunked (checked with the head)
        block = without_headers(head.block, DROP_RESPONSE_HEADERS, named)
        if b"\r\nlocation:" in lowered:
            block = LOCATION_HEADER.sub(lambda m: b"\r\n" + m.group(1) + b": "
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
            status_text = status_text[:3] + b" " + STATUS_REASON.get(status, b"")
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
        splicing = SPLICE is not None
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
                    whole = chunk_ahead(source.recv(SIZE_LINE_READ, socket.MSG_PEEK))
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
            set_kernel_timeouts(sock, UPSTREAM_TIMEOUT)
            sock.sendall(self.upstream_head(request, upstream, websocket=True))
            reader = Reader(sock)
            raw = reader.head()
            if raw is None:
                raise ConnectionError("upstream closed during the WebSocket handshake")
            head = Head(raw)
            code = head.start[9:12]
            if head.start[:7] != b"HTTP/1." or not code.isdigit():
                raise BadMessage("malformed status line")
            if (b"\r\ntransfer-encoding:" in head.lowered
                    and codings(head.values(b"\r\ntransfer-encoding:")) != [b"chunked"]):
                raise BadMessage("the upstream sent a transfer coding other than chunked")
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
        pipe_both_ways(self.sock, sock)

