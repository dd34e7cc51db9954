"""How a file referenced by an Inbox entry is handed to a browser.

Only raster images (png, jpeg, gif, webp) and PDF are served inline, and only
when the bytes start with that format's signature (a ``.png`` holding HTML is
an attachment).  Everything else — HTML and SVG above all — is
``application/octet-stream`` with ``Content-Disposition: attachment``.  Every
file response carries ``X-Content-Type-Options: nosniff`` and
``Content-Security-Policy: sandbox``, so even a mislabelled file can never
run as same-origin active content.
"""

from __future__ import annotations

import posixpath
from urllib.parse import quote

__all__ = ["INLINE_TYPES", "content_type_for", "content_disposition", "file_headers",
           "revision_state"]

# extension -> (MIME type, accepted leading signatures)
INLINE_TYPES: dict[str, tuple[str, tuple[bytes, ...]]] = {
    ".png": ("image/png", (b"\x89PNG\r\n\x1a\n",)),
    ".jpg": ("image/jpeg", (b"\xff\xd8\xff",)),
    ".jpeg": ("image/jpeg", (b"\xff\xd8\xff",)),
    ".gif": ("image/gif", (b"GIF87a", b"GIF89a")),
    ".webp": ("image/webp", (b"RIFF",)),
    ".pdf": ("application/pdf", (b"%PDF-",)),
}
ATTACHMENT_TYPE = "application/octet-stream"
FILE_CSP = "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"


def content_type_for(path: str, data: bytes) -> tuple[str, bool]:
    """``(Content-Type, inline?)`` for a referenced file."""
    ext = posixpath.splitext(path.lower())[1]
    known = INLINE_TYPES.get(ext)
    if known is None:
        return ATTACHMENT_TYPE, False
    mime, signatures = known
    if not any(data.startswith(sig) for sig in signatures):
        return ATTACHMENT_TYPE, False
    if ext == ".webp" and data[8:12] != b"WEBP":
        return ATTACHMENT_TYPE, False
    return mime, True


def content_disposition(path: str, *, inline: bool) -> str:
    """``inline|attachment`` with an ASCII ``filename`` and an RFC 5987 ``filename*``."""
    name = posixpath.basename(path.rstrip("/")) or "file"
    ascii_name = "".join(c if c.isascii() and c.isprintable() and c not in '"\\;' else "_"
                         for c in name)
    return (f"{'inline' if inline else 'attachment'}; filename=\"{ascii_name}\"; "
            f"filename*=UTF-8''{quote(name, safe='')}")


def revision_state(matches: bool | None) -> str:
    """``X-OpenAlice-Revision``: ``match``, ``changed`` since publication, or
    ``unpinned`` (the file was unavailable at push time: nothing to compare)."""
    if matches is None:
        return "unpinned"
    return "match" if matches else "changed"


def file_headers(path: str, data: bytes, matches: bool | None) -> dict[str, str]:
    mime, inline = content_type_for(path, data)
    return {
        "Content-Type": mime,
        "Content-Disposition": content_disposition(path, inline=inline),
        "Content-Security-Policy": FILE_CSP,
        "X-Content-Type-Options": "nosniff",
        "X-OpenAlice-Revision": revision_state(matches),
        "Cache-Control": "no-store",
    }
