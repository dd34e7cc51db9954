"""Expiring lease files: claims that outlive one process.

A lease records who holds a claim (owner, host, pid + start token), until when
(``expiresAt``) and a ``generation`` that increases on every acquisition.  A
claim may be taken over only once it is proven free: expired, or held by a
process on this host that no longer exists.  Because a lease can expire while
its holder still runs, the holder calls :func:`check` (fencing) before it
commits work: if the generation moved on, the holder lost the claim.

The lease file is read and written under the flock that guards it, so two
contenders never both win.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from . import clock, fs
from .errors import Busy, InvalidInput
from .records import asdict, record_class

__all__ = ["Lease", "LeaseLost", "acquire", "acquire_waiting", "renew", "release", "check", "read"]


class LeaseLost(Busy):
    """The lease expired and someone else holds it now."""

    default_code = "lease_lost"


@record_class(frozen=True)
class Lease:
    path: str
    owner: str
    pid: int
    startToken: str | None
    host: str
    acquiredAt: str
    expiresAt: str
    generation: int

    def record(self) -> dict:
        data = asdict(self)
        data.pop("path")
        return data


def read(path: os.PathLike | str) -> dict | None:
    """The current lease record, or None if there is none."""
    data = fs.read_json(path, missing=None)
    if data is not None and not isinstance(data, dict):
        raise InvalidInput("lease file is not a JSON object", file=path, code="malformed_lease")
    return data


def _is_free(record: dict | None, now: datetime) -> bool:
    if not record or record.get("released"):
        return True
    try:
        expires = clock.parse_instant(record.get("expiresAt", ""))
    except InvalidInput:
        return True  # an unreadable expiry cannot prove anything: treat as expired
    if now >= expires:
        return True
    import socket  # lazy: only a lease that exists or is taken asks (status reads without one)

    from . import proc  # lazy: (as socket; proc imports signal)

    if record.get("host") == socket.gethostname():
        return not proc.is_alive(record.get("pid"), record.get("startToken"))
    return False


def acquire(path: os.PathLike | str, owner: str, ttl: float, *, now: datetime,
            pid: int | None = None) -> Lease:
    """Take the lease for ``ttl`` seconds or raise :class:`Busy` naming the holder."""
    target = Path(path)
    with fs.locked_file(target):
        current = read(target)
        if not _is_free(current, now):
            raise Busy(f"held by {current.get('owner')} (pid {current.get('pid')}) until "
                       f"{current.get('expiresAt')}", code="lease_held", file=target,
                       details={"holder": current.get("owner")})
        generation = int((current or {}).get("generation", 0)) + 1
        import socket  # lazy: (as in _is_free)

        from . import proc  # lazy: (as in _is_free)

        me = pid or os.getpid()
        lease = Lease(path=str(target), owner=owner, pid=me, startToken=proc.start_token(me),
                      host=socket.gethostname(), acquiredAt=clock.to_iso(now),
                      expiresAt=clock.to_iso(now + timedelta(seconds=ttl)), generation=generation)
        fs.atomic_write_json(target, lease.record(), mode=0o600)
        return lease


def acquire_waiting(path: os.PathLike | str, owner: str, ttl: float, *,
                    now: Callable[[], datetime], wait: float, poll: float = 0.05) -> Lease:
    """:func:`acquire`, queueing behind the holder for up to ``wait`` seconds.

    For operations that must be serialized rather than refused (a second
    ``studio stop`` waits for the first).  ``now`` is called on every try, so
    an expiry that passes while we wait counts.  Still :class:`Busy` after
    ``wait``.
    """
    deadline = time.monotonic() + wait
    while True:
        try:
            return acquire(path, owner, ttl, now=now())
        except Busy:
            if time.monotonic() >= deadline:
                raise
        time.sleep(poll)


def check(lease: Lease) -> None:
    """Raise :class:`LeaseLost` unless ``lease`` is still the current generation."""
    current = read(lease.path)
    if (not current or current.get("released") or current.get("generation") != lease.generation
            or current.get("owner") != lease.owner):
        raise LeaseLost(f"lease lost: {lease.path} moved past generation {lease.generation}",
                        file=lease.path)


def renew(lease: Lease, ttl: float, *, now: datetime) -> Lease:
    """Extend a lease we still hold (fenced by generation)."""
    with fs.locked_file(lease.path):
        check(lease)
        renewed = Lease(**{**asdict(lease), "expiresAt": clock.to_iso(now + timedelta(seconds=ttl))})
        fs.atomic_write_json(lease.path, renewed.record(), mode=0o600)
        return renewed


def release(lease: Lease) -> bool:
    """Give the lease up if we still hold it; the generation is kept for fencing."""
    with fs.locked_file(lease.path):
        current = read(lease.path)
        if not current or current.get("generation") != lease.generation:
            return False
        fs.atomic_write_json(lease.path, {**current, "released": True}, mode=0o600)
        return True
