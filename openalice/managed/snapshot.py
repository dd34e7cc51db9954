"""Managed paths, entries on disk, fingerprints, and gzip JSON snapshots.

A managed path is relative to its root, ``/``-separated, with no leading
``/``, NUL, empty, ``.`` or ``..`` segment; it is managed only inside the
roots its owner declares (an exact file such as ``AGENTS.md``, or a tree
ending in ``/`` such as ``.agents/skills/alice/``).

What a path holds is told by content, never by mtime:

* ``file:<sha256>`` — a regular file (every parent a real directory);
* ``missing`` — nothing there;
* ``other:<sha256 of detail>`` — a symlink (detail names its target), a
  directory, a special file, or a path whose parent is a symlink or not a
  directory ("unsafe parent").  Nothing is ever written through such a path.

A snapshot (baseline, or a transaction's before/incoming sides) is a gzip
JSON document ``{"schemaVersion": 1, "files": {path: entry}}`` where an entry
is ``{"kind": "file", "fingerprint", "content" | "contentBase64"}``,
``{"kind": "missing", "fingerprint": "missing"}`` or ``{"kind": "other",
"fingerprint", "detail"}``; reading checks every fingerprint against its
content, so a damaged snapshot is refused rather than trusted.
"""

from __future__ import annotations

import json
import os
import stat
import zlib

from openalice.core import digests, fs
from openalice.core.errors import AliceError, InvalidInput, OperationalError, PathEscape
from openalice.core.paths import Root
from openalice.core.records import record_class

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Iterable, Mapping

__all__ = [
    "Entry", "MISSING", "SCHEMA_VERSION", "check_path", "within", "Roots", "inspect", "file_entry", "hashed_entry",
    "content_fingerprint", "walk", "read_snapshot", "write_snapshot", "encode_snapshot",
]

SCHEMA_VERSION = 1
MAX_FILE_BYTES = 16 * 1024 * 1024          # one managed file
MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024     # a snapshot, decompressed


@record_class
class Entry:
    """What one path holds: ``kind`` is ``file``, ``missing`` or ``other``.

    Treat as immutable (entries are shared between plans, snapshots and
    items); not frozen only because a frozen dataclass costs four times as
    much to create, and a plan creates one per location."""

    kind: str
    fingerprint: str
    content: bytes | None = None
    detail: str | None = None

    @property
    def regular(self) -> bool:
        """A regular file or nothing: something the engine may write over."""
        return self.kind != "other"

    def to_json(self) -> dict:
        if self.kind == "file":
            try:
                return {"kind": "file", "fingerprint": self.fingerprint, "content": self.content.decode("utf-8")}
            except UnicodeDecodeError:
                import base64  # lazy: only a binary file's entry (base64 loads struct)

                return {"kind": "file", "fingerprint": self.fingerprint,
                        "contentBase64": base64.b64encode(self.content).decode("ascii")}
        if self.kind == "other":
            return {"kind": "other", "fingerprint": self.fingerprint, "detail": self.detail}
        return {"kind": "missing", "fingerprint": "missing"}


MISSING = Entry("missing", "missing")


def content_fingerprint(content: bytes | None) -> str:
    return "missing" if content is None else "file:" + digests.sha256_hex(content)


def hashed_entry(sha256_hex: str | None) -> Entry:
    """A file known only by its sha256 (its bytes are not kept: a baseline that
    records hashes, planned with ``merge=False``); None: nothing there."""
    return MISSING if sha256_hex is None else Entry("file", "file:" + sha256_hex)


def file_entry(content: bytes | None) -> Entry:
    """The entry a path has once ``content`` (None: nothing) is written there."""
    if content is None:
        return MISSING
    return Entry("file", content_fingerprint(content), bytes(content))


def _other(detail: str) -> Entry:
    return Entry("other", "other:" + digests.sha256_hex(detail.encode("utf-8", "surrogateescape")),
                 detail=detail)


def check_path(rel: object, *, field: str | None = None, file: object = None) -> str:
    """Refuse anything that is not a plain relative managed path."""
    if not isinstance(rel, str) or not rel:
        raise InvalidInput("managed path is empty", field=field, file=file, code="bad_managed_path")
    if "\x00" in rel:
        raise InvalidInput(f"managed path contains a NUL byte: {rel!r}", field=field, file=file,
                           code="bad_managed_path")
    if rel.startswith("/"):
        raise PathEscape(f"managed path is absolute: {rel!r}", field=field, file=file)
    if "\\" in rel:
        raise InvalidInput(f"managed path contains a backslash: {rel!r}", field=field, file=file,
                           code="bad_managed_path")
    for part in rel.split("/"):
        if part == "..":
            raise PathEscape(f"managed path has a '..' segment: {rel!r}", field=field, file=file)
        if part in ("", "."):
            raise InvalidInput(f"managed path has an empty or '.' segment: {rel!r}", field=field,
                               file=file, code="bad_managed_path")
    return rel


def within(rel: str, roots: Iterable[str]) -> bool:
    """True if ``rel`` is one of ``roots`` or inside one ending in ``/``."""
    return Roots(roots).contains(rel)


class Roots:
    """A set of managed roots (exact paths, and trees ending in ``/``) to test many paths against."""

    __slots__ = ("exact", "trees")

    def __init__(self, roots: Iterable[str]) -> None:
        roots = list(roots)
        self.exact = frozenset(roots)
        self.trees = tuple(r for r in roots if r.endswith("/"))

    def contains(self, rel: str) -> bool:
        return rel in self.exact or rel.startswith(self.trees)


def inspect(root: os.PathLike | str, rel: str, *, safe_dirs: set | None = None) -> Entry:
    """What ``rel`` holds under ``root`` now, never following a symlink.

    ``safe_dirs`` (a set the caller keeps for one pass over many paths)
    remembers parent directories already proven real, so each is checked once.
    """
    base = os.fspath(root)
    parent = rel.rpartition("/")[0]
    if safe_dirs is not None and parent in safe_dirs:
        return _read_leaf(base, rel)
    parts = rel.split("/")
    current = base
    for depth, part in enumerate(parts[:-1]):
        current = current + os.sep + part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return MISSING
        except NotADirectoryError:
            return _other(f"unsafe parent: {'/'.join(parts[:depth + 1])} is not a directory")
        except OSError as exc:
            raise OperationalError(f"cannot inspect: {exc.strerror}", file=current) from exc
        if stat.S_ISLNK(st.st_mode):
            return _other(f"unsafe parent: {'/'.join(parts[:depth + 1])} is a symlink")
        if not stat.S_ISDIR(st.st_mode):
            return _other(f"unsafe parent: {'/'.join(parts[:depth + 1])} is not a directory")
    if safe_dirs is not None:
        safe_dirs.add(parent)
    return _read_leaf(base, rel)


def _read_leaf(base: str, rel: str) -> Entry:
    """The file ``rel`` read below ``base`` by one walk of ``core.paths.Root``
    that follows no link anywhere (the checks above only name what is wrong:
    a parent swapped for a link after them is refused here, not followed)."""
    leaf = base + os.sep + rel
    try:
        with Root(base) as where:
            fd = where.open(rel, follow=False, links=False)
    except FileNotFoundError:
        return MISSING
    except NotADirectoryError:
        return _other(f"unsafe parent: {rel.rpartition('/')[0]} is not a directory")
    except AliceError as exc:
        if exc.code == "symlink_refused" and exc.field and exc.field != rel:
            return _other(f"unsafe parent: {exc.field} is a symlink")
        if exc.code == "symlink_refused" or os.path.islink(leaf):
            try:
                target = os.readlink(leaf)
            except OSError:
                target = "?"
            return _other(f"symlink -> {target}")
        if exc.code == "not_regular_file":
            return _other("directory" if os.path.isdir(leaf) else "special file")
        raise
    except OSError as exc:
        raise OperationalError(f"cannot read: {exc.strerror}", file=leaf) from exc
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            return _other("directory")
        if not stat.S_ISREG(st.st_mode):
            return _other("special file")
        if st.st_size > MAX_FILE_BYTES:
            return _other(f"file larger than {MAX_FILE_BYTES} bytes")
        # One byte more than its size: a regular file reads whole until EOF,
        # so a short read means done and a full one that it grew meanwhile.
        data = os.read(fd, st.st_size + 1)
        if len(data) > st.st_size:
            chunks = [data]
            while len(data) <= MAX_FILE_BYTES and (chunk := os.read(fd, 1 << 20)):
                chunks.append(chunk)
                data = b"".join(chunks)
            if len(data) > MAX_FILE_BYTES:
                return _other(f"file larger than {MAX_FILE_BYTES} bytes")
    finally:
        os.close(fd)
    return Entry("file", content_fingerprint(data), data)




def walk(root: os.PathLike | str, trees: Iterable[str]) -> list[str]:
    """The paths that exist under each tree (``dir/``) or at each exact path.

    Files are listed; a symlink inside a tree is listed but never followed.
    A tree whose own directory is missing, a file, a symlink or under an
    unsafe parent is not walked: the paths planned inside it report that.
    """
    base = os.fspath(root)
    found: set[str] = set()
    for tree in trees:
        if not tree.endswith("/"):
            if inspect(base, tree).kind != "missing":
                found.add(tree)
            continue
        top = tree.rstrip("/")
        probe = inspect(base, top)
        if probe.kind != "other" or probe.detail != "directory":
            continue
        for directory, dirs, files in os.walk(os.path.join(base, top), followlinks=False):
            rel_dir = os.path.relpath(directory, base).replace(os.sep, "/")
            found.update(f"{rel_dir}/{name}" for name in files)
            for name in list(dirs):
                if os.path.islink(os.path.join(directory, name)):
                    found.add(f"{rel_dir}/{name}")
                    dirs.remove(name)
    return sorted(found)


# -- snapshots --------------------------------------------------------------------------------------

def encode_snapshot(files: Mapping[str, Entry]) -> bytes:
    doc = {"schemaVersion": SCHEMA_VERSION, "files": {p: files[p].to_json() for p in sorted(files)}}
    raw = json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    import gzip  # lazy: only a snapshot being written is compressed

    return gzip.compress(raw, compresslevel=6, mtime=0)


def write_snapshot(path: os.PathLike | str, files: Mapping[str, Entry], *,
                   root: os.PathLike | str | None = None) -> None:
    fs.atomic_write_bytes(path, encode_snapshot(files), mode=0o644, dir_mode=0o755, root=root)


def _gunzip(data: bytes, path) -> bytes:
    try:
        inflater = zlib.decompressobj(wbits=31)
        out = inflater.decompress(data, MAX_SNAPSHOT_BYTES + 1)
    except zlib.error as exc:
        raise InvalidInput(f"not a gzip file: {exc}", file=path, code="malformed_snapshot") from None
    if len(out) > MAX_SNAPSHOT_BYTES or inflater.unconsumed_tail:
        raise InvalidInput("snapshot too large when decompressed", file=path, code="malformed_snapshot")
    if not inflater.eof:
        raise InvalidInput("gzip data is truncated", file=path, code="malformed_snapshot")
    return out


def read_snapshot(path: os.PathLike | str, *, missing: object = None,
                  root: os.PathLike | str | None = None) -> dict[str, Entry] | object:
    """The snapshot at ``path`` (``missing`` when there is no file; ``root``: the
    workspace it is read below).  Any damage (not gzip, bad JSON, wrong shape,
    a fingerprint that does not match its content) is an error naming the
    file and field."""
    data = fs.read_bytes(path, missing=None, root=root)
    if data is None:
        return missing
    raw = _gunzip(data, path)
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInput(f"malformed JSON: {exc}", file=path, code="malformed_snapshot") from None
    if not isinstance(doc, dict) or set(doc) != {"schemaVersion", "files"}:
        raise InvalidInput("must be an object with exactly 'schemaVersion' and 'files'", file=path,
                           code="malformed_snapshot")
    if doc["schemaVersion"] != SCHEMA_VERSION:
        raise InvalidInput(f"unsupported schemaVersion {doc['schemaVersion']!r}", file=path,
                           field="schemaVersion", code="malformed_snapshot")
    if not isinstance(doc["files"], dict):
        raise InvalidInput("must be an object", file=path, field="files", code="malformed_snapshot")
    out: dict[str, Entry] = {}
    for rel, item in doc["files"].items():
        field = f"files/{rel}"
        try:
            check_path(rel)
        except (InvalidInput, PathEscape) as exc:   # a bad path in a file is a malformed file
            raise InvalidInput(exc.message, file=path, field=field, code="malformed_snapshot") from None
        out[rel] = _entry_from_json(item, path, field)
    return out


def _entry_from_json(item: object, path, field: str) -> Entry:
    def bad(reason: str) -> InvalidInput:
        return InvalidInput(reason, file=path, field=field, code="malformed_snapshot")

    if not isinstance(item, dict):
        raise bad("entry is not an object")
    kind = item.get("kind")
    fp = item.get("fingerprint")
    if kind == "missing":
        if set(item) != {"kind", "fingerprint"} or fp != "missing":
            raise bad("a missing entry is exactly {kind: missing, fingerprint: missing}")
        return MISSING
    if kind == "other":
        detail = item.get("detail")
        if set(item) != {"kind", "fingerprint", "detail"} or not isinstance(detail, str):
            raise bad("an other entry has kind, fingerprint and detail")
        entry = _other(detail)
        if entry.fingerprint != fp:
            raise bad("fingerprint does not match detail")
        return entry
    if kind != "file":
        raise bad(f"unknown kind {kind!r}")
    keys = set(item) - {"kind", "fingerprint"}
    if keys == {"content"} and isinstance(item["content"], str):
        content = item["content"].encode("utf-8")
    elif keys == {"contentBase64"} and isinstance(item["contentBase64"], str):
        import base64  # lazy: only a binary file's entry

        try:
            content = base64.b64decode(item["contentBase64"], validate=True)
        except ValueError:
            raise bad("contentBase64 is not base64") from None
    else:
        raise bad("a file entry has kind, fingerprint and content (or contentBase64)")
    if content_fingerprint(content) != fp:
        raise bad("fingerprint does not match content")
    return Entry("file", fp, content)
