"""Creating directories so that every level created gets the mode asked for.

``os.makedirs(path, mode)`` applies ``mode`` to the last directory only: the
intermediate ones get the default mode (0755 under the usual umask).  On a
fresh machine the first writer creates ``$OPENALICE_HOME`` itself as such an
intermediate directory, and a home meant to be 0700 came out 0755.  Imports
nothing but ``os``: the scanner's start-up path uses it.
"""

from __future__ import annotations

import os

__all__ = ["make_dirs"]


def make_dirs(path: str, mode: int = 0o700) -> None:
    """Create ``path`` and any missing parents, each with ``mode`` (less the
    umask); existing directories are left as they are.  ``FileExistsError``
    when something on the way exists and is not a directory."""
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
