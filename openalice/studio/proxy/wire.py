"""HTTP/1.1 heads straight from the socket's bytes: reading them, checking them, the header rules.

A head's header block is kept as bytes, ``"\\r\\nName: value"`` per header and a final ``"\\r\\n"``;
the rules below run over it in C (one regex pass each) rather than header by header in Python.
"""

from __future__ import annotations

import re
import socket
import struct
from http import HTTPStatus

from openalice.core import patterns

STRIPPED_REQUEST_HEADERS = frozenset((
    "authorization", "host", "connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "transfer-encoding", "upgrade", "expect", "x-openalice-token",
))
# OpenAlice's own cookies (the gateway's ``openalice-gateway-<port>``): a browser sends every
# localhost cookie to every localhost port, so they are removed from ``Cookie``; the app's pass.
OWN_COOKIE_PREFIX = b"openalice-"
HOP_BY_HOP = frozenset(("connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                        "transfer-encoding", "upgrade"))
_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_BLOCK_OK = patterns.compile(rb"(?:\r\n" + _TOKEN + rb":[^\r\n\0]*)*\r\n")
DROP_REQUEST_HEADERS = patterns.compile(b"(?i)" rb"\r\n(?:" + b"|".join(re.escape(h.encode()) for h in sorted(
    STRIPPED_REQUEST_HEADERS | {"content-length", "forwarded", "cookie"})) + rb"|x-forwarded-" + _TOKEN
    + rb"|x-openalice-" + _TOKEN + rb"):[^\r\n]*")   # every x-forwarded-* the client sent (the proxy sets its own); Cookie comes back filtered
DROP_RESPONSE_HEADERS = patterns.compile(b"(?i)" rb"\r\n(?:" + b"|".join(re.escape(h.encode()) for h in sorted(HOP_BY_HOP))
                            + rb"|content-length):[^\r\n]*")
ORIGIN_OR_REFERER = patterns.compile(b"(?i)" rb"\r\n(origin|referer):[ \t]*([^\r\n]*?)[ \t]*(?=\r\n)")
LOCATION_HEADER = patterns.compile(b"(?i)" rb"\r\n(location):[ \t]*([^\r\n]*?)[ \t]*(?=\r\n)")
ALWAYS_DROPPED = frozenset((b"close", b"keep-alive", b"upgrade"))
RECV = 64 * 1024              # one read of a head (and whatever body came with it)
MAX_HEAD = 64 * 1024
_METHOD = patterns.compile(_TOKEN + rb"\Z")
_CODING = patterns.compile(_TOKEN + rb"\Z")
# A chunk-size line: at most 16 hex digits (no sign, no 0x, no _), then extensions.
_CHUNK_SIZE = patterns.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n?\Z")
MAX_CHUNK = 1 << 62
_TARGET_BAD = patterns.compile(rb"[\x00-\x20\x7f]")
STATUS_REASON = {s.value: s.phrase.encode("latin-1") for s in HTTPStatus}


def header_tokens(values) -> set[bytes]:
    """The lowercased tokens of comma-separated header values (``Connection``)."""
    out = set()
    for value in values:
        for token in value.split(b","):
            token = token.strip().lower()
            if token:
                out.add(token)
    return out


class BadMessage(Exception):
    """A head we refuse to parse (the connection ends after the answer)."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.status = status


class BadBody(BadMessage):
    """The client's request body broke its framing after its head had gone upstream: 400."""


def chunk_size(line) -> int:
    """The size on a chunk-size line (its CRLF optional), or BadMessage: a size that would
    overflow, a sign, a ``0x``, anything but hex digits and extensions."""
    match = _CHUNK_SIZE.match(line)
    if match is None:
        raise BadMessage("malformed chunk size")
    size = int(match.group(1), 16)
    if size >= MAX_CHUNK:
        raise BadMessage("a chunk size too large")
    return size


def codings(values) -> list[bytes]:
    """The lowercased transfer codings of Transfer-Encoding values, in order (an empty or
    malformed one included as it is, for the caller to refuse)."""
    return [c.strip(b" \t").lower() for v in values for c in v.split(b",")]


def own_cookies_removed(values) -> bytes | None:
    """One ``Cookie`` value from the client's, without OpenAlice's own; None when none is left."""
    kept = []
    for value in values:
        for pair in value.split(b";"):
            pair = pair.strip(b" \t")
            if pair and not pair.split(b"=", 1)[0].strip().lower().startswith(OWN_COOKIE_PREFIX):
                kept.append(pair)
    return b"; ".join(kept) if kept else None


def set_kernel_timeouts(sock: socket.socket, seconds: float) -> None:
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


def without_headers(block: bytes, drop: re.Pattern, named: set[bytes], already: frozenset = frozenset()) -> bytes:
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


class Request:
    """What the proxy needs of a request head (BadMessage for one it refuses)."""

    __slots__ = ("head", "method", "target", "version", "host", "host_bytes", "connection_tokens", "close",
                 "framing", "length", "websocket", "expects_continue")

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
        tokens = header_tokens(head.values(b"\r\nconnection:")) if b"\r\nconnection:" in lowered else set()
        self.connection_tokens = tokens
        self.close = b"close" in tokens or (version == b"HTTP/1.0" and b"keep-alive" not in tokens)
        self.length = 0
        self.framing = self._framing(head, lowered, version)
        self.websocket = (b"upgrade" in tokens and b"\r\nupgrade:" in lowered
                          and (head.get(b"\r\nupgrade:") or b"").lower() == b"websocket")
        self.expects_continue = False
        if b"\r\nexpect:" in lowered:
            # The proxy's own business (it answers 100 itself); Expect never goes upstream.
            if [v.lower() for v in head.values(b"\r\nexpect:")] != [b"100-continue"]:
                raise BadMessage("the only expectation the proxy meets is 100-continue", 417)
            self.expects_continue = True

    def _framing(self, head: Head, lowered: bytes, version: bytes) -> str:
        """Where the body ends: exactly ``chunked``, or one Content-Length of digits, or no body.
        Anything a proxy and an app could read two ways is refused (RFC 9112 6.1, 6.3): 400 for
        a malformed or conflicting framing, 501 for a coding the proxy does not do."""
        lengths = head.values(b"\r\ncontent-length:") if b"\r\ncontent-length:" in lowered else []
        if b"\r\ntransfer-encoding:" in lowered:
            found = codings(head.values(b"\r\ntransfer-encoding:"))
            if version != b"HTTP/1.1":
                raise BadMessage("Transfer-Encoding in an HTTP/1.0 request")
            if not all(_CODING.match(c) for c in found):
                raise BadMessage("malformed Transfer-Encoding")
            if lengths:
                raise BadMessage("both Transfer-Encoding and Content-Length")
            if found.count(b"chunked") > 1 or (b"chunked" in found and found[-1] != b"chunked"):
                raise BadMessage("chunked must be the last transfer coding, once")
            if found != [b"chunked"]:
                raise BadMessage("the proxy accepts no transfer coding but chunked", 501)
            return "chunked"
        if not lengths:
            return "none"
        value = lengths[0]
        if len(lengths) > 1 or not value.isdigit() or len(value) > 18:
            raise BadMessage("bad Content-Length")
        self.length = int(value)
        return "length"
