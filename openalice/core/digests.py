"""SHA-256 hash objects that do not load OpenSSL for a few small inputs.

``import hashlib`` loads ``_hashlib``, the OpenSSL binding: 4-6 ms of a
process start, more than some whole read verbs spend on their own work.  The
interpreter also ships its own SHA-256 (``_sha256`` in 3.11; 3.12 renamed it
``_sha2``, which the standard-library check of the 3.11 this project targets
does not know, so there it is OpenSSL after all), which imports in about 0.4 ms
but hashes about four times slower
(6.4 against 1.7 µs a KiB here).  Both compute the same digest, so the choice
is only about cost: the builtin one while the bytes this process has hashed
stay within :data:`LARGE` (the revisions of a skill bundle, a sticker, a plan:
kilobytes), OpenSSL from the hash that would pass it (the break-even is about
1 MB in all, so the worst case, a process that hashes a little more, costs
about a millisecond more than loading OpenSSL at once) or when some other
module has loaded ``hashlib`` anyway.  A caller that streams bytes passes the
size it expects (``total``) so a large file goes to OpenSSL from its first
chunk.
"""

from __future__ import annotations

import sys

__all__ = ["LARGE", "sha256", "sha256_hex"]

LARGE = 256 * 1024
_builtin = None
_small_bytes = 0  # what the builtin hash has been given in this process


def _small_constructor():
    global _builtin
    if _builtin is None:
        # lazy: the builtin hash is loaded by the first small input
        try:
            from _sha256 import sha256 as constructor  # lazy: (as above) CPython 3.11's module
        except ImportError:  # 3.12 renamed it (_sha2), or a build without it: OpenSSL after all
            from hashlib import sha256 as constructor  # lazy: the OpenSSL one
        _builtin = constructor
    return _builtin


def sha256(data: bytes = b"", *, total: int | None = None):
    """A SHA-256 hash object holding ``data``; ``total`` is how many bytes the
    caller expects to feed it in all (``len(data)`` when not given)."""
    global _small_bytes
    size = len(data) if total is None else max(total, len(data))
    if _small_bytes + size > LARGE or "hashlib" in sys.modules:
        import hashlib  # lazy: the OpenSSL one, faster per byte but 4-6 ms to load

        return hashlib.sha256(data)
    _small_bytes += size
    return _small_constructor()(data)


def sha256_hex(data: bytes) -> str:
    """The hex SHA-256 digest of ``data``."""
    return sha256(data).hexdigest()
