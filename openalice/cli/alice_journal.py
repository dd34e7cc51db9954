"""``alice journal``: read the activity journal (pages, cursor reads, follow)."""

from __future__ import annotations

from openalice.core.output import to_json

from ._args import SUPPRESS
from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def register(sub, common) -> None:
    p = add_verb(
        sub, "journal", cmd_journal, common=common,
        help="read the activity journal (what OpenAlice did for you)",
        description="Read $OPENALICE_HOME/state/agent-runtime.jsonl. Without --after-seq: "
                    "newest-first pages with a total (--page, --limit ≤ 100, default 50). "
                    "With --after-seq N: the facts after seq N, ascending (--limit ≤ 500, "
                    "default 100). --follow streams new facts until interrupted (with --json, "
                    "one record per line). Families: agent, inbox, news.",
        examples="  alice journal\n  alice journal --family inbox --json\n"
                 "  alice journal --after-seq 120 --limit 50\n"
                 "  alice journal --follow --type inbox.received")
    p.add_argument("--family", metavar="F", help="only this family (agent, inbox, news)")
    p.add_argument("--type", metavar="T", help="only this type (e.g. inbox.received)")
    p.add_argument("--after-seq", type=int, metavar="N", help="facts with seq > N, ascending")
    p.add_argument("--limit", type=int, metavar="N", help="page size or cursor batch")
    p.add_argument("--page", type=int, metavar="P", help="page number from 1 (newest first)")
    p.add_argument("--follow", action="store_true", help="stream new facts until interrupted")
    # Test hooks: end a follow deterministically.
    p.add_argument("--max-wait", type=float, metavar="S", help=SUPPRESS)
    p.add_argument("--until-seq", type=int, metavar="N", help=SUPPRESS)
    p.add_argument("--interval", type=float, default=0.5, help=SUPPRESS)


def _payload_text(record: dict) -> str:
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return ""
    if record.get("type") == "inbox.received":
        bits = [payload.get("workspaceId", "?"), payload.get("inboxEntryId", "?")]
        if payload.get("summary"):
            bits.append(repr(payload["summary"]))
        return " ".join(str(b) for b in bits)
    text = to_json(payload, compact=True)
    return text if len(text) <= 120 else text[:119] + "…"


def _line(record: dict) -> str:
    caused = f" (after #{record['causedBy']})" if "causedBy" in record else ""
    return (f"#{record.get('seq')}  {record.get('ts')}  {record.get('type')}{caused}  "
            f"{_payload_text(record)}").rstrip()


def cmd_journal(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import journal  # lazy: verb handler
    from openalice.core.errors import UsageError  # lazy: verb handler

    where = journal.make_filter(args.family, args.type)
    if args.page is not None and (args.after_seq is not None or args.follow):
        raise UsageError("--page pages newest-first; it cannot be combined with --after-seq "
                         "or --follow", code="usage")
    if args.follow:
        return _follow(args, ctx, where)
    if args.after_seq is not None:
        limit = journal.AFTER_LIMIT_DEFAULT if args.limit is None else args.limit
        data = journal.read_after(args.after_seq, limit=limit, where=where)
    else:
        limit = journal.PAGE_SIZE_DEFAULT if args.limit is None else args.limit
        data = journal.read_page(1 if args.page is None else args.page, page_size=limit,
                                 where=where)
    if not ctx.json:
        for p in data["problems"]:
            ctx.warn(f"skipped line at byte {p['offset']} of {p['file']}: {p['reason']}")

    def human(d: dict) -> str:
        if not d["entries"]:
            return "no facts" + (f" after seq {args.after_seq}" if args.after_seq is not None
                                 else "")
        lines = [_line(r) for r in d["entries"]]
        if "total" in d:
            lines.append(f"page {d['page']} of {d['totalPages']} ({d['total']} facts; "
                         f"last seq {d['lastSeq']})")
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0


def _follow(args: argparse.Namespace, ctx: Context, where) -> int:
    import signal  # lazy: verb handler

    from openalice import journal  # lazy: verb handler
    from openalice.core.errors import InvalidInput  # lazy: verb handler

    if args.after_seq is not None and args.after_seq < 0:
        raise InvalidInput("--after-seq must be ≥ 0", field="--after-seq", code="bad_seq")
    start = journal.last_seq() if args.after_seq is None else args.after_seq
    ctx.info(f"following the activity journal after seq {start} (Ctrl-C to stop)")

    class _Stop(Exception):
        pass

    def on_term(signum, frame):
        raise _Stop()

    from openalice.core.output import printable  # lazy: verb handler

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        for record in journal.follow(start, where=where, interval=max(0.05, args.interval),
                                     max_wait=args.max_wait, until_seq=args.until_seq):
            if ctx.json:
                ctx.stdout.write(to_json(record, indent=None) + "\n")
            else:
                ctx.stdout.write(printable(_line(record)) + "\n")
            ctx.stdout.flush()
    except (KeyboardInterrupt, _Stop):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0
