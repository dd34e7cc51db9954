"""What one Inbox entry (or one reply comment) becomes for a connector.

An entry is split into **parts**, each with a stable key, so delivery can
record progress part by part and a resend after a crash starts at the first
part the server did not acknowledge:

* ``text``: the body, unchanged (Telegram: split at 4,096 characters,
  counted as Telegram counts them, UTF-16 code units, on paragraph
  boundaries, then line boundaries, then hard);
* one part per ``[[path]]`` reference, in first-seen order: a photo, a
  document or a native sticker, or, when the file cannot be sent as
  published, a short note naming it (changed since publication, missing,
  outside the workspace, too large...).

Files are read at send time through the same workspace boundary as
``alice-inbox cat`` (:func:`openalice.inbox.files.open_reference`: every
component below the root, never through a link out) and their bytes are
hashed and compared with the revision the entry pinned: a file that changed
is never sent as if it were the published one.
"""

from __future__ import annotations

import os

from openalice.core import digests
from openalice.core.errors import AliceError, NotFound, PathEscape
from openalice.inbox import files as inbox_files
from openalice.inbox.references import parse as parse_references

__all__ = ["TELEGRAM_LIMIT", "CAPS", "split_text", "file_kind", "load_file", "LoadedFile",
           "note_for"]

TELEGRAM_LIMIT = 4096
# Per-file caps, by how the file is sent (Telegram's own limits for bots; the
# sticker cap is the sticker packs' image cap).
CAPS = {"photo": 10 * 1024 * 1024, "document": 50 * 1024 * 1024, "sticker": 512 * 1024,
        "attachment": 10 * 1024 * 1024}
IMAGE_TYPES = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
               "webp": "image/webp", "gif": "image/gif"}
PHOTO_EXTENSIONS = ("png", "jpg", "jpeg", "webp")


def _units(text: str) -> int:
    """Length as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def split_text(text: str, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """``text`` in pieces of at most ``limit`` units: whole paragraphs where they
    fit, else whole lines, else hard cuts.  Joining the pieces with the
    separators they were cut at gives the text back."""
    if _units(text) <= limit:
        return [text]
    pieces: list[str] = []
    current = ""
    for para in text.split("\n\n"):
        candidate = para if not current else current + "\n\n" + para
        if _units(candidate) <= limit:
            current = candidate
            continue
        if current:
            pieces.append(current)
            current = ""
        if _units(para) <= limit:
            current = para
        else:
            pieces.extend(_split_lines(para, limit))
    if current:
        pieces.append(current)
    return [p for p in pieces if p.strip()] or [text[:limit]]


def _split_lines(para: str, limit: int) -> list[str]:
    out: list[str] = []
    current = ""
    for line in para.split("\n"):
        candidate = line if not current else current + "\n" + line
        if _units(candidate) <= limit:
            current = candidate
            continue
        if current:
            out.append(current)
            current = ""
        while _units(line) > limit:
            cut = limit
            while _units(line[:cut]) > limit:
                cut -= 1
            out.append(line[:cut])
            line = line[cut:]
        current = line
    if current:
        out.append(current)
    return out


def extension(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def file_kind(path: str, *, stickers: bool = True) -> str:
    """``sticker`` (a ``sticker/*.webp`` on Telegram), ``photo`` (raster image,
    PNG stickers included) or ``document``."""
    ext = extension(path)
    if stickers and path.startswith("sticker/") and ext == "webp":
        return "sticker"
    if ext in PHOTO_EXTENSIONS:
        return "photo"
    return "document"


def content_type(path: str) -> str:
    return IMAGE_TYPES.get(extension(path), "application/octet-stream")


class LoadedFile:
    """A reference read now: ``data`` when it can be sent, else ``problem``."""

    __slots__ = ("path", "data", "problem", "revision")

    def __init__(self, path: str, data: bytes | None, problem: str | None,
                 revision: str | None = None) -> None:
        self.path = path
        self.data = data
        self.problem = problem
        self.revision = revision


def _reason(err: AliceError) -> str:
    if isinstance(err, PathEscape):
        return "outside the workspace"
    if isinstance(err, NotFound):
        return "missing"
    if err.code == "not_regular_file":
        return "not a regular file"
    return "unreadable"


def load_file(root, rel: str, published: str | None, *, cap: int,
              require_revision: bool = True) -> LoadedFile:
    """Read ``rel`` below ``root`` (None: the workspace is gone), at most
    ``cap`` bytes, checked against ``published`` when ``require_revision``."""
    if root is None:
        return LoadedFile(rel, None, "unavailable (its workspace is no longer registered)")
    if require_revision and published is None:
        return LoadedFile(rel, None, "unavailable when the report was published")
    try:
        fd = inbox_files.open_reference(root, rel)
    except AliceError as err:
        return LoadedFile(rel, None, _reason(err))
    try:
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(cap + 1)
    except OSError:
        return LoadedFile(rel, None, "unreadable")
    if len(data) > cap:
        return LoadedFile(rel, None, f"larger than {cap // 1024} KiB")
    current = "sha256:" + digests.sha256_hex(data)
    if require_revision and current != published:
        return LoadedFile(rel, None, "changed since it was published", current)
    return LoadedFile(rel, data, None, current)


def note_for(loaded: LoadedFile) -> str:
    """The line a connector sends in place of a file it cannot send as published."""
    return f"[file not sent] {loaded.path}: {loaded.problem}"


def references(body: str) -> tuple[list[str], bool]:
    refs = parse_references(body)
    return list(refs.paths), refs.silent
