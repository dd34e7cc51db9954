"""``alice session new|list|show|replace|rename|open`` and ``alice chat``: frozen runtime bindings,
and the real CLI of a session opened in the foreground."""

from __future__ import annotations

from openalice.core import output
from openalice.core.errors import UsageError
from openalice.core.output import table

from ._dispatch import Context, add_verb, workspace_option

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def credential_args(p) -> None:
    cred = p.add_mutually_exclusive_group()
    cred.add_argument("--credential", metavar="SLUG", help="a vault credential")
    cred.add_argument("--native-credential", action="store_true", help="the agent's native login")


def register(sub, common) -> None:
    group = sub.add_parser(
        "session", help="create, list and show sessions and their frozen bindings",
        description="A session's runtime binding (agent, credential source, model, effort) is frozen "
                    "at birth in .alice/sessions/<resumeId>.json and replayed on every run and resume. "
                    "Later preference changes never touch it; only 'replace' changes credential, "
                    "model or effort, and nothing changes the agent.",
        epilog="examples:\n  alice session new --agent codex\n  alice session list\n")
    verbs = group.add_subparsers(dest="session_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "new", cmd_new, common=common,
                 help="create a session, resolving the binding from flags then preferences",
                 examples="  alice session new                       # preferences decide\n"
                          "  alice session new --agent pi --credential ds-1 --model deepseek-v4-pro --effort high\n"
                          "  alice session new --resume-id resume-calm-amber-river-abcdef --agent codex")
    workspace_option(p, from_run=False)
    p.add_argument("--surface", choices=("headless", "interactive"), default="headless",
                   help="whose preferences seed the binding (default: headless)")
    p.add_argument("--agent", help="claude, codex, opencode, pi, or a catalog engine")
    credential_args(p)
    p.add_argument("--wire", metavar="SHAPE", help="request this wire shape of the credential")
    p.add_argument("--model", help="model id (free text)")
    p.add_argument("--effort", help="reasoning effort (omitted = the engine's default)")
    p.add_argument("--name", help="display name (<= 120 characters)")
    p.add_argument("--resume-id", metavar="ID",
                   help="freeze this id instead of a new one: no-op if it already has the same binding, "
                        "exit 3 if it has a different one")

    p = add_verb(verbs, "open", cmd_open, common=common,
                 help="start a session's real CLI in the foreground (resumes its conversation)",
                 description="Start the session's agent CLI in this terminal, in its workspace, with its "
                             "frozen binding (credential secrets only in the CLI's environment; native login "
                             "when the binding says native), full access and auto-approval for this process "
                             "only, the workspace's shims first on PATH, and the engine's own session resumed "
                             "when one is recorded. The exit status is the CLI's.",
                 examples="  alice session open resume-calm-amber-river-abcdef\n"
                          "  alice session open --new --agent codex --model gpt-5.5\n"
                          "  alice session open --new -- --verbose        # extra arguments for the CLI\n"
                          "  alice chat                                   # the default session of the workspace")
    workspace_option(p, from_run=False)
    p.add_argument("words", nargs="*", metavar="RESUME_ID [-- EXTRA_ARGS]",
                   help="the session (see 'alice session list'); after --, arguments for the CLI")
    p.add_argument("--new", action="store_true", help="create a new session (interactive preferences decide "
                                                      "what --agent/--credential/--model/--effort leave open)")
    p.add_argument("--agent", help="with --new: claude, codex, opencode or pi")
    credential_args(p)
    p.add_argument("--model", help="with --new: model id")
    p.add_argument("--effort", help="with --new: reasoning effort")
    p.add_argument("--name", help="with --new: display name")

    p = add_verb(verbs, "list", cmd_list, common=common, help="list the workspace's sessions",
                 examples="  alice session list\n  alice session list --json")
    workspace_option(p, from_run=False)

    p = add_verb(verbs, "show", cmd_show, common=common, help="show one session's binding",
                 examples="  alice session show resume-calm-amber-river-abcdef --json")
    workspace_option(p, from_run=False)
    p.add_argument("resume_id", metavar="ID")

    p = add_verb(verbs, "replace", cmd_replace, common=common,
                 help="change a session's credential, model or effort (never its agent)",
                 examples="  alice session replace resume-calm-amber-river-abcdef --credential openai-2\n"
                          "  alice session replace resume-calm-amber-river-abcdef --no-effort")
    workspace_option(p, from_run=False)
    p.add_argument("resume_id", metavar="ID")
    credential_args(p)
    p.add_argument("--wire", metavar="SHAPE", help="request this wire shape of the credential")
    model = p.add_mutually_exclusive_group()
    model.add_argument("--model")
    model.add_argument("--no-model", action="store_true", help="clear the model (engine default)")
    effort = p.add_mutually_exclusive_group()
    effort.add_argument("--effort")
    effort.add_argument("--no-effort", action="store_true", help="clear the effort (engine default)")

    p = add_verb(verbs, "rename", cmd_rename, common=common, help="set or clear a session's display name",
                 examples="  alice session rename resume-calm-amber-river-abcdef --name 'Nightly report'\n"
                          "  alice session rename resume-calm-amber-river-abcdef --clear")
    workspace_option(p, from_run=False)
    p.add_argument("resume_id", metavar="ID")
    name = p.add_mutually_exclusive_group(required=True)
    name.add_argument("--name")
    name.add_argument("--clear", action="store_true")

    register_chat(sub, common)


def _credential_text(b: dict) -> str:
    cred = b["credential"]
    cred_text = f"vault:{cred['credentialSlug']}" if cred["source"] == "vault" else "native"
    if cred.get("wireShape"):
        cred_text += f" ({cred['wireShape']})"
    return cred_text


BINDING_HEADERS = ["RESUME ID", "AGENT", "CREDENTIAL", "MODEL", "EFFORT", "BORN", "LAST LAUNCH", "NATIVE ID",
                 "NAME"]


def _launch_text(b: dict) -> str:
    launch = b.get("lastLaunch")
    if not launch:
        return "-"
    status = launch.get("exitStatus")
    return f"{launch['at']} {launch['surface']}" + (f" (exit {status})" if status is not None else " (open)")


def binding_cells(b: dict) -> list[str]:
    return [b["resumeId"], b["agent"], _credential_text(b), b.get("model") or "(engine default)",
            b.get("reasoningEffort") or "(engine default)", b.get("bornOn") or "-", _launch_text(b),
            b.get("nativeSessionId") or "-", b.get("displayName") or "-"]


def with_state(sessions, ws, binding) -> dict:
    """The binding for output, with what its launches left: last launch and native id."""
    out = binding.to_dict()
    state = sessions.session_state(ws, binding.resume_id)
    if isinstance(state.get("lastLaunch"), dict):
        out["lastLaunch"] = state["lastLaunch"]
    if isinstance(state.get("nativeSessionId"), str):
        out["nativeSessionId"] = state["nativeSessionId"]
    return out


def _human_binding(b: dict) -> str:
    cred_text = _credential_text(b)
    parts = [b["resumeId"], f"agent {b['agent']}", f"credential {cred_text}",
             f"model {b.get('model', '(engine default)')}", f"effort {b.get('reasoningEffort', '(engine default)')}"]
    if b.get("displayName"):
        parts.append(f"\"{b['displayName']}\"")
    return "  ".join(parts)


def cmd_new(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import sessions, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws)
    resolved = sessions.resolve_binding(ws, surface=args.surface, agent=args.agent, credential=args.credential,
                                        native_credential=args.native_credential, model=args.model,
                                        effort=args.effort, wire=args.wire)
    if args.resume_id:
        binding = sessions.make_binding(resume_id=args.resume_id, agent=resolved["agent"],
                                        credential=resolved["credential"], model=resolved.get("model"),
                                        effort=resolved.get("reasoningEffort"), display_name=args.name)
        stored = sessions.ensure_session(ws, binding, now=ctx.now())
    else:
        stored = sessions.create_session(ws, agent=resolved["agent"], credential=resolved["credential"],
                                         model=resolved.get("model"), effort=resolved.get("reasoningEffort"),
                                         display_name=args.name, now=ctx.now())
    data = {"session": stored.to_dict(), "sources": resolved["sources"],
            "file": str(sessions.session_path(ws, stored.resume_id))}
    ctx.emit(data, lambda d: f"frozen: {_human_binding(d['session'])}")
    return 0


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import sessions, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    found, problems = sessions.list_sessions(ws)
    data = {"workspace": ws.id, "sessions": [with_state(sessions, ws, b) for b in found], "problems": problems}

    def human(d: dict) -> str:
        if d["sessions"]:
            return table([binding_cells(b) for b in d["sessions"]], BINDING_HEADERS)
        # "no sessions" would be wrong when a file is there but cannot be read
        return "no readable sessions" if d["problems"] else "no sessions"

    ctx.emit(data, human)
    if problems and not ctx.json:
        for p in problems:  # the message names the file (and field) already
            message = p["message"] if p["message"].startswith(p["file"]) else f"{p['file']}: {p['message']}"
            ctx.stderr.write(output.printable(f"{ctx.prog}: error: {message}") + "\n")
        ctx.stderr.write(f"{ctx.prog}: hint: fix or remove the file(s); 'alice session show ID' "
                         "reads one\n")
    if problems:
        ctx.failing("invalid_sessions", f"{len(problems)} session file(s) cannot be read")
    return 2 if problems else 0


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import sessions, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    binding = sessions.load_session(ws, args.resume_id)
    data = {"session": with_state(sessions, ws, binding), "file": str(sessions.session_path(ws, binding.resume_id))}
    if data["session"].get("nativeSessionId"):
        data["nativeSessionId"] = data["session"]["nativeSessionId"]
    data["open"] = open_command(ws, binding.resume_id)
    ctx.emit(data, show_text)
    return 0


def open_command(home, resume_id: str, **plan_kwargs) -> dict:
    """What ``open`` would run (secrets as variable names only), or why it would refuse."""
    import tempfile  # lazy: only a projection that writes a config file (pi's) needs a scratch directory

    from openalice.core.errors import AliceError  # lazy: verb handler
    from openalice.sessions import launch as opener  # lazy: the adapters load only to project a launch

    with tempfile.TemporaryDirectory(prefix="alice-show-") as scratch:  # show writes nothing that stays
        try:
            plan = opener.plan_open(home, resume_id, run_dir=scratch, **plan_kwargs)
        except AliceError as exc:
            return {"refused": {"code": exc.code, "message": str(exc)}}
        return opener.describe_plan(plan)


def show_text(d: dict) -> str:
    import shlex  # lazy: only the human text quotes a command

    lines = [_human_binding(d["session"]), f"file: {d['file']}",
             f"born on: {d['session'].get('bornOn') or 'unknown'}",
             f"last launch: {_launch_text(d['session'])}"]
    if d.get("nativeSessionId"):
        lines.append(f"native session: {d['nativeSessionId']}")
    opened = d.get("open") or {}
    if "refused" in opened:
        lines.append(f"open: refused: {opened['refused']['message']}")
    elif opened:
        lines.append(f"open runs: (cd {shlex.quote(opened['cwd'])} && {shlex.join(opened['argv'])})")
        if opened.get("setsEnv"):
            secret = set(opened.get("secretEnv") or ())
            lines.append("  with: " + " ".join(f"{name}=<secret>" if name in secret else name
                                                for name in opened["setsEnv"]))
    return "\n".join(lines)


def cmd_replace(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import sessions, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws)
    kwargs = {}
    if args.native_credential:
        if args.wire:
            raise UsageError("--wire needs --credential", code="usage")
        kwargs["credential"] = {"source": "native"}
    elif args.credential:
        cred = {"source": "vault", "credentialSlug": args.credential}
        if args.wire:
            cred["wireShape"] = args.wire
        kwargs["credential"] = cred
    elif args.wire:
        raise UsageError("--wire needs --credential", code="usage")
    if args.model is not None or args.no_model:
        kwargs["model"] = None if args.no_model else args.model
    if args.effort is not None or args.no_effort:
        kwargs["effort"] = None if args.no_effort else args.effort
    if not kwargs:
        raise UsageError("nothing to replace: give --credential/--native-credential, --model/--no-model "
                         "or --effort/--no-effort", code="usage")
    binding = sessions.replace_binding(ws, args.resume_id, now=ctx.now(), **kwargs)
    ctx.emit({"session": binding.to_dict(), "file": str(sessions.session_path(ws, binding.resume_id))},
             lambda d: f"replaced: {_human_binding(d['session'])}")
    return 0


def cmd_rename(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import sessions, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws)
    binding = sessions.rename_session(ws, args.resume_id, None if args.clear else args.name)
    ctx.emit({"session": binding.to_dict(), "file": str(sessions.session_path(ws, binding.resume_id))},
             lambda d: f"renamed: {_human_binding(d['session'])}")
    return 0


def split_extra(args) -> None:
    """``words`` into ``resume_id`` (before ``--``, at most one) and ``extra`` (after ``--``: the CLI's)."""
    raw = getattr(args, "raw_args", None) or []
    words = list(args.words)
    extra = raw[raw.index("--") + 1:] if "--" in raw else []
    ours = words[:len(words) - len(extra)]
    if len(ours) > 1:
        raise UsageError(f"unexpected argument {ours[1]!r}: arguments for the CLI go after --",
                         field="EXTRA_ARGS", code="usage")
    args.resume_id = ours[0] if ours else None
    args.extra = extra


def _refuse_frozen_flags(args) -> None:
    given = [flag for flag, value in (("--agent", args.agent), ("--credential", args.credential),
                                      ("--native-credential", args.native_credential), ("--model", args.model),
                                      ("--effort", args.effort), ("--name", args.name)) if value]
    if given:
        raise UsageError(f"{given[0]} needs --new: an existing session's binding is frozen",
                         field=given[0].lstrip("-"), code="binding_frozen",
                         details={"hint": "change it with 'alice session replace ID ...'"})


def cmd_open(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces  # lazy: per verb, so start-up and --help load no domain module

    split_extra(args)
    if args.new and args.resume_id:
        raise UsageError("give RESUME_ID or --new, not both", field="resume_id", code="usage")
    if not args.new and not args.resume_id:
        raise UsageError("give RESUME_ID (see 'alice session list') or --new; 'alice chat' opens the "
                         "workspace's default session", field="resume_id", code="usage")
    if not args.new:
        _refuse_frozen_flags(args)
    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws)
    from openalice.sessions import launch as opener  # lazy: the adapters load only to project a launch

    if args.new:
        binding = opener.open_new(ws, agent=args.agent, credential=args.credential,
                                    native_credential=args.native_credential, model=args.model,
                                    effort=args.effort, display_name=args.name, now=ctx.now())
        ctx.info(f"new session {binding.resume_id} ({binding.agent})")
        resume_id = binding.resume_id
    else:
        resume_id = args.resume_id
    return launch(ws, resume_id, ctx, extra=args.extra, workspace_id=ws.id)


def launch(home, resume_id: str, ctx: Context, *, extra, workspace_id=None, surface="interactive",
           cwd=None, run_env=None) -> int:
    """Plan, then run in the foreground; the CLI's exit status is ours."""
    from openalice import sessions  # lazy: verb handler
    from openalice.core import paths  # lazy: verb handler
    from openalice.sessions import launch as opener  # lazy: the adapters load only to project a launch

    sessions.load_session(home, resume_id)  # an unknown id is refused before a directory is made
    run_dir = opener.private_run_dir(paths.state_dir(), resume_id)
    plan = opener.plan_open(home, resume_id, surface=surface, cwd=cwd, extra_args=extra, run_env=run_env,
                            run_dir=run_dir)
    ctx.info(f"opening {plan.resume_id} ({plan.agent}" + (", resuming its conversation)" if plan.resumed
                                                          else ", a new conversation)"))
    return opener.run_open(home, plan, now=ctx.now, workspace_id=workspace_id, warn=ctx.warn)


def register_chat(sub, common) -> None:
    p = add_verb(sub, "chat", cmd_chat, common=common,
                 help="open the workspace's default session (created on first use)",
                 description="Open the session the workspace's interactive default resolves to (the fixed "
                             "preference, else the recent choice, else the first interactive agent with its "
                             "native login): the last one opened with that binding, or a new one.",
                 examples="  alice chat\n  alice chat --workspace notes\n"
                          "  alice settings set --surface interactive --agent codex --native-credential --default")
    workspace_option(p, from_run=False)
    p.add_argument("extra", nargs="*", metavar="-- EXTRA_ARGS", help="passed to the CLI after its own flags")


def cmd_chat(args: argparse.Namespace, ctx: Context) -> int:
    from openalice import workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws)
    from openalice.sessions import launch as opener  # lazy: the adapters load only to project a launch

    binding, created = opener.chat_session(ws, now=ctx.now())
    if created:
        ctx.info(f"new chat session {binding.resume_id} ({binding.agent})")
    return launch(ws, binding.resume_id, ctx, extra=args.extra, workspace_id=ws.id)
