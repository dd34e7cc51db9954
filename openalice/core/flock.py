"""The ``flock(2)`` primitive, importing nothing but ``os`` and ``fcntl`` (and :mod:`.dirs`).

:mod:`openalice.core.locks` builds the toolkit's lock (one descriptor per
process, thread-safe, re-entrant, timeouts) on these calls.  The scanner's
nothing-due fast path uses them directly because ``threading`` alone costs
more than that whole scan; both take the same lock files with the same
semantics, so they exclude each other.
"""

from __future__ import annotations

import fcntl
import os

__all__ = ["open_lock_file", "try_lock", "lock"]


def open_lock_file(path: str) -> int:
    """A descriptor on ``path`` (created 0600, parents 0700 if missing)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except FileNotFoundError:
        from .dirs import make_dirs  # lazy: only a first lock in a new directory needs it (not reads)

        make_dirs(os.path.dirname(path), 0o700)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


def try_lock(fd: int) -> bool:
    """Take the exclusive lock without waiting; False if another holder has it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def lock(fd: int) -> None:
    """Take the exclusive lock, waiting as long as it takes."""
    fcntl.flock(fd, fcntl.LOCK_EX)
