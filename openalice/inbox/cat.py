"""Reading a referenced file back, checked against its published revision.

``alice-inbox cat`` (and the gateway, through it) reads an entry's file with
:func:`openalice.inbox.query.open_referenced` and then one of these:

* :func:`copy_checked` streams it; with ``require_revision`` the bytes are
  first hashed into a private spool and only emitted if they match, so the
  bytes shown are exactly the bytes checked even if the file changes
  meanwhile; otherwise they are streamed as read and the current revision is
  returned for the caller to compare;
* :func:`document` returns it in a JSON document (text or base64, at most
  :data:`DOCUMENT_MAX` bytes).

A file published without a revision (it was unavailable at push time) is
refused under ``require_revision`` (Conflict ``no_revision``, exit 3); bytes
that differ are Conflict ``revision_mismatch``.

Not imported by :mod:`openalice.inbox` itself: its hashing and spooling are
only for this verb.
"""

from __future__ import annotations

import base64
import tempfile

from openalice.core import digests
from openalice.core.errors import Conflict, InvalidInput, OperationalError

from .files import CHUNK

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import BinaryIO

__all__ = ["DOCUMENT_MAX", "require_published", "copy_checked", "document"]

DOCUMENT_MAX = 16 * 1024 * 1024


def require_published(path: str, published: str | None) -> None:
    """Refuse a file that has no published revision to check against."""
    if published is None:
        raise Conflict(f"{path} has no published revision (it was unavailable at "
                       "push time)", field="PATH", code="no_revision")


def copy_checked(src: BinaryIO, out: BinaryIO, *, path: str, published: str | None,
                 require_revision: bool) -> str:
    """Copy ``src`` to ``out`` and return the bytes' revision (``sha256:…``)."""
    if require_revision:
        require_published(path, published)
    digest = digests.sha256(total=digests.LARGE + 1)  # a stream of unknown size: OpenSSL
    if require_revision:
        # Hash a private copy first, then emit that copy: the bytes shown
        # are exactly the bytes checked, even if the file changes meanwhile.
        with tempfile.TemporaryFile() as spool:
            for chunk in iter(lambda: src.read(CHUNK), b""):
                digest.update(chunk)
                spool.write(chunk)
            current = "sha256:" + digest.hexdigest()
            if current != published:
                raise Conflict(f"{path} changed since it was published "
                               f"({published} → {current})", field="PATH",
                               code="revision_mismatch")
            spool.seek(0)
            for chunk in iter(lambda: spool.read(CHUNK), b""):
                out.write(chunk)
        out.flush()
        return current
    try:
        for chunk in iter(lambda: src.read(CHUNK), b""):
            digest.update(chunk)
            out.write(chunk)
        out.flush()
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        raise OperationalError(f"cannot read {path}: {exc.strerror}") from None
    return "sha256:" + digest.hexdigest()


def document(src: BinaryIO, *, entry_id: str, path: str, published: str | None,
             require_revision: bool) -> dict:
    """The file in a document: ``content`` (UTF-8 text, else base64), its
    ``currentRevision`` and whether it ``matchesRevision`` (None: nothing published)."""
    if require_revision:
        require_published(path, published)
    data = src.read(DOCUMENT_MAX + 1)
    if len(data) > DOCUMENT_MAX:
        raise InvalidInput(f"{path} is larger than 16 MiB; use cat without --json",
                           field="PATH", code="too_large")
    current = "sha256:" + digests.sha256_hex(data)
    matches = None if published is None else current == published
    if require_revision and not matches:
        raise Conflict(f"{path} changed since it was published ({published} → {current})",
                       field="PATH", code="revision_mismatch")
    try:
        content, encoding = data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        content, encoding = base64.b64encode(data).decode("ascii"), "base64"
    doc = {"id": entry_id, "path": path, "currentRevision": current,
           "matchesRevision": matches, "size": len(data), "encoding": encoding,
           "content": content}
    if published is not None:
        doc["revision"] = published
    return doc
