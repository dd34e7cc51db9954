"""Finding an executable on a search path: ``shutil.which`` without ``shutil``.

Why: importing ``shutil`` costs a read verb about 1.3 ms (it loads ``fnmatch``,
``bz2``/``lzma`` probes and more), and ``alice-schedule health`` asks "is the
agent installed?" for every scheduled issue.  The answers are shutil.which's on
POSIX, which ``tests/core/test_executables.py`` checks on generated cases.
"""

from __future__ import annotations

import os

from openalice.core import once

__all__ = ["which"]


def _runnable(candidate: str) -> bool:
    return os.path.exists(candidate) and os.access(candidate, os.X_OK) and not os.path.isdir(candidate)


def which(name: str, path: str | None = None) -> str | None:
    """The first ``name`` on ``path`` (default ``$PATH``, else ``os.defpath``)
    that is an executable file, or None; a ``name`` with a ``/`` is checked as it is.
    Inside a ``core.once.report`` block each ``(name, path)`` is looked up once
    (health asks it for every scheduled issue: a ``stat`` per directory each time)."""
    return once.remembered("which", (name, path, None if path is not None else os.environ.get("PATH")),
                           lambda: _which(name, path))


def _which(name: str, path: str | None) -> str | None:
    if os.path.dirname(name):
        return name if _runnable(name) else None
    if path is None:
        path = os.environ.get("PATH", None)
        if path is None:
            try:
                path = os.confstr("CS_PATH")
            except (AttributeError, ValueError):
                path = os.defpath
    if not path:
        return None
    seen: set[str] = set()
    for directory in os.fsdecode(path).split(os.pathsep):
        if directory in seen:
            continue
        seen.add(directory)
        candidate = os.path.join(directory, name)
        if _runnable(candidate):
            return candidate
    return None
