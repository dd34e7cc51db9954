"""Interrupted harness and template transactions finished or undone (under the checkout lease)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from openalice import journal, managed
from openalice.workspaces.checkout import checkout

from .scopes import RECOVERY_WAIT, _root, harness_store, template_store


def _pending(root: Path) -> list[managed.Store]:
    return [s for s in (harness_store(root), template_store(root)) if s.journal_path.exists()]


def recover_workspace(ws, *, now: datetime, wait: float = RECOVERY_WAIT, lease_held: bool = False
                      ) -> list[managed.Recovery]:
    """Finish or undo every interrupted transaction of ``ws`` (under its checkout lease)."""
    root = _root(ws)
    if not _pending(root):
        for store in (harness_store(root), template_store(root)):
            if store.txn_dir.exists():
                managed.recover(store)   # sweeps what a journal-less attempt left
        return []
    if lease_held:
        return _recover_all(ws, root, now)
    with checkout(ws, "alice-harness recovery", now=now, wait=wait):
        return _recover_all(ws, root, now)


def _recover_all(ws, root: Path, now: datetime) -> list[managed.Recovery]:
    done = []
    for store in (harness_store(root), template_store(root)):
        result = managed.recover(store)
        if result is not None:
            done.append(result)
            _journal("harness.recovered", {"workspaceId": ws.id, "owner": result.owner,
                                           "outcome": result.outcome, "digest": result.digest,
                                           "paths": len(result.paths)}, now)
    return done


def _journal(type_: str, payload: dict, now: datetime) -> None:
    journal.record(type_, payload, now=now)
