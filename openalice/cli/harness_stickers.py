"""``alice-harness stickers list|show|cat|import|enable|disable|status``."""

from __future__ import annotations

import os

from openalice.core import output
from openalice.core.errors import UsageError

from ._dispatch import Context, add_verb, workspace_option
from .harness_verbs import change_line


def _apply_args(p, *, preview_default: bool) -> None:
    p.add_argument("--restore", action="store_true",
                   help="the pack's files win over files of the projection changed here (and bring back "
                        "deleted ones); files of your own are never touched")
    p.add_argument("--keep", metavar="PATH", action="append", default=[],
                   help="keep your version of an owned file the pack changes or drops (repeatable)")
    if preview_default:
        p.add_argument("--apply", action="store_true", help="apply the plan (default: preview only)")
    else:
        p.add_argument("--preview", action="store_true", help="only show the plan and its digest")
    p.add_argument("--digest", metavar="D", help="refuse unless the plan still has this digest (from a preview)")


def register(sub, common) -> None:
    group = sub.add_parser(
        "stickers", help="sticker packs: list, show, import, enable, disable, status",
        description="Sticker packs give a workspace's agents images they may add to a reply "
                    "([[sticker/wave.png]]). Built-in packs: alice-color (the default of new chat "
                    "workspaces) and alice-ink; custom packs are imported from a directory or a zip "
                    "archive into $OPENALICE_HOME/data/stickers/packs/. Enabling a pack projects its "
                    "images to sticker/ and generates the alice-stickers skill (.agents/skills/ and its "
                    ".claude/skills/ mirror); .alice/stickers.json records what the projection owns.",
        epilog="examples:\n  alice-harness stickers list\n  alice-harness stickers import ~/packs/cats.zip\n"
               "  alice-harness stickers enable --pack cats\n"
               "  alice-harness stickers enable --pack cats --apply --digest 3f2a...\n"
               "  alice-harness stickers status --json\n")
    verbs = group.add_subparsers(dest="stickers_verb", metavar="VERB", required=True)

    add_verb(verbs, "list", cmd_list, common=common, help="the built-in and imported packs",
             examples="  alice-harness stickers list\n  alice-harness stickers list --json")

    p = add_verb(verbs, "show", cmd_show, common=common, help="one pack: its stickers, sizes, revision, skill",
                 examples="  alice-harness stickers show alice-ink\n  alice-harness stickers show cats --json")
    p.add_argument("pack", metavar="PACK", help="the pack id")

    p = add_verb(verbs, "cat", cmd_cat, common=common,
                 help="one sticker's image bytes (base64 with --json), checked against the pack",
                 description="Print one sticker image of PACK's current revision: the raw bytes, or with "
                             "--json its kind, size, sha256 and the bytes in base64. The page's "
                             "thumbnails come from here (docs/web.md).",
                 examples="  alice-harness stickers cat alice-ink wave.png --json")
    p.add_argument("pack", metavar="PACK", help="the pack id")
    p.add_argument("file", metavar="FILE", help="the sticker's file name, as 'show' lists it")

    p = add_verb(verbs, "import", cmd_import, common=common,
                 help="copy a custom pack (DIR or ARCHIVE.zip with pack.json) into the library",
                 description="Validate the pack (pack.json, PNG/WebP magic bytes, at most 512 KiB per image, "
                             "100 images, 32 MiB in all; for a zip, safe member names, no symlinks, no "
                             "duplicates, and the caps on the uncompressed sizes, all before anything is "
                             "extracted), then store it as a new revision and make it the pack's current "
                             "one. Built-in ids cannot be imported over. Workspaces keep the revision they "
                             "have until 'stickers enable' is applied there again.",
                 examples="  alice-harness stickers import ~/packs/cats/\n"
                          "  alice-harness stickers import ~/Downloads/cats.zip --json")
    p.add_argument("source", metavar="DIR|ARCHIVE.zip")

    p = add_verb(verbs, "enable", cmd_enable, common=common,
                 help="preview (default) or apply projecting a pack into the workspace",
                 description="Plan projecting PACK (default: the workspace's current pack, else alice-color) "
                             "into the workspace: its images to sticker/<file>, the generated alice-stickers "
                             "skill and its mirror. Switching packs removes the old pack's images the "
                             "projection owns; files of your own in sticker/ are never touched, and one "
                             "where the pack puts a file blocks the apply until you move it. An owned file "
                             "changed here needs --restore (or --keep PATH). --apply [--digest D] applies "
                             "the previewed plan under the workspace's checkout lease.",
                 examples="  alice-harness stickers enable\n  alice-harness stickers enable --pack alice-ink\n"
                          "  alice-harness stickers enable --pack alice-ink --apply --digest 3f2a...\n"
                          "  alice-harness stickers enable --restore --apply")
    workspace_option(p)
    p.add_argument("--pack", metavar="ID", help="the pack to project (default: the current one, else alice-color)")
    _apply_args(p, preview_default=True)

    p = add_verb(verbs, "disable", cmd_disable, common=common,
                 help="remove the generated skill (the images stay); --preview to see the plan first",
                 examples="  alice-harness stickers disable\n  alice-harness stickers disable --preview --json\n"
                          "  alice-harness stickers disable --restore")
    workspace_option(p)
    _apply_args(p, preview_default=False)

    p = add_verb(verbs, "status", cmd_status, common=common,
                 help="the workspace's pack and revision, an update, owned files changed here, personal files",
                 description="Show the pack the workspace has, whether the library has a newer revision, the "
                             "files the projection owns that were changed, deleted or made unsafe here, and "
                             "personal files in sticker/. Recovers an interrupted apply first; writes nothing "
                             "else. Exit 0 when current, 3 when something needs attention.",
                 examples="  alice-harness stickers status\n  alice-harness stickers status --all --json")
    workspace_option(p)
    p.add_argument("--all", action="store_true", help="every registered workspace")


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MiB"


def cmd_list(args, ctx: Context) -> int:
    from openalice import stickers  # lazy: per verb, so start-up and --help load no domain module

    packs, problems = stickers.list_packs()
    data = {"packs": packs, "problems": problems}

    def human(d: dict) -> str:
        rows = [[p["id"] + (" (default)" if p["default"] else ""), p["name"], p["revision"], p["source"],
                 str(p["stickers"]), _size(p["bytes"])] for p in d["packs"]]
        text = output.table(rows, ["ID", "NAME", "REVISION", "SOURCE", "STICKERS", "SIZE"])
        return "\n".join([text] + [f"problem: {p['id']}: {p.get('file', '')}: {p['message']}"
                                   for p in d["problems"]])

    ctx.emit(data, human)
    if problems:
        ctx.failing("invalid_packs", f"{len(problems)} pack(s) cannot be read: "
                                     f"{', '.join(p['id'] for p in problems)}")
        return 2
    return 0


def cmd_show(args, ctx: Context) -> int:
    from openalice import stickers  # lazy: per verb, so start-up and --help load no domain module

    pack = stickers.get_pack(args.pack, field="PACK")
    data = {**pack.summary(), "default": pack.id == stickers.DEFAULT_PACK,
            "path": str(pack.root) if pack.root else None,
            "stickers": [{"file": s.file, "description": s.description, "kind": s.kind, "bytes": s.size,
                          "sha256": s.sha256, "reference": f"[[sticker/{s.file}]]"} for s in pack.stickers],
            "skill": pack.skill.decode("utf-8")}

    def human(d: dict) -> str:
        lines = [f"{d['id']}: {d['name']} {d['version']} ({d['revision']}, {d['source']}, "
                 f"{len(d['stickers'])} stickers, {_size(d['bytes'])})"]
        lines += [f"  {s['reference']:<30} {s['kind']:<4} {_size(s['bytes']):>9}  {s['description']}"
                  for s in d["stickers"]]
        return "\n".join(lines)

    ctx.emit(data, human)
    return 0


def cmd_cat(args, ctx: Context) -> int:
    import base64
    import sys

    from openalice import stickers  # lazy: per verb, so start-up and --help load no domain module
    from openalice.core.errors import InvalidInput

    pack = stickers.get_pack(args.pack, field="PACK")
    found = [s for s in pack.stickers if s.file == args.file]
    if not found:
        raise InvalidInput(f"pack {pack.id} has no sticker {args.file!r}", field="FILE", code="unknown_sticker")
    sticker = found[0]
    if not ctx.json:
        sys.stdout.buffer.write(sticker.data)
        sys.stdout.flush()
        return 0
    ctx.emit({"id": pack.id, "revision": pack.revision, "file": sticker.file, "kind": sticker.kind,
              "bytes": sticker.size, "sha256": sticker.sha256, "encoding": "base64",
              "content": base64.b64encode(sticker.data).decode("ascii")}, lambda d: "")
    return 0


def cmd_import(args, ctx: Context) -> int:
    from openalice import stickers  # lazy: per verb, so start-up and --help load no domain module
    from openalice.workspaces.access import Caller, authorize_write  # lazy: per verb (start-up)

    authorize_write(Caller.of_process(), None, scope="library")
    data = stickers.import_pack(args.source, now=ctx.now())

    def human(d: dict) -> str:
        if not d["newRevision"] and d["previousRevision"] == d["revision"]:
            return f"{d['id']}: already imported ({d['revision']})"
        was = f" (was {d['previousRevision']})" if d["previousRevision"] else ""
        return (f"{d['id']}: imported {d['name']} {d['revision']}{was}: {d['stickers']} stickers, "
                f"{_size(d['bytes'])}\n  apply it in a workspace with: alice-harness stickers enable --pack "
                f"{d['id']}")

    ctx.emit(data, human)
    return 0


def _preview_text(p: dict) -> str:
    to = p["to"]
    what = f"{to['packId']} {to['revision']}" if p["action"] == "enable" else "disable"
    was = f"{p['from']['packId']} {p['from']['revision']}{'' if p['from']['enabled'] else ' (disabled)'}" \
        if p["from"] else "no stickers"
    lines = [f"{p['workspaceId']}: stickers {was} -> {what}: {p['status']}"]
    s = p["summary"]
    lines.append(f"  {s['ready']} ready, {s['preserved']} preserved, {s['conflicts']} conflicts, "
                 f"{s['unchanged']} unchanged")
    lines += [change_line(i) for i in p["changes"]]
    lines += [change_line(i) for i in p["preserved"]]
    lines += [change_line(i) for i in p["conflicts"]]
    lines.append(f"  digest: {p['digest']}")
    if p.get("nextCommand"):
        lines.append(f"  apply with: {p['nextCommand']}")
    return "\n".join(lines)


def _run(args, ctx: Context, action: str, apply: bool) -> int:
    from openalice import stickers, workspaces  # lazy: per verb, so start-up and --help load no domain module

    if not apply and (args.digest or args.keep):
        raise UsageError("--digest and --keep need --apply" if action == "enable" else
                         "--digest and --keep apply the plan; drop --preview", code="apply_required")
    ws = workspaces.resolve(args.workspace)
    pack_id = getattr(args, "pack", None)
    if not apply:
        result = stickers.preview(ws, action=action, pack_id=pack_id, restore=args.restore, now=ctx.now())
        data = {"ok": True, "action": "preview", "preview": result.to_json()}
        _recovered(data, result)
        ctx.emit(data, lambda d: _preview_text(d["preview"]))
        return 0
    result, applied = stickers.apply(ws, action=action, pack_id=pack_id, restore=args.restore,
                                     digest=args.digest, keep=args.keep, now=ctx.now())
    data = {"ok": True, "action": "noop" if applied is None else "applied", "preview": result.to_json()}
    _recovered(data, result)
    if applied is not None:
        data["result"] = {"changedPaths": applied.changed, "keptPaths": applied.kept}

    def human(d: dict) -> str:
        p = d["preview"]
        if d["action"] == "noop":
            return f"{ws.id}: stickers already {'enabled' if action == 'enable' else 'disabled'}" + (
                f" ({p['to']['packId']} {p['to']['revision']})" if p["to"]["packId"] else "")
        r = d["result"]
        head = (f"{ws.id}: stickers {p['to']['packId']} {p['to']['revision']} enabled" if action == "enable"
                else f"{ws.id}: stickers disabled (the skill is removed; the images stay)")
        text = [f"{head}: {len(r['changedPaths'])} files changed, {len(r['keptPaths'])} kept"]
        text += [f"  {'wrote  ' if os.path.lexists(os.path.join(ws.path, path)) else 'removed'} {path}"
                 for path in r["changedPaths"]]
        text += [f"  kept    {path}" for path in r["keptPaths"]]
        return "\n".join(text)

    ctx.emit(data, human)
    return 0


def _recovered(data: dict, result) -> None:
    if result.recovered:
        data["recovered"] = [{"outcome": r.outcome, "digest": r.digest, "paths": r.paths} for r in result.recovered]


def cmd_enable(args, ctx: Context) -> int:
    return _run(args, ctx, "enable", args.apply)


def cmd_disable(args, ctx: Context) -> int:
    return _run(args, ctx, "disable", not args.preview)


def cmd_status(args, ctx: Context) -> int:
    from openalice import stickers, workspaces  # lazy: per verb, so start-up and --help load no domain module

    if args.all and args.workspace:
        raise UsageError("give --workspace or --all, not both", code="usage")
    targets = workspaces.list_workspaces() if args.all else [workspaces.resolve(args.workspace)]
    docs = [stickers.status(ws, now=ctx.now()) for ws in targets]

    def text(w: dict) -> str:
        lines = [f"{w['workspaceId']} ({w['path']})"]
        if w["packId"] is None:
            lines.append("  stickers: none")
        else:
            lines.append(f"  stickers: {w['packId']} {w['revision']} ({'enabled' if w['enabled'] else 'disabled'}), "
                         f"{w['owned']} owned files")
        if w["updateAvailable"]:
            lines.append(f"  update available: {w['pack']['revision']} (alice-harness stickers enable "
                         f"--workspace {w['workspaceId']})")
        lines += [f"  changed here: {d['path']} ({d['kind']})" for d in w["drift"]]
        lines += [f"  personal: {p}" for p in w["personal"]]
        lines += [f"  recovered an interrupted apply: {r['outcome']}" for r in w["recovered"]]
        lines += [f"  problem: {p}" for p in w["problems"]]
        lines.append("  up to date" if w["upToDate"] else "  needs attention")
        return "\n".join(lines)

    ctx.emit({"workspaces": docs}, lambda d: "\n\n".join(text(w) for w in d["workspaces"]) or "no workspaces")
    attention = [w["workspaceId"] for w in docs if not w["upToDate"]]
    if attention:
        ctx.failing("needs_attention", f"{len(attention)} workspace(s) need attention: {', '.join(attention)}")
        return 3
    return 0
