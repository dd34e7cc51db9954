"""The two homes, and the one way to reach a file below a root directory.

``OPENALICE_HOME`` (default ``~/.openalice``) holds the toolkit's state;
``HARNESS_HOME`` (default ``~/.harness``) holds per-machine adapter state.

Where a file below a root directory is reached (:class:`Root` and the
lexical rules for relative paths) is :mod:`openalice.core.beneath`; this
module re-exports it, so ``core.paths`` stays the one name callers import.
"""

from __future__ import annotations

from pathlib import Path

from openalice.core import patterns

from . import homes
from .beneath import MAX_SYMLINKS, Root, check_relative, contained_file, is_within, open_beneath, relative_to

__all__ = [
    "openalice_home", "harness_home", "state_dir", "state_path", "data_dir", "locks_dir",
    "check_relative", "relative_to", "Root", "open_beneath", "contained_file", "is_within",
    "MAX_SYMLINKS", "safe_name",
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


_SAFE_NAME_RE = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}\Z")


def safe_name(name: str) -> str:
    """An id (a workspace's, an issue's) as one file-name component.

    Ordinary ids are used as they are; anything else (``..``, spaces, slashes,
    non-ASCII) becomes ``~`` + hex of its UTF-8 bytes, which no ordinary id
    can look like (``~h`` + a digest when that would be too long).
    """
    if _SAFE_NAME_RE.match(name) and name not in (".", ".."):
        return name
    encoded = "~" + name.encode("utf-8").hex()
    if len(encoded) <= 129:
        return encoded
    # Too long for a file name once hex-encoded: a digest ("h" is not a hex
    # digit, so this never equals an encoded name).
    from openalice.core import digests  # lazy: only overlong names need a digest

    return "~h" + digests.sha256_hex(name.encode("utf-8"))[:40]


def openalice_home() -> Path:
    return _under_home(homes.openalice_home(), "")


def harness_home() -> Path:
    return _under_home(homes.harness_home(), "")


def state_dir() -> Path:
    return _under_home(homes.openalice_home(), "state")


def state_path(relative: str) -> Path:
    """``state_dir() / relative`` (``"runs"``, ``"schedule/cursors"``), made once per home."""
    return _under_home(homes.openalice_home(), "state/" + relative)


def data_dir() -> Path:
    return _under_home(homes.openalice_home(), "data")


def locks_dir() -> Path:
    return _under_home(homes.openalice_home(), "locks")
