"""Removing, moving and setting aside state files, durably."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import AliceError, OperationalError
from .directories import directory_of, fsync_dir, fsync_fd
from .explain import explain_os_error
from .temps import sweep_root_once


def remove_file(path: os.PathLike | str, *, root: os.PathLike | str | None = None) -> bool:
    """Delete a file durably; False if it was already gone.  The directory's
    abandoned temp files go too (the next-writer sweep)."""
    try:
        with directory_of(path, root, None) as (directory, name, target):
            sweep_root_once(directory)   # before the unlink (see atomic_write_bytes)
            try:
                os.unlink(name, dir_fd=directory.fd)
            except FileNotFoundError:
                return False
            except OSError as exc:
                raise OperationalError(f"cannot remove: {exc.strerror}", file=target) from exc
            fsync_fd(directory.fd)
            return True
    except FileNotFoundError:
        return False


def move_file(source: os.PathLike | str, target: os.PathLike | str, *,
              root: os.PathLike | str | None = None) -> None:
    """Rename ``source`` over ``target`` atomically (same filesystem), durably;
    with ``root``, both are reached below it."""
    try:
        with directory_of(source, root, None) as (src_dir, src_name, _), \
                directory_of(target, root, None) as (dst_dir, dst_name, shown):
            try:
                os.replace(src_name, dst_name, src_dir_fd=src_dir.fd, dst_dir_fd=dst_dir.fd)
            except OSError as exc:
                raise OperationalError(f"cannot move {source}: {exc.strerror}", file=shown) from exc
            fsync_fd(dst_dir.fd)
            if not os.path.samestat(os.fstat(src_dir.fd), os.fstat(dst_dir.fd)):
                fsync_fd(src_dir.fd)
    except FileNotFoundError as exc:
        raise OperationalError(f"cannot move {source}: {exc.strerror}", file=target) from exc


def remove_empty_dir(path: os.PathLike | str, *, root: os.PathLike | str | None = None) -> bool:
    """Remove ``path`` if it is an empty directory (never a symlink); False otherwise."""
    try:
        with directory_of(path, root, None) as (directory, name, _):
            st = os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode):
                return False
            os.rmdir(name, dir_fd=directory.fd)
            fsync_fd(directory.fd)
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
