"""A sticker pack in a workspace: projection, ownership, transactions, recovery.

What the projection writes, and nothing else::

    sticker/<file>                                 the pack's images, flat, bytes as shipped
    .agents/skills/alice-stickers/SKILL.md         generated: one line per sticker, one sticker per reply
    .claude/skills/alice-stickers/SKILL.md         its byte-identical mirror
    .alice/stickers.json                           ownership: {schemaVersion, enabled, packId, revision,
                                                   files: {path: sha256}}
    .alice/sticker-transaction.json                the journal while an apply is in flight

The plan is :mod:`openalice.managed`'s (base = what ``stickers.json`` says
the projection wrote, local = the workspace now, incoming = the selected
pack), with ``merge=False``: a file changed here is never merged.

* A file the projection does not own (not in ``stickers.json``) where the pack
  puts one **always blocks**, even with ``--restore``; move it away first.
  The same bytes are simply adopted.
* An owned file changed here is kept (``preserved``) while the pack leaves it
  alone; when the pack changes or drops it, it is a conflict that needs
  ``--restore`` (the pack's bytes win, or the file goes) or ``--keep PATH``
  (yours stays, and is no longer owned if the pack dropped it).
* Personal files in ``sticker/`` are never touched: not on a switch, not on
  disable.  ``disable`` removes the skill and keeps the images.
* Every directory on the way (``sticker``, ``.agents/skills/alice-stickers``
  and its mirror, ``.alice``) is ``lstat``-checked first: a symlink is refused
  (``symlink_refused``), and the engine never writes through one.

Apply (the one ritual, :func:`openalice.managed.apply_previewed`) takes the
workspace checkout lease, recovers an interrupted apply,
re-plans, compares the preview's digest, then runs the engine's journaled
transaction (:class:`openalice.managed.JournalFile`): the recovery after a
crash puts every touched file back as it was, and refuses — touching nothing —
when a file holds neither the bytes from before nor the ones the apply wrote.
Harness upgrades never plan these paths (``alice-stickers`` is a reserved
skill name for bundles).

The ownership state and its checks are :mod:`.ownership`; ``status`` is
:mod:`.report`.
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

from openalice import journal, managed
from openalice.core import clock, git
from openalice.core.errors import Conflict, UsageError
from openalice.core.records import field, record_class
from openalice.harness.recovery import clear_git_locks
from openalice.workspaces.checkout import checkout
from openalice.workspaces.registry import available_root
from openalice.workspaces.skills import SKILL_MIRRORS, primary_of, skill_targets

from . import library
from . import pack as packs
from .ownership import (
    ACTIONS,
    GIT_EXCLUDES,
    JOURNAL_FILE,
    OWNER,
    RECOVERY_WAIT,
    SKILL_FILES,
    SKILL_TREES,
    STATE_FILE,
    STATE_VERSION,
    STICKER_DIR,
    check_layout,
    journal_store,
    read_state,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any, Sequence

__all__ = ["STATE_FILE", "JOURNAL_FILE", "STICKER_DIR", "SKILL_FILES", "OWNER", "ACTIONS", "Preview",
           "read_state", "journal_store", "check_layout", "preview", "apply", "recover_workspace",
           "project_new_workspace"]


# -- recovery ---------------------------------------------------------------------------------------

def recover_workspace(ws, *, now: datetime, wait: float = RECOVERY_WAIT, lease_held: bool = False
                      ) -> list[managed.Recovery]:
    """Finish or undo an interrupted sticker apply of ``ws`` (under its checkout lease)."""
    store = journal_store(available_root(ws))
    return managed.recover_pending(ws, purpose="alice-harness stickers recovery", now=now, wait=wait,
                                   lease_held=lease_held, pending=os.path.lexists(store.journal_path),
                                   recover=lambda: _recover(ws, store, now))


def _recover(ws, store: managed.JournalFile, now: datetime) -> list[managed.Recovery]:
    check_layout(store.root)
    result = managed.recover(store)
    if result is None:
        return []
    journal.record("stickers.recovered", {"workspaceId": ws.id, "outcome": result.outcome, "digest": result.digest,
                                          "paths": len(result.paths)}, now=now)
    return [result]


# -- planning ---------------------------------------------------------------------------------------

@record_class
class Preview:
    ws: Any
    action: str                     # "enable" | "disable"
    pack: packs.Pack | None         # the selected pack (enable)
    state: dict | None              # .alice/stickers.json before
    restore: bool
    plan: managed.Plan
    status: str                     # current | ready | needs_restore | blocked
    recovered: list = field(default_factory=list)

    @property
    def digest(self) -> str:
        return self.plan.digest

    def owned(self, item: managed.Item) -> bool:
        return any(loc in self.plan.baseline for loc in item.locations)

    @property
    def blocking(self) -> list[managed.Item]:
        """Conflicts nothing but moving a file resolves: files of your own, non-regular entries."""
        return [i for i in self.plan.conflicts if not self.owned(i) or not i.can_use_template]

    @property
    def needs_restore(self) -> list[managed.Item]:
        return [i for i in self.plan.conflicts if self.owned(i) and i.can_use_template]

    def state_docs(self, baseline: dict) -> dict:
        """``.alice/stickers.json`` after the apply, from the engine's next baseline."""
        files = {rel: e.fingerprint[len("file:"):] for rel, e in sorted(baseline.items()) if e.kind == "file"}
        pack_id = self.pack.id if self.pack else self.state["packId"]
        revision = self.pack.revision if self.pack else self.state["revision"]
        return {STATE_FILE: {"schemaVersion": STATE_VERSION, "enabled": self.action == "enable",
                             "packId": pack_id, "revision": revision, "files": files}}

    def next_command(self) -> str | None:
        if self.status in ("current", "blocked"):
            return None
        base = f"alice-harness stickers {self.action} --workspace {self.ws.id}"
        if self.action == "enable" and self.pack is not None:
            base += f" --pack {self.pack.id}"
        if self.restore:
            base += " --restore"
        keeps = "".join(f" --keep {i.path}" for i in self.needs_restore)
        return f"{base}{' --apply' if self.action == 'enable' else ''} --digest {self.digest}{keeps}"

    def _reason(self, item: managed.Item) -> str:
        odd = next((l.detail for l in item.local if l.kind == "other"), None)
        skill = item.path in SKILL_FILES
        if item.status == "conflict":
            if odd is not None:
                return f"not a regular file ({odd}); move it away first"
            if not self.owned(item):
                return ("a file of your own is where the pack puts one (the sticker projection does not own "
                        "it); move it away first")
            if item.incoming.kind == "missing":
                return "changed here and no longer in the pack; --restore removes it, --keep keeps it as yours"
            return "changed here; --restore replaces it with the pack's, --keep keeps yours"
        if item.status == "preserved":
            if all(l.kind == "missing" for l in item.local):
                return "deleted here (stays deleted; --restore puts it back)"
            if not self.owned(item) and item.incoming.kind == "missing":
                return "a file of your own (never touched)"
            return "changed here (kept; --restore puts the pack's back)"
        if item.forced and any(l.fingerprint != b.fingerprint for l, b in zip(item.local, item.base)):
            return "restored from the pack" if item.incoming.kind == "file" else "removed (--restore)"
        if item.operation == "add":
            return "the generated skill" if skill else "new"
        if item.operation == "remove":
            return "the skill goes (stickers disabled)" if skill else "not in the selected pack"
        if item.status == "ready" and all(l.fingerprint == item.incoming.fingerprint for l in item.local[:1]):
            return "a copy is out of date"
        return "regenerated for the pack" if skill else "changed in the pack"

    def _item(self, item: managed.Item) -> dict:
        out = {"path": item.path, "status": item.status, "operation": item.operation, "reason": self._reason(item)}
        if item.copies:
            out["copies"] = list(item.copies)
        if item.status == "conflict":
            out["owned"] = self.owned(item)
            out["resolve"] = "restore" if item in self.needs_restore else "move-away"
        return out

    def to_json(self) -> dict:
        plan = self.plan
        before = None
        if self.state is not None:
            before = {k: self.state[k] for k in ("enabled", "packId", "revision")}
        after = {"enabled": self.action == "enable",
                 "packId": self.pack.id if self.pack else (self.state or {}).get("packId"),
                 "revision": self.pack.revision if self.pack else (self.state or {}).get("revision")}
        if self.pack is not None:
            after.update(name=self.pack.name, version=self.pack.version, stickers=len(self.pack.stickers))
        return {"status": self.status, "workspaceId": self.ws.id, "workspace": self.ws.path, "action": self.action,
                "restore": self.restore, "from": before, "to": after, "digest": self.digest,
                "summary": plan.summary(),
                "changes": [self._item(i) for i in plan.changes],
                "preserved": [self._item(i) for i in plan.items if i.status == "preserved" and not i.writes],
                "conflicts": [self._item(i) for i in plan.conflicts],
                "nextCommand": self.next_command()}


def _make_preview(ws, root: Path, action: str, pack_id: str | None, restore: bool) -> Preview:
    if action not in ACTIONS:
        raise UsageError(f"unknown action {action!r}", code="usage")
    check_layout(root)
    state = read_state(root)
    baseline = {rel: managed.hashed_entry(sha) for rel, sha in (state or {"files": {}})["files"].items()}
    pack = None
    targets: dict[str, Any] = {}
    scope = list(SKILL_TREES)
    if action == "enable":
        pack = library.get(pack_id or (state["packId"] if state else library.DEFAULT_PACK))
        targets = {f"{STICKER_DIR}/{s.file}": managed.Entry("file", "file:" + s.sha256, s.data)
                   for s in pack.stickers}
        targets.update(skill_targets(packs.SKILL_NAME, {"SKILL.md": pack.skill}))
        scope.insert(0, STICKER_DIR + "/")
    force = sorted({primary_of(rel) for rel in baseline if managed.within(rel, scope)}) if restore else []
    identity = {"workspaceId": ws.id, "owner": OWNER, "action": action, "restore": restore,
                "packId": pack.id if pack else None, "revision": pack.revision if pack else None,
                "from": None if state is None else {k: state[k] for k in ("enabled", "packId", "revision")}}
    plan = managed.make_plan(root, targets=targets, baseline=baseline, scope=scope, mirrors=SKILL_MIRRORS,
                             force=force, identity=identity, merge=False)
    result = Preview(ws=ws, action=action, pack=pack, state=state, restore=restore, plan=plan, status="ready")
    same = (state is None and action == "disable") or (
        state is not None and state["enabled"] == (action == "enable")
        and (pack is None or (state["packId"] == pack.id and state["revision"] == pack.revision)))
    if result.blocking:
        result.status = "blocked"
    elif result.needs_restore:
        result.status = "needs_restore"
    elif plan.current and same:
        result.status = "current"
    return result


def preview(ws, *, action: str = "enable", pack_id: str | None = None, restore: bool = False,
            now: datetime) -> Preview:
    """Recover if needed, then plan ``action`` for ``ws`` (nothing else is written)."""
    root = available_root(ws)
    recovered = recover_workspace(ws, now=now)
    result = _make_preview(ws, root, action, pack_id, restore)
    result.recovered = recovered
    return result


def _listing(result: Preview, items: list) -> str:
    if len(items) == 1:
        return f"cannot apply: {result._reason(items[0])}"
    return "cannot apply: " + "; ".join(f"{i.path}: {result._reason(i)}" for i in items)


def _refuse_conflicts(result: Preview, keep: Sequence[str]) -> None:
    if result.blocking:
        raise Conflict(_listing(result, result.blocking), field=result.blocking[0].path, code="unowned_file",
                       details={"paths": [i.path for i in result.blocking],
                                "hint": "move these files out of the way (or rename them), then apply again"})
    kept = set(keep)
    left = [i for i in result.needs_restore if not kept & set(i.locations)]
    if left:
        raise Conflict(_listing(result, left), field=left[0].path, code="restore_required",
                       details={"paths": [i.path for i in left],
                                "hint": "add --restore to take the pack's files, or --keep PATH for each file "
                                        "to keep yours"})


def _apply_preview(result: Preview, root: Path, *, keep: Sequence[str], now: datetime) -> managed.Applied:
    if git.work_tree(root) is not None:
        git.ensure_excluded(root, GIT_EXCLUDES)
    meta = {"action": result.action, "packId": result.pack.id if result.pack else result.state["packId"],
            "revision": result.pack.revision if result.pack else result.state["revision"]}
    return managed.apply_plan(result.plan, journal_store(root), keep=keep, state=result.state_docs, owner=OWNER,
                              meta=meta, now=now, prune_within=result.plan.scope)


def apply(ws, *, action: str = "enable", pack_id: str | None = None, restore: bool = False,
          digest: str | None = None, keep: Sequence[str] = (), now: datetime
          ) -> tuple[Preview, managed.Applied | None]:
    """Apply ``action`` to ``ws``; ``(preview, None)`` when it was already current."""
    root = available_root(ws)

    def recover() -> list[managed.Recovery]:
        # git's locks a killed commit (a harness upgrade's) left: removed here too, under the same proof
        recovered = clear_git_locks(ws, root, owner=OWNER, now=now, held_since=time.time())
        return recovered + recover_workspace(ws, now=now, lease_held=True)

    def settle(result: Preview) -> bool:
        _refuse_conflicts(result, keep)
        return result.status == "current" and not keep

    def fact(result: Preview, applied: managed.Applied) -> tuple[str, dict]:
        meta = result.state_docs(applied.baseline)[STATE_FILE]
        return "stickers.applied", {"workspaceId": ws.id, "action": action, "packId": meta["packId"],
                                    "revision": meta["revision"],
                                    "fromRevision": result.state["revision"] if result.state else None,
                                    "digest": result.digest, "changed": len(applied.changed),
                                    "kept": len(applied.kept)}

    return managed.apply_previewed(
        ws, purpose=f"alice-harness stickers {action}", digest=digest, now=now, resolutions={"--keep": keep},
        recover=recover, plan=lambda: _make_preview(ws, root, action, pack_id, restore), settle=settle,
        apply=lambda result: _apply_preview(result, root, keep=keep, now=now), fact=fact)


# -- a new workspace --------------------------------------------------------------------------------

def project_new_workspace(ws, created: bool) -> list[str]:
    """The ``INIT_PROJECTORS`` entry: a new ``chat`` workspace gets the default
    pack (other templates get no stickers).  Nothing already there is
    overwritten: when a file stands in the way, stickers are left disabled and
    the note says how to enable them."""
    if not created or ws.template != "chat":
        return []
    now = clock.parse_instant(ws.createdAt)
    root = available_root(ws)
    with checkout(ws, "alice workspace init (stickers)", now=now):
        result = _make_preview(ws, root, "enable", library.DEFAULT_PACK, False)
        if result.status != "ready":
            paths = ", ".join(i.path for i in result.plan.conflicts) or "nothing to do"
            return [f"stickers not enabled ({paths} already there); see 'alice-harness stickers enable "
                    f"--workspace {ws.id}'"]
        _apply_preview(result, root, keep=(), now=now)
    return []
