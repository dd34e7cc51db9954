"""``alice-harness status``: versions, drift, pending updates and config
problems of a workspace's harness files; the same facts feed ``alice doctor``.

Nothing is planned or written beyond the recovery of an interrupted
transaction (which every harness command does first); ``recover=False``
(doctor) changes nothing at all.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from openalice import managed
from openalice.agents import shims
from openalice.core.errors import AliceError
from openalice.workspaces.skills import SKILL_MIRROR, SKILL_PRIMARY

from . import bundle as bundles
from . import following, state
from .recovery import git_locks
from .upgrade import (
    Scope,
    harness_store,
    load_config,
    make_preview,
    recover_workspace,
    template_store,
)

__all__ = ["status", "health"]


def _drift(root: Path, store: managed.Store) -> list[dict]:
    """Managed files that no longer hold what was applied, and copies that differ."""
    out = []
    try:
        baseline = store.baseline()
    except AliceError as err:
        return [{"path": store.state_dir, "kind": "unreadable", "detail": str(err)}]
    for rel in sorted(baseline):
        local = managed.inspect(root, rel)
        if local.fingerprint == baseline[rel].fingerprint:
            continue
        kind = {"missing": "deleted", "other": "unsafe"}.get(local.kind, "modified")
        entry = {"path": rel, "kind": kind}
        if local.kind == "other":
            entry["detail"] = local.detail
        out.append(entry)
    for primary, copy in ((SKILL_PRIMARY, SKILL_MIRROR), ("AGENTS.md", "CLAUDE.md")):
        for rel in sorted(baseline):
            if rel == primary or (primary.endswith("/") and rel.startswith(primary)):
                mirror = copy + rel[len(primary):] if primary.endswith("/") else copy
                a, b = managed.inspect(root, rel), managed.inspect(root, mirror)
                if a.fingerprint != b.fingerprint:
                    out.append({"path": mirror, "kind": "copy-differs", "detail": f"differs from {rel}"})
    return out


def _lock_problem(lock: Path, root: Path, *, recovered: bool) -> str:
    """A git lock file blocks every upgrade that commits (``git_locked``)."""
    name = os.path.relpath(lock, root) if str(lock).startswith(str(root) + os.sep) else str(lock)
    if recovered:   # recovery just removed the stale ones: a live git holds this one, or no proof here
        return (f"git lock file {name} exists: a git process is working in the repository (or the lock "
                f"cannot be proven stale here); upgrades that commit refuse (git_locked) until it is gone: "
                f"remove it once no git runs there")
    return (f"git lock file {name} exists: upgrades that commit refuse (git_locked) while it does; "
            "'alice-harness status' or the next upgrade removes it when no git holds it (a killed git "
            "left it), else remove it once no git runs there")


def status(ws, *, bundle_dir=None, now: datetime, recover: bool = True) -> dict:
    """One workspace's harness status (never raises for what it reports; a missing or malformed
    bundle is bad input, as for ``upgrade``: InvalidInput naming the file and field, exit 2)."""
    root = Path(ws.path)
    bundle_error = None
    try:
        selected = following.select(root, bundle_dir)
    except AliceError as err:
        if bundle_dir is not None or os.environ.get(bundles.BUNDLE_ENV):
            raise   # a bundle named by flag or environment that cannot be read is bad input (exit 2)
        selected, bundle_error = None, err   # the followed bundle is gone: a problem to report
    bundle = selected.bundle if selected is not None else None
    doc: dict = {"workspaceId": ws.id, "path": ws.path, "template": ws.template, "available": True,
                 "problems": [], "upToDate": False}
    problems: list[str] = doc["problems"]
    if not (root / ".alice").is_dir():
        doc["available"] = False
        problems.append(f"{root} (or its .alice/) is missing")
        return doc
    recovered: list[str] = []   # reported, but no longer a reason for attention: it is done
    if recover:
        try:
            for result in recover_workspace(ws, now=now, wait=5.0):
                recovered.append(f"removed git lock files a killed git left: {', '.join(result.paths)}"
                                 if result.outcome == "git_lock_removed" else
                                 f"recovered an interrupted {result.owner} transaction ({result.outcome})")
        except AliceError as err:
            problems.append(f"interrupted transaction not recovered: {err}")
    for lock in git_locks(root):
        problems.append(_lock_problem(lock, root, recovered=recover))
    pending = [s.state_dir for s in (harness_store(root), template_store(root)) if s.journal_path.exists()]
    doc["transaction"] = {"pending": pending}
    if pending:
        problems.append("an interrupted upgrade is pending (the next harness command recovers it)")

    if bundle_error is not None:
        problems.append(f"bundle: {bundle_error}")
    config_doc = {"file": str(root / ".alice" / "alice-harness-config.json"), "ok": True, "problems": []}
    try:
        cfg = load_config(root)
        config_doc["exists"] = cfg.exists
    except AliceError as err:
        config_doc.update(ok=False, problems=[str(err)])
        problems.append(f"config: {err}")
        cfg = None
    doc["config"] = config_doc
    try:
        version = state.read_version(root)
    except AliceError as err:
        problems.append(f"version file: {err}")
        version = None
    try:
        tstate = state.read_template_state(root)
    except AliceError as err:
        problems.append(f"template state: {err}")
        tstate = None
    shim_problems = shims.problems(root)
    doc["shims"] = {"ok": not shim_problems, "problems": shim_problems}
    doc["drift"] = _drift(root, harness_store(root)) + _drift(root, template_store(root))

    if version is not None:
        doc["applied"] = {"version": version["appliedVersion"], "revision": version["appliedRevision"],
                          "appliedAt": version["appliedAt"], "source": version["source"],
                          "bundle": version["bundle"], "commit": version.get("commit")}
    if bundle is not None:
        doc["bundle"] = {"source": bundle.source, "version": bundle.version, "revision": bundle.revision,
                         "reason": selected.reason}
        doc["follows"] = selected.follows
        template = bundle.templates.get(ws.template)
        if template is not None or tstate is not None:
            doc["guidance"] = {"template": ws.template,
                               "appliedVersion": tstate["appliedVersion"] if tstate else state.UNVERSIONED,
                               "availableVersion": template.version if template else None}
    pending_doc = {}
    if bundle is not None and cfg is not None and version is not None and not pending:
        skills = []
        bundled = set(bundle.templates[ws.template].bundled_skills) if ws.template in bundle.templates else set()
        names = sorted(set(bundle.skills) | set(version["skillVersions"]))
        for name in names:
            skill = bundle.skills.get(name)
            applied = version["skillVersions"].get(name)
            included = cfg.includes(name, bundled=name in bundled) if skill else bool(applied)
            if skill is None:
                state_name = "not-in-bundle"
            elif not included:
                state_name = "installed-but-excluded" if applied else "excluded"
            elif applied is None:
                state_name = "not-installed"
            elif applied["revision"] != skill.revision:
                state_name = "update-available"
            else:
                state_name = "current"
            skills.append({"name": name, "included": included, "state": state_name,
                           "appliedRevision": applied["revision"] if applied else None,
                           "availableRevision": skill.revision if skill else None})
        doc["skills"] = skills
        for key, scope in (("bundle", Scope("bundle")), ("guidance", Scope("template"))):
            if key == "guidance" and ws.template not in bundle.templates:
                continue
            try:
                result = make_preview(ws, root, scope, bundle, now, "upgrade")
            except AliceError as err:
                problems.append(f"{key} plan: {err}")
                continue
            summary = result.plan.summary()
            pending_doc[key] = {"status": result.status, "changes": len(result.plan.changes),
                                "conflicts": summary["conflicts"], "digest": result.digest}
    doc["pending"] = pending_doc
    doc["upToDate"] = (bool(pending_doc) and all(p["status"] == "current" for p in pending_doc.values())
                       and not problems and doc["shims"]["ok"])
    problems[:0] = recovered
    return doc


def health(ws, *, now: datetime) -> list[tuple[str, str]]:
    """Doctor findings ``(status, message)`` for one workspace: stale or
    drifted harness files, broken shims, a malformed config (read-only)."""
    try:
        doc = status(ws, now=now, recover=False)
    except AliceError as err:          # the bundle itself is malformed: say so, as for any other problem
        return [("attention", f"bundle: {err}")]
    out: list[tuple[str, str]] = []
    if not doc["available"]:
        return out
    for problem in doc["problems"]:
        out.append(("attention", problem))
    applied = doc.get("applied") or {}
    if applied.get("version") == state.UNVERSIONED and not doc.get("drift"):
        out.append(("attention", "harness files were never applied here (run 'alice-harness upgrade "
                                 f"--workspace {ws.id}')"))
    available = doc.get("bundle") or {}
    for key, label in (("bundle", "skills"), ("guidance", "guidance")):
        pending = doc.get("pending", {}).get(key)
        if pending and pending["status"] != "current":
            if pending["changes"] or pending["conflicts"]:
                what = (f"{pending['changes']} file{'s' if pending['changes'] != 1 else ''} to update"
                        + (f", {pending['conflicts']} conflict{'s' if pending['conflicts'] != 1 else ''}"
                           if pending["conflicts"] else ""))
            else:
                what = "a new version to record (no file changes)"
            flag = " --template" if key == "guidance" else ""
            if key == "bundle" and applied.get("bundle") not in (None, available.get("source")):
                # Compared with another bundle than the one applied last (asked for with
                # ALICE_HARNESS_BUNDLE): differing from it is not staleness.
                out.append(("info", f"skills come from bundle {applied['bundle']} ({applied['version']}); "
                                    f"{available.get('source')} ({available.get('version')}) differs: {what}"))
                continue
            out.append(("attention", f"{label} are stale: {what} (alice-harness upgrade --workspace {ws.id}"
                                     f"{flag})"))
    for problem in doc.get("shims", {}).get("problems", []):
        out.append(("attention", f"shim: {problem} (rewritten by the next headless run or "
                                 f"'alice-harness upgrade --apply')"))
    drift = doc.get("drift") or []
    if drift:
        shown = ", ".join(f"{d['path']} ({d['kind']})" for d in drift[:5])
        more = f" and {len(drift) - 5} more" if len(drift) > 5 else ""
        out.append(("info", f"harness files changed in the workspace (kept on upgrade): {shown}{more}"))
    if not out:
        out.append(("ok", f"harness {applied.get('version', '?')} current; guidance "
                          f"{(doc.get('guidance') or {}).get('appliedVersion', '?')}; shims ok"))
    return out

