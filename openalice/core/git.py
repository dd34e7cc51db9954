"""The few git operations the toolkit's upgrades need, run through the ``git`` CLI.

    top = git.work_tree(root)                     # None: not a git work tree (or no git)
    git.staged_paths(root)                        # what is staged now (a blocker for upgrades)
    sha = git.commit_paths(root, ["AGENTS.md"], "subject", trailers={"OpenAlice-Harness-Upgrade": d})
    git.head_has_trailer(root, "OpenAlice-Harness-Upgrade", d)
    git.unstage(root, ["AGENTS.md"])             # index back to HEAD for those paths
    git.ensure_excluded(root, ["/.alice/bin/"])   # .git/info/exclude, relative to the workspace

and what source-backed upgrades need (a template repository merged in):

    git.require_version((2, 38), "merge-tree --write-tree")
    git.clone(url, target); git.checkout_branch(target, "main", sha)
    sha = git.fetch(root, url, "main", into="refs/openalice/source/incoming")
    merged = git.merge_tree(root, "HEAD", sha)     # MergeTree(tree, conflicts): nothing else is touched
    git.changed_paths(root, "HEAD", merged.tree); git.status_entries(root)
    git.merge_no_commit(root, sha, message) ... git.commit_merge(root, message) | git.abort_merge(root)

Commits touch exactly the paths given (``git commit -- PATHS``: other staged
or unstaged changes are left alone); paths git ignores are never forced in.
Upgrade commits are authored ``OpenAlice <launcher@local>`` so they work
without a configured identity (a person's approved issue edit is committed
as the repository's user: ``author=None``); the repository's hooks run as usual, and a failing hook
is a :class:`GitError` the caller rolls back from.  Paths are relative to
``root`` (which may be a subdirectory of the work tree).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from . import fs
from .errors import OperationalError

__all__ = ["GitError", "AUTHOR", "work_tree", "staged_paths", "commit_paths", "head", "head_message",
           "head_has_trailer", "unstage", "ensure_excluded", "run", "version", "require_version", "clone",
           "checkout_branch", "resolve_commit", "current_branch", "remote_head", "fetch", "delete_ref", "show_file",
           "MergeTree", "merge_tree", "changed_paths", "status_entries", "is_ancestor", "merge_head",
           "merge_message", "merge_no_commit", "unmerged_paths", "abort_merge", "add", "commit_merge",
           "REMOTE_PROTOCOLS"]

AUTHOR = ("OpenAlice", "launcher@local")
TIMEOUT = 300.0


class GitError(OperationalError):
    """A git command failed (its last stderr line is the message)."""

    default_code = "git_failed"


def run(root: os.PathLike | str | None, *args: str, check: bool = True, input: bytes | None = None,
        env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """``git -C root ARGS`` (``root`` None: no ``-C``) with no prompt and no pager; bytes in and out."""
    full_env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", LC_ALL="C")
    full_env.update(env or {})
    where = ["-C", os.fspath(root)] if root is not None else []
    try:
        proc = subprocess.run(["git", *where, *args], input=input, capture_output=True,
                              env=full_env, timeout=TIMEOUT,
                              stdin=None if input is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        if not check:
            return subprocess.CompletedProcess(args, 127, b"", b"git not found")
        raise GitError("git is not installed", code="git_missing") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not finish within {TIMEOUT:g} s") from None
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed{f' in {root}' if root is not None else ''}: "
                       f"{detail[-1] if detail else 'exit ' + str(proc.returncode)}",
                       details={"stderr": "\n".join(detail[-20:])})
    return proc


def _has_git_marker(root: os.PathLike | str) -> bool:
    """A ``.git`` entry in ``root`` or an ancestor (or ``GIT_DIR`` set): only
    then is it worth starting git to ask."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return True
    current = os.path.abspath(root)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def work_tree(root: os.PathLike | str) -> Path | None:
    """The top of the git work tree containing ``root``, or None."""
    if not os.path.isdir(root) or not _has_git_marker(root):
        return None
    proc = run(root, "rev-parse", "--show-toplevel", check=False)
    if proc.returncode != 0:
        return None
    return Path(proc.stdout.decode("utf-8", "surrogateescape").strip())


def _split_z(data: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in data.split(b"\0") if p]


def staged_paths(root: os.PathLike | str) -> list[str]:
    """Paths with staged changes (relative to the work tree top)."""
    return _split_z(run(root, "diff", "--cached", "--name-only", "-z").stdout)


def head(root: os.PathLike | str) -> str | None:
    proc = run(root, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def head_message(root: os.PathLike | str) -> str | None:
    proc = run(root, "log", "-1", "--format=%B", check=False)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def head_has_trailer(root: os.PathLike | str, key: str, value: str) -> bool:
    message = head_message(root)
    return bool(message) and any(line.strip() == f"{key}: {value}" for line in message.splitlines())


def _prefix(root) -> str:
    return run(root, "rev-parse", "--show-prefix").stdout.decode("utf-8", "surrogateescape").strip()


def _ignored(root, paths: Sequence[str]) -> set[str]:
    if not paths:
        return set()
    proc = run(root, "check-ignore", "-z", "--stdin", check=False,
               input=b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths))
    if proc.returncode not in (0, 1):
        raise GitError(f"git check-ignore failed in {root}")
    return set(_split_z(proc.stdout))


def commit_paths(root: os.PathLike | str, paths: Iterable[str], subject: str, *,
                 trailers: Mapping[str, str] | None = None, body: str = "",
                 author: tuple[str, str] | None = AUTHOR) -> str | None:
    """Stage and commit exactly ``paths`` (added, changed or deleted); the new
    HEAD, or None when git sees nothing to commit there.  ``author=None``
    commits as the repository's configured user (a person's approved edit)."""
    wanted = sorted(set(paths))
    if not wanted:
        return None
    tracked = _tracked_set(root, wanted)
    candidates = [p for p in wanted if p in tracked or os.path.lexists(os.path.join(os.fspath(root), p))]
    ignored = _ignored(root, [p for p in candidates if p not in tracked])
    chosen = [p for p in candidates if p not in ignored]
    if not chosen:
        return None
    run(root, "add", "-A", "--", *chosen)
    if run(root, "diff", "--cached", "--quiet", "--", *chosen, check=False).returncode == 0:
        return None
    message = subject.strip() + "\n"
    if body.strip():
        message += "\n" + body.strip() + "\n"
    if trailers:
        message += "\n" + "".join(f"{k}: {v}\n" for k, v in trailers.items())
    run(root, "commit", "-q", "--no-edit", "-F", "-", "--", *chosen, input=message.encode("utf-8"),
        env=_author_env(author))
    return head(root)


def _tracked_set(root, paths: Sequence[str]) -> set[str]:
    """Which of ``paths`` (relative to ``root``) git tracks."""
    if not paths:
        return set()
    prefix = _prefix(root)
    out = set()
    for full in _split_z(run(root, "ls-files", "-z", "--full-name", "--", *paths).stdout):
        out.add(full[len(prefix):] if prefix and full.startswith(prefix) else full)
    return out


def unstage(root: os.PathLike | str, paths: Iterable[str]) -> None:
    """Put the index entries of ``paths`` back to HEAD (or out of the index
    when the repository has no commit yet)."""
    chosen = sorted(set(paths))
    if not chosen:
        return
    if head(root) is None:
        run(root, "rm", "-q", "-r", "--cached", "--ignore-unmatch", "--", *chosen, check=False)
    else:
        run(root, "reset", "-q", "--", *chosen, check=False)


def ensure_excluded(root: os.PathLike | str, patterns: Iterable[str]) -> bool:
    """Add the workspace-relative ``patterns`` (``/.alice/bin/``) to the
    repository's ``info/exclude``; True if the file changed."""
    top = work_tree(root)
    if top is None:
        return False
    exclude = Path(run(root, "rev-parse", "--git-path", "info/exclude").stdout.decode().strip())
    if not exclude.is_absolute():
        exclude = Path(root) / exclude
    sub = _prefix(root).rstrip("/")
    wanted = [("/" + sub + p if sub else p) if p.startswith("/") else p for p in patterns]
    with fs.locked_file(exclude):
        current = fs.read_text(exclude, missing="")
        missing = [w for w in wanted if w not in current.splitlines()]
        if not missing:
            return False
        text = current if not current or current.endswith("\n") else current + "\n"
        if "# OpenAlice bookkeeping" not in current:
            text += "# OpenAlice bookkeeping (machine-local)\n"
        fs.atomic_write_text(exclude, text + "".join(m + "\n" for m in missing), dir_mode=0o755)
    return True


# -- source-backed upgrades ---------------------------------------------------------------------------

# Transports a template repository may use: a tracked receipt names it, so
# nothing that runs a command (``ext::``) or an unknown helper is allowed.
REMOTE_PROTOCOLS = "file:git:http:https:ssh"
_REMOTE_ENV = {"GIT_ALLOW_PROTOCOL": REMOTE_PROTOCOLS, "GIT_PROTOCOL_FROM_USER": "0"}
_version: tuple[int, ...] | None = None


def version() -> tuple[int, ...]:
    """The installed git's version, ``(2, 39, 5)``."""
    global _version
    if _version is None:
        out = run(None, "--version").stdout.decode("ascii", "replace")   # "git version 2.39.5"
        numbers = []
        for part in out.split()[2].split(".") if len(out.split()) > 2 else ():
            if not part.isdigit():
                break
            numbers.append(int(part))
        _version = tuple(numbers)
    return _version


def require_version(minimum: tuple[int, ...], feature: str) -> None:
    have = version()
    if have < minimum:
        raise GitError(f"git {'.'.join(map(str, have)) or '?'} is too old for {feature}: it needs git "
                       f"{'.'.join(map(str, minimum))} or newer", code="git_too_old",
                       details={"have": ".".join(map(str, have)), "need": ".".join(map(str, minimum))})


def clone(source: str, target: os.PathLike | str) -> None:
    """``git clone --no-checkout`` of ``source`` (any URL or a local path) into ``target``."""
    run(None, "clone", "-q", "--no-checkout", "--", source, os.fspath(target), env=_REMOTE_ENV)


def checkout_branch(root: os.PathLike | str, branch: str, commit: str) -> None:
    """Point ``branch`` at ``commit``, check it out, work tree and index included."""
    run(root, "checkout", "-q", "-B", branch, commit, "--")


def resolve_commit(root: os.PathLike | str, rev: str) -> str | None:
    """The commit ``rev`` names (a sha, a branch, a tag, ``refs/...``), or None."""
    if rev.startswith("-"):
        return None
    proc = run(root, "rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}", check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def current_branch(root: os.PathLike | str) -> str | None:
    proc = run(root, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return proc.stdout.decode("utf-8", "surrogateescape").strip() or None if proc.returncode == 0 else None


def remote_head(root: os.PathLike | str, repository: str) -> tuple[str | None, str | None]:
    """``(branch, sha)`` of the repository's default branch (its ``HEAD``)."""
    out = run(root, "ls-remote", "--symref", "--", repository, "HEAD", env=_REMOTE_ENV).stdout
    branch = sha = None
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("ref: ") and line.endswith("\tHEAD"):
            target = line[5:-5]
            branch = target[len("refs/heads/"):] if target.startswith("refs/heads/") else target
        elif line.endswith("\tHEAD"):
            sha = line.split("\t", 1)[0]
    return branch, sha


def fetch(root: os.PathLike | str, repository: str, ref: str, *, into: str) -> str:
    """Fetch ``ref`` (a branch, a tag, ``HEAD`` or a commit sha) of ``repository`` into the
    local ref ``into`` (which keeps it from garbage collection); the commit it names."""
    if ref.startswith("-") or ":" in ref:
        raise GitError(f"not a ref: {ref!r}", code="bad_ref")
    run(root, "fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", repository, f"+{ref}:{into}",
        env=_REMOTE_ENV)
    commit = resolve_commit(root, into)
    if commit is None:
        raise GitError(f"{ref!r} of {repository} is not a commit", code="bad_ref")
    return commit


def delete_ref(root: os.PathLike | str, ref: str) -> None:
    run(root, "update-ref", "-d", ref, check=False)


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


@dataclass(frozen=True)
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
    return _split_z(run(root, "diff", "--name-only", "--no-renames", "-z", a, b, "--").stdout)


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


def _author_env(author: tuple[str, str] | None) -> dict:
    if author is None:
        return {}
    name, email = author
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email}


def merge_no_commit(root: os.PathLike | str, commit: str, message: str) -> subprocess.CompletedProcess:
    """``git merge --no-ff --no-commit`` of ``commit``: the work tree and index hold the merge,
    MERGE_HEAD is set, nothing is committed.  Not checked: exit 1 is a conflict (or files in
    the way), which the caller aborts."""
    return run(root, "merge", "-q", "--no-ff", "--no-commit", "--no-edit", "--no-autostash", "-m", message,
               commit, check=False)


def unmerged_paths(root: os.PathLike | str) -> list[str]:
    return _split_z(run(root, "diff", "--name-only", "--diff-filter=U", "-z").stdout)


def abort_merge(root: os.PathLike | str) -> None:
    """``git merge --abort``: index and the merge's files back to HEAD (other local changes kept)."""
    run(root, "merge", "--abort")


def add(root: os.PathLike | str, paths: Iterable[str], *, force: bool = False) -> None:
    chosen = sorted(set(paths))
    if chosen:
        run(root, "add", *(["-f"] if force else []), "--", *chosen)


def commit_merge(root: os.PathLike | str, message: str, *, author: tuple[str, str] | None = AUTHOR) -> str:
    """Commit the merge in progress (hooks run as usual); the new HEAD."""
    run(root, "commit", "-q", "--no-edit", "-F", "-", input=message.encode("utf-8"), env=_author_env(author))
    return head(root)
