"""Loopback ports for a generation: distinct, free when handed out, checked again.

:func:`allocate` binds ``127.0.0.1:0`` once per id and holds every socket
until all are bound, so the kernel hands out distinct ports; then it closes
them for the app to bind.  Another process may take one in between: the
supervisor checks with :func:`taken_by_others` when the app fails to start,
and retries with fresh ports.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable

__all__ = ["LOOPBACK_HOST", "allocate", "is_free", "taken_by_others", "probe"]

LOOPBACK_HOST = "127.0.0.1"


def allocate(ids: Iterable[str]) -> dict[str, int]:
    """One distinct free loopback port per id, in the order given."""
    held: list[socket.socket] = []
    ports: dict[str, int] = {}
    try:
        for port_id in ids:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            held.append(sock)
            sock.bind((LOOPBACK_HOST, 0))
            ports[port_id] = sock.getsockname()[1]
    finally:
        for sock in held:
            sock.close()
    return ports


def is_free(port: int) -> bool:
    """True if nothing is bound to ``127.0.0.1:port`` (a socket in TIME_WAIT does not count)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK_HOST, port))
        return True
    except OSError:
        return False
    finally:
        sock.close()


def taken_by_others(ports: dict[str, int]) -> list[str]:
    """The ids whose port is bound now (asked after our app's group is gone:
    whoever holds it is someone else)."""
    return [port_id for port_id, port in ports.items() if not is_free(port)]


def probe(path: str, port: int, timeout: float) -> bool:
    """``GET path`` on the loopback ``port``: True on a 2xx (the readiness probe)."""
    import http.client  # lazy: only the supervisor probes

    conn = http.client.HTTPConnection(LOOPBACK_HOST, port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"User-Agent": "openalice-studio-readiness", "Accept": "*/*"})
        response = conn.getresponse()
        response.read(64 * 1024)
        return 200 <= response.status < 300
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()
