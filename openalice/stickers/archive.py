"""A sticker pack from a zip archive: every check made on the central
directory before a single member is decompressed.

Refused, naming the archive and the member:

* a member name that is absolute (``/x``, ``C:x``), has a ``..``, ``.`` or
  empty segment, a backslash or a NUL byte (checked on the name as stored,
  before :mod:`zipfile` tidies it);
* a symlink (Unix mode bits in the external attributes) or an encrypted member;
* two members with the same name, also ignoring case;
* more than 1,000 members, a member over 512 KiB, or more than 32 MiB in
  all — by the *uncompressed* sizes the central directory declares (a zip
  bomb is refused before it inflates), and each member is then read with a
  cap of its declared size, so one that lies is caught (its CRC fails).

``pack.json`` sits at the archive's root, or inside its one top-level
directory; members the manifest does not list are never read.
"""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path

from openalice.core import patterns
from openalice.core.errors import InvalidInput

from . import pack as packs

__all__ = ["read_zip", "MAX_MEMBERS"]

MAX_MEMBERS = 1000
_DRIVE = patterns.compile(r"[A-Za-z]:")


def _bad(reason: str, file, field: str | None = None, code: str = "unsafe_archive") -> InvalidInput:
    return InvalidInput(reason, file=file, field=field, code=code)


def _check_name(raw: str, archive: Path) -> str:
    """The member's name without a trailing ``/``; refused when unsafe."""
    where = f"{archive}:{raw}"
    if "\x00" in raw:
        raise _bad("member name contains a NUL byte", where)
    if "\\" in raw:
        raise _bad("member name contains a backslash", where)
    if raw.startswith("/") or _DRIVE.match(raw):
        raise _bad("member name is absolute", where)
    name = raw[:-1] if raw.endswith("/") else raw
    for part in name.split("/"):
        if part == "..":
            raise _bad("member name has a '..' segment (it would land outside the pack)", where)
        if part in ("", "."):
            raise _bad("member name has an empty or '.' segment", where)
    return name


def read_zip(path: os.PathLike | str) -> packs.Pack:
    """The pack in the zip archive at ``path`` (InvalidInput for every problem)."""
    import zipfile  # lazy: zipfile (and its compressors) only when a zip is read, not on every library listing

    archive = Path(path)
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise _bad(f"not a readable zip archive ({exc})", archive, code="bad_archive") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise _bad(f"has {len(infos)} members; a pack archive has at most {MAX_MEMBERS}", archive)
        members: dict[str, zipfile.ZipInfo] = {}
        folded: dict[str, str] = {}
        total = 0
        for info in infos:
            name = _check_name(info.orig_filename, archive)
            where = f"{archive}:{info.orig_filename}"
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise _bad("member is a symlink", where)
            if info.flag_bits & 0x1:
                raise _bad("member is encrypted", where)
            if name in members:
                raise _bad("member name appears twice", where)
            if name.casefold() in folded:
                raise _bad(f"member name differs only in case from {folded[name.casefold()]!r}", where)
            members[name] = info
            folded[name.casefold()] = name
            if info.is_dir():
                continue
            if info.file_size > packs.MAX_IMAGE_BYTES:
                raise _bad(f"member is {info.file_size} bytes uncompressed; a pack file is at most "
                           f"{packs.MAX_IMAGE_BYTES} (512 KiB)", where, code="image_too_large")
            total += info.file_size
            if total > packs.MAX_PACK_BYTES:
                raise _bad(f"the members add up to more than {packs.MAX_PACK_BYTES} bytes (32 MiB) "
                           "uncompressed; a pack is at most 32 MiB", archive, code="pack_too_large")
        prefix = _pack_root(members, archive)

        def read(name: str, field: str | None) -> bytes:
            info = members.get(prefix + name)
            if info is None or info.is_dir():
                raise _bad(f"{name} is listed but not in the archive", f"{archive}:{prefix}{packs.MANIFEST}",
                           field, code="missing_image")
            try:
                with zf.open(info) as fh:
                    data = fh.read(info.file_size + 1)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError) as exc:
                raise _bad(f"member cannot be read ({exc})", f"{archive}:{info.orig_filename}", field,
                           code="bad_archive") from None
            if len(data) != info.file_size:
                raise _bad("member holds other bytes than the archive declares", f"{archive}:{info.orig_filename}",
                           field, code="bad_archive")
            return data

        manifest_file = f"{archive}:{prefix}{packs.MANIFEST}"
        raw = read(packs.MANIFEST, None)
        manifest = packs.parse_manifest(raw, file=manifest_file)
        return packs.build(manifest, lambda n, name: read(name, f"stickers/{n}/file"), manifest_file=manifest_file,
                           image_file=lambda name: f"{archive}:{prefix}{name}", manifest_bytes=len(raw))


def _pack_root(members: dict, archive: Path) -> str:
    if packs.MANIFEST in members:
        return ""
    tops = {name.split("/", 1)[0] for name in members}
    if len(tops) == 1:
        top = next(iter(tops))
        if f"{top}/{packs.MANIFEST}" in members:
            return f"{top}/"
    raise _bad("no pack.json at the archive's root or inside its one top-level directory", archive,
               code="missing_manifest")
