"""A workspace created from a template repository (``alice workspace init PATH --from-git URL[@REF]``)."""

from __future__ import annotations

import os
import shutil
from datetime import datetime
from pathlib import Path

from openalice import workspaces
from openalice.core import fs, git
from openalice.core.errors import Conflict, InvalidInput

from .receipt import (
    COMMIT_TRAILER,
    MERGE_TREE_GIT,
    RECEIPT_FILE,
    Receipt,
    incoming_manifest,
    parse_source_spec,
    template_name,
)


def create_workspace(path: os.PathLike | str, spec: str, *, now: datetime, template: str = "blank",
                     label: str | None = None, notes: list[str] | None = None):
    """Clone ``spec`` (``URL[@REF]``) into ``path``, validate its ``harness.json``, write the
    receipt, register the workspace, and commit what init wrote (the receipt, the guidance and
    skills, ``.alice/.gitignore``) as one commit; ``(workspace, receipt)``.  On a failure before
    the workspace is registered nothing is left behind."""
    git.require_version(MERGE_TREE_GIT, "source-backed upgrades (merge-tree --write-tree)")
    repository, ref = parse_source_spec(spec)
    target = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise Conflict("exists and is not an empty directory: --from-git clones into a new directory",
                       file=target, code="target_not_empty")
    made: list[Receipt] = []

    def populate(real: Path) -> None:
        made.append(_clone_into(real, repository, ref))

    try:
        ws, created = workspaces.init(target, template=template, label=label, now=now, notes=notes,
                                      populate=populate)
    except BaseException:
        if made and not _registered(target):
            shutil.rmtree(target, ignore_errors=True)     # our clone, never registered
        raise
    if not created:
        raise Conflict(f"is already workspace '{ws.id}'", file=target, code="already_registered")
    receipt = made[0]
    written = [path for _code, path in git.status_entries(ws.root)]
    git.commit_paths(ws.root, sorted(set(written) | {RECEIPT_FILE}),
                     f"source({receipt.template}): created from {repository} {receipt.version} "
                     f"({receipt.commit[:12]})", trailers={COMMIT_TRAILER: receipt.commit})
    return ws, receipt


def _registered(target: Path) -> bool:
    try:
        return workspaces.find(target) is not None
    except Exception:      # a registry we cannot read: leave the directory alone
        return True


def _clone_into(target: Path, repository: str, ref: str | None) -> Receipt:
    """Clone next to ``target``, check it, then move it into place (an empty ``target`` is replaced)."""
    # Staged beside the target (``.tmp-<name>.<pid>.<host>.*``): a clone killed
    # midway is removed by the next init of the same target (core.fs.staged_dir).
    fs.ensure_dir(target.parent, 0o755)
    with fs.staged_dir(target, mode=0o755, replace_empty=True) as clone:
        git.clone(repository, clone)
        commit = git.resolve_commit(clone, "HEAD") if ref is None else _clone_ref(clone, ref)
        if commit is None:
            raise InvalidInput(f"{repository} has no commit to start from"
                               + (f" at {ref!r}" if ref else " (empty repository)"), field="--from-git",
                               code="bad_ref")
        label = f"{repository}@{commit[:12]}:harness.json"
        manifest = incoming_manifest(clone, commit, label)
        branch = git.current_branch(clone) or "main"
        if ref is not None and git.resolve_commit(clone, f"refs/remotes/origin/{ref}"):
            branch = ref
        git.checkout_branch(clone, branch, commit)
        receipt = Receipt(template_name(repository), repository, manifest.version, commit)
        fs.atomic_write_bytes(clone / RECEIPT_FILE, receipt.encoded(), mode=0o644, dir_mode=0o755,
                              root=clone)
    return receipt


def _clone_ref(clone: Path, ref: str) -> str | None:
    for candidate in (f"refs/remotes/origin/{ref}", f"refs/tags/{ref}", ref):
        commit = git.resolve_commit(clone, candidate)
        if commit is not None:
            return commit
    return None
