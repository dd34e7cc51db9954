"""Who may talk to the gateway.

* **Host guard** (DNS rebinding): the ``Host`` header must name a loopback
  host (or the explicit non-loopback bind address) and the gateway's port.
* **Authentication**: the random token, as the HttpOnly SameSite=Strict cookie
  the page got in exchange for ``/?token=T`` (or for a one-time ``/?code=C``:
  what ``--open`` hands the browser, so the token is on no command line), or
  as ``Authorization: Bearer T`` from a script.
* **State changes** (every method but GET) also need ``X-OpenAlice-Token: T``
  and an ``Origin`` equal to the gateway's own (a missing or ``null`` Origin is
  a mismatch).  A cross-site page can neither read the token nor set that
  header without a CORS preflight the gateway never grants.

The cookie's name carries the port: browsers do not separate cookies by port,
so two gateways on one host would otherwise overwrite each other's.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from http.cookies import CookieError, SimpleCookie
from typing import Callable, Iterable, Mapping
from urllib.parse import urlsplit

from openalice.core import patterns
from openalice.core.net import is_loopback_ip

__all__ = ["LOOPBACK_NAMES", "new_token", "is_loopback", "Guard"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
TOKEN_HEADER = "X-OpenAlice-Token"
_HOST_CHARS = patterns.compile(r"[A-Za-z0-9.\-:\[\]]+\Z")
CODE_SECONDS = 60.0   # a browser that takes longer to start gets a refusal and the printed URL works
_MAX_CODES = 8


def new_token() -> str:
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """A loopback IP literal, or the name ``localhost``."""
    return host.lower() == "localhost" or is_loopback_ip(host)


def _split_host(value: str) -> tuple[str, int | None] | None:
    """``(hostname, port)`` of a Host header value, or None when malformed."""
    if not value or not _HOST_CHARS.match(value):
        return None
    try:
        parts = urlsplit("//" + value)
        port = parts.port
    except ValueError:
        return None
    if parts.hostname is None:
        return None
    return parts.hostname.lower(), port


class Guard:
    def __init__(self, token: str, *, port: int, hosts: Iterable[str],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.token = token
        self.port = port
        self.hosts = frozenset(h.lower().strip("[]") for h in hosts)
        self.cookie_name = f"openalice-gateway-{port}"
        self._clock = clock
        self._codes: dict[bytes, float] = {}   # sha256(code) → when it stops working
        self._codes_lock = threading.Lock()

    # -- one-time codes -------------------------------------------------------------------
    def issue_code(self, seconds: float = CODE_SECONDS) -> str:
        """A fresh code that ``redeem_code`` accepts once within ``seconds``: it may sit on a
        command line (a browser's) because it is worthless once used or expired."""
        code = secrets.token_urlsafe(32)
        now = self._clock()
        with self._codes_lock:
            self._codes = {k: v for k, v in self._codes.items() if v > now}
            while len(self._codes) >= _MAX_CODES:
                self._codes.pop(next(iter(self._codes)))
            self._codes[hashlib.sha256(code.encode()).digest()] = now + seconds
        return code

    def redeem_code(self, candidate: str | None) -> bool:
        """True once for a live code; a used, expired or unknown one is False."""
        if not candidate:
            return False
        key = hashlib.sha256(candidate.encode("utf-8", "replace")).digest()
        with self._codes_lock:
            until = self._codes.pop(key, None)
        return until is not None and self._clock() < until

    # -- checks -------------------------------------------------------------------
    def token_matches(self, candidate: str | None) -> bool:
        if not candidate:
            return False
        return hmac.compare_digest(candidate.encode("utf-8", "replace"),
                                   self.token.encode("utf-8"))

    def host_allowed(self, host_header: str | None) -> bool:
        parsed = _split_host(host_header or "")
        if parsed is None:
            return False
        name, port = parsed
        return name in self.hosts and (port or 80) == self.port

    def origin_allowed(self, origin: str | None) -> bool:
        if not origin or origin == "null":
            return False
        try:
            parts = urlsplit(origin)
            port = parts.port
        except ValueError:
            return False
        if parts.scheme != "http" or parts.username or parts.password or parts.path or parts.query:
            return False
        return (parts.hostname or "").lower() in self.hosts and (port or 80) == self.port

    def cookie_token(self, headers: Mapping[str, str]) -> str | None:
        raw = headers.get("Cookie")
        if not raw:
            return None
        jar = SimpleCookie()
        try:
            jar.load(raw)
        except CookieError:
            return None
        morsel = jar.get(self.cookie_name)
        return morsel.value if morsel is not None else None

    def bearer_token(self, headers: Mapping[str, str]) -> str | None:
        raw = headers.get("Authorization") or ""
        scheme, _, value = raw.partition(" ")
        return value.strip() if scheme.lower() == "bearer" else None

    def authenticated(self, headers: Mapping[str, str]) -> bool:
        return (self.token_matches(self.cookie_token(headers))
                or self.token_matches(self.bearer_token(headers)))

    def state_change_refusal(self, headers: Mapping[str, str]) -> tuple[str, str] | None:
        """``(code, message)`` when a state-changing request lacks its proofs."""
        if not self.token_matches(headers.get(TOKEN_HEADER)):
            return ("token_header_required",
                    f"state-changing requests need the {TOKEN_HEADER} header with the token")
        if not self.origin_allowed(headers.get("Origin")):
            return ("bad_origin", "the Origin header is missing or is not this gateway's origin")
        return None

    # -- the cookie ---------------------------------------------------------------
    def set_cookie_header(self) -> str:
        return f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"
