"""The sticker pack format: ``pack.json``, its images, the generated skill, the revision.

A pack is a directory (or a zip archive of one)::

    pack.json     {"schemaVersion": 1, "id": "alice-color", "name": "Alice Color", "version": "1.0.0",
                   "stickers": [{"file": "wave.png", "description": "waving hello"}, ...]}
    wave.png ...  the images pack.json lists (files it does not list are ignored)

Limits (``spec/sticker-pack.schema.json`` states the same ones):

* ``id`` ``[a-z0-9][a-z0-9-]{0,63}``; ``name`` 1-80 characters; ``version``
  ``[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}``; descriptions 1-160 characters (no
  control characters, no ``[[`` or ``]]``: each becomes one line of the skill);
* file names ``[a-zA-Z0-9][a-zA-Z0-9_-]{0,79}.(png|webp)``, unique ignoring
  case (they land side by side in one ``sticker/`` directory);
* PNG or WebP only, told by the magic bytes (``89 50 4e 47 0d 0a 1a 0a``;
  ``RIFF....WEBP``), which must agree with the extension;
* at most 512 KiB per image, 100 images, 32 MiB per pack (images and
  ``pack.json``); images are never resized or re-encoded.

The **revision** is ``version + "+" + sha256[:12]`` over the canonical JSON of
the manifest, the rendered ``SKILL.md`` and each image's ``file:sha256``, so
any byte of any of them gives another revision.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from openalice.core import digests, fs, patterns
from openalice.core.errors import InvalidInput
from openalice.core.records import field, record_class

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Callable, Mapping

__all__ = ["Sticker", "Pack", "SCHEMA_VERSION", "ID_RE", "FILE_RE", "VERSION_RE", "REVISION_RE",
           "MAX_IMAGE_BYTES", "MAX_STICKERS", "MAX_PACK_BYTES", "MAX_MANIFEST_BYTES", "SKILL_NAME",
           "parse_manifest", "image_kind", "build", "read_dir", "render_skill", "check_keys"]

SCHEMA_VERSION = 1
ID_RE = patterns.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
FILE_RE = patterns.compile(r"[a-zA-Z0-9][a-zA-Z0-9_-]{0,79}\.(png|webp)\Z")
VERSION_RE = patterns.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}\Z")
REVISION_RE = patterns.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}\+[0-9a-f]{12}\Z")
MAX_IMAGE_BYTES = 512 * 1024
MAX_STICKERS = 100
MAX_PACK_BYTES = 32 * 1024 * 1024
MAX_MANIFEST_BYTES = 64 * 1024
NAME_MAX = 80
DESCRIPTION_MAX = 160
SKILL_NAME = "alice-stickers"
MANIFEST = "pack.json"

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_CONTROL = patterns.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@record_class(frozen=True)
class Sticker:
    file: str
    description: str
    kind: str                       # "png" | "webp"
    sha256: str
    data: bytes = field(repr=False)

    @property
    def size(self) -> int:
        return len(self.data)


@record_class(frozen=True)
class Pack:
    id: str
    name: str
    version: str
    revision: str
    stickers: tuple[Sticker, ...]
    skill: bytes = field(repr=False)         # the rendered SKILL.md
    manifest: dict = field(repr=False)       # the validated pack.json
    source: str = "imported"                 # "builtin" | "imported"
    root: Path | None = None

    @property
    def bytes(self) -> int:
        return sum(s.size for s in self.stickers)

    def summary(self) -> dict:
        return {"id": self.id, "name": self.name, "version": self.version, "revision": self.revision,
                "source": self.source, "stickers": len(self.stickers), "bytes": self.bytes}


def check_keys(doc: dict, keys: set[str], bad: Callable[[str, str], InvalidInput], prefix: str = "") -> None:
    """Refuse a missing or an unknown key (``bad(reason, field)`` builds the error)."""
    for key in sorted(keys - set(doc)):
        raise bad("missing", prefix + key)
    for key in sorted(set(doc) - keys):
        raise bad("unknown key", prefix + key)


def _bad(reason: str, file, field: str | None = None, code: str = "invalid_pack") -> InvalidInput:
    return InvalidInput(reason, file=file, field=field, code=code)


def _text(value: object, file, field: str, limit: int, pattern: re.Pattern | None = None) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise _bad(f"must be a non-empty string of at most {limit} characters", file, field)
    if _CONTROL.search(value):
        raise _bad("must not contain control or bidirectional-override characters", file, field)
    if pattern is not None and not pattern.match(value):
        raise _bad(f"invalid value {value!r} (expected {pattern.pattern[:-2]})", file, field)
    return value


def parse_manifest(data: bytes, *, file) -> dict:
    """The validated ``pack.json``: every problem is InvalidInput naming the file and field."""
    if len(data) > MAX_MANIFEST_BYTES:
        raise _bad(f"is {len(data)} bytes; pack.json is at most {MAX_MANIFEST_BYTES}", file)
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _bad(f"not UTF-8 (byte {exc.start})", file, code="malformed_json") from None
    except json.JSONDecodeError as exc:
        raise _bad(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", file,
                   code="malformed_json") from None
    except RecursionError:
        raise _bad("malformed JSON: nested too deeply", file, code="malformed_json") from None
    if not isinstance(doc, dict):
        raise _bad("must be a JSON object", file)
    check_keys(doc, {"schemaVersion", "id", "name", "version", "stickers"}, lambda r, f: _bad(r, file, f))
    if doc["schemaVersion"] != SCHEMA_VERSION or isinstance(doc["schemaVersion"], bool):
        raise _bad(f"unsupported schemaVersion {doc['schemaVersion']!r} (expected 1)", file, "schemaVersion")
    pack_id = _text(doc["id"], file, "id", 64, ID_RE)
    name = _text(doc["name"], file, "name", NAME_MAX)
    version = _text(doc["version"], file, "version", 40, VERSION_RE)
    stickers = doc["stickers"]
    if not isinstance(stickers, list) or not stickers:
        raise _bad("must be a non-empty list", file, "stickers")
    if len(stickers) > MAX_STICKERS:
        raise _bad(f"lists {len(stickers)} stickers; a pack has at most {MAX_STICKERS}", file, "stickers")
    seen: dict[str, int] = {}
    out = []
    for n, item in enumerate(stickers):
        where = f"stickers/{n}"
        if not isinstance(item, dict):
            raise _bad("must be an object with file and description", file, where)
        check_keys(item, {"file", "description"}, lambda r, f: _bad(r, file, f), prefix=f"{where}/")
        name_ = _text(item["file"], file, f"{where}/file", 84, FILE_RE)
        folded = name_.casefold()
        if folded in seen:
            raise _bad(f"{name_!r} is listed twice (file names are unique ignoring case; see "
                       f"stickers/{seen[folded]}/file)", file, f"{where}/file")
        seen[folded] = n
        description = _text(item["description"], file, f"{where}/description", DESCRIPTION_MAX)
        if "[[" in description or "]]" in description:
            raise _bad("must not contain '[[' or ']]' (each description is one line of the skill)", file,
                       f"{where}/description")
        out.append({"file": name_, "description": description})
    return {"schemaVersion": SCHEMA_VERSION, "id": pack_id, "name": name, "version": version, "stickers": out}


def image_kind(data: bytes) -> str | None:
    """``png`` or ``webp`` by the magic bytes, else None."""
    if data.startswith(PNG_MAGIC):
        return "png"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def check_image(name: str, data: bytes, *, file, field: str) -> str:
    """The image's kind; refused when too large, not PNG/WebP, or named for the other format."""
    if len(data) > MAX_IMAGE_BYTES:
        raise _bad(f"is {len(data)} bytes; an image is at most {MAX_IMAGE_BYTES} (512 KiB)", file, field,
                   code="image_too_large")
    kind = image_kind(data)
    named = name.rsplit(".", 1)[-1]
    if kind is None:
        raise _bad(f"is not a PNG or WebP image (its first bytes are {data[:8].hex() or 'empty'})", file,
                   field, code="not_an_image")
    if kind != named:
        raise _bad(f"is a {kind.upper() if kind == 'png' else 'WebP'} image but is named .{named}", file,
                   field, code="wrong_image_type")
    return kind


def render_skill(manifest: Mapping) -> bytes:
    """The generated ``SKILL.md``: one line per sticker, and the one-per-reply rule."""
    description = (f"Stickers from the {manifest['name']} pack ({manifest['id']} {manifest['version']}) that "
                   "you may add to a reply; at most one sticker per reply.")
    lines = ["---", f"name: {SKILL_NAME}", f"description: {json.dumps(description, ensure_ascii=False)}",
             "---", "", f"# Stickers: {manifest['name']}", "",
             "A sticker is an image in `sticker/` of this workspace. To send one, put its",
             "reference on a line of its own in the reply (or in an `alice inbox push` body);",
             "the person receives the image itself.", "",
             "- At most one sticker per reply, and only where it fits the moment.",
             "- Use only the stickers listed here; never invent a file name.", "",
             "Stickers:", ""]
    lines += [f"- [[sticker/{s['file']}]] — {s['description']}" for s in manifest["stickers"]]
    return ("\n".join(lines) + "\n").encode("utf-8")


def revision_of(manifest: Mapping, skill: bytes, stickers) -> str:
    digest = digests.sha256()
    digest.update(b"pack.json\0")
    digest.update(json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    digest.update(b"\0SKILL.md\0")
    digest.update(skill)
    for sticker in stickers:
        digest.update(f"\0{sticker.file}:{sticker.sha256}".encode("utf-8"))
    return f"{manifest['version']}+{digest.hexdigest()[:12]}"


def build(manifest: dict, read: Callable[[int, str], bytes], *, manifest_file, image_file: Callable[[str], object],
          manifest_bytes: int = 0, source: str = "imported", root: Path | None = None) -> Pack:
    """A validated pack from its manifest; ``read(n, file)`` returns the bytes
    of sticker ``n`` (already size-capped by the caller's container)."""
    stickers = []
    total = manifest_bytes
    for n, item in enumerate(manifest["stickers"]):
        name = item["file"]
        data = read(n, name)
        kind = check_image(name, data, file=image_file(name), field=f"stickers/{n}/file")
        total += len(data)
        if total > MAX_PACK_BYTES:
            raise _bad(f"the pack is more than {MAX_PACK_BYTES} bytes (32 MiB) with stickers/{n}; a pack is "
                       "at most 32 MiB", manifest_file, "stickers", code="pack_too_large")
        stickers.append(Sticker(file=name, description=item["description"], kind=kind,
                                sha256=digests.sha256_hex(data), data=data))
    skill = render_skill(manifest)
    return Pack(id=manifest["id"], name=manifest["name"], version=manifest["version"],
                revision=revision_of(manifest, skill, stickers), stickers=tuple(stickers), skill=skill,
                manifest=manifest, source=source, root=root)


def _member(directory: Path, name: str, limit: int, field: str | None, manifest_file) -> bytes:
    """A regular file directly in ``directory`` (never through a symlink), at most ``limit`` bytes."""
    path = directory / name
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise _bad(f"{name} is listed but not in the pack", manifest_file if field else path, field,
                   code="missing_image" if field else "missing_manifest") from None
    if stat.S_ISLNK(st.st_mode):
        raise _bad("is a symlink; pack files must be regular files", path, field, code="symlink_refused")
    if not stat.S_ISREG(st.st_mode):
        raise _bad("is not a regular file", path, field, code="not_regular_file")
    if st.st_size > limit:
        code = "image_too_large" if field else "invalid_pack"
        what = "an image is at most 512 KiB" if field else f"pack.json is at most {MAX_MANIFEST_BYTES}"
        raise _bad(f"is {st.st_size} bytes; {what}", path, field, code=code)
    data = fs.read_bytes(path)
    if len(data) > limit:     # grew since the lstat
        raise _bad(f"is more than {limit} bytes", path, field, code="image_too_large" if field else "invalid_pack")
    return data


def read_dir(directory: os.PathLike | str, *, source: str = "imported") -> Pack:
    """The pack in ``directory`` (the directory itself may be a symlink a person
    named; the files in it may not)."""
    root = Path(directory)
    manifest_file = root / MANIFEST
    raw = _member(root, MANIFEST, MAX_MANIFEST_BYTES, None, manifest_file)
    manifest = parse_manifest(raw, file=manifest_file)
    return build(manifest, lambda n, name: _member(root, name, MAX_IMAGE_BYTES, f"stickers/{n}/file",
                                                   manifest_file),
                 manifest_file=manifest_file, image_file=lambda name: root / name, manifest_bytes=len(raw),
                 source=source, root=root)
