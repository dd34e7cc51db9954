"""A derived count of journal facts per type, so page totals cost O(new facts).

The journal is append-only: the facts in its first ``S`` bytes never change
(the torn-tail repair only cuts bytes after the last newline).  So the count of
facts per type up to ``S`` can be kept beside it in
``agent-runtime.counts.json`` and extended by reading only what was appended
since.  The index is trusted only while it still describes the same file: same
device and inode, ``S`` no larger than the file, a newline at ``S - 1`` and the
same SHA-256 of the 4 KiB before ``S``.  Otherwise it is rebuilt from byte 0.
It is never the truth, only a cache of it: deleting it is always safe, and a
failure to write it is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from openalice.core import fs
from openalice.core.errors import AliceError

__all__ = ["Counts", "counts_path", "count_up_to"]

VERSION = 1
_FINGERPRINT_BYTES = 4096


@dataclass
class Counts:
    size: int = 0
    types: dict[str, int] = field(default_factory=dict)
    untyped: int = 0  # parseable objects without a string type

    @property
    def total(self) -> int:
        return sum(self.types.values()) + self.untyped


def counts_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.stem + ".counts.json")


def _fingerprint(fh, size: int) -> str:
    start = max(0, size - _FINGERPRINT_BYTES)
    fh.seek(start)
    return hashlib.sha256(fh.read(size - start)).hexdigest()


def _load(path: Path, fh, st: os.stat_result) -> Counts:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return Counts()
    try:
        size = data["size"]
        if (data.get("version") != VERSION or data["dev"] != st.st_dev or data["ino"] != st.st_ino
                or not isinstance(size, int) or size < 0 or size > st.st_size):
            return Counts()
        if size:
            fh.seek(size - 1)
            if fh.read(1) != b"\n" or _fingerprint(fh, size) != data["fingerprint"]:
                return Counts()
        types = {str(k): int(v) for k, v in data["types"].items()}
        return Counts(size=size, types=types, untyped=int(data["untyped"]))
    except (KeyError, TypeError, ValueError, AttributeError):
        return Counts()


def count_up_to(journal_path: Path, fh, end: int) -> Counts:
    """Counts of the facts in the first ``end`` bytes of the open journal ``fh``,
    refreshing the index on disk.  Counting stops at a torn last line, so the
    returned ``size`` is always a line boundary ≤ ``end``."""
    index = counts_path(journal_path)
    st = os.fstat(fh.fileno())
    counts = _load(index, fh, st)
    if counts.size > end:
        counts = Counts()
    if counts.size == end:
        return counts
    fh.seek(counts.size)
    offset = counts.size
    while offset < end:
        raw = fh.readline()
        if not raw:
            break
        offset += len(raw)
        if offset > end or not raw.endswith(b"\n"):
            offset -= len(raw)
            break
        raw = raw.strip()
        if not raw:
            continue
        try:
            record = fs.loads_json(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        if isinstance(kind, str):
            counts.types[kind] = counts.types.get(kind, 0) + 1
        else:
            counts.untyped += 1
    counts.size = offset
    document = {"version": VERSION, "dev": st.st_dev, "ino": st.st_ino, "size": offset,
                "fingerprint": _fingerprint(fh, offset), "types": counts.types,
                "untyped": counts.untyped}
    try:
        fs.atomic_write_json(index, document, indent=None, durable=False)
    except (OSError, AliceError):  # a cache: failing to keep it only costs time next read
        pass
    return counts
