"""``alice-schedule scan [--now ISO] [--dry-run] [--capacity N] [--json]``."""

from __future__ import annotations

import sys

from openalice.schedule import scan_entry
from openalice.schedule.scan_entry import parse_capacity

from ._args import type_error

__all__ = ["register", "cmd_scan", "fast_scan", "human_report"]


def register(sub, common) -> None:
    from ._dispatch import add_verb  # lazy: only the argparse path registers verbs

    p = add_verb(sub, "scan", cmd_scan, common=common,
                 help="run every due scheduled issue once",
                 description="Scan every registered workspace; start one headless run per due, "
                             "non-terminal scheduled issue and return at once (the runs are "
                             "detached). A scan already in progress is not an error: exit 0, "
                             "status busy.",
                 examples="  alice-schedule scan\n"
                          "  alice-schedule scan --dry-run --json\n"
                          "  alice-schedule scan --now 2026-11-30T09:00:00Z")
    p.add_argument("--now", metavar="ISO", help="the scan's clock (also ALICE_NOW)")
    p.add_argument("--dry-run", action="store_true",
                   help="report what would fire; write and start nothing")
    p.add_argument("--capacity", type=_capacity, metavar="N",
                   help="at most N live runs (default: $OPENALICE_RUN_CAPACITY, else 8)")


def _capacity(text: str) -> int:
    value = parse_capacity(text)
    if value is None:
        raise type_error("must be an integer 0-1000")
    return value


def human_report(report: dict) -> str:
    if report["status"] == "busy":
        return "another scan is running (busy); nothing done"
    lines = []
    verb = "would fire" if report.get("dryRun") else "fired"
    for item in report["fired"]:
        extra = f", missed {item['missed']}{'+' if item.get('missedOverflow') else ''}" if item["missed"] else ""
        task = f" {item['taskId']}" if item.get("taskId") else ""
        note = f" (not launched: {item['error']})" if item.get("error") else ""
        lines.append(f"{verb} {item['workspaceId']}/{item['issueId']}{task} slot {item['slot']}{extra}{note}")
    for item in report["repaired"]:
        lines.append(f"cursor caught up {item['workspaceId']}/{item['issueId']} with {item['taskId']}")
    blocking = _blocking_reasons() if report["skipped"] else ()
    for item in report["skipped"]:
        detail = f": {item['detail']}" if item.get("detail") else ""
        where = f"{item['workspaceId']}/{item['issueId']}"
        if item["reason"] in blocking:
            # The run cannot start on this machine (openalice.issues.readiness).
            if report.get("dryRun"):
                lines.append(f"would be blocked {where}: {item['reason']}{detail}")
            else:
                lines.append(f"blocked {where} [{item['reason']}]{detail}")
            if item.get("hint"):
                lines.append(f"  hint: {item['hint']}")
            continue
        lines.append(f"skipped {where} [{item['reason']}]{detail}")
    for item in report["invalid"]:
        errors = "; ".join(f"{e['field']}: {e['reason']}" if e.get("field") else e["reason"]
                           for e in item["errors"])
        lines.append(f"invalid {item['workspaceId']}/{item['issueId']} ({item['path']}): {errors}")
    for ws in report["workspaces"]:
        if ws["state"] not in ("ok", "absent"):
            lines.append(f"workspace {ws['id']}: {ws['state']}" + (f" ({ws['error']})" if ws.get("error") else ""))
    if report.get("clockBackwards"):
        lines.append("warning: the clock is earlier than the previous scan's")
    scheduled = sum(ws.get("scheduled", 0) for ws in report["workspaces"])
    lines.append(f"{len(report['workspaces'])} workspace(s), {scheduled} scheduled issue(s): "
                 f"{len(report['fired'])} {verb}, {len(report['skipped'])} skipped")
    return "\n".join(lines)


def _blocking_reasons() -> tuple[str, ...]:
    from openalice.issues.readiness import REASONS  # lazy: only a report with skips needs it

    return REASONS


def scan_report(*, dry_run: bool, now_text: str | None, capacity: int | None = None) -> dict:
    """The scan as the tool runs it (:func:`openalice.schedule.scan_entry.scan_report`);
    a heartbeat that cannot be written is a warning on stderr."""
    return scan_entry.scan_report(dry_run=dry_run, now_text=now_text, capacity=capacity,
                                  warn=_warn)


def _warn(message: str) -> None:
    sys.stderr.write(f"alice-schedule: warning: {message}\n")


def _run_scan(*, json_mode: bool, dry_run: bool, now_text: str | None,
              capacity: int | None = None) -> int:
    report = scan_report(dry_run=dry_run, now_text=now_text, capacity=capacity)
    if json_mode:
        from openalice.core.output import to_json  # lazy: only --json prints JSON

        sys.stdout.write(to_json(report) + "\n")
    else:
        from openalice.core.output import printable  # lazy: only the text report needs it

        sys.stdout.write(printable(human_report(report)) + "\n")
    return 0


def cmd_scan(args, ctx) -> int:
    return _run_scan(json_mode=ctx.json, dry_run=args.dry_run, now_text=args.now,
                     capacity=args.capacity)


def fast_scan(args: list[str]) -> int | None:
    """Parse the plain flags by hand and scan; None means "use argparse"
    (help, unknown or malformed flags).  Errors propagate to the one
    top-level handler (:func:`openalice.cli._run.run`)."""
    json_mode = dry_run = False
    now_text = capacity = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--json":
            json_mode = True
        elif arg == "--dry-run":
            dry_run = True
        elif arg == "--now" and i + 1 < len(args) and not args[i + 1].startswith("--"):
            now_text = args[i + 1]
            i += 1
        elif arg.startswith("--now=") and len(arg) > 6:
            now_text = arg[6:]
        elif arg == "--capacity" and i + 1 < len(args) and parse_capacity(args[i + 1]) is not None:
            capacity = parse_capacity(args[i + 1])
            i += 1
        else:
            return None
        i += 1
    return _run_scan(json_mode=json_mode, dry_run=dry_run, now_text=now_text, capacity=capacity)
