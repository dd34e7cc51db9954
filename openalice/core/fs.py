"""Atomic file writes, strict reads, locked read-modify-write, temp sweeping.

Every state file in the toolkit is written here and nowhere else:

1. a temp file is created in the target's own directory
   (``.tmp-<name>.<pid>.<host>.<random>``, born 0600, ``O_EXCL``), written
   and fsynced;
2. its mode is set (kept from the old file, or the one asked for; a new file
   under a home is 0600, elsewhere the umask decides);
3. ``os.replace`` swaps it over the target atomically;
4. the directory is fsynced so the rename itself survives a power cut.

Every step works on the target directory's descriptor (:class:`core.paths.Root`),
so with ``root=`` (a workspace) nothing is reached through a link out of it.

A crash at any point leaves either the old file or the new one, plus at worst a
stray temp file.  The next writer of that directory removes it (once per
process and directory): at once when the temp's writer is gone (its pid, on
this host, no longer runs), else once it is older than :data:`TEMP_MAX_AGE`.
A failed write removes its own temp before the error leaves this module.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from . import locks
from .errors import AliceError, Conflict, InvalidInput, NotFound, OperationalError
from .paths import Root

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = [
    "TEMP_PREFIX", "TEMP_MAX_AGE", "ensure_dir", "atomic_write_bytes", "atomic_write_text",
    "atomic_write_json", "atomic_write_many", "dump_json", "read_bytes", "read_text", "read_json",
    "locked_update_json", "locked_file", "sweep_temp_files", "fsync_dir",
    "create_exclusive", "remove_file", "move_file", "remove_empty_dir", "ensure_private_dir",
    "open_state_file", "set_aside", "explain_os_error", "staged_dir", "json_type", "loads_json",
    "sweep_once",
]

TEMP_PREFIX = ".tmp-"
#: Seconds after which a temp file whose writer cannot be identified as gone
#: (another host, a reused pid, an old name) is taken as abandoned.  A write
#: lasts milliseconds; an hour leaves room for a suspended machine.
TEMP_MAX_AGE = 3600.0
_MISSING = object()   # "raise NotFound"
_ABSENT = object()    # "tell me it is missing"
_umask_cache: int | None = None
_swept: set[tuple[int, int]] = set()   # directories this process has swept already
_HOST = f"{zlib.crc32(os.uname().nodename.encode()) & 0xffff:04x}"


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
        _fsync_fd(fd)
    finally:
        os.close(fd)


def _fsync_fd(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:
        pass


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




def loads_json(text: str | bytes) -> Any:
    """``json.loads`` of UTF-8 text, where a string holding a lone surrogate
    (``"\\ud800"``: valid JSON, but not Unicode text, so it can be neither
    printed nor written back) is a ValueError too, as bytes that are not UTF-8
    are.  The one JSON decoding of state (files and JSONL lines)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")  # strictly: json.loads would let bytes pass as surrogates
    value = json.loads(text)
    if ("\\ud" in text or "\\uD" in text) and _has_surrogate(value):
        raise ValueError("a string holds a lone surrogate (\\ud800-\\udfff), which is not text")
    return value


def _has_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def json_type(value: Any) -> str:
    """JSON's name for the type of ``value`` (for "the top level is null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def ensure_dir(path: os.PathLike | str, mode: int = 0o700, *,
               root: os.PathLike | str | None = None) -> Path:
    """Create ``path`` (and every missing parent) with ``mode`` if missing; return it.
    With ``root``, the directories are made below that root through its
    descriptor (see :class:`core.paths.Root`)."""
    p = Path(path)
    if root is not None:
        try:
            with Root(root) as base:
                base.open_dir(p, create=mode).close()
        except OSError as exc:
            raise explain_os_error(exc, p) from None
        return p
    from .dirs import make_dirs

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
                    follow_symlinks: bool = False,
                    root: os.PathLike | str | None = None) -> int:
    """A descriptor on the regular file ``path``, never through a symlink in
    its last component (``O_NOFOLLOW``), never blocking on a FIFO
    (``O_NONBLOCK``, which does nothing to a regular file), and checked with
    ``fstat``.  With ``root``, every component is reached below that root
    (:class:`core.paths.Root`; links that stay inside are followed only with
    ``follow_symlinks``).  FileNotFoundError propagates (the caller decides
    what missing means); a symlink, directory, device or FIFO, or a file
    where a directory belongs, is InvalidInput naming the file."""
    if root is not None:
        try:
            with Root(root) as base:
                return base.open(path, flags, mode, follow=follow_symlinks)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise explain_os_error(exc) from None
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


# -- where a write happens ------------------------------------------------------

def _open_directory(path: os.PathLike | str, root: os.PathLike | str | None,
                    create: int | None) -> tuple[Root, str, Path]:
    """``(the target's directory, its name there, the target for messages)``;
    the caller closes the directory.  ``create``: the mode of missing
    directories (None: FileNotFoundError)."""
    target = Path(path)
    if root is None:
        if create is not None:
            ensure_dir(target.parent, create)
        try:
            return Root(target.parent), target.name, target
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise explain_os_error(exc, target.parent) from None
    target = Path(Root.join_text(root, path))
    try:
        with Root(root) as base:
            directory, name = base.parent(path, create=create)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise explain_os_error(exc, target) from None
    return directory, name, target


@contextmanager
def _directory_of(path: os.PathLike | str, root: os.PathLike | str | None,
                  create: int | None) -> Iterator[tuple[Root, str, Path]]:
    """:func:`_open_directory` for a ``with`` block."""
    directory, name, target = _open_directory(path, root, create)
    try:
        yield directory, name, target
    finally:
        directory.close()


def _new_file_mode(target: Path) -> int:
    """A new file under a home is private (0600); elsewhere the umask decides."""
    from . import homes

    text = os.path.abspath(target)
    for home in (homes.openalice_home(), homes.harness_home()):
        if text == home or text.startswith(home.rstrip(os.sep) + os.sep):
            return 0o600
    return 0o666 & ~_umask()


def _kept_mode(directory: Root, name: str, target: Path) -> int:
    """The existing file's permissions, else those of a new file (:func:`_new_file_mode`)."""
    try:
        st = os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
    except FileNotFoundError:
        return _new_file_mode(target)
    except OSError as exc:
        raise OperationalError(f"cannot stat: {exc.strerror}", file=target) from exc
    return st.st_mode & 0o7777 if stat.S_ISREG(st.st_mode) else _new_file_mode(target)


def _temp_name(name: str) -> str:
    """``.tmp-<name>.<pid>.<host>.<random>``: the writer is in the name (see the sweep)."""
    return f"{TEMP_PREFIX}{name}.{os.getpid()}.{_HOST}.{os.urandom(4).hex()}"


def _temp_at(directory: Root, name: str) -> tuple[int, str]:
    """A new temp file for ``name`` in ``directory``, born 0600, never through a link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = _temp_name(name)
        try:
            return os.open(tmp, flags, 0o600, dir_fd=directory.fd), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temp file name", name)


def _unlink_quietly(name: str, directory: Root) -> None:
    try:
        os.unlink(name, dir_fd=directory.fd)
    except OSError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def atomic_write_bytes(path: os.PathLike | str, data: bytes, *, mode: int | None = None,
                       durable: bool = True, dir_mode: int = 0o700,
                       root: os.PathLike | str | None = None) -> None:
    """Replace ``path`` with ``data`` atomically.

    ``mode`` defaults to the existing file's permissions, else 0600 under a
    home and 0666 & ~umask elsewhere.  Secrets pass ``mode=0o600``: the temp
    file is born 0600, so there is no window in which the content is readable
    by others.  ``root`` reaches ``path`` below that root only
    (:class:`core.paths.Root`); missing directories are made with ``dir_mode``.
    """
    with _directory_of(path, root, dir_mode) as (directory, name, target):
        _sweep_once(directory)   # before the rename: a kill right after it must not skip the sweep
        if mode is None:
            mode = _kept_mode(directory, name, target)
        tmp = None
        try:
            fd, tmp = _temp_at(directory, name)
            try:
                _write_all(fd, data)
                if durable:
                    os.fsync(fd)
                if mode != 0o600:
                    os.fchmod(fd, mode)
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
            tmp = None
        except OSError as exc:
            if exc.errno == errno.EISDIR:
                raise InvalidInput("is a directory, not a file", file=target,
                                   code="not_regular_file") from None
            raise OperationalError(f"cannot write: {exc.strerror}", file=target) from exc
        finally:
            if tmp is not None:  # any failure, Ctrl-C included: no copy stays behind
                _unlink_quietly(tmp, directory)
        if durable:
            _fsync_fd(directory.fd)


def atomic_write_text(path: os.PathLike | str, text: str, **kwargs: Any) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), **kwargs)


def dump_json(obj: Any, *, indent: int | None = 2) -> str:
    """The one JSON serialization used for state files: UTF-8, trailing newline."""
    return json.dumps(obj, indent=indent, ensure_ascii=False) + "\n"


def atomic_write_json(path: os.PathLike | str, obj: Any, *, indent: int | None = 2,
                      **kwargs: Any) -> None:
    atomic_write_bytes(path, dump_json(obj, indent=indent).encode("utf-8"), **kwargs)


def atomic_write_many(items: list[tuple[os.PathLike | str, bytes]], *, dir_mode: int = 0o700,
                      after_each: Callable[[int], None] | None = None,
                      root: os.PathLike | str | None = None) -> None:
    """Replace each path with its bytes, each atomically, with the fsyncs batched:
    every temp file is written and fsynced first, then each is renamed over its
    target in order (``after_each(n)`` runs after the n-th rename), then each
    directory is fsynced once.  A crash leaves every target old or new, plus
    at worst temp files the next writer of their directory removes.  Modes are
    kept from the old files, else as for a new file (never for secrets: use
    :func:`atomic_write_bytes` with ``mode=0o600``).  ``root``: as for
    :func:`atomic_write_bytes`."""
    directories: dict[str, Root] = {}
    staged: list[tuple[str, str, Root, Path]] = []   # (temp name, name, directory, target)
    try:
        for path, data in items:
            target = Path(path if root is None else Root.join_text(root, path))
            key = os.fspath(target.parent)
            if key not in directories:
                directories[key] = _open_directory(path, root, dir_mode)[0]
                _sweep_once(directories[key])   # before any rename (see atomic_write_bytes)
            directory = directories[key]
            mode = _kept_mode(directory, target.name, target)
            try:
                fd, tmp = _temp_at(directory, target.name)
            except OSError as exc:
                raise OperationalError(f"cannot create temp file: {exc.strerror}", file=target) from exc
            staged.append((tmp, target.name, directory, target))
            try:
                _write_all(fd, data)
                os.fchmod(fd, mode)
                os.fsync(fd)
            except OSError as exc:
                raise OperationalError(f"cannot write: {exc.strerror}", file=target) from exc
            finally:
                os.close(fd)
        for n, (tmp, name, directory, target) in enumerate(staged):
            try:
                os.replace(tmp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd)
            except OSError as exc:
                raise OperationalError(f"cannot write: {exc.strerror}", file=target) from exc
            staged[n] = ("", name, directory, target)
            if after_each is not None:
                after_each(n)
        for directory in directories.values():
            _fsync_fd(directory.fd)
    finally:
        for tmp, _name, directory, _target in staged:
            if tmp:
                _unlink_quietly(tmp, directory)
        for directory in directories.values():
            directory.close()


@contextmanager
def staged_dir(target: os.PathLike | str, *, mode: int = 0o755,
               replace_empty: bool = False) -> Iterator[Path]:
    """Build a new directory under a temp name beside ``target`` (``.tmp-<name>.*``)
    and rename it into place, durably, when the block ends; if the block
    raises, the temp directory is removed.  ``target`` must not exist yet
    (Conflict).  Readers see no directory or the whole one, never a partial
    one.  Temp directories of the same target whose writer is gone, or older
    than :data:`TEMP_MAX_AGE`, are removed first (the caller holds the lock
    that serializes writers of ``target``).  ``replace_empty``: an empty
    directory at ``target`` is allowed and replaced at the rename."""
    import shutil

    final = Path(target)
    parent = ensure_dir(final.parent, mode)
    now = time.time()
    try:
        names = os.listdir(parent)
    except OSError:
        names = []
    for stale in names:
        if not stale.startswith(f"{TEMP_PREFIX}{final.name}.") or _temp_target(stale) != final.name:
            continue
        path = parent / stale
        try:
            st = path.lstat()
            owner = _temp_owner(stale)
            gone = owner is not None and _writer_gone(*owner, st.st_mtime)
            if stat.S_ISDIR(st.st_mode) and (now - st.st_mtime > TEMP_MAX_AGE or gone):
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


def create_exclusive(path: os.PathLike | str, data: bytes, *, mode: int = 0o644,
                     dir_mode: int = 0o700, root: os.PathLike | str | None = None) -> bool:
    """Create ``path`` only if it does not exist yet (durably).  False if it did.

    Written through a temp file and ``os.link`` so a reader never sees a
    half-written file and an existing one is never replaced.
    """
    with _directory_of(path, root, dir_mode) as (directory, name, target):
        _sweep_once(directory)   # before the link (see atomic_write_bytes)
        tmp = None
        try:
            fd, tmp = _temp_at(directory, name)
            try:
                _write_all(fd, data)
                os.fsync(fd)
                os.fchmod(fd, mode)
            finally:
                os.close(fd)
            try:
                os.link(tmp, name, src_dir_fd=directory.fd, dst_dir_fd=directory.fd,
                        follow_symlinks=False)
            except FileExistsError:
                return False
        except OSError as exc:
            raise OperationalError(f"cannot create: {exc.strerror}", file=target) from exc
        finally:
            if tmp is not None:
                _unlink_quietly(tmp, directory)
        _fsync_fd(directory.fd)
        return True


def remove_file(path: os.PathLike | str, *, root: os.PathLike | str | None = None) -> bool:
    """Delete a file durably; False if it was already gone.  The directory's
    abandoned temp files go too (the next-writer sweep)."""
    try:
        with _directory_of(path, root, None) as (directory, name, target):
            _sweep_once(directory)   # before the unlink (see atomic_write_bytes)
            try:
                os.unlink(name, dir_fd=directory.fd)
            except FileNotFoundError:
                return False
            except OSError as exc:
                raise OperationalError(f"cannot remove: {exc.strerror}", file=target) from exc
            _fsync_fd(directory.fd)
            return True
    except FileNotFoundError:
        return False


def move_file(source: os.PathLike | str, target: os.PathLike | str, *,
              root: os.PathLike | str | None = None) -> None:
    """Rename ``source`` over ``target`` atomically (same filesystem), durably;
    with ``root``, both are reached below it."""
    try:
        with _directory_of(source, root, None) as (src_dir, src_name, _), \
                _directory_of(target, root, None) as (dst_dir, dst_name, shown):
            try:
                os.replace(src_name, dst_name, src_dir_fd=src_dir.fd, dst_dir_fd=dst_dir.fd)
            except OSError as exc:
                raise OperationalError(f"cannot move {source}: {exc.strerror}", file=shown) from exc
            _fsync_fd(dst_dir.fd)
            if not os.path.samestat(os.fstat(src_dir.fd), os.fstat(dst_dir.fd)):
                _fsync_fd(src_dir.fd)
    except FileNotFoundError as exc:
        raise OperationalError(f"cannot move {source}: {exc.strerror}", file=target) from exc


def remove_empty_dir(path: os.PathLike | str, *, root: os.PathLike | str | None = None) -> bool:
    """Remove ``path`` if it is an empty directory (never a symlink); False otherwise."""
    try:
        with _directory_of(path, root, None) as (directory, name, _):
            st = os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode):
                return False
            os.rmdir(name, dir_fd=directory.fd)
            _fsync_fd(directory.fd)
            return True
    except (OSError, AliceError):
        return False


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


# -- reads ---------------------------------------------------------------------

def read_bytes(path: os.PathLike | str, *, max_bytes: int | None = None,
               missing: Any = _MISSING, follow_symlinks: bool = False,
               root: os.PathLike | str | None = None) -> bytes | Any:
    """Read a regular file; ``max_bytes`` refuses larger files before reading.

    State files are read through :func:`open_state_file`: a symlink is
    refused, not followed.  Files a person names (``--body-file``, a catalog,
    presets) pass ``follow_symlinks=True``.  ``root``: see :func:`open_state_file`."""
    shown = path if root is None else Root.join_text(root, path)
    try:
        fd = open_state_file(path, follow_symlinks=follow_symlinks, root=root)
    except FileNotFoundError:
        if missing is not _MISSING:
            return missing
        raise NotFound("no such file", file=shown) from None
    try:
        with open(fd, "rb", closefd=True) as fh:
            if max_bytes is not None:
                size = os.fstat(fh.fileno()).st_size
                if size > max_bytes:
                    raise InvalidInput(f"file too large ({size} bytes; limit {max_bytes})",
                                       file=shown, code="too_large")
            return fh.read()
    except OSError as exc:
        raise OperationalError(f"cannot read: {exc.strerror}", file=shown) from exc


def read_text(path: os.PathLike | str, *, max_bytes: int | None = None,
              missing: Any = _MISSING, follow_symlinks: bool = False,
              root: os.PathLike | str | None = None) -> str | Any:
    data = read_bytes(path, max_bytes=max_bytes, missing=missing, follow_symlinks=follow_symlinks,
                      root=root)
    if missing is not _MISSING and data is missing:
        return missing
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = path if root is None else Root.join_text(root, path)
        raise InvalidInput(f"not UTF-8 text (byte {exc.start})", file=shown, code="not_utf8") from None


def read_json(path: os.PathLike | str, *, missing: Any = _MISSING,
              max_bytes: int | None = 64 * 1024 * 1024, follow_symlinks: bool = False,
              root: os.PathLike | str | None = None, top: type | None = dict) -> Any:
    """Strict JSON read: the one place a state file's JSON is judged.

    A file that is not JSON, or whose top level is not ``top`` (an object:
    every state file of the toolkit is one), is InvalidInput naming the file
    and the reason (line and column, or "the top level is null").  So JSON
    ``null`` is never mistaken for ``missing`` and never treated as empty;
    ``missing`` is returned only when there is no file."""
    data = read_bytes(path, max_bytes=max_bytes, missing=missing, follow_symlinks=follow_symlinks,
                      root=root)
    if missing is not _MISSING and data is missing:
        return missing
    shown = path if root is None else Root.join_text(root, path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"not UTF-8 (byte {exc.start})", file=shown, code="malformed_json") from None
    try:
        value = loads_json(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                           file=shown, code="malformed_json") from None
    except RecursionError:
        raise InvalidInput("malformed JSON: nested too deeply", file=shown,
                           code="malformed_json") from None
    except ValueError as exc:
        raise InvalidInput(f"malformed JSON: {exc}", file=shown, code="malformed_json") from None
    if top is not None and not isinstance(value, top):
        raise InvalidInput(f"malformed: the top level is {json_type(value)}, not "
                           f"{json_type(top())}", file=shown, code="malformed_json")
    return value


# -- locked read-modify-write ----------------------------------------------------

@contextmanager
def locked_file(path: os.PathLike | str, *, blocking: bool = True,
                timeout: float | None = None, root: os.PathLike | str | None = None,
                dir_mode: int = 0o700) -> Iterator[locks.Lock]:
    """Hold the lock that guards ``path`` (its hidden ``.name.lock`` sibling).
    With ``root``, the lock file is reached below that root like the file."""
    lock_path = locks.lock_path_for(path)
    if root is None:
        ensure_dir(Path(path).parent, dir_mode)
        opener = None
    else:
        lock_path = Root.join_text(root, lock_path)

        def opener() -> int:
            with Root(root) as base:
                return base.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600, follow=False,
                                 create_dirs=dir_mode)

    with locks.locked(lock_path, blocking=blocking, timeout=timeout, opener=opener) as lock:
        yield lock


def locked_update_json(path: os.PathLike | str, update: Callable[[Any], Any], *,
                       default: Callable[[], Any] | None = None, mode: int | None = None,
                       validate: Callable[[Any], None] | None = None,
                       root: os.PathLike | str | None = None, dir_mode: int = 0o700) -> Any:
    """Read-modify-write a JSON file under its lock.

    ``update(data)`` returns the new document (or mutates and returns it).  A
    missing file starts from ``default()``; without ``default`` it is an error.
    A file that is there but malformed (``null`` included) is an error, never
    replaced.  If ``update`` raises, nothing is written.  Returns the written
    document.
    """
    with locked_file(path, root=root, dir_mode=dir_mode):
        if default is None:
            current = read_json(path, root=root)
        else:
            current = read_json(path, missing=_ABSENT, root=root)
            if current is _ABSENT:
                current = default()
        new = update(current)
        if new is None:
            new = current
        if validate is not None:
            validate(new)
        atomic_write_json(path, new, mode=mode, root=root, dir_mode=dir_mode)
        return new


# -- temp files left by writers that died ---------------------------------------------

def _temp_owner(name: str) -> tuple[int, str] | None:
    """``(pid, host tag)`` of a temp named by :func:`_temp_at`, else None."""
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


def _sweep_once(directory: Root) -> None:
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
