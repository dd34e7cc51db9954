"""``alice-harness status|upgrade|config``."""

from __future__ import annotations

from openalice.core.errors import UsageError

from ._dispatch import Context, add_verb, workspace_option


def _bundle_arg(p) -> None:
    p.add_argument("--bundle", metavar="DIR",
                   help="compare with the bundle in DIR (same layout as the shipped default/; also "
                        "ALICE_HARNESS_BUNDLE); 'default' is the shipped one. Without it: the bundle the "
                        "workspace follows (the one its last bundle upgrade applied)")


def register(sub, common) -> None:
    p = add_verb(sub, "status", cmd_status, common=common,
                 help="versions, drift, pending updates and config problems of the harness files",
                 description="Show, per workspace, the applied and available bundle and guidance versions, "
                             "each skill's state, managed files changed in the workspace (drift), what an "
                             "upgrade would do, the shims and the config. Recovers an interrupted upgrade "
                             "first; writes nothing else. Exit 0 when everything is current, 3 when "
                             "something needs attention.",
                 examples="  alice-harness status\n  alice-harness status --all --json\n"
                          "  alice-harness status --workspace notes --bundle ~/bundles/alice-1.1")
    workspace_option(p)
    p.add_argument("--all", action="store_true", help="every registered workspace")
    _bundle_arg(p)

    p = add_verb(sub, "upgrade", cmd_upgrade, common=common,
                 help="preview (default) or apply a three-way upgrade of skills or guidance",
                 description="Plan the upgrade of the workspace's harness skills (default), one skill "
                             "(--skill NAME --action install|update|remove|restore) or the template's "
                             "guidance (--template: AGENTS.md and CLAUDE.md). A preview prints the plan "
                             "and its digest; --apply [--digest D] applies it: files changed only on the "
                             "template's side are updated, files changed only in the workspace are kept, "
                             "edits on both sides that do not overlap are merged, and overlapping ones are "
                             "conflicts you resolve with --keep-workspace PATH or --use-template PATH "
                             "(each exactly once). In a git workspace the touched files are committed.",
                 examples="  alice-harness upgrade\n"
                          "  alice-harness upgrade --apply --digest 3f2a...\n"
                          "  alice-harness upgrade --bundle ~/bundles/alice-1.1 --apply\n"
                          "  alice-harness upgrade --skill file-delivery --action remove --apply\n"
                          "  alice-harness upgrade --apply --keep-workspace .agents/skills/alice/SKILL.md\n"
                          "  alice-harness upgrade --template --json")
    workspace_option(p)
    _bundle_arg(p)
    p.add_argument("--template", action="store_true", help="upgrade the template's guidance instead of skills")
    p.add_argument("--skill", metavar="NAME", help="plan only this skill (and the config)")
    p.add_argument("--action", metavar="ACTION", help="with --skill: install, update (default), remove, restore")
    p.add_argument("--apply", action="store_true", help="apply the plan (default: preview only)")
    p.add_argument("--digest", metavar="D", help="with --apply: refuse unless the plan still has this digest")
    p.add_argument("--keep-workspace", metavar="PATH", action="append", default=[],
                   help="resolve a conflict by keeping the workspace's file (repeatable)")
    p.add_argument("--use-template", metavar="PATH", action="append", default=[],
                   help="resolve a conflict by taking the template's file (repeatable)")

    group = sub.add_parser(
        "config", help="show or change the workspace's harness config",
        description="The tracked .alice/alice-harness-config.json: per-skill inclusion and which toolkit "
                    "commands the workspace's agents may run (through the shims in .alice/bin).",
        epilog="examples:\n  alice-harness config show\n"
               "  alice-harness config set cli.alice-inbox.enabled=false\n"
               "  alice-harness config set cli.alice.groups.inbox=false skills.file-delivery=false\n")
    verbs = group.add_subparsers(dest="config_verb", metavar="VERB", required=True)
    p = add_verb(verbs, "show", cmd_config_show, common=common, help="the config and what it allows",
                 examples="  alice-harness config show\n  alice-harness config show --workspace notes --json")
    workspace_option(p)
    _bundle_arg(p)
    p = add_verb(verbs, "set", cmd_config_set, common=common,
                 help="set KEY=VALUE (true|false); keys: skills.<s>, cli.<tool>.enabled, "
                      "cli.<tool>.groups.<group>",
                 examples="  alice-harness config set cli.alice-inbox.enabled=false\n"
                          "  alice-harness config set cli.alice.groups.inbox=false\n"
                          "  alice-harness config set skills.file-delivery=false")
    p.add_argument("assignments", metavar="KEY=VALUE", nargs="+")
    workspace_option(p)
    _bundle_arg(p)


def _now(ctx: Context):
    return ctx.now()


def cmd_status(args, ctx: Context) -> int:
    from openalice import harness, workspaces  # lazy: per verb, so start-up and --help load no domain module

    if args.all and args.workspace:
        raise UsageError("give --workspace or --all, not both", code="usage")
    targets = workspaces.list_workspaces() if args.all else [workspaces.resolve(args.workspace)]
    docs = [harness.status(ws, bundle_dir=args.bundle, now=_now(ctx)) for ws in targets]
    data = {"workspaces": docs}

    def human(d: dict) -> str:
        if not d["workspaces"]:
            return "no workspaces registered"
        return "\n\n".join(_status_text(w) for w in d["workspaces"])

    ctx.emit(data, human)
    attention = [w["workspaceId"] for w in docs if not w["upToDate"]]
    if attention:
        ctx.failing("needs_attention", f"{len(attention)} workspace(s) need attention: {', '.join(attention)}")
        return 3
    return 0


def _status_text(w: dict) -> str:
    lines = [f"{w['workspaceId']} ({w['path']}, template {w['template']})"]
    if not w["available"]:
        return "\n".join(lines + [f"  problem: {p}" for p in w["problems"]])
    applied, bundle = w.get("applied") or {}, w.get("bundle") or {}
    lines.append(f"  skills bundle: applied {applied.get('version', '?')} ({applied.get('revision') or '-'}), "
                 f"available {bundle.get('version', '?')} ({bundle.get('revision', '-')}) from "
                 f"{bundle.get('source', '?')}")
    if bundle:
        lines.append(f"  compared with: {bundle['source']} {bundle['version']} ({_REASONS[bundle['reason']]})"
                     + _follows_text(w.get("follows"), bundle))
    guidance = w.get("guidance")
    if guidance:
        lines.append(f"  guidance ({guidance['template']}): applied {guidance['appliedVersion']}, available "
                     f"{guidance['availableVersion']}")
    for skill in w.get("skills", []):
        lines.append(f"  skill {skill['name']}: {skill['state']}")
    for key, pending in sorted(w.get("pending", {}).items()):
        lines.append(f"  {key} upgrade: {pending['status']} ({pending['changes']} to write, "
                     f"{pending['conflicts']} conflicts)")
    for d in w.get("drift", []):
        lines.append(f"  changed here: {d['path']} ({d['kind']})")
    lines.append("  shims: ok" if w["shims"]["ok"] else "  shims: " + "; ".join(w["shims"]["problems"]))
    config = w.get("config", {})
    lines.append("  config: " + ("ok" if config.get("ok") else "; ".join(config.get("problems", []))))
    lines += [f"  problem: {p}" for p in w["problems"]]
    lines.append("  up to date" if w["upToDate"] else "  needs attention (alice-harness upgrade)")
    return "\n".join(lines)


# Why a bundle was compared with (harness.following.REASONS, without importing the harness here).
_REASONS = {"flag": "named with --bundle", "env": "named by $ALICE_HARNESS_BUNDLE",
            "followed": "the bundle this workspace follows", "default": "the shipped bundle"}


def _follows_text(follows: dict | None, compared: dict) -> str:
    if not follows or follows["source"] == compared["source"]:
        return ""
    return f"; this workspace follows {follows['source']} {follows['version']}"


def change_line(item: dict) -> str:
    copies = f" (+{len(item['copies'])} cop{'y' if len(item['copies']) == 1 else 'ies'})" if item.get("copies") else ""
    return f"  {item['status']:<10} {item['operation']:<7} {item['path']}{copies}  {item['reason']}"


def _preview_text(p: dict) -> str:
    scope = p["scope"]
    what = {"bundle": "skills", "template": "guidance"}.get(scope["kind"],
                                                           f"skill {scope.get('skill')} ({scope.get('action')})")
    lines = [f"{p['workspaceId']}: {what} {p['fromVersion']} -> {p['toVersion']} ({p['bundle']}): {p['status']}"]
    compared = p.get("comparedWith")
    if compared:
        lines.append(f"  compared with: {compared['source']} {compared['version']} ({_REASONS[compared['reason']]})"
                     + _follows_text(p.get("follows"), compared))
    s = p["summary"]
    lines.append(f"  {s['ready']} ready, {s['merged']} merged, {s['preserved']} preserved, "
                 f"{s['conflicts']} conflicts, {s['unchanged']} unchanged")
    lines += [change_line(i) for i in p["changes"]]
    lines += [change_line(i) for i in p["preserved"]]
    for item in p["conflicts"]:
        resolve = "--keep-workspace" + (" or --use-template" if item["canUseTemplate"] else " only")
        lines.append(change_line(item) + f"  [{resolve}]")
    lines += [f"  blocked: {b['message']}" for b in p["blockers"]]
    lines += [f"  note: {n}" for n in p.get("notes", [])]
    lines.append(f"  digest: {p['digest']}")
    if p.get("nextCommand"):
        lines.append(f"  apply with: {p['nextCommand']}")
    return "\n".join(lines)


def cmd_upgrade(args, ctx: Context) -> int:
    from openalice import harness, workspaces  # lazy: per verb, so start-up and --help load no domain module

    scope = harness.scope_for(template=args.template, skill=args.skill, action=args.action)
    if not args.apply and (args.keep_workspace or args.use_template or args.digest):
        raise UsageError("--digest, --keep-workspace and --use-template need --apply", code="apply_required")
    ws = workspaces.resolve(args.workspace)
    if not args.apply:
        result = harness.preview(ws, scope=scope, bundle_dir=args.bundle, now=_now(ctx))
        data = {"ok": True, "action": "preview", "preview": result.to_json()}
        _recovered(data, result)
        ctx.emit(data, lambda d: _preview_text(d["preview"]))
        return 0
    result, applied = harness.apply(ws, scope=scope, bundle_dir=args.bundle, digest=args.digest,
                                    keep=args.keep_workspace, use=args.use_template, now=_now(ctx))
    data = {"ok": True, "action": "noop" if applied is None else "applied", "preview": result.to_json()}
    _recovered(data, result)
    if applied is not None:
        data["result"] = {"commit": applied.commit, "changedPaths": applied.changed, "keptPaths": applied.kept}

    def human(d: dict) -> str:
        if d["action"] == "noop":
            return f"{ws.id}: already current ({d['preview']['toVersion']})"
        r = d["result"]
        text = [f"{ws.id}: applied {d['preview']['fromVersion']} -> {d['preview']['toVersion']}: "
                f"{len(r['changedPaths'])} files written, {len(r['keptPaths'])} kept"]
        text += [f"  wrote {p}" for p in r["changedPaths"]]
        text += [f"  kept  {p}" for p in r["keptPaths"]]
        if r["commit"]:
            text.append(f"  commit {r['commit']}")
        return "\n".join(text)

    ctx.emit(data, human)
    return 0


def _recovered(data: dict, result) -> None:
    if result.recovered:
        data["recovered"] = [{"owner": r.owner, "outcome": r.outcome, "digest": r.digest, "paths": r.paths}
                             for r in result.recovered]


def cmd_config_show(args, ctx: Context) -> int:
    from openalice import harness, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    data = harness.config_show(ws, bundle_dir=args.bundle)

    def human(d: dict) -> str:
        lines = [f"{d['file']}{'' if d['exists'] else ' (not written yet: defaults)'}"]
        for name, on in d["effective"]["skills"].items():
            lines.append(f"  skills.{name} = {'true' if on else 'false'}")
        for tool, spec in d["effective"]["cli"].items():
            off = [g for g, on in spec["groups"].items() if not on]
            state = "enabled" if spec["enabled"] else "disabled"
            lines.append(f"  cli.{tool}: {state}" + (f"; groups off: {', '.join(off)}" if off and spec["enabled"]
                                                      else ""))
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0


def cmd_config_set(args, ctx: Context) -> int:
    from openalice import harness, workspaces  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    data = harness.config_set(ws, args.assignments, bundle_dir=args.bundle, now=_now(ctx))

    def human(d: dict) -> str:
        def shown(value) -> str:
            return "unset (default)" if value is None else ("true" if value else "false")

        lines = [f"{c['key']}: {shown(c['from'])} -> {shown(c['to'])}" for c in d["changes"]]
        if d.get("hint"):
            lines.append(d["hint"])
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0
