"""``alice-harness source preview|apply``: merge a newer commit of the workspace's template repository."""

from __future__ import annotations

from ._dispatch import Context, add_verb, workspace_option


def register(sub, common) -> None:
    group = sub.add_parser(
        "source", help="preview or apply an upgrade from the workspace's template repository",
        description="A workspace created with 'alice workspace init PATH --from-git URL[@REF]' records its "
                    "template repository and commit in .alice/harness-source.json. 'preview' fetches a newer "
                    "commit (default: the repository's default branch), checks its harness.json and whether "
                    "it merges, touching nothing but the ref refs/openalice/source/incoming; 'apply --digest "
                    "D' merges exactly that commit as one --no-ff merge commit that also updates the receipt.",
        epilog="examples:\n  alice-harness source preview\n  alice-harness source preview --to v2.0 --json\n"
               "  alice-harness source apply --digest 3f2a...\n")
    verbs = group.add_subparsers(dest="source_verb", metavar="VERB", required=True)

    p = add_verb(verbs, "preview", cmd_preview, common=common,
                 help="fetch the target commit, validate its harness.json, check mergeability (changes nothing)",
                 description="Fetch REF (a branch, tag or commit of the recorded repository; default: its "
                             "default branch), validate its harness.json, and compute the merge with 'git "
                             "merge-tree --write-tree' without touching the work tree, the index or HEAD. Prints "
                             "the conflicting paths, what the merge would touch, what blocks it (local changes "
                             "on those paths, staged changes, a live run, a running Studio) and the digest "
                             "'source apply' needs. Exit 0 whatever the verdict.",
                 examples="  alice-harness source preview\n  alice-harness source preview --to v2.0\n"
                          "  alice-harness source preview --workspace aq --json")
    workspace_option(p)
    p.add_argument("--to", metavar="REF", help="the branch, tag or commit to upgrade to (default: the "
                                               "repository's default branch)")

    p = add_verb(verbs, "apply", cmd_apply, common=common,
                 help="merge exactly the previewed commit (--digest D) as a --no-ff merge commit",
                 description="Requires no live run, no running Studio (and holds the Studio operation lease, so "
                             "none starts meanwhile), the workspace checkout lease, no staged changes and a clean "
                             "work tree for every path the merge touches. A stale digest is exit 2 stale_plan; a "
                             "conflict, or a failing hook, aborts the merge: work tree, index and HEAD stay as "
                             "they were.",
                 examples="  alice-harness source apply --digest 3f2a...\n"
                          "  alice-harness source apply --workspace aq --digest 3f2a... --json")
    workspace_option(p)
    p.add_argument("--digest", metavar="D", required=True, help="the digest 'source preview' printed")


def _preview_text(p: dict) -> str:
    lines = [f"{p['workspaceId']}: {p['template']} {p['fromVersion']} ({p['fromCommit'][:12]}) -> "
             f"{p['toVersion']} ({p['commit'][:12]}"
             + (f", {p['ref']}" if p.get("ref") else "") + f") from {p['repository']}: {p['status']}"]
    if p["status"] != "current":
        lines.append(f"  mergeable: {'yes' if p['mergeable'] else 'no'}; {len(p['touchedPaths'])} paths touched")
        lines += [f"  conflict   {path}" for path in p["conflicts"]]
        lines += [f"  touches    {path}" for path in p["touchedPaths"][:50]]
        if len(p["touchedPaths"]) > 50:
            lines.append(f"  ... and {len(p['touchedPaths']) - 50} more")
        lines += [f"  blocked: {b['message']}" for b in p["blockers"]]
    lines.append(f"  digest: {p['digest']}")
    if p.get("nextCommand"):
        lines.append(f"  apply with: {p['nextCommand']}")
    return "\n".join(lines)


def _document(action: str, plan, applied=None) -> dict:
    data = {"ok": True, "action": action, "preview": plan.to_json()}
    if plan.recovered:
        data["recovered"] = plan.recovered
    if applied is not None:
        data["result"] = {"commit": applied.commit, "changedPaths": applied.changed}
    return data


def cmd_preview(args, ctx: Context) -> int:
    from openalice import workspaces  # lazy: per verb, so start-up and --help load no domain module
    from openalice.studio import source  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    plan = source.preview(ws, to=args.to, now=ctx.now())
    ctx.emit(_document("preview", plan), lambda d: _preview_text(d["preview"]))
    return 0


def cmd_apply(args, ctx: Context) -> int:
    from openalice import workspaces  # lazy: per verb, so start-up and --help load no domain module
    from openalice.studio import source  # lazy: per verb, so start-up and --help load no domain module

    ws = workspaces.resolve(args.workspace)
    plan, applied = source.apply(ws, digest=args.digest, now=ctx.now())
    data = _document("noop" if applied is None else "applied", plan, applied)

    def human(d: dict) -> str:
        p = d["preview"]
        if d["action"] == "noop":
            return f"{ws.id}: already has {p['commit'][:12]} ({p['toVersion']})"
        r = d["result"]
        return (f"{ws.id}: merged {p['template']} {p['fromVersion']} -> {p['toVersion']} ({p['commit'][:12]}): "
                f"{len(r['changedPaths'])} paths changed\n  commit {r['commit']}")

    ctx.emit(data, human)
    return 0
