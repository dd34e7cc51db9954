"""Writing issues: create, update, and the two rewrites the scheduler makes.

Every write holds the issue file's lock (``fs.locked_file``), re-validates the
whole resulting file and goes through one atomic write; nothing is written
when anything is wrong.  Reads and writes reach the file below the workspace
root only (``root=``: :class:`core.paths.Root`), never through a link out of it.  ``update`` merges into the frontmatter as written:
keys it does not touch keep their text, comments and order
(``frontmatter.render``).  ``create`` and ``update`` refuse whatever
``alice issue validate`` would flag, a schedule that can never fire and an
``@resume-…`` owner that is not a session id included (:mod:`.runnable`);
the scheduler's rewrites (:func:`claim_new_then_resume`, :func:`mark_done`)
only keep the file readable, since the ``at`` they follow is past by then.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from openalice.core import frontmatter, fs
from openalice.core.errors import Conflict, InvalidInput, NotFound
from openalice.core.records import replace

from .changes import (
    FIELD_ORDER,
    NOT_UTF8,
    SURROGATE,
    WRITABLE_FIELDS,
    check_writable_keys,
    merge_changes,
    merge_when,
    normalize_field_name,
    writer_input_checks,
)
from .declaration import MAX_BYTES, RESUME_ASSIGNEE_RE, RUNTIME_FIELDS, FieldError, Issue, declare, id_problem, slug_of
from .reader import (
    LEGACY_FILE_MESSAGE,
    find_issue_file,
    issues_root,
    legacy_issue_file,
    read_issue_bytes,
    workspace_directory,
)
from .reader import issues_dir as _issues_dir
from .runnable import runtime_findings
from .schedule import data_when_problem

__all__ = ["WRITABLE_FIELDS", "FIELD_ORDER", "create", "update", "claim_new_then_resume",
           "mark_done", "normalize_field_name"]


def create(ws, fields: dict, body: str = "", *, issue_id: str | None = None,
           now: datetime) -> Issue:
    """Write a new issue file.  ``fields`` uses frontmatter names (``when`` as
    ``{"kind": "cron", "cron": ..., "timezone": ..., "catchUp": ...}``).  The id
    is ``issue_id`` or a slug of the title; an existing id is a Conflict."""
    check_writable_keys(fields)
    title = fields.get("title")
    if issue_id is None:
        if not isinstance(title, str) or not title.strip():
            reason = "is required" if title is None else (
                "must not be empty" if isinstance(title, str) else "must be a string")
            raise InvalidInput(reason, file=_issues_dir(ws), field="title", code="invalid_issue")
        issue_id = slug_of(title)
        if not issue_id:
            raise InvalidInput("cannot be derived from the title (it has no ASCII letters or "
                               "digits); pass --id", file=_issues_dir(ws), field="id",
                               code="bad_id")
    problem = id_problem(issue_id)
    if problem:
        raise InvalidInput(problem, file=_issues_dir(ws), field="id", code="bad_id")
    directory = _issues_dir(ws)
    path = directory / f"{issue_id}.md"

    errors: list[FieldError] = []
    data: dict = {}
    for key in FIELD_ORDER:
        value = fields.get(key)
        if value is None:
            continue
        if key == "when":
            value = merge_when(None, value, errors)
            if value is None:
                continue
        data[key] = value
    if "status" not in data:
        data["status"] = "todo"
    if "priority" not in data:
        data["priority"] = "none"
    data = {key: data[key] for key in FIELD_ORDER if key in data}
    writer_input_checks(fields, errors)
    if any(e.reason == NOT_UTF8 for e in errors):
        raise _refusal(path, errors)
    text = frontmatter.compose(data, _clean_body(body, path))
    issue = _judge(text, issue_id, path, ws, now, errors)
    _writable_dir(ws)
    root = workspace_directory(ws)
    with fs.locked_file(path, root=root, dir_mode=0o755):
        if _exists_any_case(ws, issue_id):
            raise Conflict(f"issue `{issue_id}` already exists", file=path, field="id",
                           code="issue_exists",
                           details={"hint": "pick another --id, or change it with "
                                            f"'alice issue update {issue_id}'"})
        if not fs.create_exclusive(path, text.encode("utf-8"), mode=0o644, dir_mode=0o755,
                                   root=root):
            raise Conflict(f"issue `{issue_id}` already exists", file=path, field="id",
                           code="issue_exists")
    return issue


def update(ws, issue_id: str, changes: dict, *, unset=(), body: str | None = None,
           now: datetime) -> tuple[Issue, bool]:
    """Merge ``changes`` into issue ``issue_id``; ``unset`` names keys to
    remove; ``body`` replaces the body.  Returns ``(issue, changed)``.

    ``changes["when"]`` may be a whole schedule or only ``timezone`` /
    ``catchUp`` of an existing cron schedule.  Setting a ``@resume-...``
    assignee strips the runtime tuple it owns; choosing ``credential`` drops
    ``credentialSource`` and the other way round.  A legacy ``what`` key is
    folded into the body.
    """
    check_writable_keys(changes)
    path = find_issue_file(ws, issue_id)
    root = workspace_directory(ws)
    with fs.locked_file(path, root=root, dir_mode=0o755):
        raw = _read_issue(ws, path)
        if raw is None:
            raise NotFound(f"no issue `{issue_id}`", file=path, code="unknown_issue")
        if isinstance(raw, FieldError):
            raise InvalidInput(raw.reason, file=path, field=raw.field, code="invalid_issue")
        doc = _parse_or_raise(raw, path)
        errors: list[FieldError] = []
        writer_input_checks(changes, errors)
        updates, removes = merge_changes(doc.data, changes, unset, errors)
        new_body = doc.body
        if "what" in doc.data:
            removes.add("what")
            updates.pop("what", None)
            if body is None:
                new_body = _fold_legacy(doc)
        if body is not None:
            new_body = "\n" + _clean_body(body, path)
            if new_body == "\n":
                new_body = ""
        if errors:
            raise _refusal(path, errors)
        text = frontmatter.render(replace(doc, body=new_body), updates, remove=removes)
        issue = _judge(text, issue_id, path, ws, now, [])
        if text.encode("utf-8") == raw:
            return issue, False
        fs.atomic_write_text(path, text, root=root, dir_mode=0o755)
        return issue, True


def claim_new_then_resume(ws, issue_id: str, resume_id: str) -> bool:
    """Atomically set ``assignee: "@<resume_id>"`` and strip agent, credential,
    credentialSource, model and effort, only if the file still resolves to
    ``@new-then-resume``.  False when it does not (changed, gone or invalid);
    raises OperationalError if the write itself fails."""
    assignee = f"@{resume_id}"
    if not isinstance(resume_id, str) or not RESUME_ASSIGNEE_RE.match(assignee):
        raise InvalidInput(f"not a resume id: {resume_id!r}", field="assignee", code="bad_resume_id")

    def change(issue: Issue, data: dict):
        if issue.assignee != "@new-then-resume":
            return None
        return {"assignee": assignee}, [f for f in RUNTIME_FIELDS if f in data]

    return _rewrite(ws, issue_id, change)


def mark_done(ws, issue_id: str) -> bool:
    """Set ``status: done`` (after a successful ``at`` run).  False if the
    issue is terminal already, gone or invalid."""

    def change(issue: Issue, data: dict):
        if issue.is_terminal:
            return None
        return {"status": "done"}, []

    return _rewrite(ws, issue_id, change)


# --------------------------------------------------------------------------

def _rewrite(ws, issue_id: str, change) -> bool:
    try:
        path = find_issue_file(ws, issue_id)
    except (NotFound, InvalidInput):
        return False
    root = workspace_directory(ws)
    with fs.locked_file(path, root=root, dir_mode=0o755):
        raw = _read_issue(ws, path)
        if not isinstance(raw, bytes):
            return False
        try:
            doc = frontmatter.parse(raw, max_bytes=None)
        except frontmatter.FrontmatterError:
            return False
        issue, errors = declare(doc.data, doc.body, issue_id=issue_id, path=path)
        if issue is None:
            return False
        wanted = change(issue, doc.data)
        if wanted is None:
            return False
        updates, removes = wanted
        text = frontmatter.render(doc, updates, remove=removes)
        check = frontmatter.parse(text, max_bytes=None)
        if declare(check.data, check.body, issue_id=issue_id, path=path)[0] is None:
            return False
        fs.atomic_write_text(path, text, root=root, dir_mode=0o755)
        return True


def _read_issue(ws, path: Path) -> bytes | FieldError | None:
    """The file's bytes, read below the workspace root (None if it is gone)."""
    try:
        with issues_root(ws) as where:
            return read_issue_bytes(path, where)
    except (FileNotFoundError, NotADirectoryError):
        return None



def _fold_legacy(doc: frontmatter.Document) -> str:
    """The body that carries a legacy ``what`` once the key is dropped: the
    What comes first, the old body (comments section included) follows."""
    legacy = doc.data.get("what")
    legacy = legacy.strip() if isinstance(legacy, str) else ""
    old = doc.body.strip("\n")
    if not legacy or old.strip() == legacy:
        return doc.body if not legacy else "\n" + legacy + "\n"
    if not old.strip():
        return "\n" + legacy + "\n"
    return "\n" + legacy + "\n\n## Context\n\n" + old + "\n"


def _clean_body(body: object, path: Path) -> str:
    if not isinstance(body, str):
        raise InvalidInput("body must be text", file=path, field="body", code="invalid_issue")
    if SURROGATE.search(body):
        raise InvalidInput(NOT_UTF8, file=path, field="body", code="invalid_issue")
    if "\x00" in body:
        raise InvalidInput("body contains a NUL character", file=path, field="body",
                           code="invalid_issue")
    body = body.replace("\r\n", "\n").strip("\n")
    return body + "\n" if body else ""


def _judge(text: str, issue_id: str, path: Path, ws, now: datetime,
           errors: list[FieldError]) -> Issue:
    """The issue ``text`` declares, or InvalidInput listing every problem,
    schedule problems included.  Nothing has been written yet."""
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        errors.append(FieldError("file", f"issue file too large ({size} bytes; limit {MAX_BYTES})"))
        raise _refusal(path, errors)
    doc = frontmatter.parse(text, max_bytes=None)
    issue, problems = declare(doc.data, doc.body, issue_id=issue_id, path=path,
                              workspace_id=getattr(ws, "id", None))
    errors.extend(p for p in problems if p not in errors)
    problem = data_when_problem(doc.data, now, errors)
    if problem is not None:
        errors.append(problem)
    if not errors:
        errors.extend(runtime_findings(ws, issue)[0])  # what no scan could ever run
    if errors:
        raise _refusal(path, errors)
    return issue


def _refusal(path: Path, errors: list[FieldError]) -> InvalidInput:
    # The location names the first field, so its reason goes bare: "file:f1: r1; f2: r2".
    unique = list(dict.fromkeys(errors))
    message = "; ".join([unique[0].reason] + [str(e) for e in unique[1:]])
    return InvalidInput(message, file=path, field=unique[0].field,
                        code="invalid_issue",
                        details={"errors": [e.to_dict() for e in unique]})


def _parse_or_raise(raw: bytes, path: Path) -> frontmatter.Document:
    try:
        return frontmatter.parse(raw, max_bytes=None)
    except frontmatter.FrontmatterError as exc:
        raise InvalidInput(f"{exc.message} (fix the file by hand, then retry)", file=path,
                           field="frontmatter", code="invalid_issue") from None


def _writable_dir(ws) -> Path:
    directory = _issues_dir(ws)
    try:
        issues_root(ws).close()
        return directory
    except (FileNotFoundError, NotADirectoryError):
        pass
    root = workspace_directory(ws)
    if not os.path.isdir(root):
        raise NotFound(f"workspace directory is missing: {root}", file=root,
                       code="workspace_missing")
    legacy = legacy_issue_file(root)
    if legacy is not None:
        raise InvalidInput(LEGACY_FILE_MESSAGE, file=legacy, code="legacy_issue_json")
    fs.ensure_dir(directory, 0o755, root=root)
    return directory


def _exists_any_case(ws, issue_id: str) -> bool:
    try:
        with issues_root(ws) as where:
            return any(where.lstat(f"{issue_id}{ext}") is not None
                       for ext in (".md", ".MD", ".Md", ".mD"))
    except (FileNotFoundError, NotADirectoryError):
        return False
