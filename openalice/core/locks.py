"""Advisory ``flock`` locks, blocking and non-blocking.

flock(2) locks belong to the open file description, so two ``open()`` calls on
the same lock file inside one process would contend with each other.  This
module keeps exactly one descriptor per (process, lock path) and layers a
thread lock on top, which makes the lock safe across threads and re-entrant
within one thread.  The kernel drops the lock when the holder dies (even on
SIGKILL), so a crashed holder never leaves a stale lock behind.
"""

from __future__ import annotations

import _thread
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from . import flock
from .errors import Busy

__all__ = ["Lock", "acquire", "locked", "lock_path_for"]

_registry_guard = _thread.allocate_lock()  # the documented primitive: no threading import
_registry: dict[str, "_Slot"] = {}


class _Slot:
    """One lock file's descriptor and the thread lock guarding it."""

    def __init__(self) -> None:
        import threading  # lazy: only a process that takes a lock pays for it (readers do not)

        self.thread_lock = threading.RLock()
        self.fd: int | None = None
        self.depth = 0
        self.pid = os.getpid()


def lock_path_for(path: os.PathLike | str) -> Path:
    """The hidden lock file that guards ``path`` (``dir/.name.lock``)."""
    p = Path(path)
    return p.with_name(f".{p.name}.lock")


def _slot_for(key: str) -> _Slot:
    with _registry_guard:
        slot = _registry.get(key)
        if slot is None or slot.pid != os.getpid():
            # A forked child must not reuse its parent's bookkeeping.
            slot = _Slot()
            _registry[key] = slot
        return slot


class Lock:
    """A held lock; release it once (or use :func:`locked`)."""

    def __init__(self, key: str, slot: _Slot) -> None:
        self._key = key
        self._slot = slot
        self._released = False

    @property
    def path(self) -> str:
        return self._key

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        slot = self._slot
        slot.depth -= 1
        if slot.depth == 0 and slot.fd is not None:
            fd, slot.fd = slot.fd, None
            os.close(fd)  # the only descriptor: closing it drops the flock
        slot.thread_lock.release()

    def __enter__(self) -> "Lock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def acquire(lock_file: os.PathLike | str, *, blocking: bool = True,
            timeout: float | None = None, opener: Callable[[], int] | None = None) -> Lock:
    """Take the lock on ``lock_file`` (created if missing, mode 0600).

    Non-blocking (or after ``timeout`` seconds) a held lock raises
    :class:`Busy`.  Re-entrant within one thread.  ``opener`` opens the lock
    file instead of its path (``core.fs.locked_file`` with ``root=`` reaches
    it below a workspace root).
    """
    key = os.path.abspath(os.fspath(lock_file))
    slot = _slot_for(key)
    deadline = None if timeout is None else time.monotonic() + timeout
    if not _acquire_thread_lock(slot, blocking, deadline):
        raise Busy(f"lock is held: {key}", code="lock_held", file=key)
    try:
        if slot.depth == 0:
            slot.fd = _flock(key, blocking, deadline, opener)
        slot.depth += 1
    except BaseException:
        slot.thread_lock.release()
        raise
    return Lock(key, slot)


def _acquire_thread_lock(slot: _Slot, blocking: bool, deadline: float | None) -> bool:
    if not blocking:
        return slot.thread_lock.acquire(blocking=False)
    if deadline is None:
        return slot.thread_lock.acquire()
    return slot.thread_lock.acquire(timeout=max(0.0, deadline - time.monotonic()))


def _flock(key: str, blocking: bool, deadline: float | None,
           opener: Callable[[], int] | None = None) -> int:
    try:
        fd = flock.open_lock_file(key) if opener is None else opener()
    except OSError as exc:
        from .fs import explain_os_error  # lazy: core.fs imports this module (a cycle at import time)

        raise explain_os_error(exc, key) from None
    try:
        if blocking and deadline is None:
            flock.lock(fd)
            return fd
        delay = 0.005
        while not flock.try_lock(fd):
            if not blocking or time.monotonic() >= deadline:
                raise Busy(f"lock is held: {key}", code="lock_held", file=key)
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
        return fd
    except BaseException:
        os.close(fd)
        raise


@contextmanager
def locked(lock_file: os.PathLike | str, *, blocking: bool = True,
           timeout: float | None = None, opener: Callable[[], int] | None = None) -> Iterator[Lock]:
    """``with locked(path):`` holds the lock for the block."""
    lock = acquire(lock_file, blocking=blocking, timeout=timeout, opener=opener)
    try:
        yield lock
    finally:
        lock.release()
