"""``alice-schedule run-now|retry-now|runs|run|log``."""

from __future__ import annotations

from ._args import type_error
from ._dispatch import Context, add_verb, int_in_range

_ISSUE_HELP = "ISSUE (in the current or --workspace workspace) or WORKSPACE/ISSUE"


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise type_error(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 86400 * 7:
        raise type_error("must be 0-604800 seconds")
    return value


def register(sub, common) -> None:
    for name, handler, help_text, example in (
        ("run-now", cmd_run_now, "start an extra run of a scheduled issue now (cursor untouched)",
         "  alice-schedule run-now daily-report\n  alice-schedule run-now notes/daily-report --json"),
        ("retry-now", cmd_retry_now,
         "retry a scheduled issue whose latest run failed or was interrupted",
         "  alice-schedule retry-now daily-report\n  alice-schedule retry-now notes/daily-report --json"),
    ):
        p = add_verb(sub, name, handler, common=common, help=help_text,
                     description=help_text + ". The live issue is re-read; a live run of the same "
                                 "issue is refused (exit 3).", examples=example)
        p.add_argument("issue", metavar="ISSUE", help=_ISSUE_HELP)
        p.add_argument("--workspace", metavar="PATH|ID", help="the issue's workspace")

    p = add_verb(sub, "runs", cmd_runs, common=common, help="list runs, newest first",
                 examples="  alice-schedule runs\n"
                          "  alice-schedule runs --issue notes/daily-report --status failed\n"
                          "  alice-schedule runs --workspace notes --limit 5 --json")
    p.add_argument("--issue", metavar="ISSUE", help=_ISSUE_HELP)
    p.add_argument("--workspace", metavar="PATH|ID", help="only runs of this workspace")
    p.add_argument("--status", metavar="STATUS", help="only runs in this status")
    p.add_argument("--limit", type=int_in_range(1, 10000), default=20, help="page size (default 20)")
    p.add_argument("--before", metavar="TASK_ID", help="the page after this run (from nextBefore)")

    p = add_verb(sub, "run", cmd_run, common=common,
                 help="show one run: its record and structured output",
                 examples="  alice-schedule run run-AbC123_x\n"
                          "  alice-schedule run run-AbC123_x --wait --timeout 600 --json")
    p.add_argument("task_id", metavar="TASK_ID")
    p.add_argument("--wait", action="store_true", help="wait until the run has ended")
    p.add_argument("--timeout", type=_seconds, metavar="S",
                   help="with --wait: give up after S seconds (exit 3)")

    p = add_verb(sub, "log", cmd_log, common=common,
                 help="print one run's stdout or stderr log (its last 4 MiB, redacted)",
                 examples="  alice-schedule log run-AbC123_x\n"
                          "  alice-schedule log run-AbC123_x --stream stdout --json")
    p.add_argument("task_id", metavar="TASK_ID")
    p.add_argument("--stream", choices=("stderr", "stdout"), default="stderr",
                   help="which log (default stderr)")


def _fire(args, ctx: Context, fire: str) -> int:
    from openalice.schedule.address import resolve_issue  # lazy: verb handler
    from openalice.schedule.manual import fire_now  # lazy: verb handler

    ws, issue_id = resolve_issue(args.issue, workspace=args.workspace)
    result = dict(fire_now(ws, issue_id, fire=fire, now=ctx.now()))
    if "error" in result:  # a top-level "error" means the command failed (docs/conventions.md)
        result["launchError"] = result.pop("error")

    def human(data: dict) -> str:
        task = data["task"]
        what = "retry" if fire == "retry" else "run"
        line = f"started {what} {task['taskId']} of {task['workspaceId']}/{task['issueId']}"
        if task.get("retryOfTaskId"):
            line += f" (retry of {task['retryOfTaskId']})"
        if not data.get("launched"):
            line += " (not launched" + (f": {data['launchError']}" if data.get("launchError") else "") + ")"
        return line + f"\nfollow it with: alice-schedule run {task['taskId']} --wait"

    ctx.emit(result, human)
    return 0


def cmd_run_now(args, ctx: Context) -> int:
    return _fire(args, ctx, "run-now")


def cmd_retry_now(args, ctx: Context) -> int:
    return _fire(args, ctx, "retry")


def summary(record: dict) -> dict:
    """A record for listings: everything but the prompt, plus its failure."""
    from openalice.schedule.health import classify_failure  # lazy: verb handler

    out = {k: v for k, v in record.items() if k != "prompt"}
    prompt = record.get("prompt")
    if isinstance(prompt, str):
        out["promptChars"] = len(prompt)
    failure = classify_failure(record)
    if failure:
        out["failure"] = failure
        if failure.get("reason") and "reason" not in out:  # a record from before reasons: derived
            out["reason"] = failure["reason"]
            if failure.get("detail"):
                out["detail"] = failure["detail"]
    return out


def why_lines(failure: dict | None, task_id: str, *, indent: str = "  ", stderr: bool = True) -> list[str]:
    """A failed run in words: why, the next step, the end of its stderr, its logs."""
    if not failure:
        return []
    from openalice.runs import results  # lazy: verb handler

    lines = [f"{indent}why: {failure['message']}"]
    if failure.get("next"):
        lines.append(f"{indent}next: {failure['next']}")
    if stderr:
        tail = results.stderr_lines(task_id)
        if tail:
            lines.append(f"{indent}stderr (last lines):")
            lines.extend(f"{indent}  {line}" for line in tail)
    logs = results.log_paths(task_id)
    lines.append(f"{indent}logs: {logs['stdout']}, {logs['stderr']}")
    return lines


def cmd_runs(args, ctx: Context) -> int:
    from openalice.core.errors import UsageError  # lazy: verb handler
    from openalice.core.output import page_hint, table  # lazy: verb handler
    from openalice.runs import tasks  # lazy: verb handler

    if args.status is not None and args.status not in tasks.STATUSES:
        raise UsageError(f"--status must be one of {', '.join(tasks.STATUSES)}", field="status", code="usage")
    workspace_id = issue_id = None
    if args.issue:
        from openalice.schedule.address import resolve_issue  # lazy: verb handler

        try:
            ws, issue_id = resolve_issue(args.issue, workspace=args.workspace)
            workspace_id = ws.id
        except UsageError as exc:
            if exc.code != "no_workspace":
                raise
            issue_id = args.issue  # no workspace context: that id in any workspace
    elif args.workspace:
        from openalice import workspaces  # lazy: verb handler

        workspace_id = workspaces.get(args.workspace).id
    if args.before is not None and not tasks.is_task_id(args.before):
        raise UsageError(f"--before needs a task id, got {args.before!r}", code="usage")
    problems: list[dict] = []
    page = tasks.list_tasks(workspace_id=workspace_id, issue_id=issue_id, status=args.status,
                            limit=args.limit + 1, before=args.before, problems=problems)
    has_more = len(page) > args.limit
    page = page[:args.limit]
    data = {"runs": [summary(r) for r in page], "hasMore": has_more}
    if has_more:
        data["nextBefore"] = page[-1]["taskId"]
    if problems:
        data["problems"] = problems
        for problem in problems:
            ctx.warn(f"{problem['file']}: {problem['reason']} (run {problem['taskId']} not listed)")

    def human(d: dict) -> str:
        from openalice.core.colour import paint, state  # lazy: human text only (--json never colours)

        hint = page_hint(f"{ctx.prog} runs", d, "runs", before=args.before)
        if not d["runs"]:
            return hint
        rows = []
        for r in d["runs"]:
            trigger = r.get("trigger") or {}
            failure = r.get("failure") or {}
            rows.append([r["taskId"], state(r.get("status", "?")),
                         f"{r.get('workspaceId')}/{r.get('issueId') or '-'}",
                         trigger.get("fire", "-"), r.get("createdAt", "-"),
                         paint(failure.get("reason") or failure.get("kind", ""), "red")])
        text = table(rows, ["TASK", "STATUS", "ISSUE", "FIRE", "CREATED", "FAILURE"])
        text += "\n" + hint if hint else ""
        failed = next((r for r in d["runs"] if r.get("failure")), None)
        if failed is not None:  # the newest failure, in words (the others: `alice-schedule run ID`)
            text += f"\n\nlatest failure, {failed['taskId']}:\n" + "\n".join(
                why_lines(failed["failure"], failed["taskId"]))
        return text

    ctx.emit(data, human)
    return 0


def cmd_run(args, ctx: Context) -> int:
    from openalice.core.errors import UsageError  # lazy: verb handler
    from openalice.runs import results, tasks  # lazy: verb handler (tasks is on the runs read path)

    if args.timeout is not None and not args.wait:
        raise UsageError("--timeout needs --wait", code="usage")
    if args.wait:
        record = results.wait_until_ended(args.task_id, timeout=args.timeout)
    else:
        record = tasks.effective(tasks.load_task(args.task_id))
    structured, problem = results.read_structured(args.task_id)
    data = {"task": summary(record), "prompt": record.get("prompt"), "structured": structured,
            "logs": results.log_paths(args.task_id)}
    if data["task"].get("failure"):
        data["stderrTail"] = results.stderr_lines(args.task_id)
    if problem:
        data["structuredError"] = problem

    def human(d: dict) -> str:
        from openalice.core.colour import state  # lazy: human text only (--json never colours)

        t = d["task"]
        lines = [f"{t['taskId']}  {state(str(t.get('status')))}  "
                 f"{t.get('workspaceId')}/{t.get('issueId') or '-'}"]
        for key in ("createdAt", "startedAt", "finishedAt", "agent", "model", "resumeId", "exitCode",
                    "retryOfTaskId", "interruptionReason", "error", "reason"):
            if t.get(key) is not None:
                lines.append(f"  {key}: {t[key]}")
        if t.get("failure"):
            lines.append(f"  failure: {t['failure']['kind']}")
            lines.extend(why_lines(t["failure"], t["taskId"]))
        if d["structured"] and d["structured"].get("assistantText"):
            lines.append("")
            lines.append(d["structured"]["assistantText"])
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0


#: The most of a log ``log`` prints: the supervisor caps the logs, this bounds
#: the document (the gateway's download of a run's log is this verb).
LOG_LIMIT = 4 * 1024 * 1024


def cmd_log(args, ctx: Context) -> int:
    import os  # lazy: verb handler

    from openalice.core import redact  # lazy: verb handler
    from openalice.runs import results, tasks  # lazy: verb handler

    tasks.load_task(args.task_id)  # the id checked, the run known (exit 2 otherwise)
    name = results.STDOUT_LOG if args.stream == "stdout" else results.STDERR_LOG
    path = tasks.task_dir(args.task_id) / name
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    text = results.read_tail(path, LOG_LIMIT)
    data = {"taskId": args.task_id, "stream": args.stream, "bytes": size,
            "truncated": size > LOG_LIMIT, "content": redact.redact(text)}
    ctx.emit(data, lambda d: d["content"].rstrip("\n"))
    return 0
