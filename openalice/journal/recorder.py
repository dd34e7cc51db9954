"""Appending facts: ``record(type, payload, now=...)``.

The journal is a projection of what already happened.  Producers call
:func:`record` only after their own durable write succeeded, and a failure
here is reported on stderr and swallowed: it never fails or rolls back the
domain write.  Nothing ever reacts to a fact (no dispatch, no replay).

Facts are not fsynced one by one: a process killed mid-append leaves at worst
a torn last line, which the next append moves aside (``core.jsonl``); only a
power cut can lose the newest facts, and the domain files they describe are
durable on their own.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from openalice.core import jsonl, output, paths
from openalice.core.errors import AliceError

from .counts import note_appended
from .registry import family_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from datetime import datetime

__all__ = ["FILE_NAME", "journal_path", "open_journal", "record"]

FILE_NAME = "agent-runtime.jsonl"


def journal_path() -> Path:
    return paths.state_dir() / FILE_NAME


def open_journal() -> jsonl.Journal:
    return jsonl.Journal(journal_path(), durable=False)


def record(type: str, payload: dict, *, now: datetime, caused_by: int | None = None) -> dict | None:
    """Append a fact of a registered ``type``; the stored record, or None on failure.

    Raises ``ValueError`` for an unregistered type or a payload that is not a
    dict (programming errors); never raises for I/O.
    """
    if family_of(type) is None:
        raise ValueError(f"unregistered journal type {type!r}")
    if not isinstance(payload, dict):
        raise ValueError("a journal payload must be a dict")
    if caused_by is not None and (not isinstance(caused_by, int) or isinstance(caused_by, bool)):
        raise ValueError("causedBy must be a seq (int)")
    from openalice.core import clock  # lazy: readers of the journal never need the clock

    fact: dict = {"ts": clock.to_iso(now), "type": type, "payload": payload}
    if caused_by is not None:
        fact["causedBy"] = caused_by
    journal = open_journal()
    try:
        return journal.append(fact, after=lambda before, after, stored: note_appended(
            journal.path, before, after, stored))
    except (OSError, AliceError) as exc:
        prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "alice"
        output.warn(f"activity journal not updated ({type}): {exc}", prog=prog or "alice")
        return None
