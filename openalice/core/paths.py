"""The two homes, and containment of user-given relative paths.

``OPENALICE_HOME`` (default ``~/.openalice``) holds the toolkit's state;
``HARNESS_HOME`` (default ``~/.harness``) holds per-machine adapter state.

:func:`contained_file` is the one path check of the toolkit: a relative path
given by a user or an agent must resolve (following symlinks, via realpath)
to a regular file inside its root.  ``..`` segments, absolute paths and
symlinks that leave the root are refused.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from . import homes
from .errors import InvalidInput, NotFound, PathEscape

__all__ = [
    "openalice_home", "harness_home", "state_dir", "data_dir", "locks_dir",
    "check_relative", "contained_path", "contained_file", "is_within",
]


_made: dict[tuple[str, str], Path] = {}


def _under_home(home: str, name: str) -> Path:
    """``Path(home) / name``, made once per (home, name): a scan that admits
    hundreds of runs asks for these paths thousands of times, and the home
    follows ``$OPENALICE_HOME`` on every call."""
    key = (home, name)
    path = _made.get(key)
    if path is None:
        path = _made[key] = Path(home) / name if name else Path(home)
    return path


def openalice_home() -> Path:
    return _under_home(homes.openalice_home(), "")


def harness_home() -> Path:
    return _under_home(homes.harness_home(), "")


def state_dir() -> Path:
    return _under_home(homes.openalice_home(), "state")


def data_dir() -> Path:
    return _under_home(homes.openalice_home(), "data")


def locks_dir() -> Path:
    return _under_home(homes.openalice_home(), "locks")


def is_within(child: os.PathLike | str, parent: os.PathLike | str) -> bool:
    """True if ``child`` is ``parent`` or below it (both taken literally)."""
    c = os.path.normpath(os.fspath(child))
    p = os.path.normpath(os.fspath(parent))
    return c == p or c.startswith(p.rstrip(os.sep) + os.sep)


def check_relative(rel: str, *, field: str | None = None) -> str:
    """Refuse empty, absolute, NUL-bearing and ``..``-bearing relative paths."""
    if not isinstance(rel, str) or not rel.strip():
        raise InvalidInput("path is empty", field=field, code="bad_path")
    if "\x00" in rel:
        raise InvalidInput("path contains a NUL byte", field=field, code="bad_path")
    if os.path.isabs(rel) or rel.startswith("~"):
        raise PathEscape(f"absolute path refused: {rel!r}", field=field)
    if any(part == ".." for part in rel.replace("\\", "/").split("/")):
        raise PathEscape(f"'..' segment refused: {rel!r}", field=field)
    return rel


def contained_path(root: os.PathLike | str, rel: str, *, field: str | None = None) -> Path:
    """Resolve ``rel`` under ``root`` (realpath) and require it stays inside.

    The target need not exist; an existing symlink anywhere on the way is
    followed and must still land inside the root.
    """
    check_relative(rel, field=field)
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(real_root, rel))
    if not is_within(target, real_root) or target == real_root:
        raise PathEscape(f"path leaves its root: {rel!r}", field=field, file=root)
    return Path(target)


def contained_file(root: os.PathLike | str, rel: str, *, field: str | None = None) -> Path:
    """Like :func:`contained_path`, and the target must be an existing regular file."""
    target = contained_path(root, rel, field=field)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        raise NotFound(f"no such file: {rel}", field=field, file=root) from None
    except OSError as exc:
        raise InvalidInput(f"cannot stat {rel}: {exc.strerror}", field=field, file=root,
                           code="unreadable") from None
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInput(f"not a regular file: {rel}", field=field, file=root,
                           code="not_regular_file")
    return target
