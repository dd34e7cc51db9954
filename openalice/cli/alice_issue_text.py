"""How ``alice issue`` prints: changes, one issue, listings, the board."""

from __future__ import annotations

import json

from openalice.core.output import table

from ._dispatch import Context

__all__ = ["emit_bulk", "change_text", "show_text", "list_text", "board_text"]


def emit_bulk(ctx: Context, data: dict, human) -> None:
    """list and board print compact JSON: a thousand issues pretty-printed
    cost more than reading them (json's C encoder does not indent)."""
    if not ctx.json:
        ctx.emit(data, human)
        return
    ctx.stdout.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")


def _when_text(when: dict | None) -> str:
    if not when:
        return "-"
    kind = when["kind"]
    if kind == "cron":
        text = f"cron `{when['cron']}` {when['timezone']}"
        return text if when.get("catchUp", True) else text + " (no catch-up)"
    return f"{kind} {when[kind]}"


def _schedule_text(issue: dict) -> str:
    if not issue["scheduled"]:
        return "-"
    text = _when_text(issue["when"])
    schedule = issue["schedule"]
    if schedule["problem"]:
        return f"{text}  [never fires]"
    if schedule["nextFireAt"] and (schedule["note"] or "").startswith("due now"):
        return f"{text}  due now (the next scan starts it)"
    if schedule["nextFireAt"]:
        return f"{text}  next {schedule['nextFireAt']}"
    return text


def change_text(data: dict, ws) -> str:
    issue = data["issue"]
    lines = [f"{data['action']}: {ws.id}/{issue['id']}  {issue['path']}"]
    if issue["scheduled"]:
        lines.append(f"  schedule: {_schedule_text(issue)}  assignee {issue['assignee']}")
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
        if d["schedule"]["problem"]:
            lines.append(f"  problem:   {d['schedule']['problem']}")
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
        lines += ["", f"Comments ({len(d['comments'])}):"]
        for c in d["comments"]:
            lines.append(f"  - {c['at']} {c['author']} [{c['id']}]")
            lines += ["      " + line for line in c["markdown"].split("\n")]
    return "\n".join(lines)


def list_text(d: dict, *, many: bool) -> str:
    out = []
    for ws in d["workspaces"]:
        if ws["state"] in ("invalid", "unreadable"):
            out.append(f"workspace {ws['id']}: {ws['state']}: {ws.get('error', '')}")
    if d["issues"]:
        rows = []
        for i in d["issues"]:
            row = [i["id"], i["status"], i["priority"], i["assignee"], _schedule_text(i),
                   _one_line(i["title"])]
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
        out.append(f"{column['status'].upper()} ({len(column['issues'])})")
        for i in column["issues"]:
            sched = _schedule_text(i)
            out.append(f"  [{i['priority']:<6}] {i['workspaceId']}/{i['id']}  "
                       f"{_one_line(i['title'])}  {i['assignee']}"
                       + (f"  {sched}" if sched != "-" else ""))
    if d["invalid"]:
        out.append("")
        out.append(f"INVALID FILES ({len(d['invalid'])})")
        out.extend(_invalid_lines(d["invalid"], True))
    return "\n".join(out)


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
