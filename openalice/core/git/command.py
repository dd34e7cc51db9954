"""Running git: one ``git`` process per call, no prompt, no pager, a timeout;
the installed git's version; the identity upgrade commits are authored as."""

from __future__ import annotations

import os

from openalice.core import patterns

from ..errors import Busy, OperationalError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    import subprocess
    from typing import Mapping

AUTHOR = ("OpenAlice", "launcher@local")
TIMEOUT = 300.0


class GitError(OperationalError):
    """A git command failed (its last stderr line is the message)."""

    default_code = "git_failed"


_UNABLE = patterns.compile(r"Unable to create '([^']+\.lock)': File exists")


class GitLocked(GitError, Busy):
    """git refused: one of its lock files exists (exit 3, code ``git_locked``, ``file`` the lock)."""

    exit_code = Busy.exit_code
    default_code = "git_locked"


def locked_file(stderr: str) -> str | None:
    """The lock file git's message says it could not create, else None."""
    match = _UNABLE.search(stderr)
    return match.group(1) if match else None


def locked_error(root, command: str, lock: str, stderr: str) -> GitLocked:
    where = f" in {root}" if root is not None else ""
    return GitLocked(f"git {command} failed{where}: its lock file {lock} exists: a git process is working in "
                     "this repository, or one was killed and left it. If no git is running there, remove "
                     f"{lock} and run the command again", file=lock,
                     details={"stderr": stderr, "hint": f"rm '{lock}' once no git runs in the repository"})


def run(root: os.PathLike | str | None, *args: str, check: bool = True, input: bytes | None = None,
        env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """``git -C root ARGS`` (``root`` None: no ``-C``) with no prompt and no pager; bytes in and out."""
    full_env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", LC_ALL="C")
    full_env.update(env or {})
    where = ["-C", os.fspath(root)] if root is not None else []
    import subprocess  # lazy: (threading, signal, selectors) only when a git process starts

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
        lock = locked_file("\n".join(detail))
        if lock is not None:
            raise locked_error(root, args[0], lock, "\n".join(detail[-20:]))
        raise GitError(f"git {args[0]} failed{f' in {root}' if root is not None else ''}: "
                       f"{detail[-1] if detail else 'exit ' + str(proc.returncode)}",
                       details={"stderr": "\n".join(detail[-20:])})
    return proc


def split_nul(data: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in data.split(b"\0") if p]


def author_env(author: tuple[str, str] | None) -> dict:
    if author is None:
        return {}
    name, email = author
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email}


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
