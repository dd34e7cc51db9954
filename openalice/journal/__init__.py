"""The activity journal: ``$OPENALICE_HOME/state/agent-runtime.jsonl``.

An append-only stream of product facts ``{seq, ts, type, payload, causedBy?}``
answering "what did OpenAlice do for the user?".  Producers append with
:func:`record` after their own durable write; readers use :func:`read_after`
(cursor, ascending), :func:`read_page` (newest-first with a total) or
:func:`follow`.  See ``docs/journal.md``.
"""

from .reader import (
    AFTER_LIMIT_DEFAULT,
    AFTER_LIMIT_MAX,
    PAGE_SIZE_DEFAULT,
    PAGE_SIZE_MAX,
    Filter,
    follow,
    last_seq,
    make_filter,
    read_after,
    read_page,
)
from .recorder import FILE_NAME, journal_path, open_journal, record
from .registry import FAMILIES, all_types, family_of, register_family, types_of

__all__ = [
    "FAMILIES", "FILE_NAME", "AFTER_LIMIT_DEFAULT", "AFTER_LIMIT_MAX", "PAGE_SIZE_DEFAULT",
    "PAGE_SIZE_MAX", "Filter", "all_types", "family_of", "follow", "journal_path", "last_seq",
    "make_filter", "open_journal", "read_after", "read_page", "record", "register_family",
    "types_of",
]
