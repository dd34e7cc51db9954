"""Strict reads: a regular file never reached through a link, bounded in
bytes, UTF-8 text, and JSON judged in one place."""

from __future__ import annotations

import json
import os
import stat

from ..errors import InvalidInput, NotFound, OperationalError
from ..paths import Root
from .codec import json_type, loads_json
from .explain import explain_os_error

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


_MISSING = object()   # "raise NotFound"
_STATE_FLAGS = os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def open_state_file(path: os.PathLike | str, flags: int = os.O_RDONLY, mode: int = 0o600, *,
                    follow_symlinks: bool = False,
                    root: os.PathLike | str | None = None) -> int:
    """A descriptor on the regular file ``path``, never through a symlink in
    its last component (``O_NOFOLLOW``), never blocking on a FIFO
    (``O_NONBLOCK``, which does nothing to a regular file), and checked with
    ``fstat``.  With ``root``, every component is reached below that root
    (:class:`core.paths.Root`; links that stay inside are followed only with
    ``follow_symlinks``).  FileNotFoundError propagates (the caller decides
    what missing means); a symlink, directory, device or FIFO, or a file
    where a directory belongs, is InvalidInput naming the file."""
    if root is not None:
        try:
            with Root(root) as base:
                return base.open(path, flags, mode, follow=follow_symlinks)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise explain_os_error(exc) from None
    extra = _STATE_FLAGS if not follow_symlinks else os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | extra, mode)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise explain_os_error(exc, path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise InvalidInput(f"is {kind}, not a file", file=path, code="not_regular_file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: os.PathLike | str, *, max_bytes: int | None = None,
               missing: Any = _MISSING, follow_symlinks: bool = False,
               root: os.PathLike | str | None = None) -> bytes | Any:
    """Read a regular file; ``max_bytes`` refuses larger files before reading.

    State files are read through :func:`open_state_file`: a symlink is
    refused, not followed.  Files a person names (``--body-file``, a catalog,
    presets) pass ``follow_symlinks=True``.  ``root``: see :func:`open_state_file`."""
    shown = path if root is None else Root.join_text(root, path)
    try:
        fd = open_state_file(path, follow_symlinks=follow_symlinks, root=root)
    except FileNotFoundError:
        if missing is not _MISSING:
            return missing
        raise NotFound("no such file", file=shown) from None
    try:
        with open(fd, "rb", closefd=True) as fh:
            if max_bytes is not None:
                size = os.fstat(fh.fileno()).st_size
                if size > max_bytes:
                    raise InvalidInput(f"file too large ({size} bytes; limit {max_bytes})",
                                       file=shown, code="too_large")
            return fh.read()
    except OSError as exc:
        raise OperationalError(f"cannot read: {exc.strerror}", file=shown) from exc


def read_text(path: os.PathLike | str, *, max_bytes: int | None = None,
              missing: Any = _MISSING, follow_symlinks: bool = False,
              root: os.PathLike | str | None = None) -> str | Any:
    data = read_bytes(path, max_bytes=max_bytes, missing=missing, follow_symlinks=follow_symlinks,
                      root=root)
    if missing is not _MISSING and data is missing:
        return missing
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = path if root is None else Root.join_text(root, path)
        raise InvalidInput(f"not UTF-8 text (byte {exc.start})", file=shown, code="not_utf8") from None


def read_json(path: os.PathLike | str, *, missing: Any = _MISSING,
              max_bytes: int | None = 64 * 1024 * 1024, follow_symlinks: bool = False,
              root: os.PathLike | str | None = None, top: type | None = dict) -> Any:
    """Strict JSON read: the one place a state file's JSON is judged.

    A file that is not JSON, or whose top level is not ``top`` (an object:
    every state file of the toolkit is one), is InvalidInput naming the file
    and the reason (line and column, or "the top level is null").  So JSON
    ``null`` is never mistaken for ``missing`` and never treated as empty;
    ``missing`` is returned only when there is no file."""
    data = read_bytes(path, max_bytes=max_bytes, missing=missing, follow_symlinks=follow_symlinks,
                      root=root)
    if missing is not _MISSING and data is missing:
        return missing
    shown = path if root is None else Root.join_text(root, path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"not UTF-8 (byte {exc.start})", file=shown, code="malformed_json") from None
    try:
        value = loads_json(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                           file=shown, code="malformed_json") from None
    except RecursionError:
        raise InvalidInput("malformed JSON: nested too deeply", file=shown,
                           code="malformed_json") from None
    except ValueError as exc:
        raise InvalidInput(f"malformed JSON: {exc}", file=shown, code="malformed_json") from None
    if top is not None and not isinstance(value, top):
        raise InvalidInput(f"malformed: the top level is {json_type(value)}, not "
                           f"{json_type(top())}", file=shown, code="malformed_json")
    return value
