"""Locked read-modify-write of a JSON state file (the lock is its hidden
``.name.lock`` sibling)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import locks
from ..paths import Root
from .directories import ensure_dir
from .reads import read_json
from .writes import atomic_write_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


_ABSENT = object()    # "tell me it is missing"


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
