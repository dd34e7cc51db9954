"""``alice issue create|list|show|update|comment|validate|board`` (the conversation
verbs ``comment``, ``thread``, ``ask``, ``redeliver``: :mod:`.alice_issue_talk`)."""

from __future__ import annotations

from openalice.core.output import printable  # titles and prompts may hold escape sequences

from . import alice_issue_args, alice_issue_talk, alice_issue_text
from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse

_FILE_HELP = "Issues are Markdown files at <workspace>/.alice/issues/<id>.md (see docs/issues.md)."


def register(sub, common) -> None:
    group = sub.add_parser(
        "issue", help="create, list, show, update and validate issues; talk with their sessions",
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

    p = add_verb(verbs, "comment", alice_issue_talk.cmd_comment, common=common,
                 help="add a comment to an issue (the <id>.comments.json sidecar)",
                 description="Add a comment. On an issue owned by a session (@resume-...) a "
                             "person's comment is delivered to that session as a turn (by the "
                             "next scan, or now with --wait) and its reply lands as a comment; "
                             "see docs/conversations.md. Inside a run the comment is the "
                             "session's own and is never delivered.",
                 examples="  alice issue comment daily-report --body 'Numbers look off on Monday'\n"
                          "  alice issue comment daily-report --body 'Why?' --wait --timeout 300\n"
                          "  echo 'Done.' | alice issue comment daily-report --body-file -\n"
                          "  alice issue comment ping --body 'ack' --id comment-ping-1   # idempotent")
    p.add_argument("id", metavar="ID")
    body = p.add_mutually_exclusive_group(required=True)
    body.add_argument("--body", help="the comment (Markdown)")
    body.add_argument("--body-file", metavar="PATH|-", help="read the comment from a file or stdin")
    p.add_argument("--id", dest="comment_id", metavar="COMMENT_ID",
                   help="a fixed comment id: repeating the same comment is then a no-op")
    p.add_argument("--reply-to", metavar="COMMENT_ID", help="the comment this one answers")
    alice_issue_talk.comment_flags(p)
    _workspace_flag(p)
    p.add_argument("--approve", action="store_true",
                   help="approve writing another workspace's issue from inside a workspace "
                        "(attended terminal only)")
    _now_flag(p)
    alice_issue_talk.register(verbs, common, _workspace_flag, _now_flag)

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
    from openalice import workspaces  # lazy: verb handler
    from openalice.issues import store, views  # lazy: verb handler

    ws = workspaces.resolve(args.workspace)
    fields = alice_issue_args.fields(args, ctx)
    body = _read_body(args) or ""
    access = workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues",
                                        approve=args.approve,
                                        change=alice_issue_text.change_summary("create", args.issue_id, fields,
                                                                               body))
    now = ctx.now()
    issue = store.create(ws, fields, body, issue_id=args.issue_id, now=now)
    commit = access.commit(ws, [issue.path], f"issue({issue.id}): create via alice (approved)")
    data = {"issue": views.issue_json(issue, now, workspace_id=ws.id), "action": "created",
            "commit": commit, "warnings": _runtime_warnings(ctx, ws, issue)}
    ctx.emit(data, lambda d: printable(alice_issue_text.change_text(d, ws)))
    return 0


def cmd_update(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces  # lazy: verb handler
    from openalice.core.errors import UsageError  # lazy: verb handler
    from openalice.issues import store, views  # lazy: verb handler

    ws = workspaces.resolve(args.workspace)
    fields = alice_issue_args.fields(args, ctx)
    body = _read_body(args)
    if not fields and body is None and not args.unset:
        raise UsageError("nothing to change: give a field flag, --body or --unset FIELD",
                         code="usage", details={"hint": "see 'alice issue update --help'"})
    access = workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues",
                                        approve=args.approve,
                                        change=alice_issue_text.change_summary("update", args.id, fields, body,
                                                                               unset=args.unset))
    now = ctx.now()
    issue, changed = store.update(ws, args.id, fields, unset=args.unset, body=body, now=now)
    commit = None
    if changed:
        commit = access.commit(ws, [issue.path], f"issue({issue.id}): update via alice (approved)")
    data = {"issue": views.issue_json(issue, now, workspace_id=ws.id),
            "action": "updated" if changed else "unchanged", "commit": commit,
            "warnings": _runtime_warnings(ctx, ws, issue)}
    ctx.emit(data, lambda d: printable(alice_issue_text.change_text(d, ws)))
    return 0


def _runtime_warnings(ctx: Context, ws, issue) -> list[dict]:
    """What the scan would refuse on this machine (the file is valid and
    written); told on stderr, and listed in the JSON document."""
    from openalice.issues.runnable import runtime_findings, warning_text  # lazy: verb handler

    warnings = runtime_findings(ws, issue)[1]
    if not ctx.json:
        for warning in warnings:
            ctx.warn(printable(warning_text(issue.path, warning)))
            if warning.get("hint"):
                ctx.info(printable(f"{ctx.prog}: hint: {warning['hint']}"))
    return warnings


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces  # lazy: verb handler
    from openalice.issues import comments, load_issue, views  # lazy: verb handler

    ws = workspaces.resolve(args.workspace)
    issue = load_issue(ws, args.id)
    now = ctx.now()
    data = views.issue_json(issue, now, workspace_id=ws.id)
    data["body"] = issue.body
    data["comments"] = comments.list_comments(ws, issue.id)
    data["deliveries"] = _delivery_counts(data["comments"])
    _mark_blocked([data], {ws.id: ws})
    ctx.emit(data, lambda d: printable(alice_issue_text.show_text(d)))
    return 0


def _delivery_counts(listed: list) -> dict:
    states = [c["delivery"].get("state") for c in listed if isinstance(c.get("delivery"), dict)]
    return {"unanswered": states.count("pending"), "failed": states.count("failed")}


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.issues import board  # lazy: verb handler
    from openalice.issues.declaration import STATUSES  # lazy: verb handler

    if args.status is not None and args.status not in STATUSES:
        from openalice.core.errors import UsageError  # lazy: verb handler
        raise UsageError(f"--status must be one of {', '.join(STATUSES)}", field="status",
                         code="usage")
    targets = alice_issue_args.targets(args)
    if ctx.json:  # compact JSON from the issue index's texts, never decoded
        ctx.stdout.write(board.listing_json(targets, ctx.now(), status=args.status,
                                            mark=_blocked_marker(targets)) + "\n")
        return 0
    data = board.listing(targets, ctx.now(), status=args.status)
    _mark_blocked(data["issues"], {ws.id: ws for ws in targets})
    alice_issue_text.emit_bulk(ctx, data, lambda d: printable(alice_issue_text.list_text(d, many=args.all)))
    return 0


def cmd_validate(args: argparse.Namespace, ctx: Context) -> int:
    from openalice.issues import board  # lazy: verb handler

    report = board.validate(alice_issue_args.targets(args), ctx.now())
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
    from openalice import workspaces  # lazy: verb handler
    from openalice.issues import board  # lazy: verb handler

    registered = workspaces.list_workspaces()
    if ctx.json:  # compact JSON from the issue index's texts, never decoded
        ctx.stdout.write(board.board_json(registered, ctx.now(), mark=_blocked_marker(registered)) + "\n")
        return 0
    data = board.board(registered, ctx.now())
    _mark_blocked([i for column in data["columns"] for i in column["issues"]],
                  {ws.id: ws for ws in registered})
    alice_issue_text.emit_bulk(ctx, data, lambda d: printable(alice_issue_text.board_text(d)))
    return 0


# --------------------------------------------------------------------------
# Helpers

def _blocked_marker(targets: list):
    """For the JSON paths that never decode an issue's text: only the texts of
    due issues are decoded, marked (:func:`_mark_blocked`) and re-encoded."""
    by_id = {ws.id: ws for ws in targets}

    def mark(text: str) -> str:
        if '"note":"due now' not in text:
            return text
        import json  # lazy: only a due issue is decoded

        from openalice.core.output import to_json

        issue = json.loads(text)
        _mark_blocked([issue], by_id)
        return to_json(issue, compact=True) if "blocked" in issue["schedule"] else text
    return mark


def _mark_blocked(issues: list, by_id: dict) -> None:
    """``schedule.blocked``: a due issue the next scan will refuse, with the
    scan's reason, so no view promises a run that will not start."""
    due = [i for i in issues if (i["schedule"]["note"] or "").startswith("due now")]
    if not due:
        return                  # nothing due: the readiness rule is not even imported
    from openalice.issues.runnable import due_blocker  # lazy: only when an issue is due

    for issue in due:
        ws = by_id.get(issue["workspaceId"])
        warning = due_blocker(ws, issue) if ws is not None else None
        if warning is not None:
            issue["schedule"]["blocked"] = warning

def _read_body(args) -> str | None:
    return alice_issue_args.body(args)


# --------------------------------------------------------------------------
# Human output
