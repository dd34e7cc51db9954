"""``alice settings show|set|unset``: workspace runtime preferences (.alice/settings.json)."""

from __future__ import annotations

from ._dispatch import Context, add_verb, workspace_option

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def _surface_arg(p) -> None:
    p.add_argument("--surface", choices=("headless", "interactive"), default="headless",
                   help="which creation defaults (default: headless)")


def register(sub, common) -> None:
    group = sub.add_parser(
        "settings", help="show and set workspace runtime preferences",
        description="Secret-free defaults that seed NEW sessions: per surface a default agent and, per "
                    "agent, a fixed preference (credential, model, effort). Existing sessions keep their "
                    "frozen binding whatever changes here.",
        epilog="examples:\n  alice settings set --agent codex --credential openai-1 --model gpt-5.5 --default\n"
               "  alice settings show\n")
    verbs = group.add_subparsers(dest="settings_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "show", cmd_show, common=common, help="show the preferences",
                 examples="  alice settings show\n  alice settings show --workspace notes --json")
    workspace_option(p, from_run=False)

    p = add_verb(verbs, "set", cmd_set, common=common,
                 help="set the default agent and/or an agent's fixed preference",
                 examples="  alice settings set --default-agent pi\n"
                          "  alice settings set --agent codex --credential openai-1 --model gpt-5.5 "
                          "--effort high --default\n"
                          "  alice settings set --surface interactive --agent claude --native-credential")
    workspace_option(p, from_run=False)
    _surface_arg(p)
    p.add_argument("--default-agent", metavar="AGENT", help="the surface's default agent")
    p.add_argument("--agent", help="the agent whose fixed preference to set (replaced whole)")
    cred = p.add_mutually_exclusive_group()
    cred.add_argument("--credential", metavar="SLUG", help="use this vault credential")
    cred.add_argument("--native-credential", action="store_true",
                      help="use the agent's native login (the default)")
    p.add_argument("--wire", metavar="SHAPE", help="request this wire shape of the credential")
    p.add_argument("--model", help="model id (free text; unknown ids are valid)")
    p.add_argument("--effort", help="reasoning effort (omitted = the engine's default)")
    p.add_argument("--default", action="store_true", help="also make --agent the surface's default agent")

    p = add_verb(verbs, "unset", cmd_unset, common=common,
                 help="remove an agent's fixed preference or the default agent",
                 examples="  alice settings unset --agent codex\n  alice settings unset --default-agent")
    workspace_option(p, from_run=False)
    _surface_arg(p)
    p.add_argument("--agent", help="remove this agent's fixed preference")
    p.add_argument("--default-agent", action="store_true", help="remove the default agent")


def _describe(ws, result) -> dict:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import preferences

    data = {"workspace": ws.id, "file": str(preferences.settings_path(ws)), "status": result.status,
            "settings": result.data}
    if result.error is not None:
        data["error"] = result.error.to_dict()
    return data


def _human(d: dict) -> str:
    if d["status"] == "invalid":
        return f"{d['file']}: INVALID: {d['error']['message']}"
    lines = [f"{d['file']}" + (" (absent: nothing set)" if d["status"] == "absent" else "")]
    for surface, block in sorted(d["settings"].get("runtime", {}).items()):
        lines.append(f"{surface}:")
        if "defaultAgent" in block:
            lines.append(f"  default agent: {block['defaultAgent']}")
        for label, agents in (("fixed", block.get("agents", {})),
                              ("recent", block.get("recent", {}).get("agents", {}))):
            for agent, pref in sorted(agents.items()):
                cred = pref.get("credentialSlug", "native") if pref["accessMode"] == "vault" else "native"
                extra = "".join(f", {k} {pref[k]}" for k in ("wireShape", "model", "reasoningEffort") if k in pref)
                lines.append(f"  {label} {agent}: credential {cred}{extra}")
        if block.get("recent", {}).get("agent"):
            lines.append(f"  recent agent: {block['recent']['agent']}")
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import preferences, workspaces

    ws = workspaces.resolve(args.workspace)
    result = preferences.read(ws)
    ctx.emit(_describe(ws, result), _human)
    return result.error.exit_code if result.error is not None else 0


def cmd_set(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import preferences, workspaces
    from openalice.core.errors import UsageError

    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws)
    if not args.agent and not args.default_agent:
        raise UsageError("give --agent (with its preference) and/or --default-agent", code="usage")
    if not args.agent and (args.credential or args.native_credential or args.model or args.effort
                           or args.wire or args.default):
        raise UsageError("--credential, --model, --effort, --wire and --default need --agent", code="usage")
    if args.wire and not args.credential:
        raise UsageError("--wire needs --credential", code="usage")
    if args.default_agent:
        preferences.set_default_agent(ws, surface=args.surface, agent=args.default_agent)
    if args.agent:
        cred = ({"source": "vault", "credentialSlug": args.credential, "wireShape": args.wire}
                if args.credential else {"source": "native"})
        pref = preferences.pref_from_binding(cred, args.model, args.effort)
        preferences.set_preference(ws, surface=args.surface, agent=args.agent, pref=pref,
                                   make_default=args.default)
    ctx.emit(_describe(ws, preferences.read(ws)), _human)
    return 0


def cmd_unset(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import preferences, workspaces
    from openalice.core.errors import UsageError

    ws = workspaces.resolve(args.workspace)
    workspaces.authorize_write(workspaces.Caller.of_process(), ws)
    if not args.agent and not args.default_agent:
        raise UsageError("give --agent and/or --default-agent", code="usage")
    preferences.unset(ws, surface=args.surface, agent=args.agent, default_agent=args.default_agent)
    ctx.emit(_describe(ws, preferences.read(ws)), _human)
    return 0
