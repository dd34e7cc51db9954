"""What an operating-system error on a state path means, as a handled error
naming the file (exit 2 for bad input, exit 1 for an operational failure)."""

from __future__ import annotations

import errno
import os
import stat

from .. import homes
from ..errors import AliceError, InvalidInput, OperationalError


def _blocking_ancestor(path: str) -> str | None:
    """The nearest existing path on the way to ``path`` that is not a directory."""
    current = os.path.abspath(path)
    while True:
        try:
            st = os.stat(current)
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError:
            return None
        else:
            return None if stat.S_ISDIR(st.st_mode) else current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _home_field(path: str) -> str | None:
    for var, home in (("OPENALICE_HOME", homes.openalice_home()),
                      ("HARNESS_HOME", homes.harness_home())):
        if os.path.abspath(path) == home:
            return var
    return None


def explain_os_error(exc: OSError, path: os.PathLike | str | None = None) -> AliceError | None:
    """A handled error (naming the file) for an operating-system error on a
    state path, or None when it names no file.

    A directory where a file belongs, a file where a directory belongs (an
    ``OPENALICE_HOME`` that is a file, too) and a symlink where a state file
    belongs are bad input (exit 2); anything else is an operational failure
    (exit 1) with the system's reason."""
    name = path if path is not None else exc.filename
    if name is None:
        return None
    name = os.fspath(name)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    code = exc.errno
    if code == errno.ENOTDIR:
        blocker = _blocking_ancestor(name) or name
        field = _home_field(blocker)
        where = f" (needed for {name})" if blocker != name else ""
        if field:
            return InvalidInput(f"{field} must be a directory, but {blocker} is a file", field=field,
                                file=blocker, code="not_a_directory")
        return InvalidInput(f"is not a directory{where}", file=blocker, code="not_a_directory")
    if code == errno.EISDIR:
        return InvalidInput("is a directory, not a file", file=name, code="not_regular_file")
    if code == errno.ELOOP:
        return InvalidInput("is a symbolic link; state files are never followed through links",
                            file=name, code="symlink_refused")
    if code == errno.ENAMETOOLONG:
        return InvalidInput("path is too long", file=name, code="bad_path")
    if code in (errno.EACCES, errno.EPERM):
        return OperationalError("permission denied", file=name, code="permission_denied")
    return OperationalError(f"cannot access: {exc.strerror or exc}", file=name)
