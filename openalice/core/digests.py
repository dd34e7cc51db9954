"""SHA-256 hash objects that do not load OpenSSL for a few small inputs.

``import hashlib`` loads ``_hashlib``, the OpenSSL binding: 4-6 ms of a
process start, more than some whole read verbs spend on their own work.  The
interpreter also ships its own SHA-256 (``_sha256`` in 3.11, ``_sha2`` from
3.12 on: :data:`BUILTIN_MODULES`, each listed in its own version's
``sys.stdlib_module_names``), which imports in about 0.4 ms
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

__all__ = ["BUILTIN_MODULES", "LARGE", "sha256", "sha256_hex"]

LARGE = 256 * 1024
# CPython's own SHA-256 module: its 3.11 name, then the 3.12+ one (the stdlib check allows both)
BUILTIN_MODULES = ("_sha256", "_sha2")
_builtin = None
_small_bytes = 0  # what the builtin hash has been given in this process


def _small_constructor():
    global _builtin
    if _builtin is None:
        # lazy: the builtin hash is loaded by the first small input
        try:
            if "_sha256" in sys.stdlib_module_names:
                from _sha256 import sha256 as constructor  # lazy: (as above) CPython 3.11's name
            else:
                from _sha2 import sha256 as constructor  # lazy: (as above) CPython 3.12+'s name
        except ImportError:  # a build without it: OpenSSL after all
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
