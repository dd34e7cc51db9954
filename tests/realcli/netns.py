"""A private network namespace with only loopback up, for the real-CLI tests.

Why: the real agent CLIs try to reach their vendors (telemetry, update checks,
model lists).  The environment knobs turn most of that off, but only a network
namespace *guarantees* that a test run talks to nothing but the fake server.

How, without a helper process or a global ``ip netns`` name: one short-lived
thread calls ``unshare(CLONE_NEWNET)`` (a network namespace is per thread on
Linux), brings ``lo`` up with an ioctl, and keeps a file descriptor of the
namespace open.  ``call(fn)`` runs ``fn`` in a thread that joined the
namespace (``setns``), so a listening socket made there lives in it; a child
process joins it with ``nsenter --net=/proc/<pid>/fd/<fd>`` in front of its
argv (``wrap``).  Needs CAP_SYS_ADMIN (root in CI) and ``nsenter``;
``LoopbackNetns.create()`` returns None with the reason when it cannot.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import socket
import struct
import threading

__all__ = ["LoopbackNetns"]

CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    return libc


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        ifreq = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, ifreq))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _in_thread(fn):
    """Run ``fn`` in a fresh thread and return its result (re-raising its error):
    namespace changes then stay confined to that thread."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    thread = threading.Thread(target=target, name="netns", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


class LoopbackNetns:
    """A network namespace holding only an ``lo`` that is up."""

    def __init__(self, fd: int, nsenter: str) -> None:
        self.fd = fd
        self.nsenter = nsenter
        self.path = f"/proc/{os.getpid()}/fd/{fd}"

    @classmethod
    def create(cls) -> "tuple[LoopbackNetns | None, str]":
        """(namespace, "") or (None, why it is not available here)."""
        nsenter = shutil.which("nsenter")
        if nsenter is None:
            return None, "nsenter is not on PATH"
        if not os.path.exists("/proc/self/ns/net"):
            return None, "no /proc/self/ns/net (not Linux?)"
        libc = _libc()

        def make():
            _check(libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
            _loopback_up()
            return os.open(f"/proc/self/task/{threading.get_native_id()}/ns/net", os.O_RDONLY)

        try:
            fd = _in_thread(make)
        except OSError as exc:
            return None, f"cannot create a network namespace ({exc.strerror or exc})"
        ns = cls(fd, nsenter)
        try:
            ns.call(lambda: socket.create_server(("127.0.0.1", 0)).close())
        except OSError as exc:
            ns.close()
            return None, f"loopback in the new namespace does not work ({exc})"
        return ns, ""

    def call(self, fn):
        """Run ``fn()`` inside the namespace (in a helper thread) and return its result."""
        libc = _libc()

        def inside():
            _check(libc.setns(self.fd, CLONE_NEWNET), "setns")
            return fn()

        return _in_thread(inside)

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the namespace.  The child inherits nothing else."""
        return [self.nsenter, f"--net={self.path}", "--", *argv]

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
