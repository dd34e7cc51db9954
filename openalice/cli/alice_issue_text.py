"""How ``alice issue`` prints: changes, one issue, listings, the board."""

from __future__ import annotations

from openalice.core.output import table, to_json

from ._dispatch import Context

__all__ = ["emit_bulk", "change_text", "show_text", "list_text", "board_text"]


def emit_bulk(ctx: Context, data: dict, human) -> None:
    """list and board print compact JSON: a thousand issues pretty-printed
    cost more than reading them (json's C encoder does not indent)."""
    if not ctx.json:
        ctx.emit(data, human)
        return
    ctx.stdout.write(to_json(data, compact=True) + "\n")


def _when_text(when: dict | None) -> str:
    if not when:
        return "-"
    kind = when["kind"]
    if kind == "cron":
        text = f"cron `{when['cron']}` {when['timezone']}"
        return text if when.get("catchUp", True) else text + " (no catch-up)"
    return f"{kind} {when[kind]}"


def _schedule_text(issue: dict, blocked: dict | None = None) -> str:
    """``blocked``: the readiness warning of create/update (issues/readiness.py), when
    the scan will refuse to start the run on this machine."""
    if not issue["scheduled"]:
        return "-"
    text = _when_text(issue["when"])
    schedule = issue["schedule"]
    blocked = blocked or schedule.get("blocked")
    if schedule["problem"]:
        return f"{text}  [never fires]"
    due_now = schedule["nextFireAt"] and (schedule["note"] or "").startswith("due now")
    if blocked is not None:
        when = "due now" if due_now else f"next {schedule['nextFireAt']}" if schedule["nextFireAt"] else ""
        return (f"{text}  {when}{', ' if when else ''}but the scan will block it "
                f"({blocked['code']}: {blocked['reason']})")
    if due_now:
        return f"{text}  due now (the next scan starts it)"
    if schedule["nextFireAt"]:
        return f"{text}  next {schedule['nextFireAt']}"
    return text


def change_text(data: dict, ws) -> str:
    issue = data["issue"]
    lines = [f"{data['action']}: {ws.id}/{issue['id']}  {issue['path']}"]
    if issue["scheduled"]:
        blocked = (data.get("warnings") or [None])[0]
        lines.append(f"  schedule: {_schedule_text(issue, blocked)}  assignee {issue['assignee']}")
    if data.get("commit"):
        lines.append(f"  committed in {ws.path} as {data['commit'][:12]}")
    return "\n".join(lines)


def show_text(d: dict) -> str:
    lines = [f"{d['title']}", f"  id:        {d['workspaceId']}/{d['id']}",
             f"  path:      {d['path']}",
             f"  status:    {d['status']}    priority: {d['priority']}",
             f"  assignee:  {d['assignee']}"]
    if d["scheduled"]:
        lines.append(f"  schedule:  {_schedule_text(d)}")
        blocked = d["schedule"].get("blocked")
        if d["schedule"]["problem"]:
            lines.append(f"  problem:   {d['schedule']['problem']}")
        elif blocked:       # the note's "the next scan starts it" would not hold
            lines.append(f"  blocked:   {blocked['field']}: {blocked['reason']} "
                         f"(the scan skips it until this is fixed: {blocked['code']})")
            if blocked.get("hint"):
                lines.append(f"  hint:      {blocked['hint']}")
        elif d["schedule"]["note"]:
            lines.append(f"  note:      {d['schedule']['note']}")
    for key in ("agent", "credential", "credentialSource", "model", "effort", "timeout"):
        if d[key] is not None:
            lines.append(f"  {key + ':':<10} {d[key]}")
    for key, value in d["extra"].items():
        lines.append(f"  {key}: {value!r} (not an issue field; kept)")
    lines += ["", "What (the prompt of a scheduled run):", ""]
    lines += ["  " + line if line else "" for line in d["what"].split("\n")]
    if d["comments"]:
        lines += ["", f"Comments ({len(d['comments'])}{_deliveries_text(d.get('deliveries'))}):"]
        shown = d["comments"][-SHOWN_COMMENTS:]
        if len(shown) < len(d["comments"]):
            lines.append(f"  ({len(d['comments']) - len(shown)} earlier: alice issue thread {d['id']})")
        for c in shown:
            mark = _delivery_mark(c.get("delivery"))
            lines.append(f"  - {c['at']} {c['author']} [{c['id']}]"
                         + (f" ↳ {c['replyTo']}" if c.get("replyTo") else "") + mark)
            lines += ["      " + line for line in c["markdown"].split("\n")]
    return "\n".join(lines)


SHOWN_COMMENTS = 5      # the compact thread of `show`; `alice issue thread` has them all


def _delivery_mark(delivery) -> str:
    if not isinstance(delivery, dict):
        return ""
    state = delivery.get("state")
    if state == "replied":
        return "  (replied)"
    if state == "failed":
        return f"  (delivery failed: {_one_line(str(delivery.get('error')), 80)})"
    return "  (delivering)" if delivery.get("taskId") else "  (pending)"


def _deliveries_text(counts) -> str:
    if not counts:
        return ""
    parts = [f"{counts[k]} {k}" for k in ("unanswered", "failed") if counts.get(k)]
    return f"; {', '.join(parts)}" if parts else ""


def list_text(d: dict, *, many: bool) -> str:
    from openalice.core.colour import state  # lazy: human text only (--json never colours)

    out = []
    for ws in d["workspaces"]:
        if ws["state"] in ("invalid", "unreadable"):
            out.append(f"workspace {ws['id']}: {ws['state']}: {ws.get('error', '')}")
    if d["issues"]:
        rows = []
        for i in d["issues"]:
            row = [i["id"], state(i["status"]), i["priority"], i["assignee"], _schedule_text(i),
                   _one_line(i["title"]) + _deliveries_note(i)]
            rows.append(([i["workspaceId"]] if many else []) + row)
        headers = (["WORKSPACE"] if many else []) + ["ID", "STATUS", "PRIORITY", "ASSIGNEE",
                                                      "SCHEDULE", "TITLE"]
        out.append(table(rows, headers))
    elif not d["invalid"]:
        out.append("no issues (create one with 'alice issue create --title ...')")
    if d["invalid"]:
        out.append("")
        out.append(f"invalid files ({len(d['invalid'])}):")
        out.extend(_invalid_lines(d["invalid"], many))
    return "\n".join(out)


def _invalid_lines(items: list, many: bool) -> list[str]:
    lines = []
    for item in items:
        name = f"{item['workspaceId']}/{item['id']}" if many else item["id"]
        lines.append(f"  {name}  {item['path']}")
        lines.extend(f"      {e['field']}: {e['reason']}" for e in item["errors"])
    return lines


def board_text(d: dict) -> str:
    from openalice.core.colour import state  # lazy: human text only (--json never colours)

    out = []
    states = d["workspaces"]
    if not states:
        return "no workspaces registered (create one with 'alice workspace init PATH')"
    bad = [w for w in states if w["state"] in ("invalid", "unreadable")]
    out.append(f"Issue board: {len(states)} workspace{'s' if len(states) != 1 else ''}"
               + (f", {len(bad)} not readable" if bad else ""))
    for w in bad:
        out.append(f"  ! {w['id']} ({w['path']}): {w['state']}: {w.get('error', '')}")
    for column in d["columns"]:
        out.append("")
        out.append(f"{state(column['status'].upper(), word=column['status'])} ({len(column['issues'])})")
        for i in column["issues"]:
            sched = _schedule_text(i)
            out.append(f"  [{i['priority']:<6}] {i['workspaceId']}/{i['id']}  "
                       f"{_one_line(i['title'])}{_deliveries_note(i)}  {i['assignee']}"
                       + (f"  {sched}" if sched != "-" else ""))
    if d["invalid"]:
        out.append("")
        out.append(f"INVALID FILES ({len(d['invalid'])})")
        out.extend(_invalid_lines(d["invalid"], True))
    return "\n".join(out)


def _deliveries_note(issue: dict) -> str:
    counts = issue.get("deliveries") or {}
    parts = [f"{counts[k]} {k}" for k in ("unanswered", "failed") if counts.get(k)]
    return f"  [{', '.join(parts)}]" if parts else ""


def _one_line(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def change_summary(action: str, issue_id: str | None, fields: dict, body: str | None, *,
                   unset: list | None = None) -> str:
    """One line naming an issue write, for the person asked to approve it (manager sessions)."""
    target = f"issue {issue_id}" if issue_id else "a new issue"
    parts = []
    if fields.get("title"):
        parts.append(f"title {_one_line(str(fields['title']), 80)!r}")
    other = sorted(k for k in fields if k != "title")
    if other:
        parts.append("fields " + ", ".join(other))
    if unset:
        parts.append("unset " + ", ".join(unset))
    if body:
        parts.append(f"{'text' if action == 'comment' else 'body'} {_one_line(body, 120)!r}")
    return f"{action} {target}" + (f": {'; '.join(parts)}" if parts else "")
