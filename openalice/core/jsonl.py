"""Append-only JSON Lines files and the sequenced journal built on them.

Writing: each record is serialized to one line and appended with a single
``write()`` of the whole ``json + "\\n"`` bytes while holding the file's lock.
Before every append the tail is checked: a last line without its newline is
the remnant of a writer that died mid-write, and appending after it would glue
the next record onto the fragment.  The fragment is moved to ``<file>.torn``
(kept for forensics, never parsed) and the file truncated to its last newline.

Reading: :meth:`JsonlFile.iter_backward` reads fixed-size blocks from the end,
so the newest N records cost O(N), whatever the file size.  Malformed lines are
skipped and reported through ``problems``; they never break a listing.
:class:`Journal` adds a strictly increasing ``seq`` and ``after_seq`` reads that
bisect the file by byte offset (seq grows with the offset), so reading "what is
new since N" costs O(log size + page).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from . import fs, locks
from .errors import AliceError
from .jsonl_lines import (
    BLOCK_SIZE,
    append_whole,
    decode_record,
    encode_record,
    first_keyed_record,
    last_newline_end,
    raw_lines_backward,
)
from .records import record_class

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["Line", "JsonlFile", "Journal", "BLOCK_SIZE", "decode_record"]


@record_class(frozen=True)
class Line:
    offset: int
    record: dict


class JsonlFile:
    """An append-only file of JSON objects, one per line."""

    def __init__(self, path: os.PathLike | str, *, durable: bool = True) -> None:
        self.path = Path(path)
        self.durable = durable
        self._problems: dict[int, str] = {}

    # -- writing -----------------------------------------------------------

    @property
    def lock_path(self) -> Path:
        return locks.lock_path_for(self.path)

    def lock(self):
        """The lock every appender holds; callers may hold it across a
        read-then-append to make the pair atomic."""
        return fs.locked_file(self.path)

    def append(self, record: dict) -> dict:
        with self.lock():
            return self._append_locked(record)

    def _append_locked(self, record: dict) -> dict:
        data = encode_record(record)
        fd = self._open_for_append()
        try:
            self._repair_tail_fd(fd)
            append_whole(fd, data, self.path)
            if self.durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        return record

    def _open_for_append(self) -> int:
        fs.ensure_dir(self.path.parent)
        fs.sweep_once(self.path.parent)   # an appender is a writer of the directory too
        return fs.open_state_file(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)

    def _open_for_read(self):
        """The file for reading (never through a symlink); None when missing."""
        try:
            fd = fs.open_state_file(self.path)
        except FileNotFoundError:
            return None
        return open(fd, "rb", closefd=True)

    def repair_tail(self) -> int:
        """Under the lock, cut a torn last line; return how many bytes moved."""
        with self.lock():
            if not self.path.exists():
                return 0
            fd = self._open_for_append()
            try:
                return self._repair_tail_fd(fd)
            finally:
                os.close(fd)

    def _repair_tail_fd(self, fd: int) -> int:
        size = os.fstat(fd).st_size
        if size == 0:
            return 0
        if os.pread(fd, 1, size - 1) == b"\n":
            return 0
        keep = last_newline_end(fd, size)
        fragment = os.pread(fd, size - keep, keep)
        try:
            torn = fs.open_state_file(f"{self.path}.torn", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            try:
                append_whole(torn, fragment + b"\n", self.path)
            finally:
                os.close(torn)
        except (OSError, AliceError):
            pass  # forensics only (and never through a symlink); the repair itself must still happen
        os.ftruncate(fd, keep)
        if self.durable:
            os.fsync(fd)
        return len(fragment)

    # -- reading -----------------------------------------------------------

    def _problem(self, offset: int, reason: str) -> None:
        self._problems[offset] = reason

    @property
    def problems(self) -> list[dict]:
        """Malformed or torn lines met by reads so far, by byte offset."""
        return [{"offset": o, "reason": r} for o, r in sorted(self._problems.items())]

    def size(self) -> int:
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise fs.explain_os_error(exc, self.path) from None
        if not stat.S_ISREG(st.st_mode):  # a symlink or a directory: the readers say which
            fh = self._open_for_read()
            if fh is not None:
                fh.close()
        return st.st_size

    def iter_backward(self, *, end: int | None = None) -> Iterator[Line]:
        """Records newest-first, starting before byte ``end`` (default EOF)."""
        fh = self._open_for_read()
        if fh is None:
            return
        with fh:
            size = os.fstat(fh.fileno()).st_size if end is None else end
            for offset, raw in raw_lines_backward(fh, size, self):
                record = self._decode(offset, raw)
                if record is not None:
                    yield Line(offset, record)

    def iter_forward(self, *, start: int = 0) -> Iterator[Line]:
        """Records oldest-first from byte ``start`` (which must be a line start)."""
        fh = self._open_for_read()
        if fh is None:
            return
        with fh:
            fh.seek(start)
            offset = start
            for raw in fh:
                line_offset = offset
                offset += len(raw)
                if not raw.endswith(b"\n"):
                    self._problem(line_offset, "torn last line (incomplete write)")
                    break
                record = self._decode(line_offset, raw)
                if record is not None:
                    yield Line(line_offset, record)

    def record_at(self, offset: int) -> dict | None:
        """The record on the whole line that starts exactly at byte ``offset``
        (the file's start or just after a newline), or None (no such line, not
        a JSON object, torn).  Reports no problems: a probe, not a read."""
        fh = self._open_for_read()
        if fh is None:
            return None
        with fh:
            if not 0 <= offset < os.fstat(fh.fileno()).st_size:
                return None   # past the end (a damaged offset: seek would fail on a huge one)
            if offset > 0:
                fh.seek(offset - 1)
                if fh.read(1) != b"\n":
                    return None
            else:
                fh.seek(0)
            raw = fh.readline()
        if not raw.endswith(b"\n"):
            return None
        return decode_record(raw)

    def _decode(self, offset: int, raw: bytes) -> dict | None:
        raw = raw.strip()
        if not raw:
            return None
        try:
            record = fs.loads_json(raw)
        except (ValueError, RecursionError) as exc:
            self._problem(offset, f"malformed line: {exc.__class__.__name__}")
            return None
        if not isinstance(record, dict):
            self._problem(offset, "malformed line: not a JSON object")
            return None
        return record

    def tail(self, limit: int, predicate: Callable[[dict], bool] | None = None) -> list[dict]:
        """Up to ``limit`` newest records (newest first) matching ``predicate``."""
        out: list[dict] = []
        if limit <= 0:
            return out
        for line in self.iter_backward():
            if predicate is None or predicate(line.record):
                out.append(line.record)
                if len(out) >= limit:
                    break
        return out


    def bisect(self, key: Callable[[dict], Any], target: Any, *, inclusive: bool = False) -> int:
        """For a file sorted by ``key``: a line start L such that every record
        before L with a key (``key`` returns None for records it does not rank)
        has ``key < target`` (``<=`` when ``inclusive``).  Reading forward from L
        finds the first record at or past ``target``.  O(log size) probes."""
        fh = self._open_for_read()
        if fh is None:
            return 0
        with fh:
            lo, hi = 0, os.fstat(fh.fileno()).st_size
            while hi - lo > BLOCK_SIZE:
                mid = (lo + hi) // 2
                probe = first_keyed_record(fh, mid, hi, key)
                if probe is None:
                    hi = mid
                    continue
                start, end, value = probe
                if value < target or (inclusive and value == target):
                    lo = end
                else:
                    hi = start
            return lo


def _seq_key(record: dict) -> int | None:
    seq = record.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


class Journal(JsonlFile):
    """A JSONL file whose records carry a strictly increasing ``seq`` from 1."""

    def __init__(self, path: os.PathLike | str, *, durable: bool = True) -> None:
        super().__init__(path, durable=durable)
        self._known_end: tuple[int, int] | None = None  # (file size, last seq)

    def append(self, record: dict, *,
               after: Callable[[int, int, dict], None] | None = None) -> dict:
        """Append ``record`` with the next ``seq``; returns the stored record.
        ``after(size_before, size_after, stored)`` runs while the lock is
        still held (a derived index kept in step with the file)."""
        with self.lock():
            fd = self._open_for_append()
            try:
                self._repair_tail_fd(fd)
                size = os.fstat(fd).st_size
                seq = self._last_seq_at(size) + 1
                stored = {"seq": seq, **{k: v for k, v in record.items() if k != "seq"}}
                data = encode_record(stored)
                append_whole(fd, data, self.path)
                if self.durable:
                    os.fsync(fd)
                self._known_end = (size + len(data), seq)
            finally:
                os.close(fd)
            if after is not None:
                after(size, size + len(data), stored)
            return stored

    def _last_seq_at(self, size: int) -> int:
        if self._known_end is not None and self._known_end[0] == size:
            return self._known_end[1]
        for line in self.iter_backward(end=size):
            seq = line.record.get("seq")
            if isinstance(seq, int) and not isinstance(seq, bool):
                return seq
        return 0

    def last_seq(self) -> int:
        return self._last_seq_at(self.size())

    def after_seq(self, seq: int, *, limit: int | None = None,
                  predicate: Callable[[dict], bool] | None = None) -> list[dict]:
        """Records with ``seq`` greater than ``seq``, ascending, at most ``limit``."""
        out: list[dict] = []
        if limit is not None and limit <= 0:
            return out
        start = self._offset_after(seq)
        for line in self.iter_forward(start=start):
            rec_seq = line.record.get("seq")
            if not isinstance(rec_seq, int) or rec_seq <= seq:
                continue
            if predicate is None or predicate(line.record):
                out.append(line.record)
                if limit is not None and len(out) >= limit:
                    break
        return out

    def _offset_after(self, seq: int) -> int:
        return self.bisect(_seq_key, seq, inclusive=True)
