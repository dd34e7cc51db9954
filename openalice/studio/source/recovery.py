"""A source merge a killed ``apply`` left in progress is aborted (under the checkout lease)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from openalice import journal
from openalice.core import git
from openalice.workspaces.checkout import checkout

from .receipt import TRAILER

RECOVERY_WAIT = 30.0


def _ours_in_progress(root: Path) -> bool:
    return git.merge_head(root) is not None and f"\n{TRAILER}: " in git.merge_message(root)


def recover(ws, *, now: datetime, wait: float = RECOVERY_WAIT) -> list[dict]:
    """Abort a source merge a killed ``apply`` left in progress (under the checkout lease)."""
    root = Path(ws.path)
    if not _ours_in_progress(root):
        return []
    with checkout(ws, "alice-harness source recovery", now=now, wait=wait):
        return _recover(ws, root, now)


def _recover(ws, root: Path, now: datetime) -> list[dict]:
    if not _ours_in_progress(root):
        return []
    message = git.merge_message(root)
    digest = next((line.split(":", 1)[1].strip() for line in message.splitlines()
                   if line.startswith(f"{TRAILER}:")), None)
    paths = git.changed_paths(root, "HEAD", "MERGE_HEAD")
    git.abort_merge(root)
    journal.record("harness.recovered", {"workspaceId": ws.id, "owner": "harness-source", "outcome": "rolled_back",
                                         "digest": digest, "paths": len(paths)}, now=now)
    return [{"owner": "harness-source", "outcome": "rolled_back", "digest": digest, "paths": paths}]
