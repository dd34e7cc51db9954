"""HTTP for the transports: one request function, one multipart builder, one error.

Standard library only (``http.client``).  TLS is verified by the default
context, always: the records refuse plain ``http://`` except to a loopback
host, and redirects are refused (a redirect could lead a token-bearing
request somewhere else, or to plain http).  Every message that leaves here
has passed :func:`scrub`: the Telegram token is part of the Bot API URL path,
so it is replaced by ``<token>`` wherever it could appear (and anything that
looks like a bot token besides).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from openalice.core import patterns
from openalice.core.redact import redact

__all__ = ["SendError", "Reply", "request", "multipart", "scrub"]

_BOT_TOKEN_RE = patterns.compile(r"bot\d{3,}:[A-Za-z0-9_-]{10,}")
USER_AGENT = "openalice-connector/1"


class SendError(Exception):
    """A send that did not happen: ``status`` (HTTP, or None for no answer),
    ``retry_after`` seconds when the server asked for it."""

    def __init__(self, message: str, *, status: int | None = None,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after


class Reply:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status: int, headers, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def preview(self, secrets=()) -> str:
        text = self.body[:300].decode("utf-8", "replace").replace("\n", " ").strip()
        return scrub(text, secrets)


def scrub(text: str, secrets=()) -> str:
    """``text`` without any of ``secrets`` and without bot-token shapes."""
    for value in secrets:
        if value:
            text = text.replace(value, "<token>")
    return redact(_BOT_TOKEN_RE.sub("bot<token>", text))


def request(method: str, url: str, *, body: bytes | None = None, headers: dict | None = None,
            timeout: float = 30.0, secrets=(), what: str = "request",
            max_bytes: int = 4 * 1024 * 1024) -> Reply:
    """One HTTP exchange (``http.client``: header names go out as written, and
    a redirect is answered as it is, never followed).  Any HTTP status is a
    :class:`Reply`; no answer at all (refused, unreachable, TLS failure,
    timeout) is a :class:`SendError`."""
    import http.client  # lazy: only a send needs it
    import ssl

    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    all_headers = {"User-Agent": USER_AGENT, **(headers or {})}
    if body is not None:
        all_headers["Content-Length"] = str(len(body))
    try:
        if parts.scheme == "https":
            conn = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=max(0.1, timeout),
                                               context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=max(0.1, timeout))
        try:
            conn.request(method, target, body=body, headers=all_headers)
            resp = conn.getresponse()
            return Reply(resp.status, resp.headers, resp.read(max_bytes))
        finally:
            conn.close()
    except (OSError, http.client.HTTPException, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc.__class__.__name__ + (f": {exc}" if str(exc) else "")
        raise SendError(scrub(f"{what}: no answer ({reason})", secrets)) from None


def multipart(fields: list[tuple[str, str]],
              files: list[tuple[str, str, str, bytes]]) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body and its Content-Type.  ``files`` are
    ``(field, file name, content type, bytes)``; the boundary is random and
    checked against the data."""
    import secrets as random_source  # lazy: only uploads need it

    while True:
        boundary = "openalice-" + random_source.token_hex(16)
        mark = boundary.encode("ascii")
        if all(mark not in data for _, _, _, data in files):
            break
    out = bytearray()
    for name, value in fields:
        out += b"--" + mark + b"\r\n"
        out += f'Content-Disposition: form-data; name="{_quote(name)}"\r\n\r\n'.encode("utf-8")
        out += value.encode("utf-8") + b"\r\n"
    for name, filename, content_type, data in files:
        out += b"--" + mark + b"\r\n"
        out += (f'Content-Disposition: form-data; name="{_quote(name)}"; '
                f'filename="{_quote(filename)}"\r\n').encode("utf-8")
        out += f"Content-Type: {content_type}\r\n\r\n".encode("ascii")
        out += data + b"\r\n"
    out += b"--" + mark + b"--\r\n"
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def _quote(text: str) -> str:
    return "".join("_" if c in '"\\\r\n' or ord(c) < 32 else c for c in text)
