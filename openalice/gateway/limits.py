"""What one request may make the gateway hold, judged before it is held.

* **The head** (request line and headers) is at most ``MAX_HEAD_BYTES`` (431 beyond): the
  reader counts what ``http.server`` asks of it, so no header line or number of lines can
  make a connection hold more.
* **The framing** comes from the headers alone: exactly one ``Content-Length`` of digits
  (two, even equal ones, or anything else is 400: a proxy in front and this server must
  never disagree on where a body ends); ``Transfer-Encoding`` is 411.
* **The body** is read only once Host, token and (for state changes) ``X-OpenAlice-Token``
  and Origin have passed, and is at most ``MAX_BODY_BYTES`` (413).  A refused request's body
  is never kept: after the answer it is read away and dropped (``linger``), at most
  ``DRAIN_LIMIT`` bytes for ``DRAIN_SECONDS``, so a client that is still sending sees the
  answer instead of a reset.
* **JSON** nested deeper than ``MAX_JSON_DEPTH`` is 400 (Python's parser would raise
  ``RecursionError`` at about a thousand levels, a 500).
"""

from __future__ import annotations

import json
import socket
import time
from http.client import LineTooLong

from .errors import HttpError

__all__ = ["MAX_HEAD_BYTES", "MAX_BODY_BYTES", "MAX_JSON_DEPTH", "HeadBudget", "content_length",
           "check_json", "linger"]

MAX_HEAD_BYTES = 32 * 1024
MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_JSON_DEPTH = 64
DRAIN_LIMIT = 8 * 1024 * 1024
DRAIN_SECONDS = 2.0


class HeadBudget:
    """The handler's ``rfile``: while a head is read, ``readline`` stops at the budget and
    raises ``LineTooLong`` (``http.server`` answers 431); bodies are read with ``read``."""

    def __init__(self, raw) -> None:
        self.raw = raw
        self.left = MAX_HEAD_BYTES
        self.exceeded = False

    def start_head(self) -> None:
        self.left = MAX_HEAD_BYTES
        self.exceeded = False

    def readline(self, limit: int = -1) -> bytes:
        cap = self.left + 1 if limit < 0 else min(limit, self.left + 1)
        line = self.raw.readline(cap)
        self.left -= len(line)
        if self.left < 0:
            self.exceeded = True
            raise LineTooLong(f"the request head exceeds {MAX_HEAD_BYTES} bytes")
        return line

    def read(self, size: int = -1) -> bytes:
        return self.raw.read(size)

    def close(self) -> None:
        self.raw.close()

    @property
    def closed(self) -> bool:
        return self.raw.closed


def content_length(headers) -> int:
    """The announced body length (0 without one), or HttpError 400/411."""
    if headers.get_all("Transfer-Encoding"):
        raise HttpError(411, "chunked bodies are not accepted; send Content-Length",
                        code="length_required")
    values = headers.get_all("Content-Length") or []
    if not values:
        return 0
    if len(values) > 1:
        raise HttpError(400, "more than one Content-Length header", code="bad_request")
    raw = values[0].strip()
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        raise HttpError(400, "bad Content-Length", code="bad_request")
    return int(raw)


def _too_deep(document) -> bool:
    stack = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return True
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def check_json(body: bytes) -> None:
    """400 for a body nested deeper than MAX_JSON_DEPTH; other faults are the route's to
    name (it parses the body again, now known to be shallow)."""
    try:
        document = json.loads(body)
    except RecursionError:
        document = None
        deep = True
    except (ValueError, UnicodeDecodeError):
        return
    else:
        deep = isinstance(document, (dict, list)) and _too_deep(document)
    if deep:
        raise HttpError(400, f"the body is nested deeper than {MAX_JSON_DEPTH} levels",
                        code="bad_body")


def linger(sock: socket.socket, announced: int) -> None:
    """After refusing a request whose body was not read: stop sending, then read away (and
    drop) what the client still sends, bounded in bytes and time, so closing with unread
    bytes does not reset the connection before the client has read the answer."""
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        return
    left = min(announced, DRAIN_LIMIT) if announced else 65536
    deadline = time.monotonic() + DRAIN_SECONDS
    try:
        while left > 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            sock.settimeout(remaining)
            chunk = sock.recv(min(left, 65536))
            if not chunk:
                break
            left -= len(chunk)
    except OSError:
        pass
