"""Where a transaction is kept while it runs: the two journal layouts and their checks.

* :class:`Store` — ``<state_dir>/baseline.json.gz`` and ``<state_dir>/transaction/``
  (``before.json.gz``, ``incoming.json.gz``, ``baseline.json.gz``, then ``journal.json``);
* :class:`JournalFile` — one JSON file holding the journal with the touched locations'
  ``before`` bytes (base64) and ``after`` sha256.

Both answer the same calls (``pending``, ``leftovers``, ``prepare``, ``mark_committed``,
``sides``, ``install_baseline``, ``clear``); :mod:`.transaction` drives them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from openalice.core import fs
from openalice.core.errors import AliceError, InvalidInput, OperationalError

from .snapshot import MISSING, Entry, check_path, file_entry, read_snapshot, write_snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Mapping

JOURNAL_VERSION = 1
PHASES = ("prepared", "committed")
_JOURNAL_KEYS = {"schemaVersion", "owner", "planDigest", "touchedPaths", "preparedAt", "phase", "meta",
                 "state", "commitTrailer", "pruneWithin", "commit"}


class Store:
    """Where one owner keeps its baseline and its transaction for one workspace
    (``<state_dir>/baseline.json.gz``, ``<state_dir>/transaction/``)."""

    def __init__(self, root: os.PathLike | str, state_dir: str) -> None:
        self.root = Path(root)
        self.state_dir = state_dir
        self.dir = self.root / state_dir
        self.baseline_path = self.dir / "baseline.json.gz"
        self.txn_dir = self.dir / "transaction"
        self.journal_path = self.txn_dir / "journal.json"
        self.before_path = self.txn_dir / "before.json.gz"
        self.incoming_path = self.txn_dir / "incoming.json.gz"
        self.next_baseline_path = self.txn_dir / "baseline.json.gz"

    def baseline(self) -> dict[str, Entry]:
        return read_snapshot(self.baseline_path, missing={}, root=self.root)

    def pending(self) -> dict | None:
        """The pending journal (validated), or None."""
        data = _read_journal(self.root, self.journal_path)
        if data is None:
            return None
        return _check_journal(data, self.journal_path)

    # The engine's side of a store: what a transaction writes and reads back.

    def leftovers(self) -> bool:
        """Files of a transaction whose journal never landed."""
        return self.txn_dir.exists()

    def prepare(self, journal: dict, before: Mapping[str, Entry], incoming: Mapping[str, Entry],
                baseline: Mapping[str, Entry]) -> None:
        if self.txn_dir.exists():
            self.clear()  # leftovers of a transaction whose journal never landed
        write_snapshot(self.before_path, before, root=self.root)
        write_snapshot(self.incoming_path, incoming, root=self.root)
        write_snapshot(self.next_baseline_path, baseline, root=self.root)
        fs.atomic_write_json(self.journal_path, journal, mode=0o644, dir_mode=0o755, root=self.root)

    def mark_committed(self, journal: dict) -> None:
        fs.atomic_write_json(self.journal_path, journal, mode=0o644, dir_mode=0o755, root=self.root)

    def sides(self, journal: dict) -> tuple[dict[str, Entry], dict[str, str]]:
        """(before entries, incoming fingerprints) of the touched locations."""
        before = read_snapshot(self.before_path, missing=None, root=self.root)
        if before is None:
            raise InvalidInput("the transaction's before snapshot is missing; cannot roll back",
                               file=self.before_path, code="malformed_journal")
        incoming = read_snapshot(self.incoming_path, missing=None, root=self.root)
        if incoming is None:
            raise InvalidInput("the transaction's incoming snapshot is missing; cannot roll back",
                               file=self.incoming_path, code="malformed_journal")
        for rel in journal["touchedPaths"]:
            if rel not in before:
                raise InvalidInput(f"before snapshot lacks touched path {rel!r}", file=self.before_path,
                                   field=f"files/{rel}", code="malformed_snapshot")
        return before, {rel: e.fingerprint for rel, e in incoming.items()}

    def install_baseline(self) -> None:
        if read_snapshot(self.next_baseline_path, missing=None, root=self.root) is not None:
            # (read first: a damaged one is refused, never installed)
            fs.move_file(self.next_baseline_path, self.baseline_path, root=self.root)

    def clear(self) -> None:
        # The journal goes first: without it nothing here is pending any more.
        fs.remove_file(self.journal_path, root=self.root)
        for path in (self.before_path, self.incoming_path, self.next_baseline_path):
            fs.remove_file(path, root=self.root)
        if self.txn_dir.exists():
            fs.sweep_temp_files(self.txn_dir, older_than=0)
            fs.remove_empty_dir(self.txn_dir, root=self.root)


class JournalFile:
    """A transaction kept in one JSON file, for an owner that keeps its
    baseline in its own state document (passed to :func:`apply_plan` as
    ``state``) rather than in a snapshot.

    The journal is the :class:`Store` journal plus ``before``: {location:
    base64 of its bytes, or null when nothing was there} and ``after``:
    {location: sha256 hex of what the apply writes, or null when it removes
    the file}.  Rollback needs only the ``before`` bytes; the ``after`` hashes
    let recovery tell the apply's own writes from later edits.  Once the
    writes are done the journal is rewritten without both sides (phase
    ``committed``: only the state documents remain to be written)."""

    MAX_BYTES = 512 * 1024 * 1024

    def __init__(self, root: os.PathLike | str, journal: str) -> None:
        check_path(journal)
        self.root = Path(root)
        self.journal_rel = journal
        self.journal_path = self.root.joinpath(*journal.split("/"))

    def pending(self) -> dict | None:
        data = _read_journal(self.root, self.journal_path, max_bytes=self.MAX_BYTES)
        if data is None:
            return None
        return _check_inline(data, self.journal_path)

    def leftovers(self) -> bool:
        return False

    def prepare(self, journal: dict, before: Mapping[str, Entry], incoming: Mapping[str, Entry],
                baseline: Mapping[str, Entry]) -> None:
        # Written by hand around the (JSON-safe) base64 strings: json.dumps would scan megabytes of
        # them for characters to escape.  The result is the JSON of the journal plus both sides.
        head = json.dumps(journal, ensure_ascii=False)
        sides = ",".join(f"{json.dumps(rel, ensure_ascii=False)}:{_b64(rel, entry)}"
                         for rel, entry in sorted(before.items()))
        after = {rel: None if entry.kind == "missing" else entry.fingerprint[len("file:"):]
                 for rel, entry in sorted(incoming.items())}
        text = f'{head[:-1]}, "before": {{{sides}}}, "after": {json.dumps(after, ensure_ascii=False)}}}\n'
        fs.atomic_write_bytes(self.journal_path, text.encode("utf-8"), mode=0o644, dir_mode=0o755,
                              root=self.root)

    def mark_committed(self, journal: dict) -> None:
        doc = {k: v for k, v in journal.items() if k not in ("before", "after")}
        fs.atomic_write_json(self.journal_path, doc, indent=None, mode=0o644, dir_mode=0o755,
                             root=self.root)

    def sides(self, journal: dict) -> tuple[dict[str, Entry], dict[str, str]]:
        import base64  # lazy: only a transaction being recovered has sides to decode

        before = {}
        for rel, text in journal["before"].items():
            before[rel] = MISSING if text is None else file_entry(base64.b64decode(text))
        after = {rel: "missing" if sha is None else f"file:{sha}" for rel, sha in journal["after"].items()}
        return before, after

    def install_baseline(self) -> None:
        pass  # the owner's state document is its baseline

    def clear(self) -> None:
        fs.remove_file(self.journal_path, root=self.root)
        fs.sweep_temp_files(self.journal_path.parent, older_than=0, target=self.journal_path.name)


def _b64(rel: str, entry: Entry) -> str:
    """The JSON value of one ``before`` entry: a base64 string, or null."""
    if entry.kind == "missing":
        return "null"
    if entry.kind != "file":   # never touched: the plan refuses to write through one
        raise OperationalError(f"{rel}: cannot journal a non-regular entry ({entry.detail})")
    import base64  # lazy: only a transaction being written journals its sides

    return '"' + base64.b64encode(entry.content).decode("ascii") + '"'


def _check_journal(data: object, path: Path) -> dict:
    def bad(reason: str, field: str | None = None) -> InvalidInput:
        return InvalidInput(reason, file=path, field=field, code="malformed_journal")

    if not isinstance(data, dict):
        raise bad("journal is not a JSON object")
    unknown = set(data) - _JOURNAL_KEYS
    if unknown:
        raise bad(f"unknown key {sorted(unknown)[0]!r}", sorted(unknown)[0])
    for key in _JOURNAL_KEYS - {"commitTrailer", "commit"}:
        if key not in data:
            raise bad("missing", key)
    if data["schemaVersion"] != JOURNAL_VERSION:
        raise bad(f"unsupported schemaVersion {data['schemaVersion']!r}", "schemaVersion")
    if data["phase"] not in PHASES:
        raise bad(f"phase must be one of {', '.join(PHASES)}", "phase")
    for key in ("owner", "planDigest", "preparedAt"):
        if not isinstance(data[key], str) or not data[key]:
            raise bad("must be a non-empty string", key)
    if not isinstance(data["meta"], dict):
        raise bad("must be an object", "meta")
    def managed_path(rel: object, field: str) -> None:
        try:
            check_path(rel.rstrip("/") if isinstance(rel, str) else rel)
        except AliceError as exc:   # a bad path in the journal is a malformed journal
            raise bad(exc.message, field) from None

    for key in ("touchedPaths", "pruneWithin"):
        if not isinstance(data[key], list):
            raise bad("must be a list", key)
        for n, rel in enumerate(data[key]):
            managed_path(rel, f"{key}/{n}")
    if not isinstance(data["state"], dict) or not all(isinstance(v, dict) for v in data["state"].values()):
        raise bad("must map paths to JSON objects", "state")
    for rel in data["state"]:
        managed_path(rel, f"state/{rel}")
    for key in ("commitTrailer", "commit"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise bad("must be a string or null", key)
    return data


_SHA256_HEX = frozenset("0123456789abcdef")


def _check_inline(data: object, path: Path) -> dict:
    """A :class:`JournalFile` journal: the common keys plus, while ``prepared``,
    ``before`` and ``after`` for exactly the touched paths."""
    def bad(reason: str, field: str | None = None) -> InvalidInput:
        return InvalidInput(reason, file=path, field=field, code="malformed_journal")

    if not isinstance(data, dict):
        raise bad("journal is not a JSON object")
    sides = {k: data[k] for k in ("before", "after") if k in data}
    journal = _check_journal({k: v for k, v in data.items() if k not in sides}, path)
    if journal["phase"] == "committed":
        return journal
    touched = set(journal["touchedPaths"])
    for key in ("before", "after"):
        side = sides.get(key)
        if not isinstance(side, dict):
            raise bad("missing" if side is None else "must be an object", key)
        for rel in sorted(touched - set(side)):
            raise bad("a touched path is missing", f"{key}/{rel}")
        for rel in sorted(set(side) - touched):
            raise bad("not a touched path", f"{key}/{rel}")
    import base64  # lazy: only a prepared transaction has sides to check
    import binascii

    for rel, text in sides["before"].items():
        if text is not None:
            try:
                if not isinstance(text, str):
                    raise ValueError
                base64.b64decode(text, validate=True)
            except (ValueError, binascii.Error):
                raise bad("must be base64 bytes or null", f"before/{rel}") from None
    for rel, sha in sides["after"].items():
        if sha is not None and not (isinstance(sha, str) and len(sha) == 64 and set(sha) <= _SHA256_HEX):
            raise bad("must be a sha256 (64 lowercase hex digits) or null", f"after/{rel}")
    journal.update(sides)
    return journal


def _read_journal(root: Path, path: Path, *, max_bytes: int | None = 64 * 1024 * 1024) -> object:
    """The journal's JSON (None when there is none), read below the workspace root;
    JSON that is not a journal is ``malformed_journal``, naming the file."""
    try:
        return fs.read_json(path, missing=None, max_bytes=max_bytes, root=root)
    except InvalidInput as exc:
        if exc.code != "malformed_json":
            raise
        raise InvalidInput(exc.message, file=exc.file, code="malformed_journal") from None
