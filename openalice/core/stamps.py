"""Stamps: empty files whose modification time records an instant.

A stamp costs one ``utime`` system call to renew, which is what a path that
runs every minute can afford (the scan's heartbeat).  There is no content to
tear, so there is nothing to write atomically; the file is created 0600 in a
0700 directory and never followed through a symlink.  Imports nothing but
``os`` (and :mod:`.dirs`).
"""

from __future__ import annotations

import os
import stat

from .dirs import make_dirs

__all__ = ["touch", "read"]


def touch(path: str, ns: int) -> None:
    """Set the stamp at ``path`` to ``ns`` (epoch nanoseconds), creating it
    (and its directory) if missing.  OSError propagates."""
    try:
        os.utime(path, ns=(ns, ns), follow_symlinks=False)
        return
    except FileNotFoundError:
        pass
    make_dirs(os.path.dirname(path), 0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    os.close(fd)
    os.utime(path, ns=(ns, ns), follow_symlinks=False)


def read(path: str) -> int | None:
    """The stamp's instant in epoch nanoseconds; None when it is missing or
    is not a regular file."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_mtime_ns
