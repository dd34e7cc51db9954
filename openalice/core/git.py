"""The few git operations the toolkit's upgrades need, run through the ``git`` CLI.

    top = git.work_tree(root)                     # None: not a git work tree (or no git)
    git.staged_paths(root)                        # what is staged now (a blocker for upgrades)
    sha = git.commit_paths(root, ["AGENTS.md"], "subject", trailers={"OpenAlice-Harness-Upgrade": d})
    git.head_has_trailer(root, "OpenAlice-Harness-Upgrade", d)
    git.unstage(root, ["AGENTS.md"])             # index back to HEAD for those paths
    git.ensure_excluded(root, ["/.alice/bin/"])   # .git/info/exclude, relative to the workspace

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
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from . import fs
from .errors import OperationalError

__all__ = ["GitError", "AUTHOR", "work_tree", "staged_paths", "commit_paths", "head", "head_message",
           "head_has_trailer", "unstage", "ensure_excluded", "run"]

AUTHOR = ("OpenAlice", "launcher@local")
TIMEOUT = 300.0


class GitError(OperationalError):
    """A git command failed (its last stderr line is the message)."""

    default_code = "git_failed"


def run(root: os.PathLike | str, *args: str, check: bool = True, input: bytes | None = None,
        env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """``git -C root ARGS`` with no prompt and no pager; bytes in and out."""
    full_env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", LC_ALL="C")
    full_env.update(env or {})
    try:
        proc = subprocess.run(["git", "-C", os.fspath(root), *args], input=input, capture_output=True,
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
        raise GitError(f"git {args[0]} failed in {root}: "
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
    env = {}
    if author is not None:
        name, email = author
        env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
               "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    run(root, "commit", "-q", "--no-edit", "-F", "-", "--", *chosen, input=message.encode("utf-8"), env=env)
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
