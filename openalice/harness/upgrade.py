"""Harness and template upgrades through the managed engine.

Three scopes, one engine (:mod:`openalice.managed`), one checkout lease:

* ``bundle`` — every skill of the bundle, per the config: included skills go to
  ``.agents/skills/<s>/`` (mirrored byte for byte in ``.claude/skills/<s>/``),
  excluded ones are removed (local edits make that a conflict).  Allowed
  while runs are live.
* ``skill`` — one skill and one action: ``install`` (sets ``skills.<s>=true``),
  ``update``, ``remove`` (sets it false), ``restore`` (the bundle's bytes win
  over local edits).  Only that skill's files and the config are planned, and
  only that skill's version advances.
* ``template`` — the always-loaded guidance: ``AGENTS.md`` and ``CLAUDE.md``
  (byte-identical) from the template's ``instruction.md``.  Refused while a
  run of the workspace is live.

Preview computes the plan and its digest; apply (through the one ritual,
:func:`openalice.managed.apply_previewed`) takes the lease (busy: exit 3), recovers any interrupted transaction, re-plans, compares the digest
(``stale_plan``), refuses staged git changes (and live runs for templates),
then applies: files, a commit of exactly the touched paths with the digest
trailer, baseline and version state, a journal fact.

The parts: :mod:`.scopes` (what an upgrade covers, where its state is),
:mod:`.planning` (previews), :mod:`.recovery` (interrupted transactions), and
here, applying a preview and projecting a new workspace.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from openalice import managed
from openalice.agents import shims
from openalice.core import clock, git
from openalice.core.errors import Busy, Conflict
from openalice.workspaces.checkout import checkout
from openalice.workspaces.registry import available_root
from openalice.workspaces.skills import SKILL_MIRROR, SKILL_MIRRORS, SKILL_PRIMARY, skill_targets, skill_trees

from . import bundle as bundles
from . import following
from .planning import Preview, make_preview, preview, template_of
from .recovery import recover_workspace
from .scopes import (
    ACTIONS,
    GIT_EXCLUDES,
    GUIDANCE,
    OWNERS,
    TRAILERS,
    Scope,
    harness_store,
    load_config,
    scope_for,
    template_store,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Sequence

__all__ = ["Scope", "Preview", "scope_for", "preview", "apply", "recover_workspace", "project_new_workspace",
           "check_new_workspace",
           "harness_store", "template_store", "load_config", "SKILL_PRIMARY", "SKILL_MIRROR", "SKILL_MIRRORS",
           "skill_trees", "skill_targets", "GUIDANCE",
           "GIT_EXCLUDES", "ACTIONS", "TRAILERS"]


# -- applying ---------------------------------------------------------------------------------------

def apply(ws, *, scope: Scope, bundle_dir=None, digest: str | None = None, keep: Sequence[str] = (),
          use: Sequence[str] = (), now: datetime) -> tuple[Preview, managed.Applied | None]:
    """Apply ``scope`` to ``ws``; ``(preview, None)`` when it was already current."""
    root = available_root(ws)

    def plan() -> Preview:
        selected = following.select(root, bundle_dir)   # after recovery: the version file is settled
        result = make_preview(ws, root, scope, selected.bundle, now, "upgrade")
        result.selected = selected
        return result

    def settle(result: Preview) -> bool:
        for blocker in result.blockers:
            if blocker["code"] == "git_locked":
                git.require_unlocked(root, "commit")      # GitLocked (exit 3) naming the lock file
            cls = Busy if blocker["code"] in ("live_run", "git_locked") else Conflict
            raise cls(blocker["message"], code=blocker["code"])
        if result.status == "current" and not keep and not use:
            shims.ensure(root)
            return True
        return False

    def fact(result: Preview, applied: managed.Applied) -> tuple[str, dict]:
        payload = {"workspaceId": ws.id, "scope": scope.kind, "fromVersion": result.from_version,
                   "toVersion": result.to_version, "digest": result.digest, "changed": len(applied.changed),
                   "kept": len(applied.kept)}
        if scope.skill:
            payload.update(skill=scope.skill, action=scope.action)
        if applied.commit:
            payload["commit"] = applied.commit
        return "harness.upgraded", payload

    return managed.apply_previewed(
        ws, purpose=f"alice-harness upgrade ({scope.kind})", digest=digest, now=now,
        resolutions={"--keep-workspace": keep, "--use-template": use},
        recover=lambda: recover_workspace(ws, now=now, lease_held=True), plan=plan, settle=settle,
        apply=lambda result: _apply_preview(result, root, keep=keep, use=use, now=now, unresolved="refuse"),
        fact=fact)


def _apply_preview(result: Preview, root: Path, *, keep, use, now, unresolved: str,
                   commit: bool = True) -> managed.Applied:
    if git.work_tree(root) is not None:
        git.ensure_excluded(root, GIT_EXCLUDES)
    spec = managed.Commit(result.subject, TRAILERS[result.scope.owner]) if commit else None
    applied = managed.apply_plan(result.plan, result.store, keep=keep, use=use, unresolved=unresolved,
                                 commit=spec, state={result.state_path: result.state_doc},
                                 owner=OWNERS[result.scope.owner],
                                 meta={"scope": result.scope.to_json(), "toVersion": result.to_version},
                                 now=now)
    shims.ensure(root)
    return applied


# -- a new workspace --------------------------------------------------------------------------------

def check_new_workspace(template: str) -> None:
    """The ``INIT_CHECKS`` entry: the bundle a new workspace's guidance and skills come from
    must load (a malformed ``alice-harness.json`` or ``template.json`` is exit 2 naming the
    file and field) before init writes anything."""
    bundles.load()


def project_new_workspace(ws, created: bool) -> list[str]:
    """The ``INIT_PROJECTORS`` entry: guidance, skills and shims for a new
    workspace.  Nothing personal is overwritten: a file already there with
    other content is left alone and reported (the next upgrade shows it as a
    conflict).  Returns notes for the person."""
    if not created:
        return []
    now = clock.parse_instant(ws.createdAt)
    root = available_root(ws)
    bundle = bundles.load()
    notes: list[str] = []
    with checkout(ws, "alice workspace init", now=now):
        if git.work_tree(root) is not None:
            git.ensure_excluded(root, GIT_EXCLUDES)
        for scope in (Scope("template"), Scope("bundle")):
            if scope.kind == "template" and template_of(ws, bundle) is None:
                continue
            result = make_preview(ws, root, scope, bundle, now, "creation")
            _apply_preview(result, root, keep=(), use=(), now=now, unresolved="skip", commit=False)
            for item in result.plan.conflicts:
                notes.append(f"{item.path} already exists and differs from the {scope.kind}'s; left as it is "
                             f"(review with 'alice-harness upgrade"
                             f"{' --template' if scope.kind == 'template' else ''}')")
    shims.ensure(root)
    return notes
