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
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from openalice.core import clock, fs, git
from openalice.core.proc import crash_point
from openalice.core.errors import AliceError, Conflict, InvalidInput

from .plan import Item, Plan
from .snapshot import Entry, check_path, inspect, read_snapshot, within, write_snapshot

__all__ = ["Store", "Commit", "Applied", "Recovery", "apply_plan", "recover", "resolve", "StalePlan",
           "JOURNAL_VERSION"]

JOURNAL_VERSION = 1
PHASES = ("prepared", "committed")
_JOURNAL_KEYS = {"schemaVersion", "owner", "planDigest", "touchedPaths", "preparedAt", "phase", "meta",
                 "state", "commitTrailer", "pruneWithin", "commit"}


class StalePlan(Conflict):
    """The workspace changed since the plan was made."""

    default_code = "stale_plan"


@dataclass(frozen=True)
class Commit:
    """Commit the touched paths in a git work tree: ``subject`` and the
    trailer ``<trailer>: <digest>`` that recovery looks for."""

    subject: str
    trailer: str
    body: str = ""


@dataclass
class Applied:
    digest: str
    changed: list[str]
    kept: list[str]
    commit: str | None
    baseline: dict[str, Entry] = field(repr=False)


@dataclass
class Recovery:
    outcome: str                 # "finalized" | "rolled_back"
    digest: str
    owner: str
    paths: list[str]
    meta: dict


class Store:
    """Where one owner keeps its baseline and its transaction for one workspace."""

    def __init__(self, root: os.PathLike | str, state_dir: str) -> None:
        self.root = Path(root)
        self.state_dir = state_dir
        self.dir = self.root / state_dir
        self.baseline_path = self.dir / "baseline.json.gz"
        self.txn_dir = self.dir / "transaction"
        self.journal_path = self.txn_dir / "journal.json"
        self.before_path = self.txn_dir / "before.json.gz"
        self.incoming_path = self.txn_dir / "incoming.json.gz"
        self.next_baseline_path = self.txn_dir / "baseline.json.gz"

    def baseline(self) -> dict[str, Entry]:
        return read_snapshot(self.baseline_path, missing={})

    def pending(self) -> dict | None:
        """The pending journal (validated), or None."""
        data = fs.read_json(self.journal_path, missing=None)
        if data is None:
            return None
        return _check_journal(data, self.journal_path)


def _check_journal(data: object, path: Path) -> dict:
    def bad(reason: str, field: str | None = None) -> InvalidInput:
        return InvalidInput(reason, file=path, field=field, code="malformed_journal")

    if not isinstance(data, dict):
        raise bad("journal is not a JSON object")
    unknown = set(data) - _JOURNAL_KEYS
    if unknown:
        raise bad(f"unknown key {sorted(unknown)[0]!r}", sorted(unknown)[0])
    for key in _JOURNAL_KEYS - {"commitTrailer", "commit"}:
        if key not in data:
            raise bad("missing", key)
    if data["schemaVersion"] != JOURNAL_VERSION:
        raise bad(f"unsupported schemaVersion {data['schemaVersion']!r}", "schemaVersion")
    if data["phase"] not in PHASES:
        raise bad(f"phase must be one of {', '.join(PHASES)}", "phase")
    for key in ("owner", "planDigest", "preparedAt"):
        if not isinstance(data[key], str) or not data[key]:
            raise bad("must be a non-empty string", key)
    if not isinstance(data["meta"], dict):
        raise bad("must be an object", "meta")
    def managed_path(rel: object, field: str) -> None:
        try:
            check_path(rel.rstrip("/") if isinstance(rel, str) else rel)
        except AliceError as exc:   # a bad path in the journal is a malformed journal
            raise bad(exc.message, field) from None

    for key in ("touchedPaths", "pruneWithin"):
        if not isinstance(data[key], list):
            raise bad("must be a list", key)
        for n, rel in enumerate(data[key]):
            managed_path(rel, f"{key}/{n}")
    if not isinstance(data["state"], dict) or not all(isinstance(v, dict) for v in data["state"].values()):
        raise bad("must map paths to JSON objects", "state")
    for rel in data["state"]:
        managed_path(rel, f"state/{rel}")
    for key in ("commitTrailer", "commit"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise bad("must be a string or null", key)
    return data


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

def _final_writes(plan: Plan, chosen: Mapping[str, str]) -> tuple[list[tuple[str, Entry]], list[str], set[str]]:
    """(location, what it becomes) for every write; kept paths; items left unresolved."""
    writes: list[tuple[str, Entry]] = []
    kept: list[str] = []
    skipped: set[str] = set()
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


def apply_plan(plan: Plan, store: Store, *, keep: Sequence[str] = (), use: Sequence[str] = (),
               unresolved: str = "refuse", commit: Commit | None = None,
               state: Mapping[str, dict] | None = None, owner: str, meta: Mapping | None = None,
               now: datetime, prune_within: Iterable[str] | None = None) -> Applied:
    """Apply ``plan`` (see the module docstring for the steps)."""
    if store.journal_path.exists():
        raise Conflict("an interrupted transaction is pending; recover it first", file=store.journal_path,
                       code="transaction_pending")
    chosen = resolve(plan, keep=keep, use=use, unresolved=unresolved)
    writes, kept, skipped = _final_writes(plan, chosen)
    planned_local = {loc: local for item in plan.items for loc, local in zip(item.locations, item.local)}
    for loc, _ in writes:
        if inspect(store.root, loc).fingerprint != planned_local[loc].fingerprint:
            raise StalePlan(f"{loc} changed since the plan was made; preview again", field=loc)
    baseline = _next_baseline(plan, skipped)
    touched = sorted({loc for loc, _ in writes})
    state = dict(state or {})
    prune = sorted(set(prune_within if prune_within is not None else plan.scope))
    in_git = git.work_tree(store.root) is not None
    journal = {"schemaVersion": JOURNAL_VERSION, "owner": owner, "planDigest": plan.digest,
               "touchedPaths": touched, "preparedAt": clock.to_iso(now), "phase": "prepared",
               "meta": dict(meta or {}), "state": {k: dict(v) for k, v in state.items()},
               "commitTrailer": commit.trailer if commit is not None and in_git else None,
               "pruneWithin": prune}
    if store.txn_dir.exists():
        _clear_transaction(store)  # leftovers of a transaction whose journal never landed
    write_snapshot(store.before_path, {loc: planned_local[loc] for loc in touched})
    write_snapshot(store.incoming_path, dict(writes))
    write_snapshot(store.next_baseline_path, baseline)
    fs.atomic_write_json(store.journal_path, journal, mode=0o644, dir_mode=0o755)
    crash_point("managed-prepared")

    for n, (loc, entry) in enumerate(writes):
        _put(store.root, loc, entry, prune)
        if n == 0:
            crash_point("managed-first-write")
    crash_point("managed-written")

    sha = None
    if commit is not None and in_git and touched:
        try:
            sha = git.commit_paths(store.root, touched, commit.subject, body=commit.body,
                                   trailers={commit.trailer: plan.digest})
        except git.GitError:
            _roll_back(store, journal)
            raise
        crash_point("managed-committed")
    journal["phase"] = "committed"
    journal["commit"] = sha
    fs.atomic_write_json(store.journal_path, journal, mode=0o644, dir_mode=0o755)
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
        if "/" in rel:
            fs.ensure_dir(target.parent, 0o755)
        fs.atomic_write_bytes(target, entry.content, dir_mode=0o755)
    elif entry.kind == "missing":
        if inspect(root, rel).kind == "file":
            fs.remove_file(target)
        _prune(root, rel, prune)


def _prune(root: Path, rel: str, prune: Sequence[str]) -> None:
    """Remove directories emptied by a removal, staying inside the scope's trees."""
    parts = rel.split("/")[:-1]
    while parts:
        directory = "/".join(parts)
        if not within(directory + "/", [p for p in prune if p.endswith("/")]):  # trees only
            return
        if not fs.remove_empty_dir(root.joinpath(*parts)):
            return
        parts.pop()


def _finalize(store: Store, journal: dict) -> None:
    _sweep_temps(store.root, journal["state"])
    if store.next_baseline_path.exists():
        read_snapshot(store.next_baseline_path)  # refuse to install a damaged one
        fs.move_file(store.next_baseline_path, store.baseline_path)
    for rel, doc in sorted(journal["state"].items()):
        if "commit" in doc and doc["commit"] is None:
            doc = {**doc, "commit": journal.get("commit")}
            if doc["commit"] is None:
                del doc["commit"]
        fs.atomic_write_json(store.root.joinpath(*rel.split("/")), doc, mode=0o644, dir_mode=0o755)
    crash_point("managed-finalized")
    _clear_transaction(store)


def _clear_transaction(store: Store) -> None:
    # The journal goes first: without it nothing here is pending any more.
    fs.remove_file(store.journal_path)
    for path in (store.before_path, store.incoming_path, store.next_baseline_path):
        fs.remove_file(path)
    if store.txn_dir.exists():
        fs.sweep_temp_files(store.txn_dir, older_than=0)
        fs.remove_empty_dir(store.txn_dir)


def _roll_back(store: Store, journal: dict) -> None:
    before = read_snapshot(store.before_path, missing=None)
    if before is None:
        raise InvalidInput("the transaction's before snapshot is missing; cannot roll back",
                           file=store.before_path, code="malformed_journal")
    prune = journal["pruneWithin"]
    _sweep_temps(store.root, journal["touchedPaths"])
    for rel in journal["touchedPaths"]:
        entry = before.get(rel)
        if entry is None:
            raise InvalidInput(f"before snapshot lacks touched path {rel!r}", file=store.before_path,
                               field=f"files/{rel}", code="malformed_snapshot")
        if entry.kind == "other":
            continue  # never written: a conflict that could not use the template
        if inspect(store.root, rel).fingerprint != entry.fingerprint:
            _put(store.root, rel, entry, prune)
    if journal.get("commitTrailer") is not None:
        git.unstage(store.root, journal["touchedPaths"])
    _clear_transaction(store)


def recover(store: Store) -> Recovery | None:
    """Finish or undo the pending transaction of ``store``; None if there is none.

    The caller holds the workspace checkout lease.
    """
    journal = store.pending()
    if journal is None:
        if store.txn_dir.exists():
            _clear_transaction(store)
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
