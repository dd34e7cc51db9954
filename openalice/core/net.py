"""Listening sockets: which addresses are loopback, and why a bind failed.

Shared by the two local servers (the Studio proxy and the web gateway), so
"loopback" and "port in use" mean the same thing in both.
"""

from __future__ import annotations

import errno
import ipaddress

from .errors import Unavailable

__all__ = ["is_loopback_ip", "listen_error"]


def is_loopback_ip(host: str) -> bool:
    """True only for a literal loopback IP (127.0.0.0/8, ::1, brackets allowed):
    no name is resolved."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listen_error(exc: OSError, host: str, port: int, *, field: str | None = None) -> Unavailable:
    """The error (exit 3) for a bind that failed: ``port_in_use`` or ``listen_failed``."""
    code = "port_in_use" if getattr(exc, "errno", None) == errno.EADDRINUSE else "listen_failed"
    return Unavailable(f"cannot listen on {host}:{port}: {exc.strerror or exc}", code=code,
                       field=field)
