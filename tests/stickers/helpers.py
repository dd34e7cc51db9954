"""Sticker packs for the tests: tiny real PNGs and WebPs, pack directories and zips."""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path

__all__ = ["tiny_png", "tiny_webp", "make_pack", "make_zip", "tree_bytes"]


def tiny_png(seed: int = 0, pad: int = 0) -> bytes:
    """A valid 2x2 RGBA PNG; ``seed`` changes its pixels, ``pad`` adds an ancillary
    chunk of that many bytes (to reach a size)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    pixels = bytes((seed + i) % 256 for i in range(16))
    raw = b"\x00" + pixels[:8] + b"\x00" + pixels[8:]
    extra = chunk(b"tEXt", b"pad\x00" + b"x" * (pad - 16)) if pad else b""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 6, 0, 0, 0)) + extra
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def tiny_webp(seed: int = 0) -> bytes:
    """A RIFF/WEBP container (the magic bytes the format check reads)."""
    body = b"WEBP" + b"VP8L" + struct.pack("<I", 5) + bytes([0x2F, seed % 256, 0, 0, 0]) + b"\x00"
    return b"RIFF" + struct.pack("<I", len(body)) + body


def make_pack(root: Path, pack_id: str = "cats", *, version: str = "1.0.0", name: str = "Cats",
              stickers: dict[str, bytes] | None = None, manifest: dict | None = None) -> Path:
    """A pack directory; ``stickers`` maps file names to bytes (default: three PNGs)."""
    root.mkdir(parents=True, exist_ok=True)
    if stickers is None:
        stickers = {"wave.png": tiny_png(1), "purr.png": tiny_png(2), "nap.webp": tiny_webp(3)}
    for file, data in stickers.items():
        (root / file).write_bytes(data)
    doc = manifest if manifest is not None else {
        "schemaVersion": 1, "id": pack_id, "name": name, "version": version,
        "stickers": [{"file": f, "description": f"the {f.split('.')[0]} sticker"} for f in stickers]}
    (root / "pack.json").write_text(json.dumps(doc, indent=2))
    return root


def make_zip(path: Path, members: dict[str, bytes], *, top: str = "") -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(top + name, data)
    return path


def pack_members(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (what "nothing written" compares)."""
    if not root.exists():
        return {}
    return {p.relative_to(root).as_posix(): (p.read_bytes() if not p.is_symlink() else b"->" + str(p.readlink()).encode())
            for p in sorted(root.rglob("*")) if p.is_file() or p.is_symlink()}
