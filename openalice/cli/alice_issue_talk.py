"""The conversation verbs: ``alice issue comment [--wait]|ask|thread|redeliver``
and ``alice inbox answer`` (docs/conversations.md)."""

from __future__ import annotations

from openalice.core.output import printable  # comments may hold escape sequences

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse

DEFAULT_WAIT_SECONDS = 600.0


def _timeout(text: str) -> float:
    from ._args import type_error  # lazy: only a --timeout value is parsed with it

    try:
        value = float(text)
    except ValueError:
        raise type_error(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 86400:
        raise type_error("must be more than 0 and at most 86400 seconds")
    return value


def register(verbs, common, workspace_flag, now_flag) -> None:
    """The verbs beside ``alice issue comment`` (registered by alice_issue)."""
    p = add_verb(verbs, "thread", cmd_thread, common=common,
                 help="show an issue's conversation: comments, replies, delivery states",
                 description="The comments of an issue, oldest first, with author, time, the "
                             "channel (via), the delivery state of each comment sent to the "
                             "issue's session, and the reply links. --follow keeps printing new "
                             "comments and delivery changes.",
                 examples="  alice issue thread daily-report\n"
                          "  alice issue thread daily-report --follow\n"
                          "  alice issue thread daily-report --json")
    p.add_argument("id", metavar="ID")
    p.add_argument("--follow", action="store_true", help="keep printing what changes (Ctrl-C ends)")
    p.add_argument("--timeout", type=_timeout, metavar="S",
                   help="with --follow: stop after S seconds")
    workspace_flag(p)

    p = add_verb(verbs, "ask", cmd_ask, common=common,
                 help="inside a run: ask a question on an issue (a comment and an Inbox entry)",
                 description="A session's question: a comment by the run's session, marked as a "
                             "question, and an Inbox entry marked as a question so the person "
                             "sees it among unread reports. The answer (alice inbox answer, or "
                             "alice issue comment --reply-to) is delivered back to this session.",
                 examples="  alice issue ask daily-report --body 'Which CSV should I use?'")
    p.add_argument("id", metavar="ID")
    body = p.add_mutually_exclusive_group(required=True)
    body.add_argument("--body", help="the question (Markdown)")
    body.add_argument("--body-file", metavar="PATH|-", help="read the question from a file or stdin")
    workspace_flag(p)
    now_flag(p)

    p = add_verb(verbs, "redeliver", cmd_redeliver, common=common,
                 help="retry a failed comment delivery (never done automatically)",
                 description="Put a failed delivery back to pending and start its turn now "
                             "when the session is free (else the next scan does).",
                 examples="  alice issue redeliver comment-0b1d...\n"
                          "  alice issue redeliver comment-0b1d... --issue daily-report --wait")
    p.add_argument("comment_id", metavar="COMMENT_ID")
    p.add_argument("--issue", metavar="ID", help="the issue holding the comment (default: searched)")
    _wait_flags(p)
    workspace_flag(p)
    now_flag(p)


def comment_flags(p) -> None:
    """``alice issue comment``'s own --wait/--timeout/--via."""
    _wait_flags(p)
    p.add_argument("--via", metavar="CHANNEL", help="the channel the comment came through "
                                                      "(telegram, web...)")


def _wait_flags(p) -> None:
    p.add_argument("--wait", action="store_true",
                   help="deliver now and wait for the reply (exit 0), the failure (exit 1) or "
                        "the timeout (exit 3; it stays pending)")
    p.add_argument("--timeout", type=_timeout, metavar="S",
                   help=f"with --wait: give up after S seconds (default {DEFAULT_WAIT_SECONDS:g})")


def register_answer(verbs, common) -> None:
    """``alice inbox answer``."""
    p = add_verb(verbs, "answer", cmd_answer, common=common,
                 help="answer a session's question (an entry posted by 'alice issue ask')",
                 description="Reply to the question an Inbox entry carries; the answer is a "
                             "comment on its issue, delivered to the session that asked.",
                 examples="  alice inbox answer inbox-1764493200000-0000000a --body 'Use March'\n"
                          "  alice inbox answer ENTRY --body 'Use March' --wait")
    p.add_argument("entry", metavar="ENTRY")
    body = p.add_mutually_exclusive_group(required=True)
    body.add_argument("--body", help="the answer (Markdown)")
    body.add_argument("--body-file", metavar="PATH|-", help="read the answer from a file or stdin")
    _wait_flags(p)


# --------------------------------------------------------------------------
# Handlers

def cmd_comment(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import (
        conversations,  # lazy: verb handler
        workspaces,  # lazy: verb handler
    )
    from openalice.issues import comments  # lazy: verb handler

    from . import alice_issue_args
    from .alice_issue_text import change_summary

    ws = workspaces.resolve(args.workspace)
    markdown = _read_body(args)
    access = workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues",
                                        approve=args.approve,
                                        change=change_summary("comment", args.id, {}, markdown))
    now = ctx.now()
    author = alice_issue_args.author(ws)
    conversations.check_target(ws, args.id, author=author, reply_to=args.reply_to)
    comment, created = comments.add_comment(ws, args.id, markdown, author=author,
                                            now=now, comment_id=args.comment_id,
                                            reply_to=args.reply_to, via=args.via)
    commit = None
    if created:
        path = comments.comments_path(ws, args.id)
        commit = access.commit(ws, [path], f"issue({args.id}): comment via alice (approved)")
    data = {"workspaceId": ws.id, "issueId": args.id, "comment": comment, "created": created,
            "commit": commit}
    return _delivered(args, ctx, ws, args.id, data, now)


def cmd_answer(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import conversations, workspaces  # lazy: verb handler

    from . import alice_issue_args

    question = conversations.question_of(args.entry)
    ws = workspaces.get(question["workspaceId"])
    workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues")
    markdown = _read_body(args)
    now = ctx.now()
    author = alice_issue_args.author(ws)
    conversations.check_target(ws, question["issueId"], author=author,
                               reply_to=question["commentId"])
    data = conversations.answer(ws, question, markdown, author=author, now=now)
    data = {**data, "commit": None}
    return _delivered(args, ctx, ws, data["issueId"], data, now)


def _delivered(args, ctx: Context, ws, issue_id: str, data: dict, now) -> int:
    """Print a new comment and, with --wait, its delivery's outcome."""
    comment = data["comment"]
    state = (comment.get("delivery") or {}).get("state")
    code = 0
    if args.wait and state == "pending":
        from openalice import conversations  # lazy: verb handler

        comment = conversations.wait_for_reply(ws, issue_id, comment["id"], now=now,
                                               timeout=args.timeout or DEFAULT_WAIT_SECONDS)
        data["comment"] = comment
        state = comment["delivery"]["state"]
        if state == "replied":
            from openalice.issues import comments, delivery  # lazy: verb handler

            data["reply"] = delivery.find(comments.read_sidecar(ws, issue_id),
                                          comment["delivery"]["replyCommentId"])
        else:
            ctx.failing("delivery_failed", comment["delivery"].get("error") or "the delivery failed")
            code = 1
    elif args.wait and state is None:
        ctx.warn("nothing to wait for: the comment is kept with no delivery")
    data["delivery"] = state or "none"
    ctx.emit(data, lambda d: printable(_comment_text(d, ws.id, issue_id)))
    return code


def _comment_text(d: dict, ws_id: str, issue_id: str) -> str:
    comment = d["comment"]
    lines = [f"{'added' if d.get('created', True) else 'already there'}: comment {comment['id']} "
             f"on {ws_id}/{issue_id}" + (f" (committed {d['commit'][:12]})" if d.get("commit") else "")]
    delivery = comment.get("delivery") or {}
    state = delivery.get("state")
    if state is None:
        lines.append("  kept with no delivery: the issue has no session owner "
                     "(@new-each-run, @human, @unassigned), or a session wrote it")
    elif state == "pending":
        lines.append(f"  delivery pending to @{delivery['targetResumeId']}: the next scan "
                     f"delivers it (or: alice issue thread {issue_id} --follow)")
    elif state == "replied":
        reply = d.get("reply") or {}
        lines.append(f"  replied by @{delivery['targetResumeId']} [{delivery['replyCommentId']}]:")
        lines += ["    " + line for line in str(reply.get("markdown", "")).split("\n")]
    else:
        lines.append(f"  delivery failed: {delivery.get('error')}")
        lines.append(f"  retry with: alice issue redeliver {comment['id']} --issue {issue_id}")
    return "\n".join(lines)


def cmd_ask(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import conversations, inbox, workspaces  # lazy: verb handler

    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues")
    run = workspaces.run_environment()
    origin = inbox.stamp_origin(ws, warn=ctx.warn) if run is not None else None
    data = conversations.ask(ws, args.id, _read_body(args), now=ctx.now(), origin=origin,
                             resume_id=run.resume_id if run is not None else None)
    ctx.emit(data, lambda d: printable(f"asked: comment {d['comment']['id']} on {d['workspaceId']}/"
                                       f"{d['issueId']}; inbox entry {d['entryId']}"))
    return 0


def cmd_redeliver(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import conversations, workspaces  # lazy: verb handler

    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws, scope="issues")
    now = ctx.now()
    out = conversations.redeliver(ws, args.comment_id, now=now, issue_id=args.issue)
    data = {"workspaceId": ws.id, "issueId": out["issueId"], "comment": out["comment"],
            "created": False, "commit": None}
    return _delivered(args, ctx, ws, out["issueId"], data, now)


def cmd_thread(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces  # lazy: verb handler
    from openalice.conversations import thread  # lazy: verb handler

    ws = workspaces.resolve(args.workspace)
    doc = thread(ws, args.id)
    if not args.follow:
        ctx.emit(doc, lambda d: printable(thread_text(d)))
        return 0
    return _follow(args, ctx, ws, doc)


def _follow(args, ctx: Context, ws, doc: dict) -> int:
    import json  # lazy: --follow prints JSON lines itself
    import time  # lazy: --follow only

    from openalice.conversations import thread  # lazy: verb handler

    seen: dict = {}
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    while True:
        for comment in doc["comments"]:
            key = json.dumps(comment.get("delivery"), sort_keys=True)
            if seen.get(comment["id"]) == key:
                continue
            seen[comment["id"]] = key
            if ctx.json:
                ctx.stdout.write(json.dumps(comment, ensure_ascii=False) + "\n")
            else:
                ctx.stdout.write(printable("\n".join(_comment_lines(comment))) + "\n")
        ctx.stdout.flush()
        if deadline is not None and time.monotonic() >= deadline:
            return 0
        time.sleep(0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic())))
        doc = thread(ws, args.id)


def thread_text(d: dict) -> str:
    counts = d["counts"]
    lines = [f"{d['title']}  ({d['workspaceId']}/{d['issueId']}, assignee {d['assignee']})",
             f"{counts['comments']} comment{'s' if counts['comments'] != 1 else ''}, "
             f"{counts['unanswered']} unanswered, {counts['failed']} failed"]
    if not d["comments"]:
        lines.append(f"no comments yet (alice issue comment {d['issueId']} --body ...)")
    for comment in d["comments"]:
        lines.append("")
        lines += _comment_lines(comment)
    return "\n".join(lines)


def _comment_lines(c: dict) -> list[str]:
    head = f"{c['at']}  {c['author']}" + (f" via {c['via']}" if c.get("via") else "")
    head += f"  [{c['id']}]"
    if c.get("replyTo"):
        head += f"  ↳ reply to {c['replyTo']}"
    if c.get("question"):
        head += "  (question)"
    lines = [head] + ["    " + line for line in c["markdown"].split("\n")]
    delivery = c.get("delivery")
    if isinstance(delivery, dict):
        state = delivery.get("state")
        if state == "replied":
            lines.append(f"    → replied by @{delivery.get('targetResumeId')} "
                         f"[{delivery.get('replyCommentId')}]")
        elif state == "failed":
            lines.append(f"    ✗ delivery failed: {delivery.get('error')} "
                         f"(alice issue redeliver {c['id']})")
        elif delivery.get("taskId"):
            lines.append(f"    … delivering to @{delivery.get('targetResumeId')} "
                         f"(turn {delivery['taskId']})")
        else:
            lines.append(f"    … pending for @{delivery.get('targetResumeId')}")
    return lines


def _read_body(args) -> str | None:
    from . import alice_issue_args  # lazy: (as the verbs' other helpers)

    return alice_issue_args.body(args)
