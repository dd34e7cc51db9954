"""``alice session new|list|show|replace|rename``: frozen runtime bindings."""

from __future__ import annotations

from openalice.core import output
from openalice.core.errors import UsageError
from openalice.core.output import table

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def _workspace_arg(p) -> None:
    p.add_argument("--workspace", metavar="PATH|ID", help="the workspace (default: the one containing the cwd)")


def _credential_args(p) -> None:
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
    _workspace_arg(p)
    p.add_argument("--surface", choices=("headless", "interactive"), default="headless",
                   help="whose preferences seed the binding (default: headless)")
    p.add_argument("--agent", help="claude, codex, opencode, pi, or a catalog engine")
    _credential_args(p)
    p.add_argument("--wire", metavar="SHAPE", help="request this wire shape of the credential")
    p.add_argument("--model", help="model id (free text)")
    p.add_argument("--effort", help="reasoning effort (omitted = the engine's default)")
    p.add_argument("--name", help="display name (<= 120 characters)")
    p.add_argument("--resume-id", metavar="ID",
                   help="freeze this id instead of a new one: no-op if it already has the same binding, "
                        "exit 3 if it has a different one")

    p = add_verb(verbs, "list", cmd_list, common=common, help="list the workspace's sessions",
                 examples="  alice session list\n  alice session list --json")
    _workspace_arg(p)

    p = add_verb(verbs, "show", cmd_show, common=common, help="show one session's binding",
                 examples="  alice session show resume-calm-amber-river-abcdef --json")
    _workspace_arg(p)
    p.add_argument("resume_id", metavar="ID")

    p = add_verb(verbs, "replace", cmd_replace, common=common,
                 help="change a session's credential, model or effort (never its agent)",
                 examples="  alice session replace resume-calm-amber-river-abcdef --credential openai-2\n"
                          "  alice session replace resume-calm-amber-river-abcdef --no-effort")
    _workspace_arg(p)
    p.add_argument("resume_id", metavar="ID")
    _credential_args(p)
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
    _workspace_arg(p)
    p.add_argument("resume_id", metavar="ID")
    name = p.add_mutually_exclusive_group(required=True)
    name.add_argument("--name")
    name.add_argument("--clear", action="store_true")


def _credential_text(b: dict) -> str:
    cred = b["credential"]
    cred_text = f"vault:{cred['credentialSlug']}" if cred["source"] == "vault" else "native"
    if cred.get("wireShape"):
        cred_text += f" ({cred['wireShape']})"
    return cred_text


_LIST_HEADERS = ["RESUME ID", "AGENT", "CREDENTIAL", "MODEL", "EFFORT", "NAME"]


def _binding_cells(b: dict) -> list[str]:
    return [b["resumeId"], b["agent"], _credential_text(b), b.get("model") or "(engine default)",
            b.get("reasoningEffort") or "(engine default)", b.get("displayName") or "-"]


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
    data = {"workspace": ws.id, "sessions": [b.to_dict() for b in found], "problems": problems}

    def human(d: dict) -> str:
        if d["sessions"]:
            return table([_binding_cells(b) for b in d["sessions"]], _LIST_HEADERS)
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
    data = {"session": binding.to_dict(), "file": str(sessions.session_path(ws, binding.resume_id))}
    native = sessions.native_session_id(ws, binding.resume_id)
    if native:
        data["nativeSessionId"] = native

    def human(d: dict) -> str:
        lines = [_human_binding(d["session"]), f"file: {d['file']}"]
        if d.get("nativeSessionId"):
            lines.append(f"native session: {d['nativeSessionId']}")
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0


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
