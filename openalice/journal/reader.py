"""Reading the activity journal: cursor reads, newest-first pages, following.

* :func:`read_after` — facts with ``seq`` greater than a cursor, ascending.
  The file is bisected by byte offset (``seq`` grows with it), so the cost is
  O(log size + page) whatever the journal's length: this is what live
  consumers poll.
* :func:`read_page` — newest-first pages with a ``total``.  The total comes
  from a derived per-type count kept beside the journal (``counts.py``), so
  a page costs O(facts appended since the last read + page) after the first.
* :func:`follow` — poll :func:`read_after` until told to stop.

Malformed lines are skipped and reported in ``problems``; they never break a read.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

from openalice.core.errors import InvalidInput
from openalice.core.records import record_class

from .recorder import open_journal
from .registry import FAMILIES, all_types, family_of

__all__ = [
    "AFTER_LIMIT_DEFAULT", "AFTER_LIMIT_MAX", "PAGE_SIZE_DEFAULT", "PAGE_SIZE_MAX",
    "Filter", "make_filter", "read_after", "read_page", "follow", "last_seq",
]

AFTER_LIMIT_DEFAULT = 100
AFTER_LIMIT_MAX = 500
PAGE_SIZE_DEFAULT = 50
PAGE_SIZE_MAX = 100


@record_class(frozen=True)
class Filter:
    family: str | None = None
    type: str | None = None

    def __call__(self, record: dict) -> bool:
        kind = record.get("type")
        if self.type is not None and kind != self.type:
            return False
        if self.family is not None and (not isinstance(kind, str) or family_of(kind) != self.family):
            return False
        return True

    @property
    def active(self) -> bool:
        return self.family is not None or self.type is not None


def make_filter(family: str | None = None, type: str | None = None) -> Filter:
    """A filter on registered names; an unknown family or type is an input error."""
    if family is not None and family not in FAMILIES:
        raise InvalidInput(f"unknown family {family!r} (known: {', '.join(FAMILIES)})",
                           field="--family", code="unknown_family")
    if type is not None and family_of(type) is None:
        raise InvalidInput(f"unknown type {type!r} (known: {', '.join(all_types())})",
                           field="--type", code="unknown_type")
    return Filter(family, type)


def _problems(journal) -> list[dict]:
    return [{"file": str(journal.path), **p} for p in journal.problems]


def last_seq() -> int:
    return open_journal().last_seq()


def read_after(after: int, *, limit: int = AFTER_LIMIT_DEFAULT,
               where: Filter | None = None) -> dict:
    """``{entries (seq > after, ascending), lastSeq, problems}``."""
    _check_range(limit, 1, AFTER_LIMIT_MAX, "--limit")
    if after < 0:
        raise InvalidInput("--after-seq must be ≥ 0", field="--after-seq", code="bad_seq")
    journal = open_journal()
    predicate = where if where is not None and where.active else None
    entries = journal.after_seq(after, limit=limit, predicate=predicate)
    return {"entries": entries, "lastSeq": journal.last_seq(), "problems": _problems(journal)}


def read_page(page: int = 1, *, page_size: int = PAGE_SIZE_DEFAULT,
              where: Filter | None = None) -> dict:
    """Newest-first page ``page`` (from 1) with the total number of matching facts.

    The total comes from the derived per-type counts (:mod:`.counts`), so a
    page costs O(facts appended since the last read + the facts skipped to
    reach the page), not O(file).
    """
    from .counts import count_up_to

    _check_range(page, 1, None, "--page")
    _check_range(page_size, 1, PAGE_SIZE_MAX, "--limit")
    journal = open_journal()
    where = where or Filter()
    try:
        fh = open(journal.path, "rb")
    except FileNotFoundError:
        return {"entries": [], "total": 0, "page": page, "pageSize": page_size, "totalPages": 0,
                "lastSeq": 0, "problems": []}
    with fh:
        counts = count_up_to(journal.path, fh, os.fstat(fh.fileno()).st_size)
    end = counts.size  # one snapshot for both the total and the page
    if where.type is not None:
        total = counts.types.get(where.type, 0)
        if where.family is not None and family_of(where.type) != where.family:
            total = 0
    elif where.family is not None:
        total = sum(n for t, n in counts.types.items() if family_of(t) == where.family)
    else:
        total = counts.total
    first = (page - 1) * page_size
    entries: list[dict] = []
    last = 0
    matched = 0
    if first < total:
        for line in journal.iter_backward(end=end):
            record = line.record
            if not last:
                last = _seq_of(record)
            if where.active and not where(record):
                continue
            if matched >= first:
                entries.append(record)
                if len(entries) >= page_size:
                    break
            matched += 1
    if not last:
        last = journal.last_seq()
    return {
        "entries": entries, "total": total, "page": page, "pageSize": page_size,
        "totalPages": (total + page_size - 1) // page_size, "lastSeq": last,
        "problems": _problems(journal),
    }


def _seq_of(record: dict) -> int:
    seq = record.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else 0


def follow(after: int, *, where: Filter | None = None, interval: float = 0.5,
           max_wait: float | None = None, until_seq: int | None = None,
           clock: Callable[[], float] = time.monotonic,
           sleep: Callable[[float], None] = time.sleep) -> Iterator[dict]:
    """Yield facts after ``after`` as they arrive, oldest first.

    Polls every ``interval`` seconds, and only re-reads when the file grew.
    Stops after ``max_wait`` seconds, or once a fact with ``seq ≥ until_seq``
    was seen (test hooks), or when the caller stops iterating.
    """
    journal = open_journal()
    predicate = where if where is not None and where.active else None
    deadline = None if max_wait is None else clock() + max_wait
    cursor = after
    seen_size = -1
    while True:
        size = journal.size()
        if size != seen_size:
            seen_size = size
            while True:
                batch = journal.after_seq(cursor, limit=AFTER_LIMIT_MAX)
                for record in batch:
                    cursor = max(cursor, record["seq"])
                    if predicate is None or predicate(record):
                        yield record
                if until_seq is not None and cursor >= until_seq:
                    return
                if len(batch) < AFTER_LIMIT_MAX:
                    break
        if until_seq is not None and cursor >= until_seq:
            return
        if deadline is not None:
            remaining = deadline - clock()
            if remaining <= 0:
                return
            sleep(min(interval, remaining))
        else:
            sleep(interval)


def _check_range(value: int, low: int, high: int | None, name: str) -> None:
    if not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f"≥ {low}"
        raise InvalidInput(f"{name} must be an integer in {bound}", field=name, code="bad_range")
