"""The work tree and its commits: where the work tree is, what is staged,
committing exactly the paths given, unstaging, the machine-local exclude
file, and the revisions HEAD, a branch or a ref name."""

from __future__ import annotations

import os
from pathlib import Path

from .. import fs
from .command import AUTHOR, GitError, author_env, run, split_nul

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Iterable, Mapping, Sequence


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


def staged_paths(root: os.PathLike | str) -> list[str]:
    """Paths with staged changes (relative to the work tree top)."""
    return split_nul(run(root, "diff", "--cached", "--name-only", "-z").stdout)


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
    return set(split_nul(proc.stdout))


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
        env=author_env(author))
    return head(root)


def _tracked_set(root, paths: Sequence[str]) -> set[str]:
    """Which of ``paths`` (relative to ``root``) git tracks."""
    if not paths:
        return set()
    prefix = _prefix(root)
    out = set()
    for full in split_nul(run(root, "ls-files", "-z", "--full-name", "--", *paths).stdout):
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


def resolve_commit(root: os.PathLike | str, rev: str) -> str | None:
    """The commit ``rev`` names (a sha, a branch, a tag, ``refs/...``), or None."""
    if rev.startswith("-"):
        return None
    proc = run(root, "rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}", check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def current_branch(root: os.PathLike | str) -> str | None:
    proc = run(root, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return proc.stdout.decode("utf-8", "surrogateescape").strip() or None if proc.returncode == 0 else None


def add(root: os.PathLike | str, paths: Iterable[str], *, force: bool = False) -> None:
    chosen = sorted(set(paths))
    if chosen:
        run(root, "add", *(["-f"] if force else []), "--", *chosen)
