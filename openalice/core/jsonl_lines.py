"""One JSON Lines line as bytes: a record encoded to one line and appended
whole, a line decoded to its record, and lines found from the end of a file
(fixed-size block reads) or from a byte offset.  :mod:`openalice.core.jsonl`
builds its files and the sequenced journal on these."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from . import fs
from .errors import OperationalError
from .fs.writes import write_all

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

    from .jsonl import JsonlFile

__all__ = ["BLOCK_SIZE", "decode_record", "encode_record", "append_whole", "last_newline_end", "raw_lines_backward",
           "first_keyed_record"]

BLOCK_SIZE = 64 * 1024


def decode_record(raw: bytes) -> dict | None:
    """One line's JSON object, or None (blank, not JSON, not an object)."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        record = fs.loads_json(raw)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def encode_record(record: dict) -> bytes:
    if not isinstance(record, dict):
        raise TypeError("a JSONL record must be a dict")
    return fs.dump_json_line(record).encode("utf-8")


def append_whole(fd: int, data: bytes, path: Path) -> None:
    try:
        write_all(fd, data)
    except OSError as exc:
        raise OperationalError(f"cannot append: {exc.strerror}", file=path) from exc


def last_newline_end(fd: int, size: int) -> int:
    """Byte offset just after the last newline before ``size`` (0 if none)."""
    pos = size
    while pos > 0:
        start = max(0, pos - BLOCK_SIZE)
        chunk = os.pread(fd, pos - start, start)
        idx = chunk.rfind(b"\n")
        if idx >= 0:
            return start + idx + 1
        pos = start
    return 0


def raw_lines_backward(fh, end: int, owner: JsonlFile) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes) of each newline-terminated line before ``end``, last first."""
    fd = fh.fileno()
    complete = last_newline_end(fd, end)
    if complete < end and os.pread(fd, end - complete, complete).strip():
        owner._problem(complete, "torn last line (incomplete write)")
    if complete == 0:
        return
    cursor = complete - 1  # exclusive end of the last line (its newline)
    pos = cursor
    buf = b""
    while pos > 0:
        start = max(0, pos - BLOCK_SIZE)
        buf = os.pread(fd, pos - start, start) + buf
        pos = start
        parts = buf.split(b"\n")
        buf = parts[0]  # may continue in the previous block
        for part in reversed(parts[1:]):
            line_start = cursor - len(part)
            yield line_start, part
            cursor = line_start - 1
    yield 0, buf


def first_keyed_record(fh, pos: int, hi: int, key: Callable[[dict], Any]) -> tuple[int, int, Any] | None:
    """(start, end, key) of the first parseable record with a key on a line
    starting in [pos, hi)."""
    if pos > 0:
        fh.seek(pos - 1)
        start = pos - 1 + len(fh.readline())
    else:
        fh.seek(0)
        start = 0
    while start < hi:
        raw = fh.readline()
        if not raw or not raw.endswith(b"\n"):
            return None
        end = start + len(raw)
        try:
            record = fs.loads_json(raw)
        except (ValueError, RecursionError):
            record = None
        if isinstance(record, dict):
            value = key(record)
            if value is not None:
                return start, end, value
        start = end
    return None
