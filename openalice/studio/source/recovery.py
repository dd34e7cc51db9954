"""What a killed ``apply`` (or any killed git in the workspace) left, undone under the checkout lease:
git's own lock files proven stale are removed, and a source merge left in progress is aborted."""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path

from openalice import journal
from openalice.core import git
from openalice.managed import recover_pending

from .receipt import TRAILER

RECOVERY_WAIT = 30.0


def _ours_in_progress(root: Path) -> bool:
    return git.merge_head(root) is not None and f"\n{TRAILER}: " in git.merge_message(root)


def recover(ws, *, now: datetime, wait: float = RECOVERY_WAIT) -> list[dict]:
    """Remove stale git locks and abort a source merge a killed ``apply`` left in progress
    (under the checkout lease; nothing is taken when there is neither)."""
    root = Path(ws.path)
    return recover_pending(ws, purpose="alice-harness source recovery", now=now, wait=wait,
                           pending=_ours_in_progress(root) or bool(git.lock_files(root)),
                           recover=lambda: recover_under_lease(ws, root, now))


def recover_under_lease(ws, root: Path, now: datetime) -> list[dict]:
    """Call with the checkout lease just taken: no toolkit writer is in the workspace, and every
    git lock older than this moment was made by a git that is not ours (see core.git.locks)."""
    done = _remove_stale_locks(ws, root, now, held_since=time.time())
    if not _ours_in_progress(root):
        return done
    message = git.merge_message(root)
    digest = next((line.split(":", 1)[1].strip() for line in message.splitlines()
                   if line.startswith(f"{TRAILER}:")), None)
    paths = git.changed_paths(root, "HEAD", "MERGE_HEAD")
    git.abort_merge(root)
    journal.record("harness.recovered", {"workspaceId": ws.id, "owner": "harness-source", "outcome": "rolled_back",
                                         "digest": digest, "paths": len(paths)}, now=now)
    return done + [{"owner": "harness-source", "outcome": "rolled_back", "digest": digest, "paths": paths}]


def _remove_stale_locks(ws, root: Path, now: datetime, *, held_since: float) -> list[dict]:
    """git's lock files a killed git left (proven stale: see core.git.locks), removed, with a
    journal fact; a lock a live git may hold stays, and the git command that needs it says so."""
    removed, _kept = git.remove_stale_locks(root, held_since=held_since)
    if not removed:
        return []
    paths = sorted(os.path.relpath(p, root) for p in removed)
    journal.record("harness.recovered", {"workspaceId": ws.id, "owner": "harness-source",
                                         "outcome": "git_lock_removed", "digest": None,
                                         "paths": len(paths), "files": paths}, now=now)
    return [{"owner": "harness-source", "outcome": "git_lock_removed", "digest": None, "paths": paths}]
