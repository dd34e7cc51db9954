"""The HTTP side: a threaded ``http.server``, the guards, the page, SSE, shutdown.

Order of checks for every request, each refusing before anything runs:
connection cap (503, :mod:`.conns`) → head size (431) and framing headers (400/411,
:mod:`.limits`) → Host (403) → token exchange on ``/?token=`` or ``/?code=`` →
cookie or Bearer (401) → for every method but GET, ``X-OpenAlice-Token`` and
Origin (403) → body size (413), then the body is read → JSON depth (400) → route and
parameter grammar (404/405/400) → the CLI.  No body byte is read before the token.

The request side (guards, routing, SSE) is :mod:`.handler`; here, the server,
its lifecycle and the page.
"""

from __future__ import annotations

import secrets
import signal
import socket
import socketserver
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from importlib.resources import files
from typing import Callable, TextIO

from openalice.core.errors import UsageError
from openalice.core.net import listen_error

from .api import Api, Response
from .auth import LOOPBACK_NAMES, Guard, is_loopback, new_token
from .conns import MAX_CONNECTIONS, ConnectionTable, refuse_busy
from .handler import RequestHandler
from .limits import MAX_BODY_BYTES
from .runner import CliRunner

__all__ = ["Gateway", "MAX_BODY_BYTES"]

_WILDCARDS = ("0.0.0.0", "::", "")


def _page_template() -> str:
    return files("openalice.gateway").joinpath("page.html").read_text(encoding="utf-8")


class HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256   # a burst of connects must not overflow the accept queue (1 s SYN retries)

    def __init__(self, address, handler, family: int, max_connections: int) -> None:
        self.address_family = family
        self.max_connections = max_connections
        self.connections = ConnectionTable(max_connections)
        super().__init__(address, handler)

    def process_request(self, request, client_address) -> None:
        if not self.connections.admit(request):
            refuse_busy(request)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.forget(request)

    def service_actions(self) -> None:
        self.connections.sweep()   # serve_forever calls this between polls

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup
        # that can hang for seconds on a machine without DNS: skip it.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def handle_error(self, request, client_address) -> None:
        # A client that vanished mid-request is not worth a traceback on stderr.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, socket.timeout)):
            return
        gateway = getattr(self, "gateway", None)
        if gateway is not None:
            gateway.log(f"connection from {client_address[0]} failed: "
                        f"{exc.__class__.__name__}: {exc}")


class Gateway:
    """One ``alice serve``: the listening socket, the token, the runner."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, token: str | None = None,
                 runner: CliRunner | None = None, allow_remote: bool = False,
                 log: TextIO | None = None, max_connections: int = MAX_CONNECTIONS) -> None:
        if not is_loopback(host) and not allow_remote:
            raise UsageError(f"refusing to listen on {host!r}: the gateway binds loopback "
                             "addresses only unless --allow-remote is given",
                             field="--host", code="not_loopback",
                             details={"hint": "anyone who can reach that address and guess no "
                                              "token can still probe it; prefer an SSH tunnel"})
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            self.httpd = HttpServer((host, port), RequestHandler, family, max_connections)
        except OSError as exc:
            raise listen_error(exc, host, port, field="--port") from None
        self.httpd.gateway = self
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self.token = token or new_token()
        hosts = set(LOOPBACK_NAMES)
        if host not in _WILDCARDS:
            hosts.add(host)
        self.guard = Guard(self.token, port=self.port, hosts=hosts)
        self.runner = runner if runner is not None else CliRunner()
        self.api = Api(self.runner)
        self.stopping = threading.Event()
        self.remote = not is_loopback(host)
        self._log_stream = log if log is not None else sys.stderr
        self._log_lock = threading.Lock()
        self._page = _page_template()
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- addresses -----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        shown = "127.0.0.1" if self.host in _WILDCARDS else self.host
        if ":" in shown:
            shown = f"[{shown}]"
        return f"http://{shown}:{self.port}"

    @property
    def url(self) -> str:
        """The URL to open: it carries the token, exchanged for a cookie on first use."""
        return f"{self.base_url}/?token={self.token}"

    def one_time_url(self) -> str:
        """A URL for a browser started by ``--open``: a code that works once, for a minute,
        instead of the token, which would sit on the browser's command line for all to read."""
        return f"{self.base_url}/?code={self.guard.issue_code()}"

    # -- lifecycle ---------------------------------------------------------------------------
    def log(self, line: str) -> None:
        with self._log_lock:
            try:
                self._log_stream.write(f"alice serve: {line}\n")
                self._log_stream.flush()
            except (OSError, ValueError):
                pass

    def start(self) -> "Gateway":
        """Serve from a background thread (tests, ``serve_until_signalled``)."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="openalice-gateway", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop accepting, end the live children (SSE followers), close the socket."""
        if self._closed:
            return
        self._closed = True
        self.stopping.set()
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
        self.httpd.connections.end_all()   # idle keep-alive and stalled connections end now
        self.runner.close()
        self.httpd.server_close()

    def __enter__(self) -> "Gateway":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def serve_until_signalled(self, on_ready: Callable[[], None] | None = None) -> int:
        """Serve until SIGINT or SIGTERM, then shut down cleanly; returns 0.

        ``on_ready`` runs once the handlers are installed and the server
        accepts (the CLI prints the URL there, so a signal sent as soon as the
        URL is read is already a clean stop)."""
        stop: list[int] = []

        def on_signal(signum, frame) -> None:
            # Only a list append: a handler that took a lock (Event.set) could deadlock
            # against the main thread it interrupted while that thread held the same lock.
            stop.append(signum)

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.start()
            if on_ready is not None:
                on_ready()
            while not stop:
                if self._thread is not None and not self._thread.is_alive():
                    break
                time.sleep(0.1)
        finally:
            self.log("shutting down")
            self.close()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return 0

    # -- the page ---------------------------------------------------------------------------
    def page(self) -> Response:
        nonce = secrets.token_urlsafe(16)
        html = self._page.replace("{{NONCE}}", nonce).replace("{{TOKEN}}", self.token)
        headers = {
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": (
                f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
                "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
                "frame-ancestors 'none'"),
        }
        return Response(200, html.encode("utf-8"), headers)
