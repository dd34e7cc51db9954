"""Creating directories so that every level created gets the mode asked for.

``os.makedirs(path, mode)`` applies ``mode`` to the last directory only: the
intermediate ones get the default mode (0755 under the usual umask).  On a
fresh machine the first writer creates ``$OPENALICE_HOME`` itself as such an
intermediate directory, and a home meant to be 0700 came out 0755.  A
private directory (mode 0700, everything under the homes) is made exactly
0700 whatever the umask; any other mode is left to the umask (a workspace's
``.alice`` follows the person's umask as the rest of their project does).
Imports nothing but ``os``: the scanner's start-up path uses it.
"""

from __future__ import annotations

import os

__all__ = ["make_dirs", "exact_mode", "PRIVATE"]

PRIVATE = 0o700


def exact_mode(path: str, mode: int, *, dir_fd: int | None = None) -> None:
    """After creating ``path``: a private directory gets exactly 0700 (a umask
    of 077 or 000 alike); other modes are left as the umask made them.  The
    directory is opened without following a link and changed through that
    descriptor."""
    if mode != PRIVATE:
        return
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        if os.fstat(fd).st_mode & 0o7777 != PRIVATE:
            os.fchmod(fd, PRIVATE)
    finally:
        os.close(fd)


def make_dirs(path: str, mode: int = PRIVATE) -> None:
    """Create ``path`` and any missing parents, each with ``mode`` (see the
    module docstring); existing directories are left as they are.
    ``FileExistsError`` when something on the way exists and is not a directory."""
    path = os.path.abspath(path)
    missing = []
    head = path
    while not os.path.isdir(head):
        missing.append(head)
        parent = os.path.dirname(head)
        if parent == head:
            break
        head = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, mode)
        except FileExistsError:
            if not os.path.isdir(directory):
                raise
            continue
        exact_mode(directory, mode)
