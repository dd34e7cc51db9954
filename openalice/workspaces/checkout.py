"""The workspace checkout lease: one writer of a workspace's managed files at a time.

    with checkout(ws, "alice-harness upgrade", now=now):              # busy → Busy (exit 3)
        ...
    with checkout(ws, "alice-harness status", now=now, wait=30):     # queue behind a writer
        ...

Harness upgrades, template upgrades, sticker projection and Studio source
upgrades all take this one lease (a :mod:`openalice.core.leases` file in
``$OPENALICE_HOME/locks/checkout/<workspace-id>.lease``) before they touch a
workspace's files.  A holder that dies (even by SIGKILL) frees it at once:
its pid no longer runs.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from openalice.core import leases, paths
from openalice.core.errors import Busy

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Iterator

__all__ = ["lease_path", "checkout", "TTL_SECONDS"]

TTL_SECONDS = 900.0


def lease_path(ws) -> Path:
    return paths.locks_dir() / "checkout" / f"{ws.id}.lease"


@contextmanager
def checkout(ws, owner: str, *, now: datetime, wait: float = 0.0) -> Iterator[leases.Lease]:
    """Hold the checkout lease of ``ws`` for the block.

    ``wait`` > 0 queues behind a holder for up to that many seconds
    (:func:`openalice.core.leases.acquire_waiting`) before giving up with
    :class:`Busy` (code ``workspace_busy``).
    """
    path = lease_path(ws)
    try:
        lease = leases.acquire_waiting(path, owner, TTL_SECONDS, now=lambda: now, wait=wait)
    except Busy as exc:
        raise Busy(f"workspace '{ws.id}' is busy: its checkout lease is {exc.message}", code="workspace_busy",
                   file=path, details=exc.details) from None
    try:
        yield lease
    finally:
        leases.release(lease)
