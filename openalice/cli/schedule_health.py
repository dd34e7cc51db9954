"""``alice-schedule health`` and ``alice-schedule next ISSUE``."""

from __future__ import annotations

from ._dispatch import Context, add_verb, int_in_range


def register(sub, common) -> None:
    p = add_verb(sub, "health", cmd_health, common=common,
                 help="automation health of every scheduled issue",
                 description="Health of each scheduled issue, computed now from its schedule, "
                             "cursor, runs and owner (never stored): inactive, running, blocked, "
                             "interrupted, failed, due, healthy, not_started.",
                 examples="  alice-schedule health\n  alice-schedule health --workspace notes --json")
    p.add_argument("--workspace", metavar="PATH|ID", help="only this workspace")
    p.add_argument("--now", metavar="ISO", help="evaluate at this instant (also ALICE_NOW)")

    p = add_verb(sub, "next", cmd_next, common=common,
                 help="the next fire times of an issue, in UTC and in its zone",
                 description="Upcoming fire instants of a scheduled issue given its cursor; "
                             "instants shaped by DST are marked (gap: moved to the end of a "
                             "skipped hour; repeated: a wall time that occurs twice).",
                 examples="  alice-schedule next daily-report\n"
                          "  alice-schedule next notes/daily-report --count 10 --json")
    p.add_argument("issue", metavar="ISSUE",
                   help="ISSUE (in the current or --workspace workspace) or WORKSPACE/ISSUE")
    p.add_argument("--workspace", metavar="PATH|ID", help="the issue's workspace")
    p.add_argument("--count", type=int_in_range(1, 1000), default=5, help="how many instants (default 5)")
    p.add_argument("--now", metavar="ISO", help="start from this instant (also ALICE_NOW)")


def _has_connectors() -> bool:
    """Whether a connector was ever added (the health read verb loads the
    connectors' modules only then)."""
    import os  # lazy: verb handler

    from openalice.core.homes import openalice_home  # lazy: verb handler

    return os.path.isdir(os.path.join(openalice_home(), "connectors"))


def clock_ms(now) -> int:
    from openalice.core import clock  # lazy: verb handler

    return clock.to_ms(now)


def cmd_health(args, ctx: Context) -> int:
    from openalice.core.output import table  # lazy: verb handler
    from openalice.schedule.health import health_report  # lazy: verb handler

    workspaces = None
    if args.workspace:
        from openalice import workspaces as registry  # lazy: verb handler

        workspaces = [registry.get(args.workspace)]
    report = health_report(now=ctx.now(), workspaces=workspaces)
    if workspaces is None and _has_connectors():
        from openalice.connectors.health import connector_health  # lazy: only with connectors

        report["connectors"] = connector_health(now_ms=clock_ms(ctx.now()))

    def human(d: dict) -> str:
        from openalice.core.colour import state  # lazy: human text only (--json never colours)

        lines = []
        if d["issues"]:
            rows = [[f"{e['workspaceId']}/{e['issueId']}", state(e["state"]), e.get("nextDue") or "-",
                     e["message"]] for e in d["issues"]]
            lines.append(table(rows, ["ISSUE", "STATE", "NEXT", "MESSAGE"]))
            for e in d["issues"]:
                lines.extend(_why(e))
        else:
            lines.append("no scheduled issues")
        for c in d.get("connectors", []):
            if c["state"] in ("failed", "retrying"):
                lines.append(f"connector {c['name']}: {c['state']}: {c['message']}")
        for bad in d["invalid"]:
            lines.append(f"invalid {bad['workspaceId']}/{bad['issueId']}: "
                         + "; ".join(e["reason"] for e in bad["errors"]))
        for failed in d["deliveries"]["failedComments"]:
            lines.append(f"comment not delivered {failed['workspaceId']}/{failed['issueId']} "
                         f"{failed['commentId']}: {failed['error']} (alice issue redeliver)")
        return "\n".join(lines)

    ctx.emit(report, human)
    return 0


def _why(entry: dict) -> list[str]:
    """Under the table, for a failed or blocked issue: why, the next step, the
    end of the run's stderr and its logs."""
    name = f"{entry['workspaceId']}/{entry['issueId']}"
    blocker = entry.get("blocker")
    failure = entry.get("failure")
    if entry["state"] == "blocked" and blocker:
        lines = [f"{name}: blocked: {blocker['detail']}"]
        if blocker.get("hint"):
            lines.append(f"  next: {blocker['hint']}")
        if failure and entry.get("latestTaskId"):
            from .schedule_runs import why_lines  # lazy: only a failed issue's lines need it

            lines.append(f"  last run {entry['latestTaskId']} {entry.get('latestStatus')}:")
            lines.extend(why_lines(failure, entry["latestTaskId"], indent="    "))
        return lines
    if entry["state"] not in ("failed", "interrupted") or not failure or not entry.get("latestTaskId"):
        return []
    from .schedule_runs import why_lines  # lazy: only a failed issue's lines need it

    return [f"{name}: last run {entry['latestTaskId']} {entry['state']}"] + why_lines(failure, entry["latestTaskId"])


def cmd_next(args, ctx: Context) -> int:
    from openalice.core import clock  # lazy: verb handler
    from openalice.core.errors import Conflict  # lazy: verb handler
    from openalice.issues import cursors, due  # lazy: verb handler
    from openalice.schedule.address import load_issue, resolve_issue  # lazy: verb handler
    from openalice.schedule.upcoming import upcoming  # lazy: verb handler

    ws, issue_id = resolve_issue(args.issue, workspace=args.workspace)
    issue = load_issue(ws, issue_id)
    schedule = due.parse_schedule(issue.when)
    if schedule is None:
        raise Conflict(f"{ws.id}/{issue.id} has no schedule (no `when`)", code="not_scheduled")
    now = ctx.now()
    cursor = cursors.read_cursor(ws.id, issue.id)
    result = upcoming(schedule, cursor, now=now, count=args.count)
    data = {"workspaceId": ws.id, "issueId": issue.id, "now": clock.to_iso(now),
            "when": {k: v for k, v in (issue.when.items() if isinstance(issue.when, dict) else ())},
            "status": issue.status, "terminal": bool(getattr(issue, "is_terminal", False)), **result}

    def human(d: dict) -> str:
        lines = [f"{d['workspaceId']}/{d['issueId']} ({d['timezone']})"]
        if d.get("problem"):
            lines.append(f"never fires: {d['problem']}")
        if d["terminal"]:
            lines.append(f"status {d['status']}: it no longer fires")
        if d["due"]:
            lines.append(f"due now: slot {d['due']['slot']} (missed {d['due']['missed']})")
        if d.get("clockBackwards"):
            lines.append("note: the clock is before this issue's last fire or scan; nothing fires now")
        for item in d["instants"]:
            mark = f"  [DST: {item['dst']}]" if item.get("dst") else ""
            lines.append(f"  {item['utc']}  {item['local']}{mark}")
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0
