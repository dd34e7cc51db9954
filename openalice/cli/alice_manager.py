"""``alice manager open|list|show``: the Workspace Manager's attended sessions."""

from __future__ import annotations

from openalice.core.errors import UsageError
from openalice.core.output import table

from ._dispatch import Context, add_verb
from .alice_session import (
    BINDING_HEADERS,
    binding_cells,
    credential_args,
    launch,
    open_command,
    show_text,
    split_extra,
    with_state,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def register(sub, common) -> None:
    group = sub.add_parser(
        "manager", help="the Workspace Manager: attended sessions across every workspace",
        description="A Workspace Manager session belongs to no single workspace: it runs in "
                    "$OPENALICE_HOME/manager/ with guidance naming every registered workspace, and each "
                    "write it makes to a workspace's issues is shown to you on this terminal and happens "
                    "only when you approve it (then it is committed in that workspace's git repository).",
        epilog="examples:\n  alice manager open --new\n  alice manager list\n")
    verbs = group.add_subparsers(dest="manager_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "open", cmd_open, common=common,
                 help="start a manager session's CLI in this terminal (native login unless --credential)",
                 examples="  alice manager open --new                     # claude, native login\n"
                          "  alice manager open --new --agent codex --model gpt-5.5\n"
                          "  alice manager open resume-calm-amber-river-abcdef")
    p.add_argument("words", nargs="*", metavar="RESUME_ID [-- EXTRA_ARGS]",
                   help="a manager session (see 'alice manager list'); after --, arguments for the CLI")
    p.add_argument("--new", action="store_true", help="create a new manager session")
    p.add_argument("--agent", help="with --new: claude (default), codex, opencode or pi")
    credential_args(p)
    p.add_argument("--model", help="with --new: model id")
    p.add_argument("--effort", help="with --new: reasoning effort")

    add_verb(verbs, "list", cmd_list, common=common, help="list the manager's sessions",
             examples="  alice manager list --json")

    p = add_verb(verbs, "show", cmd_show, common=common, help="show one manager session and what open runs",
                 examples="  alice manager show resume-calm-amber-river-abcdef")
    p.add_argument("resume_id", metavar="ID")


def cmd_open(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import manager, workspaces  # lazy: per verb, so start-up and --help load no domain module
    from openalice.workspaces.access import MANAGER_ENV  # lazy: as above

    split_extra(args)
    if args.new and args.resume_id:
        raise UsageError("give RESUME_ID or --new, not both", field="resume_id", code="usage")
    if not args.new and not args.resume_id:
        raise UsageError("give RESUME_ID (see 'alice manager list') or --new", field="resume_id", code="usage")
    given = [f for f, v in (("--agent", args.agent), ("--credential", args.credential), ("--model", args.model),
                            ("--effort", args.effort), ("--native-credential", args.native_credential)) if v]
    if given and not args.new:
        raise UsageError(f"{given[0]} needs --new: an existing session's binding is frozen",
                         field=given[0].lstrip("-"), code="binding_frozen")
    workspaces.authorize_attended(workspaces.Caller.of_process(), "opening a Workspace Manager session")
    home = manager.manager_home()
    if args.new:
        binding = manager.new_binding(home, agent=args.agent, credential=args.credential, model=args.model,
                                      effort=args.effort, now=ctx.now())
        ctx.info(f"new manager session {binding.resume_id} ({binding.agent})")
        resume_id = binding.resume_id
    else:
        resume_id = args.resume_id
    workdir = manager.prepare(home)
    return launch(home, resume_id, ctx, extra=args.extra, surface="manager", cwd=workdir,
                  run_env={MANAGER_ENV: resume_id})


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import manager, sessions  # lazy: per verb, so start-up and --help load no domain module

    home = manager.manager_home()
    found, problems = sessions.list_sessions(home)
    data = {"sessions": [with_state(sessions, home, b) for b in found], "problems": problems,
            "directory": str(home.sessions_path)}

    def human(d: dict) -> str:
        lines = [table([binding_cells(b) for b in d["sessions"]], BINDING_HEADERS)] if d["sessions"] \
            else ["no manager sessions (start one: alice manager open --new)"]
        lines += [f"INVALID {p['file']}: {p['message']}" for p in d["problems"]]
        return "\n".join(lines)

    ctx.emit(data, human)
    if problems:
        ctx.failing("invalid_sessions", f"{len(problems)} manager session file(s) cannot be read")
    return 2 if problems else 0


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import manager, sessions  # lazy: per verb, so start-up and --help load no domain module
    from openalice.workspaces.access import MANAGER_ENV  # lazy: as above

    home = manager.manager_home()
    binding = sessions.load_session(home, args.resume_id)
    data = {"session": with_state(sessions, home, binding),
            "file": str(sessions.session_path(home, binding.resume_id))}
    if data["session"].get("nativeSessionId"):
        data["nativeSessionId"] = data["session"]["nativeSessionId"]
    data["open"] = open_command(home, binding.resume_id, surface="manager", cwd=home.workdir,
                                run_env={MANAGER_ENV: binding.resume_id})
    ctx.emit(data, show_text)
    return 0
