"""The listening proxy: a threaded server on 127.0.0.1 only, and its ``proxy.json`` record."""

from __future__ import annotations

import os
import socketserver
import sys
import traceback

from openalice.core import fs, proc
from openalice.core.errors import AliceError
from openalice.core.net import listen_error
from openalice.studio import state

from .handler import ProxyHandler
from .routes import RouteTable
from .upstream import UpstreamPool

DEFAULT_PORT = 47331
BIND_HOST = "127.0.0.1"


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
            sys.stderr.write(f"alice-harness proxy: internal error on a connection from {client_address[0]}:\n")
            traceback.print_exc()


def make_server(port: int = DEFAULT_PORT, *, workspace: str | None = None, verbose: bool = True) -> SurfaceProxy:
    """Bind the proxy on ``127.0.0.1:port`` (never another address)."""
    try:
        return SurfaceProxy(port, workspace=workspace, verbose=verbose)
    except OSError as exc:
        raise listen_error(exc, BIND_HOST, port) from None


def record_running(server: SurfaceProxy, now_iso: str) -> None:
    """``state/studio/proxy.json``: so ``studio status`` can print a full URL."""
    fs.atomic_write_json(state.proxy_path(), {"schemaVersion": 1, "pid": os.getpid(),
                                              "startToken": proc.start_token(os.getpid()),
                                              "host": BIND_HOST, "port": server.port, "startedAt": now_iso},
                         mode=0o600)


def forget_running() -> None:
    """Remove ``proxy.json`` if it still names this process."""
    try:
        data = fs.read_json(state.proxy_path(), missing=None)
        if isinstance(data, dict) and data.get("pid") == os.getpid():
            fs.remove_file(state.proxy_path())
    except AliceError:
        pass
