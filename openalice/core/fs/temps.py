"""Temp files: their names (the writer is in the name), the next-writer sweep
of those left by writers that died, and directories built under a temp name
(:func:`staged_dir`)."""

from __future__ import annotations

import errno
import os
import stat
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import Conflict, OperationalError
from ..paths import Root
from .directories import ensure_dir, fsync_dir, under_a_home

TEMP_PREFIX = ".tmp-"
#: Seconds after which a temp file whose writer cannot be identified as gone
#: (another host, a reused pid, an old name) is taken as abandoned.  A write
#: lasts milliseconds; an hour leaves room for a suspended machine.
TEMP_MAX_AGE = 3600.0
_swept: set[tuple[int, int]] = set()   # directories this process has swept already
_HOST = f"{zlib.crc32(os.uname().nodename.encode()) & 0xffff:04x}"


def _temp_name(name: str) -> str:
    """``.tmp-<name>.<pid>.<host>.<random>``: the writer is in the name (see the sweep)."""
    return f"{TEMP_PREFIX}{name}.{os.getpid()}.{_HOST}.{os.urandom(4).hex()}"


def create_temp(directory: Root, name: str) -> tuple[int, str]:
    """A new temp file for ``name`` in ``directory``, born 0600, never through a link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = _temp_name(name)
        try:
            return os.open(tmp, flags, 0o600, dir_fd=directory.fd), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temp file name", name)


def unlink_quietly(name: str, directory: Root) -> None:
    try:
        os.unlink(name, dir_fd=directory.fd)
    except OSError:
        pass


@contextmanager
def staged_dir(target: os.PathLike | str, *, mode: int = 0o755,
               replace_empty: bool = False) -> Iterator[Path]:
    """Build a new directory under a temp name beside ``target`` (``.tmp-<name>.*``)
    and rename it into place, durably, when the block ends; if the block
    raises, the temp directory is removed.  ``target`` must not exist yet
    (Conflict).  Readers see no directory or the whole one, never a partial
    one.  Temp directories of the same target whose writer is gone, or older
    than :data:`TEMP_MAX_AGE`, are removed first (the caller holds the lock
    that serializes writers of ``target``), and so are those of any other
    target in the same directory whose writer is gone (a killed build of
    another revision, say, that no one would start again) when that directory
    is the toolkit's own state, below a home (never in a user's directory).
    ``replace_empty``: an empty directory at ``target`` is allowed and
    replaced at the rename."""
    import shutil  # lazy: shutil costs start-up time and only a staged directory needs rmtree

    final = Path(target)
    parent = ensure_dir(final.parent, mode)
    now = time.time()
    own_state = under_a_home(parent)
    try:
        names = os.listdir(parent)
    except OSError:
        names = []
    for stale in names:
        if not stale.startswith(TEMP_PREFIX):
            continue
        same_target = _temp_target(stale) == final.name
        path = parent / stale
        try:
            st = path.lstat()
            owner = _temp_owner(stale)
            gone = owner is not None and _writer_gone(*owner, st.st_mtime)
            # another target's build may be slow but alive: only its writer's death frees it
            if stat.S_ISDIR(st.st_mode) and (
                    (same_target and (gone or now - st.st_mtime > TEMP_MAX_AGE)) or (own_state and gone)):
                shutil.rmtree(path)
        except OSError:
            continue
    if os.path.lexists(final) and not (replace_empty and _empty_dir(final)):
        raise Conflict("already exists", file=final, code="exists")
    try:
        tmp = parent / _temp_name(final.name)
        os.mkdir(tmp, 0o700)
        os.chmod(tmp, mode)
    except OSError as exc:
        raise OperationalError(f"cannot create temp directory: {exc.strerror}", file=final) from exc
    try:
        yield tmp
        fsync_dir(tmp)
        try:
            if replace_empty and _empty_dir(final):
                os.rmdir(final)
            os.rename(tmp, final)
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                raise Conflict("already exists", file=final, code="exists") from None
            raise OperationalError(f"cannot rename into place: {exc.strerror}", file=final) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(parent)


def _empty_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode) and not os.listdir(path)
    except OSError:
        return False


# -- temp files left by writers that died ---------------------------------------------

def _temp_owner(name: str) -> tuple[int, str] | None:
    """``(pid, host tag)`` of a temp named by :func:`create_temp`, else None."""
    parts = name.rsplit(".", 3)
    if len(parts) != 4 or not parts[1].isdigit() or len(parts[2]) != 4 or len(parts[3]) != 8:
        return None
    return int(parts[1]), parts[2]


def _temp_target(name: str) -> str:
    """The name of the file a temp was written for (``.tmp-<name>.<pid>.<host>.<random>``,
    or ``mkstemp``'s ``.tmp-<name>.<random>`` of older versions)."""
    body = name[len(TEMP_PREFIX):]
    return body.rsplit(".", 3)[0] if _temp_owner(name) is not None else body.rsplit(".", 1)[0]


def _writer_gone(pid: int, host: str, written: float | None = None) -> bool:
    """True when the temp's writer ran on this host and no longer runs: no
    process has its pid, or (Linux) the one that has it now started after the
    temp was last written (``written``, its mtime), so it is a reused pid."""
    if host != _HOST or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        pass  # alive, another user's
    if written is None:
        return False
    started = _process_start(pid)
    return started is not None and started > written + 2.0   # btime is whole seconds


def _process_start(pid: int) -> float | None:
    """When ``pid`` started (seconds since the epoch), from /proc; None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
        with open("/proc/stat", "rb") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith(b"btime "))
        ticks = int(raw[raw.rfind(b")") + 2:].split()[19])
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _sweep_fd(fd: int, *, older_than: float, now: float, target: str | None = None) -> list[str]:
    """Remove the abandoned temps in the directory ``fd``; their names.
    ``target`` limits it to the temps of one file name."""
    prefix = TEMP_PREFIX if target is None else f"{TEMP_PREFIX}{target}."
    removed: list[str] = []
    try:
        with os.scandir(fd) as entries:
            candidates = [e.name for e in entries if e.name.startswith(prefix)
                          and (target is None or _temp_target(e.name) == target)]
    except OSError:
        return removed
    for name in candidates:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        owner = _temp_owner(name)
        stale = now - st.st_mtime >= older_than
        if not stale and not (owner is not None and _writer_gone(*owner, st.st_mtime)):
            continue
        try:
            os.unlink(name, dir_fd=fd)
            removed.append(name)
        except OSError:
            continue
    return removed


def sweep_root_once(directory: Root) -> None:
    """The next-writer sweep: once per process and directory, before the
    process's first change there.  After it would leave a hole: a writer
    killed between its rename and its sweep has made its change (a record
    now ``done``, say) and no one may write that directory again, so the
    temp of the writer killed before it would stay for good."""
    try:
        st = os.fstat(directory.fd)
    except OSError:
        return
    key = (st.st_dev, st.st_ino)
    if key in _swept:
        return
    _swept.add(key)
    _sweep_fd(directory.fd, older_than=TEMP_MAX_AGE, now=time.time())


def sweep_once(directory: os.PathLike | str) -> None:
    """The next-writer sweep of ``directory`` (once per process), for writers
    that append rather than replace (``core.jsonl``): they write the directory
    too, and may be the only writer it has after a kill."""
    try:
        st = os.stat(directory)
    except OSError:
        return
    if (st.st_dev, st.st_ino) in _swept:
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        _swept.add((st.st_dev, st.st_ino))
        _sweep_fd(fd, older_than=TEMP_MAX_AGE, now=time.time())
    finally:
        os.close(fd)


def sweep_temp_files(directory: os.PathLike | str, *, older_than: float = TEMP_MAX_AGE,
                     now: float | None = None, recursive: bool = False,
                     target: str | None = None) -> list[Path]:
    """Remove ``.tmp-*`` files left by writers that died mid-write: those
    whose writer is gone (pid on this host no longer running) and those older
    than ``older_than`` seconds, so a write in flight (which lasts
    milliseconds) is never disturbed.  ``target`` limits the sweep to the
    temps of that one file name; a caller holding the file's lock, which
    every writer of it takes, may pass ``older_than=0``."""
    current = time.time() if now is None else now
    removed: list[Path] = []
    base = Path(directory)
    stack = [base]
    while stack:
        here = stack.pop()
        try:
            fd = os.open(here, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            removed.extend(here / name for name in _sweep_fd(fd, older_than=older_than,
                                                                now=current, target=target))
            if recursive:
                with os.scandir(fd) as entries:
                    stack.extend(here / e.name for e in entries
                                 if e.is_dir(follow_symlinks=False))
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed
