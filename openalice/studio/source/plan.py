"""``source preview``: fetch the target, validate it, and plan the merge (``git merge-tree``)
without touching the work tree; the plan's digest names exactly what ``apply`` may merge."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from openalice.core import digests, git
from openalice.core.errors import Busy, InvalidInput, Unavailable, UsageError
from openalice.core.records import field, record_class
from openalice.runs import admission
from openalice.studio import lifecycle

from .receipt import INCOMING_REF, MERGE_TREE_GIT, RECEIPT_FILE, Receipt, incoming_manifest, read_receipt
from .recovery import recover

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


@record_class
class Preview:
    ws: Any
    receipt: Receipt
    ref: str | None                   # what was asked for (None at apply: the previewed commit)
    commit: str                       # the target commit
    version: str                      # its harness.json version
    head: str
    tree: str
    conflicts: list[str]
    touched: list[str]
    blockers: list[dict]
    live_runs: int
    studio: str | None                # the Studio's phase when it is live
    current: bool
    digest: str = ""
    recovered: list[dict] = field(default_factory=list)

    @property
    def mergeable(self) -> bool:
        return not self.conflicts

    @property
    def status(self) -> str:
        if self.current:
            return "current"
        if self.blockers:
            return "blocked"
        return "ready" if self.mergeable else "conflicts"

    def next_command(self) -> str | None:
        if self.status != "ready":
            return None
        return f"alice-harness source apply --workspace {self.ws.id} --digest {self.digest}"

    def to_json(self) -> dict:
        return {"status": self.status, "workspaceId": self.ws.id, "workspace": self.ws.path,
                "template": self.receipt.template, "repository": self.receipt.repository, "ref": self.ref,
                "fromCommit": self.receipt.commit, "fromVersion": self.receipt.version,
                "commit": self.commit, "toVersion": self.version, "head": self.head, "mergeable": self.mergeable,
                "conflicts": list(self.conflicts), "touchedPaths": list(self.touched),
                "blockers": list(self.blockers),
                "activity": {"liveRuns": self.live_runs, "studio": self.studio},
                "digest": self.digest, "nextCommand": self.next_command()}


def _digest(ws, receipt_bytes: bytes, plan: Preview) -> str:
    doc = {"workspaceId": ws.id, "receipt": digests.sha256_hex(receipt_bytes),
           "repository": plan.receipt.repository, "fromCommit": plan.receipt.commit, "commit": plan.commit,
           "version": plan.version, "head": plan.head, "tree": plan.tree, "conflicts": plan.conflicts,
           "touched": plan.touched}
    return digests.sha256_hex(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())


def source_root(ws) -> Path:
    root = Path(ws.path)
    if not (root / ".alice").is_dir():
        raise Unavailable(f"workspace '{ws.id}' is not available: {root} (or its .alice/) is missing",
                          code="workspace_unavailable", file=root)
    top = git.work_tree(root)
    if top is None or os.path.realpath(top) != os.path.realpath(root):
        raise InvalidInput("not the top of a git work tree: source upgrades merge commits", file=root,
                           code="not_a_git_workspace")
    return root


def _in_the_way(touched: set[str], entries: list[tuple[str, str]]) -> list[str]:
    """Local changes (or untracked files) at a touched path, or above or below one."""
    found = []
    for _code, path in entries:
        bare = path.rstrip("/")
        if bare in touched or any(t.startswith(bare + "/") or bare.startswith(t + "/") for t in touched):
            found.append(bare)
    return sorted(set(found))


def _unsafe(path: str) -> str | None:
    """Why git would refuse to check ``path`` out into a work tree (its ``verify_path``), or None:
    an absolute path, an empty, ``.`` or ``..`` segment, a backslash or NUL, or a segment that
    is ``.git`` on any file system (any case, trailing dots or spaces, the 8.3 name ``git~1``)."""
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        return "not a plain relative path"
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return f"a {part or 'empty'!r} segment" if part else "an empty segment"
        if part.rstrip(". ").lower() == ".git" or part.lower() == "git~1":
            return "a .git segment"
    return None


def check_paths(paths: list[str]) -> dict | None:
    """The ``unsafe_paths`` blocker for what a merge would write, or None: one check, made by
    ``preview`` and ``apply`` alike (both plan through :func:`plan_at_commit`), before git is asked."""
    bad = [(p, why) for p in paths if (why := _unsafe(p)) is not None]
    if not bad:
        return None
    shown = ", ".join(f"{p!r} ({why})" for p, why in bad[:5]) + ("…" if len(bad) > 5 else "")
    return {"code": "unsafe_paths", "message": f"the template's tree has {len(bad)} path"
            f"{'s' if len(bad) != 1 else ''} no work tree may hold (git refuses to write them): {shown}",
            "paths": [p for p, _ in bad]}


def _live_runs(ws) -> int:
    return len(admission.live_runs(ws.id))


def _studio_blocker(ws) -> tuple[str | None, dict | None]:
    try:
        lifecycle.require_idle(ws)
    except Busy as exc:
        return exc.details.get("phase"), {"code": exc.code, "message": exc.message}
    return None, None


def plan_at_commit(ws, root: Path, receipt: Receipt, receipt_bytes: bytes, commit: str, ref: str | None) -> Preview:
    label = f"{receipt.repository}@{commit[:12]}:harness.json"
    manifest = incoming_manifest(root, commit, label)
    head = git.head(root)
    if head is None:
        raise InvalidInput("the workspace repository has no commit yet", file=root, code="not_a_git_workspace")
    current = git.is_ancestor(root, commit, head)      # the workspace has it already
    merged = git.merge_tree(root, head, commit)
    conflicts = [p for p in merged.conflicts if p != RECEIPT_FILE]   # ours is rewritten anyway
    touched = [] if current else sorted(set(git.changed_paths(root, head, merged.tree)) | {RECEIPT_FILE})
    blockers: list[dict] = []
    if not current:
        unsafe = check_paths(touched)
        if unsafe is not None:
            blockers.append(unsafe)
        if git.merge_head(root) is not None:
            blockers.append({"code": "merge_in_progress",
                             "message": "a merge is in progress in the workspace (finish or abort it first)"})
        staged = git.staged_paths(root)
        if staged:
            blockers.append({"code": "staged_changes",
                             "message": f"the repository has {len(staged)} staged change"
                                        f"{'s' if len(staged) != 1 else ''} (commit or unstage them first)",
                             "paths": staged})
        dirty = _in_the_way(set(touched), git.status_entries(root))
        if dirty:
            blockers.append({"code": "working_tree_changes",
                             "message": f"{len(dirty)} path{'s' if len(dirty) != 1 else ''} the merge touches "
                                        "ha" + ("ve" if len(dirty) != 1 else "s") + " local changes or untracked "
                                        "files (commit, stash or move them first): " + ", ".join(dirty[:5])
                                        + ("…" if len(dirty) > 5 else ""),
                             "paths": dirty})
        if merged.clean:
            try:
                incoming_manifest(root, merged.tree, f"the merge of {label}")
            except InvalidInput as exc:
                blockers.append({"code": "invalid_merged_manifest",
                                 "message": f"the merged harness.json would be invalid: {exc.message}"})
    live = _live_runs(ws)
    if live and not current:
        blockers.append({"code": "live_run", "message": f"{live} run{'s' if live != 1 else ''} of this "
                                                        "workspace are live; source upgrades wait until they end"})
    phase, studio_blocker = _studio_blocker(ws)
    if studio_blocker and not current:
        blockers.append(studio_blocker)
    plan = Preview(ws=ws, receipt=receipt, ref=ref, commit=commit, version=manifest.version, head=head,
                   tree=merged.tree, conflicts=conflicts, touched=touched, blockers=blockers, live_runs=live,
                   studio=phase, current=current)
    plan.digest = _digest(ws, receipt_bytes, plan)
    return plan


def preview(ws, *, to: str | None = None, now: datetime) -> Preview:
    """Fetch the target (``to``: a branch, tag or commit; default: the repository's default
    branch), validate it and plan the merge.  Writes only the ref ``INCOMING_REF``."""
    git.require_version(MERGE_TREE_GIT, "source upgrades (merge-tree --write-tree)")
    root = source_root(ws)
    receipt, receipt_bytes = read_receipt(root)
    recovered = recover(ws, now=now)
    if to is None:
        branch, _sha = _from_remote(receipt, None, lambda: git.remote_head(root, receipt.repository))
        ref = branch or "HEAD"
    else:
        if not to.strip() or to.startswith("-") or ":" in to or any(c.isspace() for c in to):
            raise UsageError(f"not a ref: {to!r}", field="--to", code="bad_ref")
        ref = to
    commit = _from_remote(receipt, ref, lambda: git.fetch(root, receipt.repository, ref, into=INCOMING_REF))
    plan = plan_at_commit(ws, root, receipt, receipt_bytes, commit, ref)
    plan.recovered = recovered
    if plan.current:
        git.delete_ref(root, INCOMING_REF)    # nothing to apply
    return plan


def _from_remote(receipt: Receipt, ref: str | None, call):
    """Run a fetch or ls-remote: an unknown ref is bad input (exit 2), an unreachable
    repository is unavailable (exit 3)."""
    try:
        return call()
    except git.GitError as exc:
        if exc.code in ("git_missing", "git_locked"):
            raise
        detail = str(exc.details.get("stderr", "")) if exc.details else ""
        if ref is not None and ("couldn't find remote ref" in detail or "not our ref" in detail
                                or exc.code == "bad_ref"):
            raise InvalidInput(f"{receipt.repository} has no {ref!r} (a branch, tag or commit)", field="--to",
                               code="unknown_ref") from None
        raise Unavailable(f"cannot reach the template repository {receipt.repository}: {exc.message}",
                          code="source_unavailable", details={"stderr": detail}) from None
