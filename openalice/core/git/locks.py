"""Git's own lock files (``index.lock``, ``HEAD.lock``, ``refs/…/<ref>.lock``) that a killed git left.

    git.locked_file(stderr)                       # the lock git could not create, from its message
    git.lock_files(root)                          # the lock files there now
    removed = git.remove_stale_locks(root, held_since=t)   # under the caller's lease only

A git process killed (SIGKILL, a power cut) while it holds one of its lock
files leaves it, and every later git command in that repository refuses with
"Unable to create '….lock': File exists … remove the file manually".  git
itself never removes one: a live git may hold it (``git commit`` holds
``index.lock`` while the editor is open).

:func:`remove_stale_locks` removes a lock only when it can prove no one holds
it, and only for a caller that holds a lease keeping every toolkit writer out
of the repository (the workspace checkout lease): each lock must be older
than ``held_since`` (the moment the caller's lease was taken: no git the
caller started made it), and no live git process may be working in the
repository (none has its working directory in the work tree or the git
directory, names either on its command line, or has the lock file open; a
process whose working directory cannot be read counts as working here).
Where that cannot be checked (no ``/proc``: macOS, the BSDs) nothing is
removed.  Anything else gets :class:`GitLocked` (exit 3) naming the file and
saying how to proceed.
"""

from __future__ import annotations

import os
from pathlib import Path

from .command import GitError, GitLocked, locked_error, locked_file, run

__all__ = ["GitLocked", "locked_file", "lock_files", "require_unlocked", "git_dirs", "live_git_processes", "remove_stale_locks"]

#: Lock files git keeps at the top of a git directory (refs/ is walked too).
_TOP_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "MERGE_HEAD.lock", "FETCH_HEAD.lock",
              "config.lock", "packed-refs.lock", "shallow.lock", "MERGE_MSG.lock")


def git_dirs(root: os.PathLike | str) -> tuple[Path, Path]:
    """``(git dir, common git dir)`` of the work tree at ``root`` (the same but in a linked worktree)."""
    out = run(root, "rev-parse", "--absolute-git-dir", "--git-common-dir").stdout.decode(
        "utf-8", "surrogateescape").splitlines()
    git_dir = Path(out[0])
    common = Path(out[1]) if len(out) > 1 else git_dir
    return git_dir, (common if common.is_absolute() else (Path(root) / common).resolve())


def lock_files(root: os.PathLike | str) -> list[Path]:
    """The lock files in the repository at ``root`` now (its git dir's, and every ``refs/…/*.lock``)."""
    git_dir, common = git_dirs(root)
    found = {d / name for d in {git_dir, common} for name in _TOP_LOCKS if os.path.lexists(d / name)}
    for dirpath, _dirs, names in os.walk(common / "refs"):
        found.update(Path(dirpath) / n for n in names if n.endswith(".lock"))
    return sorted(found)


def require_unlocked(root: os.PathLike | str, command: str) -> None:
    """:class:`GitLocked` for the first lock file in the repository, if any: a git command
    that must not start while someone holds one (``git merge`` with ``index.lock`` held
    writes the work tree and MERGE_HEAD, then fails to write the index)."""
    locks = lock_files(root)
    if locks:
        raise locked_error(root, command, os.fspath(locks[0]), "")


def _inside(path: str, place: str) -> bool:
    return path == place or path.startswith(place.rstrip("/") + "/")


def live_git_processes(places: list[str], locks: list[str] = ()) -> list[int] | None:
    """Pids of live processes that may be working in one of ``places`` (a work tree, a git
    directory): a git whose working directory is inside one or whose command line names one,
    or any process with one of ``locks`` open.  None where this system cannot tell (no /proc)."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    me, found = os.getpid(), []
    wanted = [p.encode("utf-8", "surrogateescape") for p in places]
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue                                         # gone meanwhile
        end = stat.rfind(b")")
        if stat[end + 2:end + 3] in (b"Z", b"X"):
            continue                                         # dead, not yet reaped
        if locks and _has_open(pid, locks):
            found.append(pid)
            continue
        if not stat[stat.find(b"(") + 1:end].startswith(b"git"):
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read()
        except (FileNotFoundError, ProcessLookupError):
            continue
        except OSError:
            found.append(pid)                                # cannot see where it works: it may be here
            continue
        if any(_inside(cwd, p) for p in places) or any(w in cmdline for w in wanted):
            found.append(pid)
    return found


def _has_open(pid: int, locks: list[str]) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False                                         # another user's, or gone: its git is judged above
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in locks:
                return True
        except OSError:
            continue
    return False


def remove_stale_locks(root: os.PathLike | str, *, held_since: float) -> tuple[list[Path], list[Path]]:
    """``(removed, kept)``: the repository's lock files that are proven stale removed (see the
    module's rule); call only while holding a lease that keeps every toolkit writer of the
    repository out, taken at ``held_since`` (``time.time()``)."""
    locks = lock_files(root)
    if not locks:
        return [], []
    git_dir, common = git_dirs(root)
    work_tree = os.path.realpath(root)
    try:
        top = run(root, "rev-parse", "--show-toplevel").stdout.decode("utf-8", "surrogateescape").strip()
        work_tree = os.path.realpath(top) if top else work_tree
    except GitError:
        pass
    places = sorted({work_tree, os.path.realpath(git_dir), os.path.realpath(common)})
    live = live_git_processes(places, [os.fspath(p) for p in locks])
    if live is None or live:
        return [], locks
    removed, kept = [], []
    for lock in locks:
        try:
            young = os.lstat(lock).st_mtime >= held_since
        except FileNotFoundError:
            continue
        if young:
            kept.append(lock)
            continue
        try:
            os.unlink(lock)
            removed.append(lock)
        except FileNotFoundError:
            continue
        except OSError:
            kept.append(lock)
    return removed, kept
