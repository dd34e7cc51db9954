"""``alice issue create|list|show|update|comment|validate|board``."""

from __future__ import annotations


from openalice.core.output import printable  # titles and prompts may hold escape sequences

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse

_FILE_HELP = "Issues are Markdown files at <workspace>/.alice/issues/<id>.md (see docs/issues.md)."


def register(sub, common) -> None:
    group = sub.add_parser(
        "issue", help="create, list, show, update, comment on and validate issues",
        description="Markdown issues: one file per issue at <workspace>/.alice/issues/<id>.md. "
                    "An issue with a schedule (when) runs headless in its workspace; its body is "
                    "the exact prompt. Inside a headless run only the run's own workspace can be "
                    "written; a person inside workspace A needs --approve (at a terminal) to write "
                    "workspace B; from outside every workspace, --workspace names the target.",
        epilog="examples:\n  alice issue create --title 'Daily report' --cron '0 9 * * 1-5' "
               "--timezone Europe/Paris\n  alice issue list --all\n  alice issue validate --all\n")
    verbs = group.add_subparsers(dest="issue_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "create", cmd_create, common=common,
                 help="create an issue file (refused if anything is invalid)",
                 description="Create <workspace>/.alice/issues/<id>.md. The id is --id or a slug "
                             "of the title; an existing id is an error. " + _FILE_HELP,
                 examples="  alice issue create --title 'Fix the login bug' --priority high\n"
                          "  alice issue create --title 'Daily report' --cron '0 9 * * 1-5' "
                          "--timezone Europe/Paris --body-file prompt.md\n"
                          "  alice issue create --title Ping --id ping --every 30m --body 'Say hi'\n"
                          "  alice issue create --title 'One shot' --at 2026-12-01T09:00:00Z "
                          "--assignee @new-each-run")
    p.add_argument("--title", required=True, help="the issue title (required)")
    p.add_argument("--id", dest="issue_id", metavar="ID",
                   help="the issue id (default: a slug of the title)")
    _field_flags(p, create=True)

    p = add_verb(verbs, "list", cmd_list, common=common,
                 help="list issues (invalid files are listed with their errors)",
                 examples="  alice issue list\n  alice issue list --all --status todo\n"
                          "  alice issue list --workspace notes --json")
    p.add_argument("--all", action="store_true", help="every registered workspace")
    p.add_argument("--status", help="only issues with this status")
    _workspace_flag(p)
    _now_flag(p)

    p = add_verb(verbs, "show", cmd_show, common=common,
                 help="show one issue, its prompt and its comments",
                 examples="  alice issue show daily-report\n"
                          "  alice issue show daily-report --workspace notes --json")
    p.add_argument("id", metavar="ID")
    _workspace_flag(p)
    _now_flag(p)

    p = add_verb(verbs, "update", cmd_update, common=common,
                 help="change fields of an issue (other keys and comments in the file are kept)",
                 description="Merge the given fields into the issue's frontmatter; keys you do "
                             "not name keep their text, order and comments. --unset FIELD removes "
                             "a key. The result is validated before anything is written. "
                             + _FILE_HELP,
                 examples="  alice issue update daily-report --status in_progress\n"
                          "  alice issue update daily-report --timezone America/New_York\n"
                          "  alice issue update daily-report --unset model --unset effort\n"
                          "  alice issue update ping --assignee @me      # inside a run")
    p.add_argument("id", metavar="ID")
    p.add_argument("--title", help="a new title")
    _field_flags(p, create=False)
    p.add_argument("--unset", action="append", default=[], metavar="FIELD",
                   help="remove this key (repeatable), e.g. --unset when --unset model")

    p = add_verb(verbs, "comment", cmd_comment, common=common,
                 help="add a comment to an issue (the <id>.comments.json sidecar)",
                 examples="  alice issue comment daily-report --body 'Numbers look off on Monday'\n"
                          "  echo 'Done.' | alice issue comment daily-report --body-file -\n"
                          "  alice issue comment ping --body 'ack' --id comment-ping-1   # idempotent")
    p.add_argument("id", metavar="ID")
    body = p.add_mutually_exclusive_group(required=True)
    body.add_argument("--body", help="the comment (Markdown)")
    body.add_argument("--body-file", metavar="PATH|-", help="read the comment from a file or stdin")
    p.add_argument("--id", dest="comment_id", metavar="COMMENT_ID",
                   help="a fixed comment id: repeating the same comment is then a no-op")
    p.add_argument("--reply-to", metavar="COMMENT_ID", help="the comment this one answers")
    _workspace_flag(p)
    p.add_argument("--approve", action="store_true",
                   help="approve writing another workspace's issue from inside a workspace "
                        "(attended terminal only)")
    _now_flag(p)

    p = add_verb(verbs, "validate", cmd_validate, common=common,
                 help="check issue files; exit 2 and print path:field: reason lines if any is bad",
                 description="Check every issue file (and comment sidecar) of the workspace, or "
                             "of all workspaces with --all, including schedules that can never "
                             "fire (a bad cron or duration, an `at` in the past) and @resume-... "
                             "owners that are not session ids. Exit 2 when anything is wrong, so "
                             "it can be a CI step. What the scan would skip on this machine (no "
                             "such session, an unknown or uninstalled agent, a credential missing "
                             "from the vault) is a warning on stderr: exit 0.",
                 examples="  alice issue validate\n  alice issue validate --all\n"
                          "  alice issue validate --workspace . --json")
    p.add_argument("--all", action="store_true", help="every registered workspace")
    _workspace_flag(p)
    _now_flag(p)

    p = add_verb(verbs, "board", cmd_board, common=common,
                 help="the issue board of all workspaces, by status and priority",
                 examples="  alice issue board\n  alice issue board --json")
    _now_flag(p)


def _workspace_flag(p) -> None:
    p.add_argument("--workspace", metavar="PATH|ID",
                   help="the workspace (default: the run's, else the one containing the cwd)")


def _now_flag(p) -> None:
    p.add_argument("--now", dest="now", metavar="ISO",
                   help="evaluate schedules at this instant (default: now, or ALICE_NOW)")


def _field_flags(p, *, create: bool) -> None:
    when = p.add_mutually_exclusive_group()
    when.add_argument("--every", metavar="D", help="run every D (e.g. 30m, 2h15m30s)")
    when.add_argument("--cron", metavar="EXPR",
                      help="run on a 5-field cron schedule (with --timezone)")
    when.add_argument("--at", metavar="ISO", help="run once at this instant (with an offset)")
    p.add_argument("--timezone", metavar="TZ", help="cron timezone: local or an IANA name")
    catch = p.add_mutually_exclusive_group()
    catch.add_argument("--no-catch-up", dest="catch_up", action="store_false", default=None,
                       help="cron: skip slots missed while nothing ran")
    if not create:
        catch.add_argument("--catch-up", dest="catch_up", action="store_true", default=None,
                           help="cron: run once for missed slots (the default)")
    p.add_argument("--assignee", metavar="A",
                   help="@new-then-resume, @new-each-run, @human, @unassigned, @resume-<id>, "
                        "or @me inside a run")
    p.add_argument("--status", metavar="S", help="backlog, todo, in_progress, done, canceled")
    p.add_argument("--priority", metavar="P", help="urgent, high, medium, low, none")
    p.add_argument("--agent", metavar="A", help="the agent for new sessions (claude, codex, ...)")
    cred = p.add_mutually_exclusive_group()
    cred.add_argument("--credential", metavar="SLUG", help="a vault credential slug")
    cred.add_argument("--native-credential", action="store_true",
                      help="use the agent's own login (credentialSource: native)")
    p.add_argument("--model", metavar="M", help="the model for new sessions")
    p.add_argument("--effort", metavar="E", help="none, minimal, low, medium, high, xhigh, max")
    p.add_argument("--timeout", metavar="D", help="run time limit: 15m, 30m, 45m or 60m")
    p.add_argument("--comment-prompt", metavar="TEXT",
                   help="prompt for replying to comments; must contain {comment}")
    body = p.add_mutually_exclusive_group()
    body.add_argument("--body", help="the issue body: the exact prompt of a scheduled run")
    body.add_argument("--body-file", metavar="PATH|-", help="read the body from a file or stdin")
    _workspace_flag(p)
    p.add_argument("--approve", action="store_true",
                   help="approve writing another workspace's issue (attended terminal only; "
                        "committed there if it is a git repository)")
    _now_flag(p)


# --------------------------------------------------------------------------
# Handlers

def cmd_create(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces
    from openalice.issues import store, views

    ws = workspaces.resolve(args.workspace)
    access = workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues",
                                        approve=args.approve)
    fields = _fields(args, ctx)
    body = _read_body(args) or ""
    now = ctx.now()
    issue = store.create(ws, fields, body, issue_id=args.issue_id, now=now)
    commit = access.commit(ws, [issue.path], f"issue({issue.id}): create via alice (approved)")
    data = {"issue": views.issue_json(issue, now, workspace_id=ws.id), "action": "created",
            "commit": commit, "warnings": _runtime_warnings(ctx, ws, issue)}
    ctx.emit(data, lambda d: printable(_change_text(d, ws)))
    return 0


def cmd_update(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces
    from openalice.core.errors import UsageError
    from openalice.issues import store, views

    ws = workspaces.resolve(args.workspace)
    access = workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues",
                                        approve=args.approve)
    fields = _fields(args, ctx)
    body = _read_body(args)
    if not fields and body is None and not args.unset:
        raise UsageError("nothing to change: give a field flag, --body or --unset FIELD",
                         code="usage", details={"hint": "see 'alice issue update --help'"})
    now = ctx.now()
    issue, changed = store.update(ws, args.id, fields, unset=args.unset, body=body, now=now)
    commit = None
    if changed:
        commit = access.commit(ws, [issue.path], f"issue({issue.id}): update via alice (approved)")
    data = {"issue": views.issue_json(issue, now, workspace_id=ws.id),
            "action": "updated" if changed else "unchanged", "commit": commit,
            "warnings": _runtime_warnings(ctx, ws, issue)}
    ctx.emit(data, lambda d: printable(_change_text(d, ws)))
    return 0


def _runtime_warnings(ctx: Context, ws, issue) -> list[dict]:
    """What the scan would refuse on this machine (the file is valid and
    written); told on stderr, and listed in the JSON document."""
    from openalice.issues.runnable import runtime_findings, warning_text

    warnings = runtime_findings(ws, issue)[1]
    if not ctx.json:
        for warning in warnings:
            ctx.warn(printable(warning_text(issue.path, warning)))
            if warning.get("hint"):
                ctx.info(printable(f"{ctx.prog}: hint: {warning['hint']}"))
    return warnings


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces
    from openalice.issues import comments, load_issue, views

    ws = workspaces.resolve(args.workspace)
    issue = load_issue(ws, args.id)
    now = ctx.now()
    data = views.issue_json(issue, now, workspace_id=ws.id)
    data["body"] = issue.body
    data["comments"] = comments.list_comments(ws, issue.id)
    ctx.emit(data, lambda d: printable(_show_text(d)))
    return 0


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.issues import board
    from openalice.issues.declaration import STATUSES

    if args.status is not None and args.status not in STATUSES:
        from openalice.core.errors import UsageError
        raise UsageError(f"--status must be one of {', '.join(STATUSES)}", field="status",
                         code="usage")
    targets = _targets(args)
    data = board.listing(targets, ctx.now(), status=args.status)
    _emit_bulk(ctx, data, lambda d: printable(_list_text(d, many=args.all)))
    return 0


def cmd_validate(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.issues import board

    report = board.validate(_targets(args), ctx.now())
    if ctx.json:
        ctx.emit(report.to_dict())
    else:
        for problem in report.problems:
            ctx.stdout.write(printable(str(problem)) + "\n")
        for warning in report.warnings:
            ctx.warn(printable(str(warning)))
        files = f"{report.files} issue file{'s' if report.files != 1 else ''}"
        spaces = f"{report.workspaces} workspace{'s' if report.workspaces != 1 else ''}"
        count = len(report.warnings)
        warned = f"; {count} warning{'s' if count != 1 else ''}" if count else ""
        if report.ok:
            ctx.info(f"ok: {files} valid in {spaces}{warned}")
        else:
            count = len(report.problems)
            ctx.info(f"{count} problem{'s' if count != 1 else ''} ({files} checked in {spaces})"
                     f"{warned}")
    if not report.ok:
        ctx.failing("invalid_issues", f"{len(report.problems)} problem(s) in {report.files} issue "
                                      f"file(s) of {report.workspaces} workspace(s)")
    return 0 if report.ok else 2


def cmd_board(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces
    from openalice.issues import board

    data = board.board(workspaces.list_workspaces(), ctx.now())
    _emit_bulk(ctx, data, lambda d: printable(_board_text(d)))
    return 0


def cmd_comment(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces
    from openalice.issues import comments

    ws = workspaces.resolve(args.workspace)
    access = workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues",
                                        approve=args.approve)
    markdown = _read_body(args)
    comment, created = comments.add_comment(ws, args.id, markdown, author=_author(ws),
                                            now=ctx.now(), comment_id=args.comment_id,
                                            reply_to=args.reply_to)
    commit = None
    if created:
        path = comments.comments_path(ws, args.id)
        commit = access.commit(ws, [path], f"issue({args.id}): comment via alice (approved)")
    data = {"workspaceId": ws.id, "issueId": args.id, "comment": comment, "created": created,
            "commit": commit}
    ctx.emit(data, lambda d: (f"{'added' if created else 'already there'}: comment "
                              f"{comment['id']} on {ws.id}/{args.id}"
                              + (f" (committed {commit[:12]})" if commit else "")))
    return 0


# --------------------------------------------------------------------------
# Helpers

def _emit_bulk(ctx: Context, data: dict, human) -> None:
    """list and board print compact JSON: a thousand issues pretty-printed
    cost more than reading them (json's C encoder does not indent)."""
    if not ctx.json:
        ctx.emit(data, human)
        return
    import json
    ctx.stdout.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")


def _targets(args) -> list:
    from openalice import workspaces
    from openalice.core.errors import UsageError

    if args.all:
        if args.workspace:
            raise UsageError("--all and --workspace exclude each other", code="usage")
        return workspaces.list_workspaces()
    try:
        return [workspaces.resolve(args.workspace)]
    except UsageError as exc:
        if exc.code == "no_workspace":
            raise UsageError("not inside a registered workspace; pass --workspace PATH|ID or "
                             "--all", code="no_workspace") from None
        raise


def _fields(args, ctx: Context) -> dict:
    fields: dict = {}
    if args.title is not None:
        fields["title"] = args.title
    when: dict = {}
    if args.every is not None:
        when = {"kind": "every", "every": args.every}
    elif args.cron is not None:
        when = {"kind": "cron", "cron": args.cron}
    elif args.at is not None:
        when = {"kind": "at", "at": args.at}
    if args.timezone is not None:
        when["timezone"] = args.timezone
    if args.catch_up is not None:
        when["catchUp"] = args.catch_up
    if when:
        fields["when"] = when
    if args.assignee is not None:
        fields["assignee"] = _assignee(args.assignee)
    for flag, key in (("status", "status"), ("priority", "priority"), ("agent", "agent"),
                      ("credential", "credential"), ("model", "model"), ("effort", "effort"),
                      ("timeout", "timeout"), ("comment_prompt", "commentPrompt")):
        value = getattr(args, flag)
        if value is not None:
            fields[key] = value
    if args.native_credential:
        fields["credentialSource"] = "native"
    return fields


def _assignee(value: str) -> str:
    if value.strip().lower() not in ("@me", "me"):
        return value
    from openalice import workspaces
    from openalice.core.errors import UsageError

    run = workspaces.run_environment()
    if run is None or not run.resume_id:
        raise UsageError("`@me` means the session of the current headless run; outside a run "
                         "(no ALICE_RUN_ID / ALICE_RESUME_ID) name the assignee", field="assignee",
                         code="usage")
    return f"@{run.resume_id}"


def _author(ws) -> str:
    from openalice import workspaces

    run = workspaces.run_environment()
    if run is None:
        return "human"
    if run.resume_id:
        return f"@{run.resume_id}"
    return f"ws:{ws.label}"


def _read_body(args) -> str | None:
    from openalice.issues.declaration import MAX_BYTES

    from ._body import read_body

    return read_body(args, max_bytes=MAX_BYTES)


# --------------------------------------------------------------------------
# Human output

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


def _change_text(data: dict, ws) -> str:
    issue = data["issue"]
    lines = [f"{data['action']}: {ws.id}/{issue['id']}  {issue['path']}"]
    if issue["scheduled"]:
        lines.append(f"  schedule: {_schedule_text(issue)}  assignee {issue['assignee']}")
    if data.get("commit"):
        lines.append(f"  committed in {ws.path} as {data['commit'][:12]}")
    return "\n".join(lines)


def _show_text(d: dict) -> str:
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


def _list_text(d: dict, *, many: bool) -> str:
    from openalice.core.output import table

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


def _board_text(d: dict) -> str:
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
