"""Interrupted harness and template transactions finished or undone, and git's lock files a
killed commit left removed once proven stale (all under the checkout lease)."""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

from openalice import journal, managed
from openalice.core import git
from openalice.workspaces.registry import available_root

from .scopes import RECOVERY_WAIT, harness_store, template_store


def _pending(root: Path) -> list[managed.Store]:
    return [s for s in (harness_store(root), template_store(root)) if s.journal_path.exists()]


def git_locks(root: Path) -> list[Path]:
    """git's lock files in the workspace's repository now ([] outside a git work tree)."""
    return git.lock_files(root) if git.work_tree(root) is not None else []


def recover_workspace(ws, *, now: datetime, wait: float = RECOVERY_WAIT, lease_held: bool = False
                      ) -> list[managed.Recovery]:
    """Finish or undo every interrupted transaction of ``ws`` and remove the git locks a killed
    git left (under its checkout lease; ``lease_held``: the caller has just taken it)."""
    root = available_root(ws)
    pending = bool(_pending(root) or git_locks(root))
    if not pending:
        for store in (harness_store(root), template_store(root)):
            if store.txn_dir.exists():
                managed.recover(store)   # sweeps what a journal-less attempt left
    return managed.recover_pending(ws, purpose="alice-harness recovery", now=now, wait=wait,
                                   lease_held=lease_held, pending=pending,
                                   recover=lambda: _recover_all(ws, root, now))


def clear_git_locks(ws, root: Path, *, owner: str, now: datetime, held_since: float) -> list[managed.Recovery]:
    """Remove the git lock files proven stale (:func:`openalice.core.git.remove_stale_locks`: the
    proof source upgrades use) with the fact ``harness.recovered`` (``git_lock_removed``).  Call
    right after taking the checkout lease, ``held_since`` the moment it was taken (no git of ours
    runs meanwhile); a lock a live git may hold stays (the commit that needs it refuses)."""
    if git.work_tree(root) is None:
        return []
    removed, _kept = git.remove_stale_locks(root, held_since=held_since)
    if not removed:
        return []
    top = os.path.realpath(root)
    files = sorted(os.path.relpath(p, top) if os.path.realpath(p).startswith(top + os.sep) else os.fspath(p)
                   for p in removed)
    journal.record("harness.recovered", {"workspaceId": ws.id, "owner": owner, "outcome": "git_lock_removed",
                                         "digest": None, "paths": len(files), "files": files}, now=now)
    return [managed.Recovery(outcome="git_lock_removed", digest=None, owner=owner, paths=files, meta={})]


def _recover_all(ws, root: Path, now: datetime) -> list[managed.Recovery]:
    done = clear_git_locks(ws, root, owner="alice-harness", now=now, held_since=time.time())
    if _pending(root) and git.work_tree(root) is not None:
        git.require_unlocked(root, "reset")   # a rollback resets the index: not under a live git's lock
    for store in (harness_store(root), template_store(root)):
        result = managed.recover(store)
        if result is not None:
            done.append(result)
            journal.record("harness.recovered", {"workspaceId": ws.id, "owner": result.owner,
                                                 "outcome": result.outcome, "digest": result.digest,
                                                 "paths": len(result.paths)}, now=now)
    return done
