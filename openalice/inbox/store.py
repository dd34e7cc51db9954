"""The Inbox entry store: ``$OPENALICE_HOME/data/inbox/entries.jsonl``.

One entry per line, appended under the file's lock::

    {"id", "ts", "workspaceId", "workspaceLabel"?, "body", "fileRevisions", "origin"?}

**Ids are sorted in file order.**  An id is ``inbox-<13-digit ms>-<8 base32>``
and is minted *under the append lock*, strictly greater than the newest id in
the file (same millisecond or a clock that went back: the random part of the
previous id plus one).  So the file is sorted by id, and finding an id (for
``show``, ``--before``, ``read``) bisects the file by byte offset: O(log size),
never a scan from the start.  Ids that do not follow the grammar (imported by
hand) are skipped by the bisection and found only by a backward scan.

**Malformed lines** (not JSON, not an object, or missing the entry fields) are
skipped and reported in :attr:`InboxStore.problems`; they never break a read.

**Delete is an atomic rewrite**, not a tombstone: the line is spliced out of
the file byte-for-byte (every other line, malformed ones included, is kept
verbatim) and the new file replaces the old one with ``os.replace`` while the
append lock is held.  Deleting is rare and asked for by a person who wants the
report gone; a tombstone would leave the body on disk and make every listing
and count filter deleted ids.  The cost (O(file) for that one delete, pushes
waiting meanwhile) is paid only by the rare path.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from openalice.core import fs, jsonl, jsonl_lines, paths, patterns
from openalice.core.errors import NotFound, OperationalError
from openalice.core.records import record_class

from . import counter

__all__ = [
    "ID_RE", "ENTRIES_FILE", "READ_STATE_FILE", "inbox_dir", "Entry", "InboxStore",
    "is_entry_id", "next_id",
]

ENTRIES_FILE = "entries.jsonl"
READ_STATE_FILE = "read-state.json"
ID_RE = patterns.compile(r"inbox-(\d{13})-([0-9a-hjkmnp-tv-z]{8})\Z")
_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, ASCII-sorted
_RANDOM_BITS = 40
_RANDOM_MAX = (1 << _RANDOM_BITS) - 1


def inbox_dir() -> Path:
    return paths.data_dir() / "inbox"


def is_entry_id(text: str) -> bool:
    return isinstance(text, str) and ID_RE.match(text) is not None


def _b32(value: int) -> str:
    out = []
    for _ in range(8):
        out.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(out))


def _from_b32(text: str) -> int:
    value = 0
    for ch in text:
        value = value * 32 + _ALPHABET.index(ch)
    return value


def next_id(now_ms: int, previous: str | None, *, rng: Callable[[int], int] | None = None) -> str:
    """An id strictly greater than ``previous`` and near ``now_ms``."""
    if rng is None:
        import secrets  # lazy: only a push mints an id; readers do not load it

        rng = secrets.randbits
    draw = rng
    ms = max(0, min(now_ms, 10 ** 13 - 1))
    rand = draw(_RANDOM_BITS)
    if previous is not None:
        m = ID_RE.match(previous)
        if m:
            prev_ms, prev_rand = int(m.group(1)), _from_b32(m.group(2))
            if ms < prev_ms or (ms == prev_ms and rand <= prev_rand):
                ms = prev_ms
                rand = prev_rand + 1
                if rand > _RANDOM_MAX:
                    ms, rand = prev_ms + 1, 0
    return f"inbox-{ms:013d}-{_b32(rand)}"


@record_class(frozen=True)
class Entry:
    """One stored entry and where its line sits in the file."""

    offset: int
    record: dict

    @property
    def id(self) -> str:
        return self.record["id"]


_REQUIRED = (("id", str), ("ts", int), ("workspaceId", str), ("body", str))


def entry_problem(record: dict) -> str | None:
    """Why ``record`` is not a usable entry (None if it is)."""
    for key, kind in _REQUIRED:
        value = record.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"not an inbox entry: '{key}' missing or not a {kind.__name__}"
    revisions = record.get("fileRevisions", {})
    if not isinstance(revisions, dict):
        return "not an inbox entry: 'fileRevisions' is not an object"
    origin = record.get("origin")
    if origin is not None and not isinstance(origin, dict):
        return "not an inbox entry: 'origin' is not an object"
    return None


class InboxStore:
    """Entries and read state of the Inbox under ``directory``."""

    def __init__(self, directory: os.PathLike | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else inbox_dir()
        self.entries_path = self.directory / ENTRIES_FILE
        self.read_state_path = self.directory / READ_STATE_FILE
        self.file = jsonl.JsonlFile(self.entries_path)
        self._bad: dict[int, str] = {}
        self.read_state_problem: str | None = None  # set by readstate.load on a corrupt sidecar

    # -- problems ------------------------------------------------------------

    def _problem(self, offset: int, reason: str) -> None:
        self._bad[offset] = reason

    @property
    def problems(self) -> list[dict]:
        found = {p["offset"]: p["reason"] for p in self.file.problems}
        found.update(self._bad)
        out = [{"file": str(self.entries_path), "offset": o, "reason": r}
               for o, r in sorted(found.items())]
        if self.read_state_problem is not None:
            out.append({"file": str(self.read_state_path), "offset": 0,
                        "reason": self.read_state_problem})
        return out

    def note_problem(self, offset: int, reason: str) -> None:
        """Report a bad line found earlier (the read state keeps those of the
        part of the file it no longer reads)."""
        self._problem(offset, reason)

    def _valid(self, line: jsonl.Line) -> Entry | None:
        reason = entry_problem(line.record)
        if reason is not None:
            self._problem(line.offset, reason)
            return None
        return Entry(line.offset, line.record)

    # -- reading ---------------------------------------------------------------

    def iter_newest(self, *, end: int | None = None) -> Iterator[Entry]:
        """Valid entries newest-first, from byte ``end`` (default: the end)."""
        for line in self.file.iter_backward(end=end):
            entry = self._valid(line)
            if entry is not None:
                yield entry

    def iter_oldest(self, *, start: int = 0) -> Iterator[Entry]:
        """Valid entries oldest-first, from byte ``start`` (a line start)."""
        for line in self.file.iter_forward(start=start):
            entry = self._valid(line)
            if entry is not None:
                yield entry

    def newest_id(self) -> str | None:
        """The greatest grammar id in the file (the last one, by the invariant)."""
        for entry in self.iter_newest():
            if is_entry_id(entry.id):
                return entry.id
        return None

    def find(self, entry_id: str) -> Entry | None:
        """The entry with ``entry_id``: bisection for grammar ids, else a backward scan."""
        if not is_entry_id(entry_id):
            for entry in self.iter_newest():
                if entry.id == entry_id:
                    return entry
            return None
        # Every grammar id before ``start`` is smaller: scan forward from there.
        start = self.file.bisect(_grammar_id, entry_id)
        for line in self.file.iter_forward(start=start):
            entry = self._valid(line)
            if entry is None:
                continue
            if entry.id == entry_id:
                return entry
            if is_entry_id(entry.id) and entry.id > entry_id:
                break
        return None

    def get(self, entry_id: str) -> Entry:
        entry = self.find(entry_id)
        if entry is None:
            bad = sum(1 for p in self.problems if p["file"] == str(self.entries_path))
            note = (f" ({bad} line{'s' if bad != 1 else ''} of the file cannot be read; "
                    "'alice-inbox list' names them)") if bad else ""
            raise NotFound(f"no inbox entry {entry_id!r}{note}", code="unknown_entry",
                           file=self.entries_path, details={"hint": "see 'alice-inbox list'"})
        return entry

    # -- writing ---------------------------------------------------------------

    def append(self, build: Callable[[str], dict], *, now_ms: int) -> dict:
        """Mint the next id under the lock, ``build(id)`` the entry, append it."""
        with self.file.lock():
            entry_id = next_id(now_ms, self.newest_id())
            record = build(entry_id)
            if record.get("id") != entry_id:
                raise ValueError("build() must keep the minted id")
            before = counter.identity(self.entries_path)
            self.file.append(record)  # the lock is re-entrant
            counter.note_append(self, before, record, len(jsonl_lines.encode_record(record)))
            return record

    def delete(self, entry_id: str) -> dict:
        """Splice the entry's line out of the file atomically; returns the entry."""
        with self.file.lock():
            entry = self.get(entry_id)
            data = fs.read_bytes(self.entries_path)
            end = data.index(b"\n", entry.offset) + 1
            if jsonl.decode_record(data[entry.offset:end]) != entry.record:
                raise OperationalError("entries file changed under the lock", file=self.entries_path)
            fs.atomic_write_bytes(self.entries_path, data[:entry.offset] + data[end:])
            return entry.record


def _grammar_id(record: dict) -> str | None:
    """The sort key of the file: ids of the toolkit's own grammar (others rank nowhere)."""
    if entry_problem(record) is None and is_entry_id(record["id"]):
        return record["id"]
    return None
