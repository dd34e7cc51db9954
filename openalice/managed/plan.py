"""The three-way plan: base (what was applied last), local (what the
workspace holds now), incoming (what the owner wants there now).

    plan = make_plan(root, targets={"AGENTS.md": b"..."}, baseline=store.baseline(),
                     scope=("AGENTS.md", "CLAUDE.md"), mirrors=(("AGENTS.md", "CLAUDE.md"),),
                     identity={"workspaceId": "notes", "toVersion": "1.1.0"})

The decision for one file (by fingerprint, B = base, L = local, I = incoming):

=========================  ==========  =======================================
case                       status      operation
=========================  ==========  =======================================
L == I                     unchanged   none
L == B, I != B             ready       add (L missing) / remove (I missing) / update
L != B, I == B             preserved   keep (a local delete stays deleted)
both changed, text merges  merged      merge (diff3: the edits do not touch)
both changed otherwise     conflict    add / update / remove, once resolved
=========================  ==========  =======================================

A conflict is resolved with *keep workspace* (nothing written) or *use
template* (incoming written); use-template is refused when a location is not
a regular file (a symlink, a directory, an unsafe parent): the engine never
writes through one.  ``force`` makes the caller's content win over local
edits (an explicit restore), still never through a non-regular entry.

*Mirrors* are copies that must stay byte-identical (``AGENTS.md`` and
``CLAUDE.md``; ``.agents/skills/`` and ``.claude/skills/``): each logical file
is decided once from its locations.  A local edit made in just one copy is the
local side and is carried to the others (so is the copy there when another was
deleted: a missing copy follows); copies edited differently are a conflict.
Whatever a resolution keeps is written to every copy too.  Files found in the walked trees that neither side manages are
listed as preserved and never touched.

The digest is the sha256 of the canonical JSON of every input (identity,
scope, and each location's base/local/incoming fingerprints): an identical
workspace gives an identical digest, and any change since the preview gives
another one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from openalice.core import digests
from openalice.core.errors import InvalidInput
from openalice.core.records import field, record_class

from . import diff3
from .snapshot import MISSING, Entry, Roots, check_path, file_entry, inspect, walk

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Iterable, Mapping, Sequence

__all__ = ["Item", "Plan", "make_plan", "STATUSES", "logical_local"]

STATUSES = ("unchanged", "ready", "merged", "preserved", "conflict")


@record_class
class Item:
    """One logical managed file and what applying the plan does to it (a
    result record: treat as immutable)."""

    path: str
    copies: tuple[str, ...]
    status: str
    operation: str
    reason: str
    can_use_template: bool
    base: tuple[Entry, ...]
    local: tuple[Entry, ...]
    incoming: Entry
    result: Entry | None          # what written locations become (None: nothing planned)
    writes: tuple[str, ...]       # locations written when applied as planned
    forced: bool = False

    @property
    def locations(self) -> tuple[str, ...]:
        return (self.path, *self.copies)

    def to_json(self) -> dict:
        out = {"path": self.path, "status": self.status, "operation": self.operation, "reason": self.reason}
        if self.copies:
            out["copies"] = list(self.copies)
        if self.status == "conflict":
            out["canUseTemplate"] = self.can_use_template
        if self.writes and self.status != "conflict":
            out["writes"] = list(self.writes)
        return out


@record_class
class Plan:
    root: Path
    items: list[Item]
    scope: tuple[str, ...]
    identity: dict
    digest: str
    baseline: dict[str, Entry] = field(repr=False)

    def by_status(self, status: str) -> list[Item]:
        return [i for i in self.items if i.status == status]

    @property
    def conflicts(self) -> list[Item]:
        return self.by_status("conflict")

    @property
    def changes(self) -> list[Item]:
        """Items that write when applied as planned (ready, merged, copies synced)."""
        return [i for i in self.items if i.writes and i.status != "conflict"]

    def summary(self) -> dict:
        return {"ready": len(self.by_status("ready")), "merged": len(self.by_status("merged")),
                "preserved": len(self.by_status("preserved")), "conflicts": len(self.conflicts),
                "unchanged": len(self.by_status("unchanged"))}

    @property
    def current(self) -> bool:
        """Nothing to write and nothing to resolve."""
        return not self.changes and not self.conflicts


def _mirror_maps(mirrors: Sequence[tuple[str, str]]):
    def copies_of(path: str) -> tuple[str, ...]:
        out = []
        for primary, copy in mirrors:
            if path == primary:
                out.append(copy)
            elif primary.endswith("/") and path.startswith(primary):
                out.append(copy + path[len(primary):])
        return tuple(out)

    copy_prefixes = tuple(copy for _, copy in mirrors)

    def primary_of(path: str) -> str:
        if not path.startswith(copy_prefixes):
            return path
        for primary, copy in mirrors:
            if path == copy:
                return primary
            if copy.endswith("/") and path.startswith(copy):
                return primary + path[len(copy):]
        return path

    return copies_of, primary_of


def make_plan(root: os.PathLike | str, *, targets: Mapping[str, bytes | Entry], baseline: Mapping[str, Entry],
              scope: Iterable[str], walk_trees: Iterable[str] = (), mirrors: Sequence[tuple[str, str]] = (),
              force: Iterable[str] = (), identity: Mapping | None = None, merge: bool = True) -> Plan:
    """Decide every managed file in ``scope``.

    ``targets`` maps primary paths to the bytes they should hold (or to their
    :func:`~.snapshot.file_entry`, when the caller has hashed them already); a
    path in scope that the baseline knows but ``targets`` does not is to be
    removed.  ``walk_trees`` are searched for files nobody manages (listed as
    preserved).  ``merge=False`` makes every file changed on both sides a
    conflict (an owner whose files are not line-merged, or whose baseline
    holds only fingerprints).
    """
    root = Path(root)
    scope = tuple(sorted(set(scope)))
    for rel in scope:
        check_path(rel.rstrip("/"), field="scope")
    copies_of, primary_of = _mirror_maps(mirrors)
    forced = set(force)
    roots = Roots(scope)
    primaries: set[str] = set()
    for rel in targets:
        check_path(rel, field="targets")
        if not roots.contains(rel):
            raise InvalidInput(f"target {rel!r} is outside the plan's scope", field="targets",
                               code="bad_managed_path")
        primaries.add(rel)
    primaries.update(primary_of(p) for p in baseline if roots.contains(p))
    primaries.update(primary_of(p) for p in walk(root, walk_trees) if roots.contains(p))

    items: list[Item] = []
    safe_dirs: set = set()
    for primary in sorted(primaries):
        locations = (primary, *copies_of(primary))
        bases = tuple(baseline.get(loc, MISSING) for loc in locations)
        locals_ = tuple(inspect(root, loc, safe_dirs=safe_dirs) for loc in locations)
        target = targets.get(primary)
        incoming = target if isinstance(target, Entry) else file_entry(target)
        unmanaged = incoming.kind == "missing" and all(b.kind == "missing" for b in bases)
        if unmanaged and len(locations) > 1:
            # Files nobody manages: one preserved item per location that exists.
            for loc, local in zip(locations, locals_):
                if local.kind != "missing":
                    items.append(_decide(loc, (), (MISSING,), (local,), MISSING, False))
            continue
        if unmanaged and locals_[0].kind == "missing":
            continue
        items.append(_decide(primary, locations[1:], bases, locals_, incoming, primary in forced, merge))
    items.sort(key=lambda i: i.path)
    ident = dict(identity or {})
    digest = _digest(ident, scope, items)
    return Plan(root=root, items=items, scope=scope, identity=ident, digest=digest, baseline=dict(baseline))


def _digest(identity: dict, scope: tuple[str, ...], items: list[Item]) -> str:
    doc = {"identity": identity, "scope": list(scope),
           "items": [[i.path, list(i.copies), [b.fingerprint for b in i.base], [l.fingerprint for l in i.local],
                      i.incoming.fingerprint, i.forced] for i in items]}
    canonical = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return digests.sha256_hex(canonical.encode("utf-8"))


def _text(entry: Entry) -> str | None:
    if entry.kind != "file" or entry.content is None or b"\x00" in entry.content:
        return None
    try:
        return entry.content.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _logical_local(bases, locals_) -> Entry | None:
    """The local side of a mirrored file; None when its copies were edited differently.

    A copy that is missing while another is there is out of date, not an edit: it follows
    the copies that are there (an edited primary whose mirror was deleted is that edit, and
    apply writes it to the mirror).  Only every copy gone is a local deletion."""
    present = [(b, l) for b, l in zip(bases, locals_) if l.kind != "missing"]
    if not present or len({l.fingerprint for _, l in present}) == 1:
        return (present or list(zip(bases, locals_)))[0][1]
    edited = {l.fingerprint: l for b, l in present if l.fingerprint != b.fingerprint}
    if not edited:
        return present[0][1]
    if len(edited) == 1:
        only = next(iter(edited.values()))
        if only.kind == "file":
            return only
    return None


def logical_local(item: "Item", named: str | None = None) -> Entry:
    """What the workspace holds for ``item`` as one file: its local side, or for copies edited
    differently the copy at ``named`` (the location a resolution named; else the primary)."""
    local = _logical_local(item.base, item.local)
    if local is not None:
        return local
    locations = item.locations
    return item.local[locations.index(named) if named in locations else 0]


def _op_for(local: Entry, incoming: Entry) -> str:
    if incoming.kind == "missing":
        return "remove"
    return "add" if local.kind == "missing" else "update"


def _decide(path: str, copies: tuple[str, ...], bases: tuple[Entry, ...], locals_: tuple[Entry, ...],
            incoming: Entry, forced: bool, merge: bool = True) -> Item:
    if all(l.fingerprint == incoming.fingerprint for l in locals_):   # the common case, first
        return Item(path=path, copies=copies, status="unchanged", operation="none", reason="up to date",
                    can_use_template=True, base=bases, local=locals_, incoming=incoming, result=None,
                    writes=(), forced=forced)
    locations = (path, *copies)
    base = bases[0]
    can_template = all(l.regular for l in locals_)
    local = _logical_local(bases, locals_)

    def item(status, operation, reason, result=None, writes=()):
        return Item(path=path, copies=copies, status=status, operation=operation, reason=reason,
                    can_use_template=can_template, base=bases, local=locals_, incoming=incoming,
                    result=result, writes=tuple(writes), forced=forced)

    def differing(target: Entry) -> tuple[str, ...]:
        return tuple(loc for loc, l in zip(locations, locals_) if l.fingerprint != target.fingerprint)

    def odd_one() -> str:
        for loc, l in zip(locations, locals_):
            if not l.regular:
                return f"{loc}: {l.detail}"
        return ""

    if local is None:
        if forced and can_template:
            return item("ready", _op_for(locals_[0], incoming), "restored over differing copies",
                        incoming, differing(incoming))
        return item("conflict", _op_for(locals_[0], incoming),
                    "the copies were changed differently" + (f" ({odd_one()})" if not can_template else ""))
    if local.fingerprint == incoming.fingerprint:
        writes = differing(incoming)
        if not writes:
            return item("unchanged", "none", "up to date")
        return item("ready", "update" if incoming.kind == "file" else "remove", "a copy is out of date",
                    incoming, writes)
    if local.fingerprint == base.fingerprint and not forced:
        if not can_template:
            return item("conflict", _op_for(local, incoming), f"not a regular file ({odd_one()})")
        return item("ready", _op_for(local, incoming),
                    {"add": "new in the template", "remove": "removed from the template",
                     "update": "changed in the template"}[_op_for(local, incoming)],
                    incoming, differing(incoming))
    if forced:
        if not can_template:
            return item("conflict", _op_for(local, incoming), f"not a regular file ({odd_one()})")
        return item("ready", _op_for(local, incoming), "restored from the template", incoming,
                    differing(incoming))
    if incoming.fingerprint == base.fingerprint:
        if base.kind == "missing":
            reason = "not managed here (a workspace file)"
        elif local.kind == "missing":
            reason = "deleted in the workspace"
        elif local.kind == "other":
            reason = f"not a regular file ({odd_one()})"
        else:
            reason = "changed in the workspace"
        managed = base.kind != "missing" or incoming.kind != "missing"
        writes = differing(local) if managed and local.kind == "file" else ()
        return item("preserved", "keep", reason, local if writes else None, writes)
    # Both sides changed.
    if not can_template:
        return item("conflict", _op_for(local, incoming), f"not a regular file ({odd_one()})")
    base_text, local_text, incoming_text = (_text(base), _text(local), _text(incoming)) if merge else (None,) * 3
    if base_text is not None and local_text is not None and incoming_text is not None:
        merged = diff3.merge3(base_text, local_text, incoming_text)
        if merged.clean:
            result = file_entry(merged.text.encode("utf-8"))
            return item("merged", "merge", "changed on both sides; the edits do not overlap", result,
                        differing(result))
        reason = (f"changed on both sides; {merged.conflicts} overlapping "
                  f"edit{'s' if merged.conflicts != 1 else ''}")
    elif base.kind == "missing":
        reason = "added in the workspace and in the template with different content"
    elif local.kind == "missing":
        reason = "deleted in the workspace, changed in the template"
    elif incoming.kind == "missing":
        reason = "changed in the workspace, removed from the template"
    else:
        reason = "changed on both sides" + (" (not text: no line merge)" if merge else "")
    return item("conflict", _op_for(local, incoming), reason)
