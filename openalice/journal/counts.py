"""A derived count of journal facts per type, so page totals cost O(new facts).

The journal is append-only: the facts in its first ``S`` bytes never change
(the torn-tail repair only cuts bytes after the last newline).  So the count of
facts per type up to ``S`` can be kept beside it in
``agent-runtime.counts.json`` and extended by reading only what was appended
since.  The index is trusted only while it still describes the same file: same
device and inode, ``S`` no larger than the file, a newline at ``S - 1`` and the
same CRC-32 of the 4 KiB before ``S``.  Otherwise it is rebuilt from byte 0.
It is never the truth, only a cache of it: deleting it is always safe, and a
failure to write it is ignored.

It is kept in step by the recorder: :func:`note_appended` runs under the
journal's lock after each append and extends an index that described the
file up to that append by the one new fact, so the first page after a busy
hour costs O(page) rather than O(facts appended since the last read).  An
index that is behind (or missing, for a journal written before) is left for
the next read to extend.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from openalice.core import fs
from openalice.core.errors import AliceError
from openalice.core.records import field, record_class

__all__ = ["Counts", "counts_path", "count_up_to"]

VERSION = 2  # 2: the fingerprint is a CRC-32 (zlib is cheap to import; hashlib is not)
_FINGERPRINT_BYTES = 4096


@record_class
class Counts:
    size: int = 0
    types: dict[str, int] = field(default_factory=dict)
    untyped: int = 0  # parseable objects without a string type

    def add(self, record: dict) -> None:
        """Count one parsed fact."""
        kind = record.get("type")
        if isinstance(kind, str):
            self.types[kind] = self.types.get(kind, 0) + 1
        else:
            self.untyped += 1

    @property
    def total(self) -> int:
        return sum(self.types.values()) + self.untyped


def counts_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.stem + ".counts.json")


def _fingerprint(fh, size: int) -> str:
    start = max(0, size - _FINGERPRINT_BYTES)
    fh.seek(start)
    import zlib  # lazy: only a new counts file needs it (a C module, far cheaper than hashlib)

    return "%08x" % zlib.crc32(fh.read(size - start))


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
        counts.add(record)
    counts.size = offset
    _save(index, fh, st, counts)
    return counts


def _save(index: Path, fh, st: os.stat_result, counts: Counts) -> None:
    document = {"version": VERSION, "dev": st.st_dev, "ino": st.st_ino, "size": counts.size,
                "fingerprint": _fingerprint(fh, counts.size), "types": counts.types,
                "untyped": counts.untyped}
    try:
        fs.atomic_write_json(index, document, indent=None, durable=False)
    except (OSError, AliceError):  # a cache: failing to keep it only costs time next read
        pass


def note_appended(journal_path: Path, before: int, after: int, stored: dict) -> None:
    """Extend the index by the fact just appended at ``[before, after)``, if it
    described the file exactly up to ``before``.  Called under the journal's
    lock; never raises (a cache)."""
    try:
        fh = open(fs.open_state_file(journal_path), "rb", closefd=True)
    except (OSError, AliceError):
        return
    with fh:
        try:
            st = os.fstat(fh.fileno())
            counts = _load(counts_path(journal_path), fh, st)
            if counts.size != before or st.st_size < after:
                return
            counts.add(stored)
            counts.size = after
            _save(counts_path(journal_path), fh, st, counts)
        except OSError:
            return
