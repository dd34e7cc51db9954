"""The Inbox: durable agent-to-human reports with pinned ``[[file]]`` references.

Entries live in ``$OPENALICE_HOME/data/inbox/entries.jsonl`` (append-only,
sorted by id), read marks in ``read-state.json`` beside it.  The API:

* :func:`push` (with :func:`target_workspace` and :func:`stamp_origin`),
* :class:`InboxStore` (``find``/``get``, newest-first iteration, ``delete``),
* :func:`list_entries`, :func:`describe`, read state (:mod:`.readstate`),
* :mod:`.references` (the grammar) and :mod:`.files` (containment, revisions).
* :mod:`.access` (writes inside a run touch only its workspace) and :mod:`.cat`
  (reading a file back against its published revision), imported on demand.

See ``docs/inbox.md``.
"""

from .push import (
    MAX_BODY_BYTES,
    PushResult,
    check_body,
    push,
    stamp_origin,
    summary_of,
    target_workspace,
)
from .query import delete, describe, list_entries
from .readstate import (
    ReadState,
    counts,
    mark_all_read,
    mark_read,
    mark_unread,
    read_marks,
)
from .readstate import (
    load as load_read_state,
)
from .references import References
from .references import parse as parse_references
from .store import ID_RE, Entry, InboxStore, inbox_dir, is_entry_id

__all__ = [
    "MAX_BODY_BYTES", "ID_RE", "Entry", "InboxStore", "PushResult", "References", "check_body",
    "counts", "delete", "describe", "inbox_dir", "is_entry_id", "list_entries",
    "load_read_state", "mark_all_read", "mark_read", "mark_unread", "parse_references", "push",
    "ReadState", "read_marks",
    "stamp_origin", "summary_of", "target_workspace",
]
