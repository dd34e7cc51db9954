"""Reading the Inbox: pages, one entry with its files, a referenced file, delete.

Listing walks the entries file backwards (``JsonlFile.iter_backward``) and
stops after ``limit + 1`` matches, so a page costs O(page) whatever the file
size (plus loading the read-state sidecar).  ``--before ID`` first finds
the entry by bisection (ids are sorted in file order) and starts the walk at
its byte offset.  Filters (workspace, unread) make the walk longer only by the
entries they skip.
"""

from __future__ import annotations

from openalice.core.errors import NotFound

from . import files as inbox_files
from . import readstate
from .references import parse
from .store import Entry, InboxStore, is_entry_id

__all__ = ["LIMIT_DEFAULT", "LIMIT_MAX", "entry_view", "list_entries", "describe",
           "entry_files", "referenced_path", "open_referenced", "delete"]

LIMIT_DEFAULT = 100
LIMIT_MAX = 1000


def entry_view(entry: Entry, read: dict[str, int]) -> dict:
    """The stored entry plus what is derived: read state, silence, and the
    file references in first-seen order (what a page renders as file blocks;
    ``cat --index N`` and ``/api/inbox/:id/files/:index`` count in it)."""
    view = dict(entry.record)
    view.setdefault("fileRevisions", {})
    read_at = read.get(entry.id)
    view["read"] = read_at is not None
    if read_at is not None:
        view["readAt"] = read_at
    refs = parse(entry.record["body"])
    view["silent"] = refs.silent
    view["references"] = list(refs.paths)
    return view


def list_entries(store: InboxStore, *, workspace_id: str | None = None, unread: bool = False,
                 limit: int = LIMIT_DEFAULT, before: str | None = None) -> dict:
    """``{entries (newest first), hasMore, nextBefore?, problems}``."""
    read = readstate.load(store)
    end = None
    if before is not None:
        anchor = store.find(before)
        if anchor is None and not is_entry_id(before):
            # not an id at all, and no (imported) entry has it: a typo, not an empty page
            raise NotFound(f"no inbox entry {before!r}: --before takes an entry id such as "
                           "inbox-1764493200000-0000000a", field="before", code="unknown_entry")
        if anchor is None:  # a well-formed id that is gone: nothing older to page to
            return {"entries": [], "hasMore": False, "problems": store.problems}
        end = anchor.offset
    out: list[dict] = []
    has_more = False
    for entry in store.iter_newest(end=end):
        if workspace_id is not None and entry.record["workspaceId"] != workspace_id:
            continue
        if unread and entry.id in read:
            continue
        if len(out) >= limit:
            has_more = True
            break
        out.append(entry_view(entry, read))
    result: dict = {"entries": out, "hasMore": has_more}
    if has_more:
        result["nextBefore"] = out[-1]["id"]
    result["problems"] = store.problems
    return result


def entry_files(entry: Entry, *, verify: bool = True) -> tuple[bool, list[inbox_files.FileStatus]]:
    """(workspace still registered?, the state of each reference now)."""
    root = inbox_files.workspace_root(entry.record["workspaceId"])
    revisions = entry.record.get("fileRevisions") or {}
    statuses = [inbox_files.inspect(root, rel, revisions.get(rel), verify=verify)
                for rel in parse(entry.record["body"]).paths]
    return root is not None, statuses


def describe(store: InboxStore, entry_id: str, *, verify: bool = True) -> dict:
    """``{entry, workspaceAvailable, files}`` for ``show``."""
    entry = store.get(entry_id)
    available, statuses = entry_files(entry, verify=verify)
    return {"entry": entry_view(entry, readstate.load(store)), "workspaceAvailable": available,
            "files": [s.to_dict() for s in statuses]}


def referenced_path(store: InboxStore, entry_id: str, index: int) -> str:
    """The entry's ``index``-th (0-based) file reference, in first-seen order
    (the order of ``files`` and ``show``).  NotFound past the end."""
    from openalice.core.errors import NotFound

    paths = parse(store.get(entry_id).record["body"]).paths
    if not 0 <= index < len(paths):
        raise NotFound(f"entry {entry_id} has {len(paths)} file reference"
                       f"{'' if len(paths) == 1 else 's'}; there is no index {index}",
                       field="--index", code="no_such_reference",
                       details={"hint": f"see 'alice-inbox files {entry_id}'"})
    return paths[index]


def open_referenced(store: InboxStore, entry_id: str, rel: str) -> tuple[int, str | None]:
    """An fd on the file ``rel`` referenced by the entry, and its published revision.

    ``rel`` must be one of the entry's references (this is not a way to read
    any workspace file).  Raises NotFound, PathEscape (4), InvalidInput, or
    Unavailable (3) when the workspace is no longer registered.
    """
    from openalice.core.errors import NotFound, Unavailable

    entry = store.get(entry_id)
    if rel not in parse(entry.record["body"]).paths:
        raise NotFound(f"{rel!r} is not referenced by entry {entry_id}", field="PATH",
                       code="not_referenced",
                       details={"hint": f"see 'alice-inbox files {entry_id}'"})
    root = inbox_files.workspace_root(entry.record["workspaceId"])
    if root is None:
        raise Unavailable(f"workspace '{entry.record['workspaceId']}' is no longer registered",
                          code="workspace_unavailable")
    revision = (entry.record.get("fileRevisions") or {}).get(rel)
    return inbox_files.open_reference(root, rel), revision


def delete(store: InboxStore, entry_id: str) -> dict:
    """Remove the entry (atomic rewrite) and then its read mark; returns it."""
    record = store.delete(entry_id)
    readstate.forget(store, entry_id)
    return record
