"""Read state: ``read-state.json`` beside the entries, a watermark plus exceptions.

Entries are never rewritten to mark them read.  Version 2 of the sidecar
(``spec/inbox-read-state.schema.json``) is shaped so that reading it costs
what the page needs, not the number of entries ever read::

    {"version": 2,
     "watermark": {"line": 51100342, "id": "inbox-…", "entries": 95000, "problems": []},
     "segments": [{"through": "inbox-…", "readAt": 1796029260000}, ...],
     "unread": {"inbox-…": "notes"},
     "read": {"inbox-…": 1796029200000}}

- ``watermark`` closes the *prefix*: every line of ``entries.jsonl`` up to and
  including the line starting at byte ``line`` (the entry ``id``).  It holds
  ``entries`` valid entries and the ``problems`` (bad lines) found in it.
  Only a delete (an atomic rewrite) or a hand edit changes the prefix: the
  watermark is trusted only while the line at ``line`` is still entry ``id``;
  otherwise everything is recomputed once from the whole file.
- ``segments``, ascending: each mark-all-read adds one.  A grammar id in
  ``(previous through, through]`` reads as read at that ``readAt``, unless it
  is listed in ``unread`` or has its own mark in ``read``.
- ``unread``: every entry of the prefix that is unread, with its workspace
  (so per-workspace counts need no entry lookups).
- ``read``: marks of their own — entries after the prefix, entries read at
  another time than their segment says, and ids outside the grammar.

So ``list`` costs the page plus a small JSON document; ``count`` reads only
the entries after the prefix (O(entries since the watermark));
``mark-all-read`` moves the watermark to the end of the file in one atomic
write, reading only those same entries.

Every change is a locked read-modify-write of the sidecar
(``core.fs.locked_update_json``: atomic replace under the file's lock), so
concurrent ``read``/``mark-all-read`` never lose each other's marks, and a
crash leaves the old sidecar or the new one.  A version-1 file
(``{"version": 1, "read": {id: readAtMs}}``) is read as it is and rewritten as
version 2 on its first write (one pass over the entries; every readAt kept).
A missing sidecar means nothing is read.  A corrupt one never locks the Inbox:
readers (``list``, ``count``, ``show``) treat every entry as unread and report
the file as a problem; ``read``/``unread`` refuse (exit 2) rather than write
over it; ``mark-all-read`` keeps the bad file aside
(``read-state.json.corrupt-<UTC stamp>``) and writes a new one.

The unread count stays authoritative: it is computed from the entries file
(valid entries present in it); the watermark only lets the prefix's part of
it be reused while the prefix is provably unchanged, and the unread counter
(:mod:`..counter`, ``counts.json``) keeps a copy of the answer only for files
that ``stat`` exactly as when it was counted.

The package: :mod:`.document` (the sidecar's model: parsing, version 1,
the watermark check and rebuild) and :mod:`.marks` (every change, and the
counts).
"""

from .document import VERSION, ReadState, load, read_marks
from .marks import counts, forget, mark_all_read, mark_read, mark_unread

__all__ = ["VERSION", "ReadState", "load", "read_marks", "mark_read", "mark_unread", "mark_all_read",
           "forget", "counts"]
