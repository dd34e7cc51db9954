"""Merges of a template into a workspace: computed in the object store
(:func:`merge_tree`), compared (:func:`changed_paths`, :func:`status_entries`),
and performed, committed or aborted in the work tree."""

from __future__ import annotations

import os
from pathlib import Path

from .. import fs
from ..records import record_class
from .command import AUTHOR, GitError, author_env, locked_error, locked_file, require_version, run, split_nul
from .commits import head, resolve_commit

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import subprocess


def checkout_branch(root: os.PathLike | str, branch: str, commit: str) -> None:
    """Point ``branch`` at ``commit``, check it out, work tree and index included."""
    run(root, "checkout", "-q", "-B", branch, commit, "--")


def show_file(root: os.PathLike | str, treeish: str, path: str, *, max_bytes: int) -> bytes | None:
    """The bytes of ``path`` in ``treeish`` (a commit or tree), None if there is no such file.
    A file over ``max_bytes`` is not read: ``max_bytes + 1`` bytes of it are returned, so the
    caller's own size check refuses it."""
    listing = run(root, "ls-tree", "-z", "-l", "--full-tree", treeish, "--", path).stdout
    entry = listing.split(b"\0", 1)[0]
    if not entry:
        return None
    meta, _, _name = entry.partition(b"\t")
    mode, kind, oid, size = meta.split()
    if kind != b"blob" or mode == b"120000":
        return None
    if int(size) > max_bytes:
        return b"\0" * (max_bytes + 1)
    return run(root, "cat-file", "blob", oid.decode()).stdout


@record_class(frozen=True)
class MergeTree:
    tree: str                      # the merged tree (with conflict markers where there are conflicts)
    conflicts: tuple[str, ...]     # paths with a conflict (empty: the merge is clean)

    @property
    def clean(self) -> bool:
        return not self.conflicts


def merge_tree(root: os.PathLike | str, ours: str, theirs: str) -> MergeTree:
    """The merge of ``theirs`` into ``ours`` computed in the object store only
    (``git merge-tree --write-tree``, git 2.38+): work tree, index and HEAD are not touched."""
    require_version((2, 38), "merge-tree --write-tree")
    proc = run(root, "merge-tree", "--write-tree", "--no-messages", "--name-only", "-z", ours, theirs,
               check=False)
    if proc.returncode not in (0, 1):
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git merge-tree failed in {root}: {detail[-1] if detail else proc.returncode}",
                       code="not_mergeable", details={"stderr": "\n".join(detail[-20:])})
    fields = proc.stdout.split(b"\0")
    conflicts = []
    for name in fields[1:]:
        if not name:
            break
        conflicts.append(name.decode("utf-8", "surrogateescape"))
    return MergeTree(fields[0].decode().strip(), tuple(dict.fromkeys(conflicts)))


def changed_paths(root: os.PathLike | str, a: str, b: str) -> list[str]:
    """Paths that differ between two commits or trees (a rename is both of its names)."""
    return split_nul(run(root, "diff", "--name-only", "--no-renames", "-z", a, b, "--").stdout)


def status_entries(root: os.PathLike | str) -> list[tuple[str, str]]:
    """``(XY, path)`` for every changed, staged or untracked path (ignored ones excluded),
    from ``git status --porcelain -z``; a rename or copy gives both of its paths."""
    fields = run(root, "status", "--porcelain=v1", "-z", "--untracked-files=all").stdout.split(b"\0")
    out = []
    i = 0
    while i < len(fields):
        field = fields[i]
        i += 1
        if len(field) < 4:
            continue
        code, path = field[:2].decode("ascii", "replace"), field[3:].decode("utf-8", "surrogateescape")
        out.append((code, path))
        if code[0] in "RC" and i < len(fields):
            out.append((code, fields[i].decode("utf-8", "surrogateescape")))
            i += 1
    return out


def is_ancestor(root: os.PathLike | str, ancestor: str, descendant: str) -> bool:
    return run(root, "merge-base", "--is-ancestor", ancestor, descendant, check=False).returncode == 0


def merge_head(root: os.PathLike | str) -> str | None:
    """The commit being merged while a merge is in progress, else None."""
    return resolve_commit(root, "MERGE_HEAD")


def merge_message(root: os.PathLike | str) -> str:
    path = Path(run(root, "rev-parse", "--git-path", "MERGE_MSG").stdout.decode().strip())
    if not path.is_absolute():
        path = Path(root) / path
    return fs.read_text(path, missing="")


def merge_no_commit(root: os.PathLike | str, commit: str, message: str) -> subprocess.CompletedProcess:
    """``git merge --no-ff --no-commit`` of ``commit``: the work tree and index hold the merge,
    MERGE_HEAD is set, nothing is committed.  Not checked: exit 1 is a conflict (or files in
    the way), which the caller aborts."""
    # as AUTHOR, who commits it: git asks for a committer identity up front, and a machine may have none
    proc = run(root, "merge", "-q", "--no-ff", "--no-commit", "--no-edit", "--no-autostash", "-m", message,
               commit, check=False, env=author_env(AUTHOR))
    detail = (proc.stderr or b"").decode("utf-8", "replace").strip()
    lock = locked_file(detail) if proc.returncode != 0 else None
    if lock is not None:     # git took nothing: not a conflict, a lock someone holds (GitLocked, exit 3)
        raise locked_error(root, "merge", lock, detail)
    return proc


def unmerged_paths(root: os.PathLike | str) -> list[str]:
    return split_nul(run(root, "diff", "--name-only", "--diff-filter=U", "-z").stdout)


def abort_merge(root: os.PathLike | str) -> None:
    """``git merge --abort``: index and the merge's files back to HEAD (other local changes kept)."""
    run(root, "merge", "--abort")


def commit_merge(root: os.PathLike | str, message: str, *, author: tuple[str, str] | None = AUTHOR) -> str:
    """Commit the merge in progress (hooks run as usual); the new HEAD."""
    run(root, "commit", "-q", "--no-edit", "-F", "-", input=message.encode("utf-8"), env=author_env(author))
    return head(root)
