"""Resolving an entry's ``[[path]]`` references inside its workspace.

Every resolution is one walk of :class:`openalice.core.paths.Root`: each
component opened relative to its parent's descriptor with ``O_NOFOLLOW``,
links followed only while they stay inside the workspace, the file itself
opened ``O_NONBLOCK`` and checked with ``fstat``.  There is no check apart
from the open, so a parent directory swapped for a symlink, or a file swapped
for a FIFO or a device, is refused instead of followed or blocked on.  The
revision is hashed, and ``cat`` serves, from that one descriptor.  Revisions
are ``sha256:<hex>`` of the bytes, read in 1 MiB chunks (never the whole file
in memory).  Nothing here is cached: each call looks at the disk as it is now.
"""

from __future__ import annotations

import os
from pathlib import Path

from openalice.core import paths
from openalice.core.errors import AliceError, InvalidInput, NotFound, PathEscape
from openalice.core.records import record_class

__all__ = [
    "CHUNK", "FileStatus", "open_reference", "digest_fd", "digest_reference", "inspect",
    "workspace_root", "REASONS",
]

CHUNK = 1024 * 1024
# Why a reference is unavailable right now.
REASONS = ("missing", "path_escape", "not_regular_file", "unreadable", "workspace_unavailable")


@record_class(frozen=True)
class FileStatus:
    path: str
    revision: str | None          # published at push time (None: it was unavailable then)
    available: bool
    reason: str | None = None     # one of REASONS when not available
    current: str | None = None    # sha256 of the bytes now (when available and verified)

    @property
    def matches(self) -> bool | None:
        if self.current is None or self.revision is None:
            return None
        return self.current == self.revision

    def to_dict(self) -> dict:
        out: dict = {"path": self.path, "available": self.available}
        if self.revision is not None:
            out["revision"] = self.revision
        if self.reason is not None:
            out["reason"] = self.reason
        if self.current is not None:
            out["currentRevision"] = self.current
            out["matchesRevision"] = self.matches
        return out


def workspace_root(workspace_id: str) -> Path | None:
    """The root of the registered workspace with exactly this id, if any."""
    from openalice import workspaces  # lazy: `alice-inbox list` must not load the registry

    for ws in workspaces.list_workspaces():
        if ws.id == workspace_id:
            return ws.root
    return None


def open_reference(root: os.PathLike | str, rel: str) -> int:
    """An fd on the contained regular file ``rel`` under ``root`` (caller closes).

    Raises PathEscape (exit 4), NotFound, or InvalidInput (``not_regular_file``,
    ``unreadable``).
    """
    paths.check_relative(rel, field=rel)
    try:
        return paths.open_beneath(root, rel, field=rel)
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound(f"no such file: {rel}", field=rel, file=root) from None
    except AliceError as err:
        if err.code == "symlink_loop":
            raise InvalidInput(err.message, field=rel, file=root, code="unreadable") from None
        raise
    except OSError as exc:
        raise InvalidInput(f"cannot open {rel}: {exc.strerror}", field=rel, file=root,
                           code="unreadable") from None


def digest_fd(fd: int) -> str:
    from openalice.core import digests  # lazy: only revisions need it, not a listing

    h = digests.sha256(total=os.fstat(fd).st_size)
    while True:
        chunk = os.read(fd, CHUNK)
        if not chunk:
            break
        h.update(chunk)
    return "sha256:" + h.hexdigest()


def digest_reference(root: os.PathLike | str, rel: str) -> str:
    fd = open_reference(root, rel)
    try:
        return digest_fd(fd)
    except OSError as exc:
        raise InvalidInput(f"cannot read {rel}: {exc.strerror}", field=rel, file=root,
                           code="unreadable") from None
    finally:
        os.close(fd)


def _reason(err: AliceError) -> str:
    if isinstance(err, PathEscape):
        return "path_escape"
    if isinstance(err, NotFound):
        return "missing"
    if err.code == "not_regular_file":
        return "not_regular_file"
    return "unreadable"


def inspect(root: os.PathLike | str | None, rel: str, published: str | None, *,
            verify: bool = True) -> FileStatus:
    """The state of one reference now; ``verify`` hashes it to compare revisions."""
    if root is None:
        return FileStatus(rel, published, False, "workspace_unavailable")
    try:
        if verify:
            current = digest_reference(root, rel)
        else:
            os.close(open_reference(root, rel))
            current = None
    except AliceError as err:
        return FileStatus(rel, published, False, _reason(err))
    return FileStatus(rel, published, True, None, current)
