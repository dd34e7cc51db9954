"""Reading a workspace's issues: ``.alice/issues/*.md``, each file on its own.

Every entry ending in ``.md`` (any case) is an issue whose id is the file
name's stem; names starting with ``.`` (temp files, editor locks) and other
files (``<id>.comments.json``, ``README.txt``) are not issues.  One bad file
becomes an :class:`InvalidIssue` with its reasons and never hides the others.

The issues directory is reached below the workspace root through
:class:`core.paths.Root` (each component opened relative to its parent's
descriptor, never through a link out of the workspace), listed and read from
that one descriptor: an ``.alice/issues`` that leads outside the workspace
makes the whole workspace invalid, even if it is swapped for a link while
being read.  Issue files are opened with ``O_NOFOLLOW``: a symlinked issue
file is reported, not followed.  The 64 KiB cap is checked with ``fstat``
before anything is read, so a 10 MB file costs one system call.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from openalice.core import frontmatter
from openalice.core.errors import AliceError, InvalidInput, NotFound, PathEscape, excerpt
from openalice.core.paths import Root

from .declaration import MAX_BYTES, FieldError, InvalidIssue, Issue, declare, id_problem, is_valid_id

__all__ = [
    "LEGACY_FILE_MESSAGE", "legacy_issue_file", "IssueSet", "issues_dir", "issue_path", "find_issue_file",
    "read_issues", "read_issue_file", "read_frontmatter", "load_issue",
    "issues_root", "judge_bytes", "telegram_conflict",
]

LEGACY_FILE_MESSAGE = ("`.alice/issue.json` is retired: split each issue into its own "
                       "`.alice/issues/<id>.md` file (Markdown with a YAML frontmatter block; "
                       "see docs/issues.md)")


def legacy_issue_file(root: os.PathLike | str) -> Path | None:
    """The retired one-file ``.alice/issue.json`` of a workspace when it is
    there (a dangling symlink counts: something sits at that name), else None."""
    legacy = Path(root) / ".alice" / "issue.json"
    return legacy if os.path.lexists(legacy) else None


_ESCAPE_MESSAGE = "`.alice/issues` leads outside the workspace (a symlink)"


class IssueSet:
    """What :func:`read_issues` found in one workspace.

    ``state`` is ``ok`` (the directory was read), ``absent`` (no issues
    directory and no legacy file) or ``invalid`` (``error`` says why;
    ``reason`` is a slug: ``legacy_issue_json``, ``path_escape``,
    ``not_a_directory``, ``missing`` or ``unreadable``).
    """

    __slots__ = ("state", "issues", "invalid", "error", "reason", "directory")

    def __init__(self, state: str, issues: list[Issue] | None = None,
                 invalid: list[InvalidIssue] | None = None, *, error: str | None = None,
                 reason: str | None = None, directory: Path | None = None) -> None:
        self.state = state
        self.issues = issues if issues is not None else []
        self.invalid = invalid if invalid is not None else []
        self.error = error
        self.reason = reason
        self.directory = directory

    @property
    def readable(self) -> bool:
        """False when the workspace could not be looked at (missing, permissions)."""
        return self.reason not in ("missing", "unreadable")

    def __repr__(self) -> str:
        return (f"IssueSet(state={self.state!r}, issues={len(self.issues)}, "
                f"invalid={len(self.invalid)}, error={self.error!r})")


def workspace_directory(ws) -> Path:
    return ws.root if hasattr(ws, "root") else Path(ws.path)


def issues_dir(ws) -> Path:
    return workspace_directory(ws) / ".alice" / "issues"


def issue_path(ws, issue_id: str) -> Path:
    """Where issue ``issue_id`` lives (whether or not it exists).  A malformed
    id is refused (InvalidInput, field ``id``)."""
    problem = id_problem(issue_id)
    if problem:
        raise InvalidInput(problem, file=issues_dir(ws), field="id", code="bad_id")
    return issues_dir(ws) / f"{issue_id}.md"


def find_issue_file(ws, issue_id: str) -> Path:
    """The existing file of ``issue_id`` (``<id>.md``, or another case of the
    extension); NotFound otherwise.  The issues directory must stay inside
    the workspace."""
    if not is_valid_id(issue_id):
        raise NotFound(f"no issue `{_clip(issue_id)}`: the id {id_problem(issue_id)}",
                       file=issues_dir(ws), field="id", code="unknown_issue")
    directory = issues_dir(ws)
    try:
        with issues_root(ws) as where:
            for ext in (".md", ".MD", ".Md", ".mD"):
                if where.lstat(f"{issue_id}{ext}") is not None:
                    return directory / f"{issue_id}{ext}"
    except (FileNotFoundError, NotADirectoryError):
        pass
    raise NotFound(f"no issue `{issue_id}` in workspace `{getattr(ws, 'id', ws)}`",
                   file=directory / f"{issue_id}.md", code="unknown_issue",
                   details={"hint": "see 'alice issue list'"})


def issues_root(ws) -> Root:
    """``.alice/issues`` opened below the workspace root (the caller closes it).
    PathEscape when it leads outside; FileNotFoundError, NotADirectoryError
    and other OSErrors as the walk meets them."""
    try:
        with Root(workspace_directory(ws)) as base:
            return base.open_dir(".alice/issues")
    except PathEscape:
        raise PathEscape(f"{_ESCAPE_MESSAGE}; refused", file=issues_dir(ws)) from None


def read_issues(ws) -> IssueSet:
    """Every issue of workspace ``ws`` (anything with ``.path`` and ``.id``)."""
    root = workspace_directory(ws)
    directory = root / ".alice" / "issues"
    ws_id = getattr(ws, "id", None)
    try:
        where = issues_root(ws)
    except PathEscape:
        return IssueSet("invalid", error=f"{_ESCAPE_MESSAGE}; it is not read",
                        reason="path_escape", directory=directory)
    except FileNotFoundError:
        if not os.path.isdir(root):
            return IssueSet("invalid", error=f"workspace directory is missing: {root}",
                            reason="missing", directory=directory)
        if legacy_issue_file(root) is not None:
            return IssueSet("invalid", error=LEGACY_FILE_MESSAGE, reason="legacy_issue_json",
                            directory=directory)
        return IssueSet("absent", directory=directory)
    except NotADirectoryError:
        return IssueSet("invalid", error="`.alice/issues` is not a directory",
                        reason="not_a_directory", directory=directory)
    except AliceError as exc:  # a loop of links
        return IssueSet("invalid", error=f"cannot read `.alice/issues`: {exc.message}",
                        reason="unreadable", directory=directory)
    except OSError as exc:
        return IssueSet("invalid", error=f"cannot read `.alice/issues`: {exc.strerror}",
                        reason="unreadable", directory=directory)
    with where:
        try:
            names = sorted(name for name in os.listdir(where.fd)
                           if name[-3:].lower() == ".md" and name[0] != ".")
        except OSError as exc:
            return IssueSet("invalid", error=f"cannot read `.alice/issues`: {exc.strerror}",
                            reason="unreadable", directory=directory)
        return _judge_files(where, directory, names, ws_id)


def _judge_files(where: Root, directory: Path, names: list[str], ws_id: str | None) -> IssueSet:
    issues: list[Issue] = []
    invalid: list[InvalidIssue] = []
    telegram_owner = None
    for name in names:
        result = read_issue_file(directory / name, name[:-3], workspace_id=ws_id, where=where)
        if isinstance(result, Issue):
            if result.telegram_connector:
                if telegram_owner is not None:
                    invalid.append(telegram_conflict(result.id, result.path, telegram_owner))
                    continue
                telegram_owner = result.id
            issues.append(result)
        elif result is not None:
            invalid.append(result)
    return IssueSet("ok", issues, invalid, directory=directory)


def telegram_conflict(issue_id: str, path: Path, owner: str) -> InvalidIssue:
    """A second issue of one workspace that sets ``telegramConnector``."""
    return InvalidIssue(issue_id, path, [FieldError(
        "telegramConnector", f"only one issue per workspace may set it; `{owner}` already does")])


def read_issue_file(path: Path, issue_id: str, *, workspace_id: str | None = None,
                    where: Root | None = None) -> Issue | InvalidIssue | None:
    """One file judged on its own; None if it vanished while being read.
    ``where`` is the issues directory it is read from (default: the file's
    own directory, taken as it is)."""
    data = read_issue_bytes(path, where)
    if data is None:
        return None
    return judge_bytes(data, path, issue_id, workspace_id=workspace_id)


def judge_bytes(data: bytes | FieldError, path: Path, issue_id: str, *,
                workspace_id: str | None = None) -> Issue | InvalidIssue:
    """The file's bytes (or why they could not be read) judged on their own:
    what :func:`read_issue_file` returns (the issue index parses through here)."""
    if isinstance(data, FieldError):
        return InvalidIssue(issue_id, path, [data])
    errors: list[FieldError] = []
    if not is_valid_id(issue_id):
        errors.append(FieldError("id", f"file name `{_clip(path.name)}` gives the id "
                                       f"`{_clip(issue_id)}`, which cannot be addressed "
                                       "(ids match [A-Za-z0-9][A-Za-z0-9_-]*, at most 128 "
                                       "characters); rename the file"))
    doc = _parse(data)
    if isinstance(doc, FieldError):
        errors.append(doc)
        return InvalidIssue(issue_id, path, errors)
    issue, problems = declare(doc.data, doc.body, issue_id=issue_id, path=path,
                              workspace_id=workspace_id)
    if problems or errors:
        return InvalidIssue(issue_id, path, errors + problems)
    return issue


def read_frontmatter(path: Path, where: Root | None = None) -> dict | None:
    """The frontmatter mapping of a file, or None if it cannot be read or parsed."""
    data = read_issue_bytes(path, where)
    if not isinstance(data, bytes):
        return None
    doc = _parse(data)
    return None if isinstance(doc, FieldError) else doc.data


def load_issue(ws, issue_id: str) -> Issue:
    """One issue by id: NotFound (exit 2) if there is none, InvalidInput with
    the file and the first bad field (all reasons in ``details["errors"]``)."""
    path = find_issue_file(ws, issue_id)
    try:
        with issues_root(ws) as where:
            result = read_issue_file(path, issue_id, workspace_id=getattr(ws, "id", None),
                                     where=where)
    except (FileNotFoundError, NotADirectoryError):
        result = None
    if result is None:
        raise NotFound(f"no issue `{issue_id}`", file=path, code="unknown_issue")
    if isinstance(result, InvalidIssue):
        first, rest = result.errors[0], result.errors[1:]
        raise InvalidInput("; ".join([first.reason] + [str(e) for e in rest]), file=path,
                           field=first.field,
                           code="invalid_issue",
                           details={"errors": [e.to_dict() for e in result.errors]})
    return result


def read_issue_bytes(path: Path, where: Root | None = None) -> bytes | FieldError | None:
    """The bytes of one issue file, read from ``where`` (the issues directory,
    see :func:`issues_root`) without following a link; a FieldError saying
    why it cannot be read; None if it is gone."""
    try:
        if where is None:
            with Root(path.parent) as own:
                fd = own.open(path.name, follow=False)
        else:
            fd = where.open(path.name, follow=False)
    except FileNotFoundError:
        return None
    except AliceError as exc:
        if exc.code == "symlink_refused":
            return FieldError("file", "is a symbolic link; issue files are never followed "
                                      "(make it a regular file)")
        if exc.code == "not_regular_file":
            return FieldError("file", "is not a regular file")
        return FieldError("file", exc.message)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            return FieldError("file", "permission denied")
        return FieldError("file", f"cannot open: {exc.strerror}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return FieldError("file", "is not a regular file")
        if st.st_size > MAX_BYTES:
            return FieldError("file", f"issue file too large ({st.st_size} bytes; limit {MAX_BYTES})")
        chunks = []
        size = 0
        while True:
            chunk = os.read(fd, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_BYTES:
                return FieldError("file", f"issue file too large (over {MAX_BYTES} bytes)")
        return b"".join(chunks)
    except OSError as exc:
        return FieldError("file", f"cannot read: {exc.strerror}")
    finally:
        os.close(fd)


def _parse(data: bytes):
    try:
        return frontmatter.parse(data, max_bytes=None)
    except frontmatter.FrontmatterError as exc:
        return FieldError("frontmatter", exc.message)
    except (RecursionError, ValueError, MemoryError) as exc:  # a parser bug must not break the board
        return FieldError("frontmatter", f"cannot be read ({exc.__class__.__name__})")


def _clip(text: object, limit: int = 60) -> str:
    return excerpt(str(text), limit)
