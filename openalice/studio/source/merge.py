"""``source apply``: merge exactly the previewed commit as one ``--no-ff`` merge commit that also
updates the receipt, under the Studio operation lease and the checkout lease (the one ritual,
:func:`openalice.managed.apply_previewed`); anything that fails
midway is aborted (work tree, index and HEAD as before)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from openalice.core import fs, git
from openalice.core.crash import crash_point
from openalice.core.errors import Busy, Conflict, InvalidInput, OperationalError, UsageError
from openalice.core.records import record_class
from openalice.managed import apply_previewed
from openalice.studio import lifecycle

from .plan import Preview, plan_at_commit, source_root
from .receipt import COMMIT_TRAILER, INCOMING_REF, MERGE_TREE_GIT, RECEIPT_FILE, TRAILER, Receipt, read_receipt
from .recovery import recover_under_lease


@record_class(frozen=True)
class Applied:
    commit: str
    changed: list[str]


def _subject(plan: Preview) -> str:
    r = plan.receipt
    return (f"source({r.template}): upgrade {r.version} -> {plan.version} "
            f"({r.commit[:12]} -> {plan.commit[:12]})")


def _message(plan: Preview) -> str:
    return (f"{_subject(plan)}\n\nMerge {plan.commit} of {plan.receipt.repository}.\n\n"
            f"{TRAILER}: {plan.digest}\n{COMMIT_TRAILER}: {plan.commit}\n")


def apply(ws, *, digest: str, now: datetime) -> tuple[Preview, Applied | None]:
    """Merge the previewed commit; ``(plan, None)`` when the workspace already has it."""
    if not digest or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise UsageError("--digest must be the 64-hex digest a preview printed", field="--digest", code="usage")
    git.require_version(MERGE_TREE_GIT, "source upgrades (merge-tree --write-tree)")
    root = source_root(ws)

    def plan() -> Preview:
        receipt, receipt_bytes = read_receipt(root)
        commit = git.resolve_commit(root, INCOMING_REF)
        if commit is None:
            raise InvalidInput("nothing was previewed here; run 'alice-harness source preview' first",
                               code="stale_plan", details={"digest": None})
        return plan_at_commit(ws, root, receipt, receipt_bytes, commit, None)

    def settle(plan: Preview) -> bool:
        if plan.current:
            git.delete_ref(root, INCOMING_REF)
            return True
        for blocker in plan.blockers:
            cls = Busy if blocker["code"] in ("live_run", "studio_running") else Conflict
            raise cls(blocker["message"], code=blocker["code"],
                      details={k: v for k, v in blocker.items() if k not in ("code", "message")})
        if not plan.mergeable:
            raise Conflict(f"the merge has conflicts in {len(plan.conflicts)} path"
                           f"{'s' if len(plan.conflicts) != 1 else ''}: {', '.join(plan.conflicts[:5])}"
                           "; nothing was changed (merge by hand: git merge "
                           f"{plan.commit[:12]}, or resolve upstream)", code="merge_conflict",
                           details={"conflicts": plan.conflicts})
        git.require_unlocked(root, "merge")     # a lock recover_under_lease could not prove stale: a live git's
        return False

    def apply_(plan: Preview) -> Applied:
        applied = _merge(root, plan)
        git.delete_ref(root, INCOMING_REF)
        return applied

    def fact(plan: Preview, applied: Applied) -> tuple[str, dict]:
        receipt = plan.receipt
        return "harness.source.upgraded", {
            "workspaceId": ws.id, "template": receipt.template, "repository": receipt.repository,
            "fromCommit": receipt.commit, "toCommit": plan.commit, "fromVersion": receipt.version,
            "toVersion": plan.version, "digest": plan.digest, "commit": applied.commit,
            "changed": len(applied.changed)}

    return apply_previewed(
        ws, purpose="alice-harness source apply", digest=digest, now=now,
        hold=lifecycle.held_idle(ws, "source apply", now=now),     # no Studio now, none can start meanwhile
        recover=lambda: recover_under_lease(ws, root, now), plan=plan, settle=settle, apply=apply_, fact=fact,
        changed="the workspace or the previewed target")


def _merge(root: Path, plan: Preview) -> Applied:
    before = git.head(root)
    message = _message(plan)
    merging = git.merge_no_commit(root, plan.commit, message)
    try:
        if merging.returncode != 0:
            unmerged = set(git.unmerged_paths(root))
            if git.merge_head(root) is None or not unmerged <= {RECEIPT_FILE}:
                detail = (merging.stderr or merging.stdout).decode("utf-8", "replace").strip().splitlines()
                raise Conflict("git could not merge "
                               f"{plan.commit[:12]}: {detail[-1] if detail else 'exit ' + str(merging.returncode)}"
                               "; nothing was changed", code="merge_conflict",
                               details={"conflicts": sorted(unmerged), "stderr": "\n".join(detail[-20:])})
        crash_point("source-merged")
        receipt = Receipt(plan.receipt.template, plan.receipt.repository, plan.version, plan.commit)
        fs.atomic_write_bytes(root / RECEIPT_FILE, receipt.encoded(), mode=0o644, dir_mode=0o755,
                              root=root)
        git.add(root, [RECEIPT_FILE], force=True)
        commit = git.commit_merge(root, message)
    except BaseException:
        _abort(root, before)
        raise
    return Applied(commit, git.changed_paths(root, before, commit))


def _abort(root: Path, before: str | None) -> None:
    """Put HEAD, index and work tree back as they were before our merge began."""
    if git.merge_head(root) is not None:
        git.abort_merge(root)
    if git.head(root) != before or git.merge_head(root) is not None:
        raise OperationalError(f"could not undo the interrupted merge in {root}: HEAD is {git.head(root)}, "
                               f"was {before}; inspect with 'git status'", code="git_failed")
