"""Derived-data files: private caches the files they derive from always win over.

One envelope for every such file (the scan cache, the issue index): an
8-byte magic naming the format and its version, the CRC-32 of the payload (4
bytes, big endian), then the payload, a :mod:`marshal` dump.  marshal trusts
its input (a damaged byte can ask it for a list of a billion items), so the
checksum is checked first and keeps any damage from reaching it.  Anything
that does not decode -- missing, truncated, another magic, a bad checksum, a
value of the wrong shape -- reads as "no cache", and the caller rebuilds it
from the files.  The value records what it depends on besides the files
(:func:`environment_key`: the Python that wrote it, what ``local`` means).

Writes replace the file atomically through :func:`openalice.core.fs.atomic_write_bytes`
(0600, no fsync: a lost write only costs a rebuild).  Concurrent writers need
no lock: each writes a whole, self-consistent value, the last rename wins, and
every entry is checked against the files when it is read.

Reading imports only ``os``, ``marshal`` and ``zlib`` (the scan's fast path
reads its cache through here); writing loads :mod:`openalice.core.fs`.
"""

from __future__ import annotations

import marshal
import os
import zlib

__all__ = ["MAX_BYTES", "encode", "decode", "load", "store", "environment_key"]

MAX_BYTES = 256 * 1024 * 1024


def encode(magic: bytes, value: object) -> bytes:
    """The file's bytes for ``value`` (ValueError if marshal cannot hold it)."""
    payload = marshal.dumps(value)
    return magic + zlib.crc32(payload).to_bytes(4, "big") + payload


def decode(magic: bytes, raw: bytes) -> object:
    """The value :func:`encode` stored; ValueError for anything else."""
    head = len(magic)
    payload = memoryview(raw)[head + 4:]  # not copied
    if (raw[:head] != magic or len(raw) < head + 4
            or zlib.crc32(payload) != int.from_bytes(raw[head:head + 4], "big")):
        raise ValueError("not this derived file, or damaged")
    try:
        return marshal.loads(payload)
    except (EOFError, TypeError, RecursionError, MemoryError) as exc:
        raise ValueError(f"damaged payload ({exc.__class__.__name__})") from None


def load(path: str, magic: bytes, *, max_bytes: int = MAX_BYTES) -> object | None:
    """The stored value, or None when the file is missing, unreadable or
    damaged (never a link: opened with ``O_NOFOLLOW``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(fd, "rb", buffering=0) as fh:
            # the size the file says (a read of max_bytes would allocate that much first)
            size = min(os.fstat(fd).st_size + 1, max_bytes)
            return decode(magic, fh.read(size))
    except (OSError, ValueError, MemoryError):
        return None


def store(path: str, magic: bytes, value: object) -> None:
    """Replace ``path`` with ``value`` atomically (0600, directories 0700,
    not fsynced).  OSError / AliceError as :mod:`openalice.core.fs` raises them."""
    from openalice.core import fs  # lazy: only a write needs the writers

    data = encode(magic, value)
    directory, name = os.path.split(path)
    try:  # the usual case, the directory is there: reached through it (no directory-making code loads)
        fs.atomic_write_bytes(name, data, mode=0o600, durable=False, root=directory)
    except FileNotFoundError:  # the first write: its directories are made (0700)
        fs.atomic_write_bytes(path, data, mode=0o600, durable=False)


def environment_key() -> list:
    """What derived values depend on besides the files: what ``local`` zones
    mean (``$TZ``, the ``/etc/localtime`` link) and the Python that wrote
    them (marshal's format).  A change drops the cache."""
    import sys  # lazy: (built in: free; kept beside its one use)

    try:
        link = os.readlink("/etc/localtime")
    except OSError:
        link = None
    return [os.environ.get("TZ"), link, "%d.%d" % sys.version_info[:2]]
