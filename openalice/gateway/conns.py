"""How many connections the gateway holds, and which it lets go first.

Each connection has a thread (``http.server``), so their number is what a hostile client
can grow.  The table counts them; a connection is *waiting* while it owes the gateway a
request head (from its accept, or since its last answer, or while a refused body is read
away) and *busy* while a request is being handled (a CLI, an event stream).

* A connection that has waited ``HEAD_SECONDS`` is ended: a slow head is a slowloris.
* At ``max_connections``, a new connection ends the one that has waited longest (a client
  that sends its head at once is never the oldest waiter for long), so a thousand stalled
  connections cost a bounded number of threads and the next real request is still served.
* When every connection is busy, a new one is answered 503 at once and closed.

Ending a connection is ``shutdown()`` on its socket: its thread's read returns at once.
"""

from __future__ import annotations

import socket
import threading
import time

__all__ = ["ConnectionTable", "MAX_CONNECTIONS", "HEAD_SECONDS", "BUSY_RESPONSE", "refuse_busy"]

MAX_CONNECTIONS = 128
HEAD_SECONDS = 20.0
_ENDING_WAIT = 0.5       # how long a new connection may wait for ended ones' threads to finish
_SWEEP_EVERY = 0.5

_BUSY_BODY = (b'{"error": {"code": "busy", "exit": 3, "message": "the gateway is handling too '
              b'many connections; retry"}}')
BUSY_RESPONSE = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                 b"Connection: close\r\nRetry-After: 1\r\nCache-Control: no-store\r\n"
                 b"X-Content-Type-Options: nosniff\r\nContent-Length: %d\r\n\r\n" % len(_BUSY_BODY)
                 + _BUSY_BODY)


class _Entry:
    __slots__ = ("sock", "since", "waiting", "ended")

    def __init__(self, sock: socket.socket, now: float) -> None:
        self.sock, self.since, self.waiting, self.ended = sock, now, True, False


class ConnectionTable:
    def __init__(self, max_connections: int = MAX_CONNECTIONS, *,
                 head_seconds: float = HEAD_SECONDS) -> None:
        self.max_connections = max(1, max_connections)
        self.head_seconds = head_seconds
        self._entries: dict[int, _Entry] = {}
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)
        self._swept = 0.0

    def __len__(self) -> int:
        return len(self._entries)

    def admit(self, sock: socket.socket) -> bool:
        """Count a new connection, ending the longest waiter if the table is full; False
        (refuse it) when every connection is busy.  Ended connections still count until their
        threads finish (at most as many again as the cap): at that bound the acceptor waits a
        moment for them, and the next connects wait in the listen queue meanwhile."""
        deadline = time.monotonic() + _ENDING_WAIT
        with self._lock:
            while len(self._entries) >= 2 * self.max_connections:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._freed.wait(left)
            live = [e for e in self._entries.values() if not e.ended]
            if len(live) >= self.max_connections:
                waiters = [e for e in live if e.waiting]
                if not waiters:
                    return False
                self._end(min(waiters, key=lambda e: e.since))
            self._entries[id(sock)] = _Entry(sock, time.monotonic())
        return True

    def forget(self, sock: socket.socket) -> None:
        with self._lock:
            self._entries.pop(id(sock), None)
            self._freed.notify_all()

    def busy(self, sock: socket.socket) -> bool:
        """Mark a connection busy; False when it was ended meanwhile: its head was cut short
        by the ``shutdown()``, so the request must not run."""
        with self._lock:
            entry = self._entries.get(id(sock))
            if entry is None or entry.ended:
                return False
            entry.waiting = False
            return True

    def waiting(self, sock: socket.socket) -> None:
        with self._lock:
            entry = self._entries.get(id(sock))
            if entry is not None:
                entry.waiting, entry.since = True, time.monotonic()

    def sweep(self) -> None:
        """End the connections that have waited too long for their head (called often by
        the serving loop; it looks at most every half second)."""
        now = time.monotonic()
        if now - self._swept < _SWEEP_EVERY:
            return
        self._swept = now
        with self._lock:
            for entry in self._entries.values():
                if entry.waiting and not entry.ended and now - entry.since > self.head_seconds:
                    self._end(entry)

    def end_all(self) -> None:
        with self._lock:
            for entry in self._entries.values():
                if not entry.ended:
                    self._end(entry)

    @staticmethod
    def _end(entry: _Entry) -> None:
        entry.ended = True
        try:
            entry.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def refuse_busy(sock: socket.socket) -> None:
    """The 503 for a connection over the cap, written without ever blocking the acceptor."""
    try:
        sock.setblocking(False)
        sock.send(BUSY_RESPONSE)
    except OSError:
        pass
