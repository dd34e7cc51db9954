"""The Inbox verbs, shared by ``alice-inbox VERB`` and ``alice inbox VERB``."""

from __future__ import annotations

import os
import sys

from . import inbox_text
from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse

VERBS = ("push", "list", "show", "files", "cat", "read", "unread", "mark-all-read", "count",
         "delete")


def command(args, ctx: Context) -> str:
    """How the user typed the tool: ``alice inbox`` (the group) or ``alice-inbox``,
    for hints that name a verb."""
    return "alice inbox" if getattr(args, "inbox_verb", None) else ctx.prog


def register(sub, common) -> None:
    """``alice-inbox``: every verb at the top level."""
    register_verbs(sub, common, prog="alice-inbox")


def register_verbs(sub, common, *, prog: str) -> None:
    ex = lambda *lines: "\n".join(f"  {prog} {line}" for line in lines)

    p = add_verb(sub, "push", cmd_push, common=common,
                 help="publish a report (Markdown body with [[path]] references)",
                 description="Publish an Inbox entry. The body is Markdown; [[path]] references "
                             "resolve inside the workspace root and are pinned by sha256 "
                             "revisions. The workspace comes from --workspace, the run "
                             "environment, or the current directory. Prints the entry id.",
                 examples=ex("push --body 'Nightly build green. See [[reports/build.md]]'",
                             "push --body-file report.md --workspace notes",
                             "push --body-file - < report.md --json"))
    body = p.add_mutually_exclusive_group(required=True)
    body.add_argument("--body", metavar="TEXT", help="the Markdown body")
    body.add_argument("--body-file", metavar="PATH|-",
                      help="read the body from a file, or stdin with '-' (one trailing newline "
                           "is dropped)")
    p.add_argument("--workspace", metavar="ID|PATH", help="the publishing workspace")

    p = add_verb(sub, "list", cmd_list, common=common, help="list entries, newest first",
                 description="List Inbox entries newest first. Each page costs O(page): the "
                             "file is read backwards. Page on with --before NEXT_ID.",
                 examples=ex("list", "list --unread --limit 20", "list --workspace notes --json",
                             "list --before inbox-1764493200000-0000000a"))
    p.add_argument("--workspace", metavar="ID|PATH", help="only this workspace's entries")
    p.add_argument("--unread", action="store_true", help="only unread entries")
    p.add_argument("--limit", type=int, default=100, metavar="N",
                   help="page size, 1-1000 (default 100)")
    p.add_argument("--before", metavar="ID", help="entries older than this id")

    p = add_verb(sub, "show", cmd_show, common=common,
                 help="show one entry: body, origin, read state and its files now",
                 examples=ex("show inbox-1764493200000-0000000a",
                             "show inbox-1764493200000-0000000a --json"))
    p.add_argument("id", metavar="ID")
    p.add_argument("--no-verify", action="store_true",
                   help="do not hash the files (availability only)")

    p = add_verb(sub, "files", cmd_files, common=common,
                 help="list an entry's file references with availability and revisions",
                 examples=ex("files inbox-1764493200000-0000000a",
                             "files inbox-1764493200000-0000000a --json"))
    p.add_argument("id", metavar="ID")

    p = add_verb(sub, "cat", cmd_cat, common=common,
                 help="print a referenced file if it is still contained and regular",
                 description="Stream a file referenced by the entry. It is re-resolved inside "
                             "the workspace on every call; a note on stderr says whether its "
                             "bytes still match the published revision. --require-revision "
                             "refuses (exit 2) when they do not. With --json the content is "
                             "returned in the document (text or base64, at most 16 MiB).",
                 examples=ex("cat inbox-1764493200000-0000000a reports/close.md",
                             "cat inbox-1764493200000-0000000a --index 0 --json",
                             "cat inbox-1764493200000-0000000a charts/a.png --require-revision "
                             "> a.png"))
    p.add_argument("id", metavar="ID")
    p.add_argument("path", metavar="PATH", nargs="?", help="the reference exactly as in the body")
    p.add_argument("--index", type=int, metavar="N",
                   help="instead of PATH: the entry's N-th reference (0-based, the order of "
                        "'files')")
    p.add_argument("--require-revision", action="store_true",
                   help="refuse unless the bytes match the published revision")

    p = add_verb(sub, "read", cmd_read, common=common, help="mark an entry read",
                 examples=ex("read inbox-1764493200000-0000000a"))
    p.add_argument("id", metavar="ID")

    p = add_verb(sub, "unread", cmd_unread, common=common, help="mark an entry unread",
                 examples=ex("unread inbox-1764493200000-0000000a"))
    p.add_argument("id", metavar="ID")

    p = add_verb(sub, "mark-all-read", cmd_mark_all_read, common=common,
                 help="mark every entry unread now as read (one atomic write)",
                 description="Snapshot the entries unread at this moment and mark them read in "
                             "one atomic write of the read state. Entries pushed meanwhile stay "
                             "unread. Prints the authoritative unread count after the write.",
                 examples=ex("mark-all-read", "mark-all-read --workspace notes --json"))
    p.add_argument("--workspace", metavar="ID|PATH", help="only this workspace's entries")

    p = add_verb(sub, "count", cmd_count, common=common,
                 help="the global unread count (independent of any paging)",
                 examples=ex("count", "count --json", "count --workspace notes"))
    p.add_argument("--workspace", metavar="ID|PATH", help="also count this workspace's unread")

    p = add_verb(sub, "delete", cmd_delete, common=common,
                 help="delete an entry (atomic rewrite of the store; files are untouched)",
                 examples=ex("delete inbox-1764493200000-0000000a"))
    p.add_argument("id", metavar="ID")


# -- helpers -------------------------------------------------------------------


def _store():
    from openalice.inbox import InboxStore  # lazy: verb handler

    return InboxStore()


def _workspace_id(spec: str | None) -> str | None:
    """A workspace id for filtering: registered (by id or path), else a bare id
    (entries outlive their workspace's registration)."""
    if spec is None:
        return None
    from openalice import workspaces  # lazy: verb handler
    from openalice.core.errors import NotFound  # lazy: verb handler
    from openalice.workspaces.registry import ID_RE  # lazy: verb handler

    try:
        return workspaces.get(spec).id
    except NotFound:
        if ID_RE.match(spec):
            return spec
        raise


# -- verbs -----------------------------------------------------------------------


def _read_body(args: argparse.Namespace) -> str:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice.inbox import MAX_BODY_BYTES

    from ._body import read_body

    text = read_body(args, max_bytes=MAX_BODY_BYTES)
    if args.body is not None:
        return text
    # a file's one final newline ends the file, not the report
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text


def cmd_push(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler

    body = inbox.check_body(_read_body(args), field="--body" if args.body is not None
                            else "--body-file")
    ws = inbox.target_workspace(args.workspace)
    origin = inbox.stamp_origin(ws, warn=ctx.warn)
    result = inbox.push(body, workspace=ws, origin=origin, now=ctx.now())
    entry = result.entry
    data = {"id": entry["id"], "ts": entry["ts"], "workspaceId": entry["workspaceId"],
            "workspaceLabel": entry["workspaceLabel"], "silent": result.references.silent,
            "files": [f.to_dict() for f in result.files],
            "ignored": [{"text": i.text, "reason": i.reason} for i in result.references.ignored]}
    if "origin" in entry:
        data["origin"] = entry["origin"]
    if result.journal_seq is not None:
        data["journalSeq"] = result.journal_seq
    if not ctx.json:
        for f in result.files:
            if not f.available:
                ctx.warn(f"[[{f.path}]] is unavailable ({f.reason}); published without a "
                         "revision")
        for ignored in result.references.ignored:
            if ignored.looks_like_a_path:
                ctx.warn(f"[[{ignored.text}]] is not a file reference ({ignored.reason}); "
                         "left as text")
        if origin is None:
            ctx.warn("this run is unknown to the task registry: published without an origin")
    ctx.emit(data, lambda d: d["id"])
    return 0


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler
    from openalice.core.errors import InvalidInput  # lazy: verb handler
    from openalice.core.output import page_hint, table  # lazy: verb handler
    from openalice.inbox.query import LIMIT_MAX  # lazy: verb handler

    if not 1 <= args.limit <= LIMIT_MAX:
        raise InvalidInput(f"--limit must be in 1..{LIMIT_MAX}", field="--limit", code="bad_range")
    store = inbox.InboxStore()
    data = inbox.list_entries(store, workspace_id=_workspace_id(args.workspace),
                              unread=args.unread, limit=args.limit, before=args.before)
    if not ctx.json:
        inbox_text.warn_problems(ctx, data["problems"])

    def human(d: dict) -> str:
        hint = page_hint(f"{command(args, ctx)} list", d, "entries", before=args.before)
        if not d["entries"]:
            return hint
        rows = []
        for e in d["entries"]:
            rows.append(["" if e["read"] else "*", e["id"], inbox_text.iso(e["ts"]), e["workspaceId"],
                         str(len(inbox.parse_references(e["body"]).paths)),
                         inbox.summary_of(e["body"]) or ""])
        text = table(rows, ["", "ID", "TIME", "WORKSPACE", "FILES", "SUMMARY"])
        return text + ("\n" + hint if hint else "")

    ctx.emit(data, human)
    return 0


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler

    data = inbox.describe(inbox.InboxStore(), args.id, verify=not args.no_verify)

    def human(d: dict) -> str:
        e = d["entry"]
        label = e.get("workspaceLabel")
        ws = e["workspaceId"] + (f" ({label})" if label else "")
        if not d["workspaceAvailable"]:
            ws += "  [no longer registered]"
        lines = [f"id:        {e['id']}", f"time:      {inbox_text.iso(e['ts'])}", f"workspace: {ws}",
                 f"origin:    {inbox_text.origin_text(e.get('origin'))}",
                 f"status:    {'read at ' + inbox_text.iso(e['readAt']) if e['read'] else 'unread'}"]
        if e["silent"]:
            lines.append("silent:    yes ([[no-reply]])")
        if isinstance(e.get("question"), dict):
            lines.append(f"question:  on issue {e['question'].get('issueId')}; answer it with "
                         f"'alice inbox answer {e['id']} --body ...'")
        lines += ["", "files:", inbox_text.files_table(d["files"]), "", "---", e["body"]]
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0


def cmd_files(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler
    from openalice.inbox.query import entry_files  # lazy: verb handler

    entry = inbox.InboxStore().get(args.id)
    available, statuses = entry_files(entry)
    data = {"id": entry.id, "workspaceId": entry.record["workspaceId"],
            "workspaceAvailable": available, "files": [s.to_dict() for s in statuses]}
    ctx.emit(data, lambda d: inbox_text.files_table(d["files"]))
    return 0


def cmd_cat(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler
    from openalice.core.errors import UsageError  # lazy: verb handler
    from openalice.inbox import cat  # lazy: verb handler (hashing and spooling only for cat)
    from openalice.inbox.query import open_referenced, referenced_path  # lazy: verb handler

    store = inbox.InboxStore()
    if (args.path is None) == (args.index is None):
        raise UsageError("give the reference as PATH or as --index N (one of them)",
                         code="usage", details={"hint": f"see '{command(args, ctx)} cat --help'"})
    if args.index is not None:
        if args.index < 0:
            raise UsageError("--index must be 0 or more", field="--index", code="usage")
        args.path = referenced_path(store, args.id, args.index)
    fd, published = open_referenced(store, args.id, args.path)
    with os.fdopen(fd, "rb", buffering=0) as src:
        if ctx.json:
            ctx.emit(cat.document(src, entry_id=args.id, path=args.path, published=published,
                                  require_revision=args.require_revision))
            return 0
        current = cat.copy_checked(src, sys.stdout.buffer, path=args.path, published=published,
                                   require_revision=args.require_revision)
    if args.require_revision:
        return 0
    if published is None:
        ctx.info(f"{ctx.prog}: note: {args.path} has no published revision "
                 "(it was unavailable at push time)")
    elif current != published:
        ctx.info(f"{ctx.prog}: note: {args.path} changed since it was published "
                 f"({published} → {current})")
    else:
        ctx.info(f"{ctx.prog}: note: {args.path} matches its published revision")
    return 0


def cmd_read(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler
    from openalice.core import clock  # lazy: verb handler
    from openalice.inbox import access  # lazy: verb handler

    store = inbox.InboxStore()
    access.confine_write(store.get(args.id).record["workspaceId"])
    read_at = inbox.mark_read(store, args.id, now_ms=clock.to_ms(ctx.now()))
    ctx.emit({"id": args.id, "read": True, "readAt": read_at},
             lambda d: f"read: {d['id']}")
    return 0


def cmd_unread(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler
    from openalice.inbox import access  # lazy: verb handler

    store = inbox.InboxStore()
    access.confine_write(store.get(args.id).record["workspaceId"])
    was = inbox.mark_unread(store, args.id)
    ctx.emit({"id": args.id, "read": False, "wasRead": was},
             lambda d: f"unread: {d['id']}" + ("" if was else " (it was not read)"))
    return 0


def cmd_mark_all_read(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler
    from openalice.core import clock  # lazy: verb handler
    from openalice.inbox import access  # lazy: verb handler

    ws_id = access.mark_all_read_scope(_workspace_id(args.workspace))
    data = inbox.mark_all_read(inbox.InboxStore(), now_ms=clock.to_ms(ctx.now()),
                               workspace_id=ws_id)
    if data.get("setAside") and not ctx.json:
        ctx.warn(f"the read state was corrupt: kept it as {data['setAside']} and started a new one")
    ctx.emit(data, lambda d: f"marked {d['marked']} read; {d['unread']} unread")
    return 0


def cmd_count(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler

    store = inbox.InboxStore()
    data = inbox.counts(store, workspace_id=_workspace_id(args.workspace))
    if store.problems:
        data["problems"] = store.problems
        if not ctx.json:
            inbox_text.warn_problems(ctx, store.problems)

    def human(d: dict) -> str:
        text = f"{d['unread']} unread of {d['total']}"
        if "workspaceUnread" in d:
            text += f" ({d['workspaceUnread']} in {args.workspace})"
        return text

    ctx.emit(data, human)
    return 0


def cmd_delete(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import inbox  # lazy: verb handler
    from openalice.inbox import access  # lazy: verb handler

    store = inbox.InboxStore()
    access.confine_write(store.get(args.id).record["workspaceId"])
    record = inbox.delete(store, args.id)
    if store.read_state_problem:
        ctx.warn(f"{store.read_state_path}: {store.read_state_problem}")
    ctx.emit({"id": record["id"], "deleted": True, "workspaceId": record["workspaceId"]},
             lambda d: f"deleted: {d['id']}")
    return 0
