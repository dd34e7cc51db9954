"""Atomic writes: temp file + fsync + rename + directory fsync, all through the
target directory's descriptor; modes kept from the old file or private
under a home."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from ..errors import InvalidInput, OperationalError
from ..paths import Root
from .codec import dump_json
from .directories import directory_of, fsync_fd, open_directory, under_a_home
from .temps import create_temp, sweep_root_once, unlink_quietly

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


_umask_cache: int | None = None


def _umask() -> int:
    global _umask_cache
    if _umask_cache is None:
        current = os.umask(0o022)
        os.umask(current)
        _umask_cache = current
    return _umask_cache


def _new_file_mode(target: Path) -> int:
    """A new file under a home is private (0600); elsewhere the umask decides."""
    return 0o600 if under_a_home(target) else 0o666 & ~_umask()


def _kept_mode(directory: Root, name: str, target: Path) -> int:
    """The existing file's permissions, else those of a new file (:func:`_new_file_mode`)."""
    try:
        st = os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
    except FileNotFoundError:
        return _new_file_mode(target)
    except OSError as exc:
        raise OperationalError(f"cannot stat: {exc.strerror}", file=target) from exc
    return st.st_mode & 0o7777 if stat.S_ISREG(st.st_mode) else _new_file_mode(target)


def write_all(fd: int, data: bytes) -> None:
    """Every byte of ``data`` to ``fd`` (``os.write`` may write fewer)."""
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
    with directory_of(path, root, dir_mode) as (directory, name, target):
        sweep_root_once(directory)   # before the rename: a kill right after it must not skip the sweep
        if mode is None:
            mode = _kept_mode(directory, name, target)
        tmp = None
        try:
            fd, tmp = create_temp(directory, name)
            try:
                write_all(fd, data)
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
                unlink_quietly(tmp, directory)
        if durable:
            fsync_fd(directory.fd)


def atomic_write_text(path: os.PathLike | str, text: str, **kwargs: Any) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), **kwargs)


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
                directories[key] = open_directory(path, root, dir_mode)[0]
                sweep_root_once(directories[key])   # before any rename (see atomic_write_bytes)
            directory = directories[key]
            mode = _kept_mode(directory, target.name, target)
            try:
                fd, tmp = create_temp(directory, target.name)
            except OSError as exc:
                raise OperationalError(f"cannot create temp file: {exc.strerror}", file=target) from exc
            staged.append((tmp, target.name, directory, target))
            try:
                write_all(fd, data)
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
            fsync_fd(directory.fd)
    finally:
        for tmp, _name, directory, _target in staged:
            if tmp:
                unlink_quietly(tmp, directory)
        for directory in directories.values():
            directory.close()


def create_exclusive(path: os.PathLike | str, data: bytes, *, mode: int = 0o644,
                     dir_mode: int = 0o700, root: os.PathLike | str | None = None) -> bool:
    """Create ``path`` only if it does not exist yet (durably).  False if it did.

    Written through a temp file and ``os.link`` so a reader never sees a
    half-written file and an existing one is never replaced.
    """
    with directory_of(path, root, dir_mode) as (directory, name, target):
        sweep_root_once(directory)   # before the link (see atomic_write_bytes)
        tmp = None
        try:
            fd, tmp = create_temp(directory, name)
            try:
                write_all(fd, data)
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
                unlink_quietly(tmp, directory)
        fsync_fd(directory.fd)
        return True
