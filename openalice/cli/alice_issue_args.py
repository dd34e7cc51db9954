"""``alice issue``'s arguments made into what the issues package takes:
the target workspaces, the field changes, the author of a comment."""

from __future__ import annotations

from openalice import workspaces
from openalice.core.errors import UsageError

from ._dispatch import Context

__all__ = ["targets", "fields", "author", "body"]


def targets(args) -> list:
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


def fields(args, ctx: Context) -> dict:
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
    run = workspaces.run_environment()
    if run is None or not run.resume_id:
        raise UsageError("`@me` means the session of the current headless run; outside a run "
                         "(no ALICE_RUN_ID / ALICE_RESUME_ID) name the assignee", field="assignee",
                         code="usage")
    return f"@{run.resume_id}"


def author(ws) -> str:
    run = workspaces.run_environment()
    if run is None:
        return "human"
    if run.resume_id:
        return f"@{run.resume_id}"
    return f"ws:{ws.label}"


def body(args) -> str | None:
    """The issue or comment text of ``--body``/``--body-file``/stdin, within an issue file's size."""
    # lazy: a verb's domain modules load only when that verb runs
    from openalice.issues.declaration import MAX_BYTES

    from ._body import read_body

    return read_body(args, max_bytes=MAX_BYTES)
