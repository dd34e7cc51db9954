"""Atomic file writes, strict reads, locked read-modify-write, temp sweeping.

Every state file in the toolkit is written here and nowhere else:

1. a temp file is created in the target's own directory (``.tmp-<name>.*``,
   born 0600 by ``mkstemp``), written and fsynced;
2. its mode is set (kept from the old file, or the one asked for);
3. ``os.replace`` swaps it over the target atomically;
4. the directory is fsynced so the rename itself survives a power cut.

A crash at any point leaves either the old file or the new one, plus at worst a
stray temp file that :func:`sweep_temp_files` removes later.
"""

from __future__ import annotations

import errno
import json
from glob import escape as glob_escape
import os
import stat
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from . import locks
from .errors import AliceError, Conflict, InvalidInput, NotFound, OperationalError

__all__ = [
    "TEMP_PREFIX", "ensure_dir", "atomic_write_bytes", "atomic_write_text",
    "atomic_write_json", "atomic_write_many", "dump_json", "read_bytes", "read_text", "read_json",
    "locked_update_json", "locked_file", "sweep_temp_files", "fsync_dir",
    "create_exclusive", "remove_file", "move_file", "remove_empty_dir", "ensure_private_dir",
    "open_state_file", "set_aside", "explain_os_error", "staged_dir",
]

TEMP_PREFIX = ".tmp-"
_MISSING = object()   # "raise NotFound"
_ABSENT = object()    # "tell me it is missing"
_umask_cache: int | None = None


def _umask() -> int:
    global _umask_cache
    if _umask_cache is None:
        current = os.umask(0o022)
        os.umask(current)
        _umask_cache = current
    return _umask_cache


def fsync_dir(directory: os.PathLike | str) -> None:
    """fsync a directory so a rename or create inside it is durable."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return  # some filesystems refuse; the data itself is already synced
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _blocking_ancestor(path: str) -> str | None:
    """The nearest existing path on the way to ``path`` that is not a directory."""
    current = os.path.abspath(path)
    while True:
        try:
            st = os.stat(current)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError:
            return None
        else:
            return None if stat.S_ISDIR(st.st_mode) else current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _home_field(path: str) -> str | None:
    from . import homes

    for var, home in (("OPENALICE_HOME", homes.openalice_home()),
                      ("HARNESS_HOME", homes.harness_home())):
        if os.path.abspath(path) == home:
            return var
    return None


def explain_os_error(exc: OSError, path: os.PathLike | str | None = None) -> AliceError | None:
    """A handled error (naming the file) for an operating-system error on a
    state path, or None when it names no file.

    A directory where a file belongs, a file where a directory belongs (an
    ``OPENALICE_HOME`` that is a file, too) and a symlink where a state file
    belongs are bad input (exit 2); anything else is an operational failure
    (exit 1) with the system's reason."""
    name = path if path is not None else exc.filename
    if name is None:
        return None
    name = os.fspath(name)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    code = exc.errno
    if code == errno.ENOTDIR:
        blocker = _blocking_ancestor(name) or name
        field = _home_field(blocker)
        where = f" (needed for {name})" if blocker != name else ""
        if field:
            return InvalidInput(f"{field} must be a directory, but {blocker} is a file", field=field,
                                file=blocker, code="not_a_directory")
        return InvalidInput(f"is not a directory{where}", file=blocker, code="not_a_directory")
    if code == errno.EISDIR:
        return InvalidInput("is a directory, not a file", file=name, code="not_regular_file")
    if code == errno.ELOOP:
        return InvalidInput("is a symbolic link; state files are never followed through links",
                            file=name, code="symlink_refused")
    if code == errno.ENAMETOOLONG:
        return InvalidInput("path is too long", file=name, code="bad_path")
    if code in (errno.EACCES, errno.EPERM):
        return OperationalError("permission denied", file=name, code="permission_denied")
    return OperationalError(f"cannot access: {exc.strerror or exc}", file=name)


def ensure_dir(path: os.PathLike | str, mode: int = 0o700) -> Path:
    """Create ``path`` (and every missing parent) with ``mode`` if missing; return it."""
    from .dirs import make_dirs

    p = Path(path)
    try:
        make_dirs(os.fspath(p), mode)
    except FileExistsError:
        raise InvalidInput("exists and is not a directory", file=p, code="not_a_directory") from None
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            raise explain_os_error(exc, p) from None
        raise OperationalError(f"cannot create directory: {exc.strerror}", file=p) from exc
    return p


_STATE_FLAGS = os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def open_state_file(path: os.PathLike | str, flags: int = os.O_RDONLY, mode: int = 0o600, *,
                    follow_symlinks: bool = False) -> int:
    """A descriptor on the regular file ``path``, never through a symlink in
    its last component (``O_NOFOLLOW``), never blocking on a FIFO
    (``O_NONBLOCK``, which does nothing to a regular file), and checked with
    ``fstat``.  FileNotFoundError propagates (the caller decides what
    missing means); a symlink, directory, device or FIFO, or a file where a
    directory belongs, is InvalidInput naming the file."""
    extra = _STATE_FLAGS if not follow_symlinks else os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | extra, mode)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise explain_os_error(exc, path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise InvalidInput(f"is {kind}, not a file", file=path, code="not_regular_file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def ensure_private_dir(path: os.PathLike | str) -> Path:
    """A directory only its owner may enter: created 0700, or tightened to 0700
    when it exists with group or other bits (it holds secrets)."""
    p = ensure_dir(path, 0o700)
    try:
        st = os.stat(p)
        if st.st_mode & 0o077:
            os.chmod(p, 0o700)
    except OSError as exc:
        raise OperationalError(f"cannot make the directory private: {exc.strerror}", file=p) from exc
    return p


def _kept_mode(target: Path) -> int:
    """The existing file's permissions, else 0666 & ~umask."""
    try:
        return os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()
    except OSError as exc:
        raise OperationalError(f"cannot stat: {exc.strerror}", file=target) from exc


def atomic_write_bytes(path: os.PathLike | str, data: bytes, *, mode: int | None = None,
                       durable: bool = True, dir_mode: int = 0o700) -> None:
    """Replace ``path`` with ``data`` atomically.

    ``mode`` defaults to the existing file's permissions, else 0666 & ~umask.
    Secrets pass ``mode=0o600``: the temp file is born 0600, so there is no
    window in which the content is readable by others.
    """
    target = Path(path)
    directory = target.parent
    ensure_dir(directory, dir_mode)
    if mode is None:
        mode = _kept_mode(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{target.name}.", dir=directory)
    except OSError as exc:
        raise OperationalError(f"cannot create temp file: {exc.strerror}", file=target) from exc
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if durable:
                os.fsync(fd)
            if mode != 0o600:
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise OperationalError(f"cannot write: {exc.strerror}", file=target) from exc
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    if durable:
        fsync_dir(directory)


def atomic_write_many(items: list[tuple[os.PathLike | str, bytes]], *, dir_mode: int = 0o700,
                      after_each: Callable[[int], None] | None = None) -> None:
    """Replace each path with its bytes, each atomically, with the fsyncs batched:
    every temp file is written and fsynced first, then each is renamed over its
    target in order (``after_each(n)`` runs after the n-th rename), then each
    directory is fsynced once.  A crash leaves every target old or new, plus
    at worst temp files :func:`sweep_temp_files` removes.  Modes are kept from
    the old files, else 0666 & ~umask (never for secrets: use
    :func:`atomic_write_bytes` with ``mode=0o600``)."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in items:
            target = Path(path)
            ensure_dir(target.parent, dir_mode)
            mode = _kept_mode(target)
            try:
                fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{target.name}.", dir=target.parent)
            except OSError as exc:
                raise OperationalError(f"cannot create temp file: {exc.strerror}", file=target) from exc
            staged.append((tmp, target))
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fchmod(fd, mode)
                os.fsync(fd)
            except OSError as exc:
                raise OperationalError(f"cannot write: {exc.strerror}", file=target) from exc
            finally:
                os.close(fd)
        for n, (tmp, target) in enumerate(staged):
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise OperationalError(f"cannot write: {exc.strerror}", file=target) from exc
            staged[n] = ("", target)
            if after_each is not None:
                after_each(n)
    finally:
        for tmp, _ in staged:
            if tmp:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
    for directory in dict.fromkeys(target.parent for _, target in staged):
        fsync_dir(directory)


def atomic_write_text(path: os.PathLike | str, text: str, **kwargs: Any) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), **kwargs)


def dump_json(obj: Any, *, indent: int | None = 2) -> str:
    """The one JSON serialization used for state files: UTF-8, trailing newline."""
    return json.dumps(obj, indent=indent, ensure_ascii=False) + "\n"


def atomic_write_json(path: os.PathLike | str, obj: Any, *, indent: int | None = 2,
                      **kwargs: Any) -> None:
    atomic_write_bytes(path, dump_json(obj, indent=indent).encode("utf-8"), **kwargs)


def create_exclusive(path: os.PathLike | str, data: bytes, *, mode: int = 0o644) -> bool:
    """Create ``path`` only if it does not exist yet (durably).  False if it did.

    Written through a temp file and ``os.link`` so a reader never sees a
    half-written file and an existing one is never replaced.
    """
    target = Path(path)
    ensure_dir(target.parent)
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{target.name}.", dir=target.parent)
    try:
        try:
            os.write(fd, data)
            os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
        except OSError as exc:
            raise OperationalError(f"cannot create: {exc.strerror}", file=target) from exc
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    fsync_dir(target.parent)
    return True


@contextmanager
def staged_dir(target: os.PathLike | str, *, mode: int = 0o755) -> Iterator[Path]:
    """Build a new directory under a temp name beside ``target`` (``.tmp-<name>.*``)
    and rename it into place, durably, when the block ends; if the block
    raises, the temp directory is removed.  ``target`` must not exist yet
    (Conflict).  Readers see no directory or the whole one, never a partial
    one.  Temp directories of the same target left by a writer that died
    more than an hour ago are removed first (the caller holds the lock that
    serializes writers of ``target``)."""
    import shutil

    final = Path(target)
    parent = ensure_dir(final.parent, mode)
    for stale in parent.glob(f"{TEMP_PREFIX}{glob_escape(final.name)}.*"):
        try:
            if stale.is_dir() and not stale.is_symlink() and time.time() - stale.lstat().st_mtime > 3600:
                shutil.rmtree(stale)
        except OSError:
            continue
    if os.path.lexists(final):
        raise Conflict("already exists", file=final, code="exists")
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{final.name}.", dir=parent))
        os.chmod(tmp, mode)
    except OSError as exc:
        raise OperationalError(f"cannot create temp directory: {exc.strerror}", file=final) from exc
    try:
        yield tmp
        fsync_dir(tmp)
        try:
            os.rename(tmp, final)
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                raise Conflict("already exists", file=final, code="exists") from None
            raise OperationalError(f"cannot rename into place: {exc.strerror}", file=final) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(parent)


def remove_file(path: os.PathLike | str) -> bool:
    """Delete a file durably; False if it was already gone."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise OperationalError(f"cannot remove: {exc.strerror}", file=path) from exc
    fsync_dir(Path(path).parent)
    return True


def move_file(source: os.PathLike | str, target: os.PathLike | str) -> None:
    """Rename ``source`` over ``target`` atomically (same filesystem), durably."""
    try:
        os.replace(source, target)
    except OSError as exc:
        raise OperationalError(f"cannot move {source}: {exc.strerror}", file=target) from exc
    fsync_dir(Path(target).parent)
    if Path(source).parent != Path(target).parent:
        fsync_dir(Path(source).parent)


def remove_empty_dir(path: os.PathLike | str) -> bool:
    """Remove ``path`` if it is an empty directory (never a symlink); False otherwise."""
    try:
        if os.path.islink(path):
            return False
        os.rmdir(path)
    except OSError:
        return False
    fsync_dir(Path(path).parent)
    return True


def set_aside(path: os.PathLike | str, tag: str) -> Path:
    """Rename a bad state file (or directory, or link) out of the way to
    ``<name>.<tag>`` (``.<tag>-2``... if taken), durably, so it is kept for a
    person to look at and a fresh file can take its place.  Returns the new name."""
    source = Path(path)
    target = source.with_name(f"{source.name}.{tag}")
    n = 2
    while os.path.lexists(target):
        target = source.with_name(f"{source.name}.{tag}-{n}")
        n += 1
    try:
        os.rename(source, target)
    except OSError as exc:
        raise explain_os_error(exc, source) from None
    fsync_dir(source.parent)
    return target


def read_bytes(path: os.PathLike | str, *, max_bytes: int | None = None,
               missing: Any = _MISSING, follow_symlinks: bool = False) -> bytes | Any:
    """Read a regular file; ``max_bytes`` refuses larger files before reading.

    State files are read through :func:`open_state_file`: a symlink is
    refused, not followed.  Files a person names (``--body-file``, a catalog,
    presets) pass ``follow_symlinks=True``."""
    try:
        fd = open_state_file(path, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        if missing is not _MISSING:
            return missing
        raise NotFound("no such file", file=path) from None
    try:
        with open(fd, "rb", closefd=True) as fh:
            if max_bytes is not None:
                size = os.fstat(fh.fileno()).st_size
                if size > max_bytes:
                    raise InvalidInput(f"file too large ({size} bytes; limit {max_bytes})",
                                       file=path, code="too_large")
            return fh.read()
    except OSError as exc:
        raise OperationalError(f"cannot read: {exc.strerror}", file=path) from exc


def read_text(path: os.PathLike | str, *, max_bytes: int | None = None,
              missing: Any = _MISSING, follow_symlinks: bool = False) -> str | Any:
    data = read_bytes(path, max_bytes=max_bytes, missing=missing, follow_symlinks=follow_symlinks)
    if missing is not _MISSING and data is missing:
        return missing
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"not UTF-8 text (byte {exc.start})", file=path, code="not_utf8") from None


def read_json(path: os.PathLike | str, *, missing: Any = _MISSING,
              max_bytes: int | None = 64 * 1024 * 1024, follow_symlinks: bool = False) -> Any:
    """Strict JSON read.  A malformed file is an error naming the file and the
    reason (line and column); it is never treated as empty."""
    data = read_bytes(path, max_bytes=max_bytes, missing=missing, follow_symlinks=follow_symlinks)
    if missing is not _MISSING and data is missing:
        return missing
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"not UTF-8 (byte {exc.start})", file=path, code="malformed_json") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                           file=path, code="malformed_json") from None
    except RecursionError:
        raise InvalidInput("malformed JSON: nested too deeply", file=path,
                           code="malformed_json") from None


@contextmanager
def locked_file(path: os.PathLike | str, *, blocking: bool = True,
                timeout: float | None = None) -> Iterator[locks.Lock]:
    """Hold the lock that guards ``path`` (its hidden ``.name.lock`` sibling)."""
    ensure_dir(Path(path).parent)
    with locks.locked(locks.lock_path_for(path), blocking=blocking, timeout=timeout) as lock:
        yield lock


def locked_update_json(path: os.PathLike | str, update: Callable[[Any], Any], *,
                       default: Callable[[], Any] | None = None, mode: int | None = None,
                       validate: Callable[[Any], None] | None = None) -> Any:
    """Read-modify-write a JSON file under its lock.

    ``update(data)`` returns the new document (or mutates and returns it).  A
    missing file starts from ``default()``; without ``default`` it is an error.
    If ``update`` raises, nothing is written.  Returns the written document.
    """
    with locked_file(path):
        if default is None:
            current = read_json(path)
        else:
            current = read_json(path, missing=_ABSENT)
            if current is _ABSENT:
                current = default()
        new = update(current)
        if new is None:
            new = current
        if validate is not None:
            validate(new)
        atomic_write_json(path, new, mode=mode)
        return new


def sweep_temp_files(directory: os.PathLike | str, *, older_than: float = 3600.0,
                     now: float | None = None, recursive: bool = False,
                     target: str | None = None) -> list[Path]:
    """Remove ``.tmp-*`` files left by writers that died mid-write.

    Only files older than ``older_than`` seconds go, so a write in flight (which
    lasts milliseconds) is never disturbed.  ``target`` limits the sweep to the
    temp files of that one file name (a caller that holds the file's lock may
    pass ``older_than=0``).
    """
    root = Path(directory)
    current = time.time() if now is None else now
    removed: list[Path] = []
    name = f"{TEMP_PREFIX}{glob_escape(target)}.*" if target is not None else f"{TEMP_PREFIX}*"
    pattern = f"**/{name}" if recursive else name
    try:
        candidates = list(root.glob(pattern))
    except OSError:
        return removed
    for candidate in candidates:
        try:
            st = candidate.lstat()
        except OSError:
            continue
        if not candidate.is_file() or current - st.st_mtime < older_than:
            continue
        try:
            candidate.unlink()
            removed.append(candidate)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                continue
    return removed
