"""Directories: creating them (private 0700 ones too), fsyncing them, and
opening the directory a write happens in (through its descriptor)."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import homes
from ..errors import InvalidInput, OperationalError
from ..paths import Root
from .explain import explain_os_error


def fsync_dir(directory: os.PathLike | str) -> None:
    """fsync a directory so a rename or create inside it is durable."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return  # some filesystems refuse; the data itself is already synced
    try:
        fsync_fd(fd)
    finally:
        os.close(fd)


def fsync_fd(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:
        pass


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
    from ..dirs import make_dirs  # lazy: read verbs never create a directory (core.dirs off their start-up)

    try:
        make_dirs(os.fspath(p), mode)
    except FileExistsError:
        raise InvalidInput("exists and is not a directory", file=p, code="not_a_directory") from None
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:
            raise explain_os_error(exc, p) from None
        raise OperationalError(f"cannot create directory: {exc.strerror}", file=p) from exc
    return p


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

def open_directory(path: os.PathLike | str, root: os.PathLike | str | None,
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
def directory_of(path: os.PathLike | str, root: os.PathLike | str | None,
                  create: int | None) -> Iterator[tuple[Root, str, Path]]:
    """:func:`open_directory` for a ``with`` block."""
    directory, name, target = open_directory(path, root, create)
    try:
        yield directory, name, target
    finally:
        directory.close()


def under_a_home(path: os.PathLike | str) -> bool:
    """``path`` is one of the toolkit's homes or below one (the toolkit's own
    state, as opposed to a workspace or any other directory of the user's)."""
    text = os.path.abspath(path)
    return any(text == home or text.startswith(home.rstrip(os.sep) + os.sep)
               for home in (homes.openalice_home(), homes.harness_home()))
