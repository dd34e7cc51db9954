"""The two homes, and the one way to reach a file below a root directory.

``OPENALICE_HOME`` (default ``~/.openalice``) holds the toolkit's state;
``HARNESS_HOME`` (default ``~/.harness``) holds per-machine adapter state.

Where a file below a root directory is reached (:class:`Root` and the
lexical rules for relative paths) is :mod:`openalice.core.beneath`; this
module re-exports it, so ``core.paths`` stays the one name callers import.
"""

from __future__ import annotations

from pathlib import Path

from . import homes
from .beneath import (MAX_SYMLINKS, Root, check_relative, contained_file, is_within, open_beneath,
                      relative_to)

__all__ = [
    "openalice_home", "harness_home", "state_dir", "data_dir", "locks_dir",
    "check_relative", "relative_to", "Root", "open_beneath", "contained_file", "is_within",
    "MAX_SYMLINKS",
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
