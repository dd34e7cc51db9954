"""Applying a plan as one transaction, and recovering one a crash cut short.

    store = Store(root, ".alice/alice-harness-upgrade")
    applied = apply_plan(plan, store, keep=["AGENTS.md"], commit=Commit("harness: upgrade", "OpenAlice-X"),
                         state={".alice/version.json": b"..."}, owner="alice-harness", meta={...}, now=now)
    recovery = recover(store)        # before every plan: finish or undo an interrupted apply

The caller holds the workspace checkout lease, has run :func:`recover`, and
re-planned (and compared the digest) right before :func:`apply_plan`.  Then:

1. every location to be written is inspected again and must still hold what
   the plan saw (else ``stale_plan``);
2. ``<state>/transaction/`` gets ``before.json.gz`` (the touched locations as
   they are), ``incoming.json.gz`` (as they will be), ``baseline.json.gz``
   (the next baseline), then ``journal.json`` (phase ``prepared``): the
   journal's existence is what makes a transaction pending;
3. each location is written atomically (or removed; emptied directories
   inside the scope are pruned);
4. in a git work tree exactly the touched paths are committed with the
   trailer ``<key>: <digest>`` (a failing hook: files restored, index reset,
   HEAD untouched, journal removed, :class:`~openalice.core.git.GitError`);
5. the journal moves to phase ``committed``;
6. the next baseline replaces the old one, the caller's state documents are
   written (one whose ``commit`` is null gets the commit id, or loses the key
   when nothing was committed), and the journal is removed.

:func:`recover` finds a pending journal and either finishes it (phase
``committed``, or HEAD carries the trailer: only bookkeeping remains) or puts
every touched location back as ``before`` recorded (and unstages them), so
after a crash at any step the workspace holds the whole change or none of it.
A rollback first checks that every touched location still holds one of the
two sides (``before`` or what the apply wrote): one that holds neither was
changed by someone after the crash, and recovery refuses
(``recovery_refused``) rather than overwrite it.

Two layouts of the same transaction (:mod:`.stores`):

* :class:`Store` — ``<state_dir>/baseline.json.gz`` and
  ``<state_dir>/transaction/`` (the harness and templates);
* :class:`JournalFile` — one JSON file holding the journal with the touched
  locations' ``before`` bytes (base64, null: nothing there) and ``after``
  sha256 (null: removed); the owner keeps its baseline in its own state
  document (stickers: ``.alice/sticker-transaction.json`` and
  ``.alice/stickers.json``).

Crash points (a test hook, never set in production):
``OPENALICE_TEST_CRASH_AFTER=<step>`` or ``<owner>:<step>`` SIGKILLs the
process right after ``managed-prepared``, ``managed-first-write``,
``managed-written``, ``managed-committed`` or ``managed-finalized``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from openalice.core import clock, fs, git
from openalice.core.crash import crash_point
from openalice.core.errors import Conflict, InvalidInput
from openalice.core.records import field, record_class

from .plan import Item, Plan, logical_local
from .snapshot import MISSING, Entry, inspect, within
from .stores import JOURNAL_VERSION, JournalFile, Store

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Callable, Iterable, Mapping, Sequence

__all__ = ["Store", "JournalFile", "Commit", "Applied", "Recovery", "apply_plan", "recover", "resolve",
           "StalePlan", "RecoveryRefused", "JOURNAL_VERSION"]


class StalePlan(Conflict):
    """The workspace changed since the plan was made."""

    default_code = "stale_plan"


class RecoveryRefused(Conflict):
    """A touched location holds neither side of the interrupted transaction."""

    default_code = "recovery_refused"


@record_class(frozen=True)
class Commit:
    """Commit the touched paths in a git work tree: ``subject`` and the
    trailer ``<trailer>: <digest>`` that recovery looks for."""

    subject: str
    trailer: str
    body: str = ""


@record_class
class Applied:
    digest: str
    changed: list[str]
    kept: list[str]
    commit: str | None
    baseline: dict[str, Entry] = field(repr=False)


@record_class
class Recovery:
    outcome: str                 # "finalized" | "rolled_back"
    digest: str
    owner: str
    paths: list[str]
    meta: dict


def _crash_point(step: str, owner: str) -> None:
    # Test hook: right after ``step`` of any owner's transaction, or of ``owner:step``'s only.
    crash_point(step, f"{owner}:{step}")


# -- resolutions ------------------------------------------------------------------------------------

def resolve(plan: Plan, *, keep: Sequence[str] = (), use: Sequence[str] = (),
            unresolved: str = "refuse") -> dict[str, str]:
    """Map each conflict to ``keep`` or ``use``; every conflict exactly once.

    A path may name any location of a conflicted item.  Unknown and duplicate
    resolutions are refused (``invalid_resolutions``); use-template on a
    non-regular location is ``invalid_resolution``; a conflict left without a
    resolution is ``unresolved_conflict`` unless ``unresolved="skip"``.
    """
    by_location: dict[str, Item] = {}
    for item in plan.conflicts:
        for loc in item.locations:
            by_location[loc] = item
    chosen: dict[str, str] = {}
    unknown, duplicate = [], []
    for choice, paths in (("keep", keep), ("use", use)):
        for rel in paths:
            item = by_location.get(rel)
            if item is None:
                unknown.append(rel)
            elif item.path in chosen:
                duplicate.append(rel)
            else:
                chosen[item.path] = choice
    if unknown or duplicate:
        parts = []
        if unknown:
            parts.append(f"not a conflict of this plan: {', '.join(unknown)}")
        if duplicate:
            parts.append(f"resolved twice: {', '.join(duplicate)}")
        raise InvalidInput("; ".join(parts), code="invalid_resolutions",
                           details={"unknown": unknown, "duplicate": duplicate,
                                    "conflicts": [i.path for i in plan.conflicts]})
    for item in plan.conflicts:
        if chosen.get(item.path) == "use" and not item.can_use_template:
            raise InvalidInput(f"{item.path}: cannot use the template's version: {item.reason}; only "
                               "--keep-workspace can resolve it", code="invalid_resolution",
                               field=item.path)
    left = [i.path for i in plan.conflicts if i.path not in chosen]
    if left and unresolved != "skip":
        raise InvalidInput(f"{len(left)} conflict{'s need' if len(left) != 1 else ' needs'} a resolution: "
                           f"{', '.join(left)}", code="unresolved_conflict",
                           details={"unresolved": left,
                                    "hint": "add --keep-workspace PATH or --use-template PATH for each"})
    return chosen


# -- apply ------------------------------------------------------------------------------------------

def _final_writes(plan: Plan, chosen: Mapping[str, str], keep: Sequence[str] = ()
                  ) -> tuple[list[tuple[str, Entry]], list[str], set[str]]:
    """(location, what it becomes) for every write; kept paths; items left unresolved.

    A kept conflict writes what the workspace holds to its other copies (the mirror follows
    the resolved file), so the copies are byte-identical after every apply and the next plan
    does not ask the same question again."""
    writes: list[tuple[str, Entry]] = []
    kept: list[str] = []
    skipped: set[str] = set()
    named = {item.path: rel for item in plan.conflicts for rel in keep if rel in item.locations}
    for item in plan.items:
        if item.status == "conflict":
            choice = chosen.get(item.path)
            if choice == "use":
                for loc, local in zip(item.locations, item.local):
                    if local.fingerprint != item.incoming.fingerprint:
                        writes.append((loc, item.incoming))
            else:
                kept.append(item.path)
                if choice is None:
                    skipped.add(item.path)
                elif item.copies:
                    ours = logical_local(item, named.get(item.path))
                    if ours.kind == "file":
                        writes.extend((loc, ours) for loc, local in zip(item.locations, item.local)
                                      if local.fingerprint != ours.fingerprint and local.kind in ("file", "missing"))
            continue
        if item.status == "preserved":
            kept.append(item.path)
        for loc in item.writes:
            writes.append((loc, item.result))
    return writes, kept, skipped


def _next_baseline(plan: Plan, skipped: set[str]) -> dict[str, Entry]:
    out = {p: e for p, e in plan.baseline.items()}
    for item in plan.items:
        if item.path in skipped:
            continue
        for loc in item.locations:
            if item.incoming.kind == "file":
                out[loc] = item.incoming
            else:
                out.pop(loc, None)
    return out


def apply_plan(plan: Plan, store: Store | JournalFile, *, keep: Sequence[str] = (), use: Sequence[str] = (),
               unresolved: str = "refuse", commit: Commit | None = None,
               state: Mapping[str, dict] | Callable[[dict[str, Entry]], Mapping[str, dict]] | None = None,
               owner: str, meta: Mapping | None = None, now: datetime,
               prune_within: Iterable[str] | None = None) -> Applied:
    """Apply ``plan`` (see the module docstring for the steps).

    ``state`` maps workspace paths to the JSON documents written when the
    transaction finishes; a callable gets the next baseline and returns them
    (an owner whose state document *is* its baseline)."""
    if store.journal_path.exists():
        raise Conflict("an interrupted transaction is pending; recover it first", file=store.journal_path,
                       code="transaction_pending")
    chosen = resolve(plan, keep=keep, use=use, unresolved=unresolved)
    writes, kept, skipped = _final_writes(plan, chosen, keep)
    planned_local = {loc: local for item in plan.items for loc, local in zip(item.locations, item.local)}
    for loc, _ in writes:
        if inspect(store.root, loc).fingerprint != planned_local[loc].fingerprint:
            raise StalePlan(f"{loc} changed since the plan was made; preview again", field=loc)
    baseline = _next_baseline(plan, skipped)
    touched = sorted({loc for loc, _ in writes})
    state = dict((state(baseline) if callable(state) else state) or {})
    prune = sorted(set(prune_within if prune_within is not None else plan.scope))
    in_git = commit is not None and git.work_tree(store.root) is not None
    journal = {"schemaVersion": JOURNAL_VERSION, "owner": owner, "planDigest": plan.digest,
               "touchedPaths": touched, "preparedAt": clock.to_iso(now), "phase": "prepared",
               "meta": dict(meta or {}), "state": {k: dict(v) for k, v in state.items()},
               "commitTrailer": commit.trailer if in_git else None,
               "pruneWithin": prune}
    store.prepare(journal, {loc: planned_local[loc] for loc in touched}, dict(writes), baseline)
    _crash_point("managed-prepared", owner)

    # Files first, in one batch (their fsyncs together, each directory synced once), then removals
    # (so pruning never meets a directory a write still fills).
    files = [(store.root.joinpath(*loc.split("/")), entry.content) for loc, entry in writes if entry.kind == "file"]
    removals = [loc for loc, entry in writes if entry.kind != "file"]

    def first_write(n: int) -> None:
        if n == 0:
            _crash_point("managed-first-write", owner)

    fs.atomic_write_many(files, dir_mode=0o755, after_each=first_write, root=store.root)
    for n, loc in enumerate(removals):
        _put(store.root, loc, MISSING, prune)
        if n == 0 and not files:
            first_write(0)
    _crash_point("managed-written", owner)

    sha = None
    if in_git and touched:
        try:
            sha = git.commit_paths(store.root, touched, commit.subject, body=commit.body,
                                   trailers={commit.trailer: plan.digest})
        except git.GitError:
            _roll_back(store, store.pending())
            raise
        _crash_point("managed-committed", owner)
    journal["phase"] = "committed"
    journal["commit"] = sha
    store.mark_committed(journal)
    _finalize(store, journal)
    return Applied(digest=plan.digest, changed=touched, kept=sorted(kept), commit=sha, baseline=baseline)


def _sweep_temps(root: Path, rels: Iterable[str]) -> None:
    """Temp files of an atomic write the crash cut short (we hold the lease)."""
    for rel in rels:
        target = root.joinpath(*rel.split("/"))
        if target.parent.is_dir() and not target.parent.is_symlink():
            fs.sweep_temp_files(target.parent, older_than=0, target=target.name)


def _put(root: Path, rel: str, entry: Entry, prune: Sequence[str]) -> None:
    target = root.joinpath(*rel.split("/"))
    if entry.kind == "file":
        fs.atomic_write_bytes(target, entry.content, dir_mode=0o755, root=root)
    elif entry.kind == "missing":
        if inspect(root, rel).kind == "file":
            fs.remove_file(target, root=root)
        _prune(root, rel, prune)


def _prune(root: Path, rel: str, prune: Sequence[str]) -> None:
    """Remove directories emptied by a removal, staying inside the scope's trees."""
    parts = rel.split("/")[:-1]
    while parts:
        directory = "/".join(parts)
        if not within(directory + "/", [p for p in prune if p.endswith("/")]):  # trees only
            return
        if not fs.remove_empty_dir(root.joinpath(*parts), root=root):
            return
        parts.pop()


def _finalize(store: Store | JournalFile, journal: dict) -> None:
    _sweep_temps(store.root, journal["state"])
    store.install_baseline()
    for rel, doc in sorted(journal["state"].items()):
        if "commit" in doc and doc["commit"] is None:
            doc = {**doc, "commit": journal.get("commit")}
            if doc["commit"] is None:
                del doc["commit"]
        fs.atomic_write_json(store.root.joinpath(*rel.split("/")), doc, mode=0o644, dir_mode=0o755,
                             root=store.root)
    _crash_point("managed-finalized", journal["owner"])
    store.clear()


def _roll_back(store: Store | JournalFile, journal: dict) -> None:
    """Put every touched location back as ``before`` recorded; refuse, touching
    nothing, when one holds neither side (someone changed it since)."""
    before, after = store.sides(journal)
    prune = journal["pruneWithin"]
    _sweep_temps(store.root, journal["touchedPaths"])
    restore, foreign = [], []
    for rel in journal["touchedPaths"]:
        entry = before[rel]
        if entry.kind == "other":
            continue  # never written: a conflict that could not use the template
        current = inspect(store.root, rel)
        if current.fingerprint == entry.fingerprint:
            continue
        if current.fingerprint != after.get(rel):
            foreign.append({"path": rel, "current": current.fingerprint, "before": entry.fingerprint,
                            "after": after.get(rel)})
        restore.append((rel, entry))
    if foreign:
        names = ", ".join(f["path"] for f in foreign)
        raise RecoveryRefused(
            f"cannot roll back the interrupted {journal['owner']} transaction: {names} "
            f"{'holds' if len(foreign) == 1 else 'hold'} neither the bytes from before it nor the ones it "
            "wrote (changed since the crash); nothing was touched", file=store.journal_path,
            field=foreign[0]["path"],
            details={"paths": foreign, "hint": "put back either version of each file (or move it away if "
                                               "it was new), then run the command again"})
    for rel, entry in restore:
        _put(store.root, rel, entry, prune)
    if journal.get("commitTrailer") is not None:
        git.unstage(store.root, journal["touchedPaths"])
    store.clear()


def recover(store: Store | JournalFile) -> Recovery | None:
    """Finish or undo the pending transaction of ``store``; None if there is none.

    The caller holds the workspace checkout lease.
    """
    journal = store.pending()
    if journal is None:
        if store.leftovers():
            store.clear()
        return None
    committed = journal["phase"] == "committed" or (
        journal.get("commitTrailer") is not None
        and git.work_tree(store.root) is not None
        and git.head_has_trailer(store.root, journal["commitTrailer"], journal["planDigest"]))
    if committed:
        if journal["phase"] != "committed":   # killed between the commit and the journal update
            journal["commit"] = git.head(store.root)
        _sweep_temps(store.root, journal["touchedPaths"])
        _finalize(store, journal)
        outcome = "finalized"
    else:
        _roll_back(store, journal)
        outcome = "rolled_back"
    return Recovery(outcome=outcome, digest=journal["planDigest"], owner=journal["owner"],
                    paths=list(journal["touchedPaths"]), meta=dict(journal["meta"]))
