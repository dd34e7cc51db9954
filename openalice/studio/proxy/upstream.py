"""Connections to the apps: one per client connection while it stays framed, and a small pool of
idle keep-alive ones shared by the next client connections."""

from __future__ import annotations

import socket
import threading
import time

from .wire import Reader, set_kernel_timeouts

CONNECT_TIMEOUT = 5.0
UPSTREAM_TIMEOUT = 300.0      # an idle upstream read (long polls and event streams are fine below this)
POOL_PER_UPSTREAM = 16        # idle keep-alive connections kept per upstream address
POOL_IDLE = 30.0              # an idle pooled connection older than this is closed, not reused


class Upstream:
    """One connection to an app, reused for request after request while it stays framed."""

    __slots__ = ("address", "sock", "reader", "since")

    def __init__(self, address: tuple[str, int], sock: socket.socket | None = None) -> None:
        self.address = address
        if sock is None:
            sock = socket.create_connection(address, timeout=CONNECT_TIMEOUT)
            set_kernel_timeouts(sock, UPSTREAM_TIMEOUT)
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


class StaleUpstream(Exception):
    """A reused upstream connection was already closed by the app: try once on a fresh one."""
