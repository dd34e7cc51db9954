"""``alice workspace init|list|show|remove``."""

from __future__ import annotations

import os

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse


def register(sub, common) -> None:
    group = sub.add_parser(
        "workspace", help="create, list, show and remove workspaces",
        description="Workspaces are directories with an .alice/ folder, registered in "
                    "$OPENALICE_HOME/workspaces.json. Removing one only unregisters it: "
                    "no file is ever deleted.",
        epilog="examples:\n  alice workspace init ~/projects/notes --label Notes\n"
               "  alice workspace list --json\n  alice workspace remove notes\n")
    verbs = group.add_subparsers(dest="workspace_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "init", cmd_init, common=common,
                 help="create (or adopt) a workspace and register it; idempotent",
                 description="Create the directory (and its .alice/issues/) if needed and register "
                             "it. Its id, which commands take as --workspace ID, comes from "
                             "--label, else from the directory name: lowercased, runs of anything "
                             "but a-z and 0-9 turned into '-' ('My Notes' -> my-notes), with -2, "
                             "-3... added when that id is taken. The id never changes afterwards.",
                 examples="  alice workspace init                 # the current directory\n"
                          "  alice workspace init ~/projects/desk --template chat --label Desk\n"
                          "  alice workspace init ~/src/aq --from-git https://example.org/autoquant.git@v1.2\n"
                          "  alice workspace init ~/src/aq --from-git /srv/templates/autoquant.git")
    p.add_argument("path", nargs="?", default=".", help="the workspace directory (default: .)")
    p.add_argument("--template", choices=("blank", "chat"), default="blank",
                   help="workspace template (default: blank)")
    p.add_argument("--label", help="a human name, which also gives the id (default: the directory name)")
    p.add_argument("--from-git", metavar="URL[@REF]",
                   help="clone a Harness template repository (any git URL or local path; REF: a branch, tag "
                        "or commit, default its default branch) into the new directory PATH, check its "
                        "harness.json and record the source in .alice/harness-source.json (committed); "
                        "upgrade later with 'alice-harness source preview|apply'")

    add_verb(verbs, "list", cmd_list, common=common, help="list registered workspaces",
             examples="  alice workspace list\n  alice workspace list --json")

    p = add_verb(verbs, "show", cmd_show, common=common, help="show one workspace",
                 examples="  alice workspace show notes\n  alice workspace show ~/projects/notes --json")
    p.add_argument("workspace", metavar="ID|PATH", nargs="?",
                   help="workspace id or path (default: the one containing the cwd)")

    p = add_verb(verbs, "remove", cmd_remove, common=common,
                 help="unregister a workspace (its files are never deleted)",
                 examples="  alice workspace remove notes")
    p.add_argument("workspace", metavar="ID|PATH")


def _describe(ws) -> dict:
    record = ws.record()
    record["available"] = os.path.isdir(os.path.join(ws.path, ".alice"))
    return record


def cmd_init(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import workspaces

    notes: list[str] = []
    receipt = None
    if args.from_git is not None:
        from openalice.studio import source  # lazy: only --from-git needs git and the source package

        ws, receipt = source.create_workspace(args.path, args.from_git, template=args.template, label=args.label,
                                              now=ctx.now(), notes=notes)
        created = True
    else:
        ws, created = workspaces.init(args.path, template=args.template, label=args.label, now=ctx.now(),
                                      notes=notes)
    for note in notes:
        ctx.warn(note)
    data = {"workspace": _describe(ws), "created": created}
    if receipt is not None:
        data["source"] = receipt.to_json()
    if notes:
        data["notes"] = notes

    def human(d: dict) -> str:
        if not created:
            return f"already registered: {ws.id} ({ws.path})"
        source = (f"--label {args.label!r}" if args.label
                  else f"the directory name {os.path.basename(ws.path)!r}")
        base = workspaces.id_base(args.label or os.path.basename(ws.path))
        taken = f"; {base!r} was taken" if ws.id != base else ""
        text = (f"created: {ws.id} ({ws.path})\n"
                f"  id {ws.id!r} from {source}{taken}; other commands take --workspace {ws.id}")
        if receipt is not None:
            text += (f"\n  cloned {receipt.repository} at {receipt.commit[:12]} (harness {receipt.version}); "
                     f"upgrade with: alice-harness source preview --workspace {ws.id}")
        return text

    ctx.emit(data, human)
    return 0


def cmd_list(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import workspaces
    from openalice.core.output import table

    items = [_describe(ws) for ws in workspaces.list_workspaces()]

    def human(data: dict) -> str:
        if not data["workspaces"]:
            return "no workspaces registered (create one with 'alice workspace init PATH')"
        rows = [[w["id"], w["label"], w["template"], w["path"] + ("" if w["available"] else "  (missing)")]
                for w in data["workspaces"]]
        return table(rows, ["ID", "LABEL", "TEMPLATE", "PATH"])

    ctx.emit({"workspaces": items}, human)
    return 0


def cmd_show(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import workspaces

    ws = workspaces.resolve(args.workspace)
    data = {"workspace": _describe(ws)}
    from openalice.core.output import yes_no  # lazy: only the human rendering needs it

    ctx.emit(data, lambda d: "\n".join(f"{k}: {yes_no(v)}" for k, v in d["workspace"].items()))
    return 0


def cmd_remove(args: argparse.Namespace, ctx: Context) -> int:
    # lazy: a verb's domain modules load only when that verb runs
    from openalice import workspaces

    ws = workspaces.remove(args.workspace)
    ctx.emit({"workspace": _describe(ws), "removed": True},
             lambda d: f"unregistered: {ws.id} (files left in {ws.path})")
    return 0
