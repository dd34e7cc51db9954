"""Upgrade previews: the plan of a scope against the workspace, its blockers and its digest."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from openalice import managed
from openalice.agents.shims import HARNESS_CONFIG
from openalice.core import clock, digests, fs, git
from openalice.core.errors import Conflict
from openalice.core.records import field, record_class
from openalice.workspaces.registry import available_root
from openalice.workspaces.skills import SKILL_MIRRORS, mirror_of, skill_targets, skill_trees

from . import bundle as bundles
from . import config as configs
from . import following, state
from .recovery import recover_workspace
from .scopes import (
    GUIDANCE,
    OWNERS,
    Scope,
    harness_store,
    load_config,
    template_store,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


@record_class
class Preview:
    ws: Any
    scope: Scope
    bundle: bundles.Bundle
    plan: managed.Plan
    status: str                    # blocked | current | needs_resolution | ready
    blockers: list[dict]
    live_runs: int
    from_version: str
    to_version: str
    from_revision: str | None
    to_revision: str | None
    state_path: str
    state_doc: dict
    subject: str
    notes: list[str] = field(default_factory=list)
    recovered: list[managed.Recovery] = field(default_factory=list)
    selected: Any = None           # following.Selected: the bundle compared with, and why

    @property
    def digest(self) -> str:
        return self.plan.digest

    @property
    def store(self) -> managed.Store:
        root = Path(self.ws.path)
        return template_store(root) if self.scope.kind == "template" else harness_store(root)

    def next_command(self) -> str | None:
        if self.status in ("current", "blocked"):
            return None
        base = f"alice-harness upgrade --workspace {self.ws.id}"
        if self.scope.kind == "template":
            base += " --template"
        elif self.scope.kind == "skill":
            base += f" --skill {self.scope.skill} --action {self.scope.action}"
        if self.selected is not None and self.selected.reason in ("flag", "env"):
            base += f" --bundle {self.bundle.source}"   # (followed or shipped: found again without it)
        resolutions = "".join(f" --keep-workspace {i.path}" for i in self.plan.conflicts)
        return f"{base} --apply --digest {self.digest}{resolutions}"

    def to_json(self) -> dict:
        plan = self.plan
        out = {"status": self.status, "workspaceId": self.ws.id, "workspace": self.ws.path,
               "scope": self.scope.to_json(), "bundle": self.bundle.source,
               "fromVersion": self.from_version, "toVersion": self.to_version,
               "fromRevision": self.from_revision, "toRevision": self.to_revision,
               "digest": self.digest, "summary": plan.summary(), "blockers": self.blockers,
               "activity": {"liveRuns": self.live_runs},
               "changes": [i.to_json() for i in plan.changes],
               "preserved": [i.to_json() for i in plan.items if i.status == "preserved" and not i.writes],
               "conflicts": [i.to_json() for i in plan.conflicts],
               "notes": list(self.notes), "nextCommand": self.next_command()}
        if self.selected is not None:
            out["comparedWith"] = self.selected.compared_with()
            out["follows"] = self.selected.follows
        return out


def _skill_targets(skill: bundles.Skill) -> dict[str, bytes]:
    return skill_targets(skill.name, skill.files)


def template_of(ws, bundle: bundles.Bundle) -> bundles.Template | None:
    return bundle.templates.get(ws.template)


def _config_bytes(cfg: configs.Config) -> bytes:
    return fs.dump_json(cfg.document()).encode("utf-8")


def _fingerprint(path: Path) -> str:
    try:
        return "file:" + digests.sha256_hex(path.read_bytes())
    except FileNotFoundError:
        return "missing"


def _skill_version(skill: bundles.Skill, bundle: bundles.Bundle, now: datetime, old: dict | None) -> dict:
    if old and old.get("revision") == skill.revision and old.get("bundle") == bundle.source:
        return old
    return {"version": skill.version, "revision": skill.revision, "appliedAt": clock.to_iso(now),
            "bundle": bundle.source}


def _bundle_plan(ws, root: Path, bundle, cfg, version: dict, baseline, now, source: str):
    template = template_of(ws, bundle)
    bundled = set(template.bundled_skills) if template else set()
    notes = [f"config skills.{name}: the bundle has no such skill (ignored)"
             for name in sorted(cfg.skills) if name not in bundle.skills]
    owned = set(bundle.skills) | {name for name, entry in version["skillVersions"].items()
                                  if entry.get("bundle") == bundle.source}
    targets: dict[str, bytes] = {}
    included = []
    for name in sorted(bundle.skills):
        if cfg.includes(name, bundled=name in bundled):
            targets.update(_skill_targets(bundle.skills[name]))
            included.append(name)
    trees = [t for name in sorted(owned) for t in skill_trees(name)]
    identity = {"workspaceId": ws.id, "owner": OWNERS["harness"], "scope": "bundle", "bundle": bundle.source,
                "fromVersion": version["appliedVersion"], "toVersion": bundle.version,
                "toRevision": bundle.revision, "config": _fingerprint(root / HARNESS_CONFIG),
                "included": included}
    plan = managed.make_plan(root, targets=targets, baseline=baseline, scope=trees, walk_trees=trees,
                             mirrors=SKILL_MIRRORS, identity=identity)
    skill_versions = {name: _skill_version(bundle.skills[name], bundle, now,
                                           version["skillVersions"].get(name)) for name in included}
    for name, entry in version["skillVersions"].items():
        if name not in owned:
            skill_versions[name] = entry   # another bundle's skill: left as it is
    doc = {"schemaVersion": 1, "template": "alice-harness", "appliedVersion": bundle.version,
           "appliedRevision": bundle.revision, "appliedAt": clock.to_iso(now), "source": source,
           "bundle": bundle.source, "skillVersions": dict(sorted(skill_versions.items())), "commit": None}
    subject = (f"harness: upgrade {version['appliedVersion']} -> {bundle.version}"
               if version["appliedVersion"] != bundle.version else f"harness: refresh {bundle.version}")
    return plan, doc, subject, notes


def _skill_plan(ws, root: Path, bundle, cfg, version: dict, baseline, scope: Scope, now):
    name, action = scope.skill, scope.action
    template = template_of(ws, bundle)
    bundled = name in (template.bundled_skills if template else ())
    skill = bundle.skill(name) if action != "remove" or name in bundle.skills else None
    if action == "remove" and name in configs.ALWAYS_INCLUDED:
        raise Conflict(f"{name} is always included and cannot be removed", field="--skill",
                       code="always_included")
    if action in ("update", "restore") and not cfg.includes(name, bundled=bundled):
        raise Conflict(f"skill {name!r} is not included in this workspace; use --action install",
                       field="--skill", code="skill_not_included")
    trees = skill_trees(name)
    targets: dict[str, bytes] = {}
    force: list[str] = []
    scope_paths = list(trees)
    if action in ("install", "remove"):
        skills = dict(cfg.skills)
        if name not in configs.ALWAYS_INCLUDED:
            skills[name] = action == "install"
        new_cfg = configs.Config(cfg.file, True, skills, cfg.cli)
        targets[HARNESS_CONFIG] = _config_bytes(new_cfg)
        scope_paths.append(HARNESS_CONFIG)
        force.append(HARNESS_CONFIG)
    if action != "remove":
        files = _skill_targets(skill)
        targets.update(files)
        if action == "restore":
            force.extend(files)
        elif action == "install":
            # Installing over a copy that is gone puts it back (in both places).
            force.extend(p for p in files if managed.inspect(root, p).kind == "missing"
                         or managed.inspect(root, mirror_of(p)).kind == "missing")
    identity = {"workspaceId": ws.id, "owner": OWNERS["harness"], "scope": "skill", "skill": name,
                "action": action, "bundle": bundle.source, "toRevision": skill.revision if skill else None,
                "config": _fingerprint(root / HARNESS_CONFIG)}
    plan = managed.make_plan(root, targets=targets, baseline=baseline, scope=scope_paths, walk_trees=trees,
                             mirrors=SKILL_MIRRORS, force=force, identity=identity)
    doc = {**version, "skillVersions": dict(version["skillVersions"])}
    if action == "remove":
        doc["skillVersions"].pop(name, None)
    else:
        doc["skillVersions"][name] = _skill_version(skill, bundle, now, None if action == "restore"
                                                    else version["skillVersions"].get(name))
    doc["skillVersions"] = dict(sorted(doc["skillVersions"].items()))
    if doc["appliedVersion"] == state.UNVERSIONED:
        doc["source"] = doc["source"] or "skill"
    doc["commit"] = None
    subject = f"skill({name}): {action} Project files"
    return plan, doc, subject


def _template_plan(ws, root: Path, bundle, tstate: dict | None, baseline, now, source: str):
    template = bundle.template(ws.template)
    targets = {"AGENTS.md": template.instruction} if template.inject_instructions else {}
    from_version = tstate["appliedVersion"] if tstate else state.UNVERSIONED
    identity = {"workspaceId": ws.id, "owner": OWNERS["template"], "template": template.name,
                "bundle": bundle.source, "fromVersion": from_version, "toVersion": template.version}
    plan = managed.make_plan(root, targets=targets, baseline=baseline, scope=list(GUIDANCE),
                             mirrors=[("AGENTS.md", "CLAUDE.md")], identity=identity)
    doc = {"schemaVersion": 1, "template": template.name, "appliedVersion": template.version,
           "appliedAt": clock.to_iso(now), "source": source, "bundle": bundle.source, "commit": None}
    subject = f"template({template.name}): upgrade {from_version} -> {template.version}"
    return plan, doc, subject, from_version, template.version


def _blockers(ws, root: Path, scope: Scope, live: int) -> list[dict]:
    out = []
    if git.work_tree(root) is not None:
        locks = git.lock_files(root)
        if locks:   # one a killed git left is gone by now (recovery): a live git holds this one
            out.append({"code": "git_locked",
                        "message": f"git's lock file {locks[0]} exists: a git process is working in the "
                                   "repository (or its lock cannot be proven stale here); the commit would "
                                   f"fail. Once no git runs there, remove {locks[0]} and upgrade again"})
        staged = git.staged_paths(root)
        if staged:
            out.append({"code": "staged_changes",
                        "message": f"the repository has {len(staged)} staged change"
                                   f"{'s' if len(staged) != 1 else ''} (commit or unstage them first)"})
    if scope.kind == "template" and live:
        out.append({"code": "live_run", "message": f"{live} run{'s' if live != 1 else ''} of this workspace "
                                                   "are live; template upgrades wait until they end"})
    return out


def _live_runs(ws) -> int:
    from openalice.runs import admission  # lazy: only an apply asks

    return len(admission.live_runs(ws.id))


def make_preview(ws, root: Path, scope: Scope, bundle, now: datetime, source: str) -> Preview:
    cfg = load_config(root)
    version = state.read_version(root)
    notes: list[str] = []
    if scope.kind == "template":
        tstate = state.read_template_state(root)
        store = template_store(root)
        plan, doc, subject, from_v, to_v = _template_plan(ws, root, bundle, tstate, store.baseline(), now, source)
        from_rev = to_rev = None
        state_path = state.TEMPLATE_STATE_FILE
        # The same guidance from another bundle directory is still current.
        up_to_date = tstate is not None and tstate["appliedVersion"] == to_v
    else:
        store = harness_store(root)
        if scope.kind == "bundle":
            plan, doc, subject, notes = _bundle_plan(ws, root, bundle, cfg, version, store.baseline(), now, source)
            from_v, to_v = version["appliedVersion"], bundle.version
            from_rev, to_rev = version["appliedRevision"], bundle.revision
            up_to_date = (version["appliedRevision"] == bundle.revision and version["bundle"] == bundle.source
                          and {k: v for k, v in version["skillVersions"].items()}
                          == {k: v for k, v in doc["skillVersions"].items()})
        else:
            plan, doc, subject = _skill_plan(ws, root, bundle, cfg, version, store.baseline(), scope, now)
            entry = version["skillVersions"].get(scope.skill)
            skill = bundle.skills.get(scope.skill)
            from_v = entry["version"] if entry else state.UNVERSIONED
            from_rev = entry["revision"] if entry else None
            to_v = skill.version if skill and scope.action != "remove" else state.UNVERSIONED
            to_rev = skill.revision if skill and scope.action != "remove" else None
            up_to_date = (entry or {}).get("revision") == to_rev and (
                scope.action != "remove" or entry is None)
        state_path = state.VERSION_FILE
    live = _live_runs(ws)
    blockers = _blockers(ws, root, scope, live)
    if blockers:
        status = "blocked"
    elif plan.conflicts:
        status = "needs_resolution"
    elif plan.current and up_to_date:
        status = "current"
    else:
        status = "ready"
    return Preview(ws=ws, scope=scope, bundle=bundle, plan=plan, status=status, blockers=blockers, live_runs=live,
                   from_version=from_v, to_version=to_v, from_revision=from_rev, to_revision=to_rev,
                   state_path=state_path, state_doc=doc, subject=subject, notes=notes)


def preview(ws, *, scope: Scope, bundle_dir=None, now: datetime) -> Preview:
    """Recover if needed, then plan ``scope`` for ``ws`` (nothing else is written)."""
    root = available_root(ws)
    recovered = recover_workspace(ws, now=now)
    selected = following.select(root, bundle_dir)
    result = make_preview(ws, root, scope, selected.bundle, now, "upgrade")
    result.recovered = recovered
    result.selected = selected
    return result
