"""Reaching a path below a root directory: the lexical rules for relative
paths, and :class:`Root`, the toolkit's one containment mechanism.

A root directory (a workspace, or a directory of a home) is opened once;
every path below it is then reached one component at a time, each opened
relative to its parent's descriptor with ``O_NOFOLLOW`` (``os.open(name, dir_fd=...)``), the
way Go's ``os.Root`` and Linux ``openat2(RESOLVE_BENEATH)`` work.  A symbolic
link on the way is read (``readlink`` at the parent's descriptor) and its
text is walked the same way: a link that stays below the root is followed, a
link out of it (or ``..`` above the root) is :class:`PathEscape`.  No path is
ever handed to the kernel whole, so swapping a parent directory for a
symlink between a check and an open cannot lead outside: there is no check
separate from the open.  Callers hash and serve from the one descriptor they
got.  Reads of workspace files (Inbox references, issue files, settings,
sessions, harness files) and writes of them (``core.fs`` with ``root=``) all
go through it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from collections.abc import Callable
from pathlib import Path

from .errors import InvalidInput, NotFound, PathEscape

__all__ = ["check_relative", "relative_to", "Root", "open_beneath", "contained_file", "is_within",
           "MAX_SYMLINKS"]

#: Links followed in one walk before it is refused as a loop (as Linux's ELOOP limit).
MAX_SYMLINKS = 40

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC | os.O_NOFOLLOW
_FILE_FLAGS = os.O_CLOEXEC | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)


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


def relative_to(root: os.PathLike | str, path: os.PathLike | str) -> str:
    """``path`` as a path below ``root``: a relative path as it is, an absolute
    one with the root's prefix taken off (lexically; PathEscape if it is not
    below the root)."""
    text = os.fspath(path)
    if not os.path.isabs(text):
        return text
    base = os.path.abspath(os.fspath(root))
    normal = os.path.normpath(text)
    if not is_within(normal, base):
        raise PathEscape(f"{text} is not below {base}", file=text)
    return os.path.relpath(normal, base)


def _parts(rel: str) -> list[str]:
    return [p for p in rel.split("/") if p not in ("", ".")]


class _Follow(Exception):
    """Raised by a final step: the last component is a link to be walked."""


class Root:
    """A directory opened once, and everything below it reached from that
    descriptor (see the module docstring).  ``Root(path)`` opens ``path``
    itself normally (the root is trusted: a home or a registered workspace
    may be reached through links); close it, or use it as a context manager.

    Missing components raise ``FileNotFoundError`` (callers decide what
    missing means), other system errors ``OSError`` naming the joined path;
    leaving the root is :class:`PathEscape`, a link where none may be is
    ``InvalidInput`` (``symlink_refused``), anything but a regular file where
    one is opened ``InvalidInput`` (``not_regular_file``)."""

    __slots__ = ("path", "fd", "_real")

    def __init__(self, path: os.PathLike | str, *, fd: int | None = None) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self.fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC) \
            if fd is None else fd
        self._real: str | None = None

    # -- life cycle --------------------------------------------------------

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)

    def __enter__(self) -> "Root":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Root({self.path!r}, fd={self.fd})"

    def join(self, rel: os.PathLike | str) -> Path:
        """The path ``rel`` names, for messages (never opened by this name)."""
        return Path(Root.join_text(self.path, rel))

    @staticmethod
    def join_text(root: os.PathLike | str, rel: os.PathLike | str) -> str:
        """``root`` joined with ``rel`` (relative, or absolute below the root), as text."""
        base = os.path.abspath(os.fspath(root))
        return os.path.normpath(os.path.join(base, relative_to(base, rel)))

    # -- the walk ----------------------------------------------------------

    def _walk(self, rel: str, final: Callable[[int, str | None], object], *,
              create: int | None = None, whole: bool = False, field: str | None = None,
              links: bool = True) -> object:
        """Walk ``rel`` component by component; ``final(dir_fd, name)`` opens the
        last one (``whole``: every component is a directory and ``final`` gets
        ``name=None`` with the directory itself).  ``create`` makes missing
        directories with that mode.  ``links=False`` refuses a link anywhere on
        the way (``symlink_refused``, the field naming the component) instead
        of walking it."""
        pending = deque(_parts(rel))
        stack = [self.fd]
        hops = 0
        done: list[str] = []  # the components walked (for naming one when links are refused)
        try:
            while True:
                if not pending:
                    if whole:
                        return final(stack[-1], None)
                    raise InvalidInput(f"names a directory, not a file: {rel!r}", field=field,
                                       file=self.path, code="not_regular_file")
                name = pending.popleft()
                if name == "..":
                    if len(stack) == 1:
                        raise PathEscape(f"path leaves its root: {rel!r}", field=field,
                                         file=self.path)
                    os.close(stack.pop())
                    if done:
                        done.pop()
                    continue
                if pending or whole:
                    try:
                        fd = os.open(name, _DIR_FLAGS, dir_fd=stack[-1])
                    except FileNotFoundError:
                        if create is None:
                            raise FileNotFoundError(errno.ENOENT, "No such file or directory",
                                                    str(self.join(rel))) from None
                        _make_dir(name, create, stack[-1])
                        pending.appendleft(name)
                        continue
                    except OSError as exc:
                        if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                            raise OSError(exc.errno, exc.strerror, str(self.join(rel))) from None
                        target = _link_text(name, stack[-1])
                        if target is None:
                            # Not a link (any more): a file in the way, or the link was
                            # swapped meanwhile; look once more.
                            hops += 1
                            kind = _kind(name, stack[-1])
                            if kind is None:
                                raise FileNotFoundError(errno.ENOENT, "No such file or directory",
                                                        str(self.join(rel))) from None
                            if kind == "other" or hops > MAX_SYMLINKS:
                                raise NotADirectoryError(errno.ENOTDIR, "Not a directory",
                                                         str(self.join("/".join(done + [name])))
                                                         ) from None
                            pending.appendleft(name)
                            continue
                        if not links:
                            where = "/".join(done + [name])
                            raise InvalidInput("is a symbolic link; it is not followed",
                                               field=where, file=self.join(where),
                                               code="symlink_refused")
                        hops = self._splice(target, pending, stack, hops, rel, field)
                        done.clear()
                        continue
                    stack.append(fd)
                    done.append(name)
                    continue
                try:
                    return final(stack[-1], name)
                except _Follow:
                    target = _link_text(name, stack[-1])
                    if target is None:  # swapped back to a file meanwhile: look again
                        pending.appendleft(name)
                        hops += 1
                        if hops > MAX_SYMLINKS:
                            raise OSError(errno.ELOOP, "Too many levels of symbolic links",
                                          str(self.join(rel))) from None
                        continue
                    hops = self._splice(target, pending, stack, hops, rel, field)
        finally:
            for fd in stack[1:]:
                os.close(fd)

    def _splice(self, target: str, pending: deque, stack: list[int], hops: int, rel: str,
                field: str | None) -> int:
        hops += 1
        if hops > MAX_SYMLINKS:
            raise InvalidInput(f"too many symbolic links on the way: {rel!r}", field=field,
                               file=self.path, code="symlink_loop")
        if os.path.isabs(target):
            inner = self._inside(target)
            if inner is None:
                raise PathEscape(f"path leaves its root (a link to {target}): {rel!r}",
                                 field=field, file=self.path)
            while len(stack) > 1:
                os.close(stack.pop())
            target = inner
        pending.extendleft(reversed(target.split("/")))
        return hops

    def _inside(self, target: str) -> str | None:
        """An absolute link text as a path below the root, or None."""
        if self._real is None:
            self._real = os.path.realpath(self.path)
        normal = os.path.normpath(target)
        for base in (self._real, self.path):
            if is_within(normal, base):
                return os.path.relpath(normal, base)
        return None

    # -- what callers use --------------------------------------------------

    def open(self, rel: os.PathLike | str, flags: int = os.O_RDONLY, mode: int = 0o600, *,
             follow: bool = True, create_dirs: int | None = None, field: str | None = None,
             links: bool = True) -> int:
        """A descriptor on the regular file ``rel`` below the root (caller closes).
        ``follow=False`` refuses a link in the last component (state files),
        ``links=False`` anywhere on the way (files that must be exactly where
        they are named); ``flags`` may create the file (``O_CREAT``), never
        through a link."""
        rel = relative_to(self.path, rel)

        def final(dir_fd: int, name: str | None) -> int:
            try:
                fd = os.open(name, flags | _FILE_FLAGS, mode, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    if follow:
                        raise _Follow() from None
                    raise InvalidInput("is a symbolic link; it is not followed", field=field,
                                       file=self.join(rel), code="symlink_refused") from None
                if exc.errno in (errno.EISDIR, errno.ENXIO):
                    raise InvalidInput("is not a regular file", field=field, file=self.join(rel),
                                       code="not_regular_file") from None
                raise OSError(exc.errno, exc.strerror, str(self.join(rel))) from None
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise InvalidInput("is not a regular file", field=field, file=self.join(rel),
                                       code="not_regular_file")
            except BaseException:
                os.close(fd)
                raise
            return fd

        return self._walk(rel, final, create=create_dirs, field=field,  # type: ignore[return-value]
                          links=links)

    def open_dir(self, rel: os.PathLike | str, *, create: int | None = None,
                 field: str | None = None, links: bool = True) -> "Root":
        """The directory ``rel`` below the root as a :class:`Root` of its own
        (links on the way followed while they stay below this root; the new
        root confines what is reached through it, as Go's ``Root.OpenRoot``)."""
        rel = relative_to(self.path, rel)

        def final(dir_fd: int, name: str | None) -> Root:
            return Root(self.join(rel), fd=os.dup(dir_fd))

        return self._walk(rel, final, create=create, whole=True, field=field,  # type: ignore
                          links=links)

    def parent(self, rel: os.PathLike | str, *, create: int | None = None,
               field: str | None = None, links: bool = True) -> tuple["Root", str]:
        """The directory holding ``rel`` (a Root the caller closes) and the last
        component's name, not resolved: the caller opens, replaces or removes
        that name relative to the directory, never through a link."""
        rel = relative_to(self.path, rel)
        parts = _parts(rel)
        if not parts or parts[-1] == "..":
            raise InvalidInput(f"does not name a file: {rel!r}", field=field, file=self.path,
                               code="bad_path")
        directory = "/".join(parts[:-1])
        return self.open_dir(directory, create=create, field=field, links=links), parts[-1]

    def lstat(self, rel: os.PathLike | str) -> os.stat_result | None:
        """The last component's own status (a link is not followed), or None
        when anything on the way is missing."""
        try:
            directory, name = self.parent(rel)
        except (FileNotFoundError, NotADirectoryError):
            return None
        with directory:
            try:
                return os.stat(name, dir_fd=directory.fd, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                return None

    def names(self, rel: os.PathLike | str = ".") -> list[str]:
        """The entries of the directory ``rel`` (FileNotFoundError if it is missing)."""
        with self.open_dir(rel) as directory:
            return os.listdir(directory.fd)


def _make_dir(name: str, mode: int, dir_fd: int) -> None:
    from .dirs import exact_mode  # lazy: only a walk that creates directories needs it (not reads)

    try:
        os.mkdir(name, mode, dir_fd=dir_fd)
    except FileExistsError:
        return
    exact_mode(name, mode, dir_fd=dir_fd)


def _kind(name: str, dir_fd: int) -> str | None:
    """``"dir"``, ``"link"``, ``"other"``, or None when ``name`` is gone."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    except OSError:
        return "other"
    return "dir" if stat.S_ISDIR(mode) else "link" if stat.S_ISLNK(mode) else "other"


def _link_text(name: str, dir_fd: int) -> str | None:
    """What the link ``name`` says, or None when it is not a link (any more)."""
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:
        return None


def open_beneath(root: os.PathLike | str, rel: os.PathLike | str, flags: int = os.O_RDONLY,
                 mode: int = 0o600, *, follow: bool = True, field: str | None = None) -> int:
    """``Root(root).open(rel, ...)``: one descriptor on a regular file below ``root``."""
    with Root(root) as base:
        return base.open(rel, flags, mode, follow=follow, field=field)


def contained_file(root: os.PathLike | str, rel: str, *, field: str | None = None) -> Path:
    """The regular file that the relative path ``rel`` reaches below ``root``,
    for naming it (``..``, absolute paths and links out of the root refused,
    NotFound when missing).  To read or write it, use :class:`Root` (or
    ``core.fs`` with ``root=``): a name checked now may lead elsewhere later."""
    check_relative(rel, field=field)
    try:
        fd = open_beneath(root, rel, field=field)
    except FileNotFoundError:
        raise NotFound(f"no such file: {rel}", field=field, file=root) from None
    except OSError as exc:
        raise InvalidInput(f"cannot open {rel}: {exc.strerror}", field=field, file=root,
                           code="unreadable") from None
    os.close(fd)
    return Path(os.path.realpath(os.path.join(os.fspath(root), rel)))
