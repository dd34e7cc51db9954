"""The issue file contract: what ``<workspace>/.alice/issues/<id>.md`` may say.

A file is parsed and judged in isolation: :func:`declare` turns the parsed
frontmatter and body into an :class:`Issue`, or into the full list of
:class:`FieldError` s that keep it from being one.  Nothing here touches the
disk or the clock; reading files is :mod:`openalice.issues.reader`, schedules
that can never fire are :mod:`openalice.issues.schedule`.

Reader semantics follow the original TypeScript reader: unknown keys are kept
(in ``Issue.extra``), the ``when`` values themselves (``every`` grammar, cron
syntax, the ``at`` instant) are *not* judged here, so ``every: soon`` is a
valid file that never fires.  A ``timezone`` that is neither ``local`` nor an
IANA name is an invalid file.  A key written with no value (``model:``) counts
as absent.
"""

from __future__ import annotations

from pathlib import Path

from openalice.core import patterns
from openalice.core.errors import InvalidInput, excerpt
from openalice.core.records import field, record_class
from openalice.core.zones import resolve_zone
from openalice.models.ladder import ISSUE_EFFORTS as EFFORTS  # the ladder up to max (see there)

__all__ = [
    "STATUSES", "TERMINAL_STATUSES", "PRIORITIES", "PRIORITY_RANK", "ASSIGNEE_POLICIES",
    "EFFORTS", "TIMEOUTS", "RUNTIME_FIELDS", "KNOWN_FIELDS", "COMMENT_PROMPT_TOKENS",
    "COMMENT_PROMPT_MAX", "MAX_BYTES", "ID_PATTERN", "ID_MAX", "ID_RE", "CREDENTIAL_RE",
    "READ_ALIASES", "DEFAULT_CRON_TIMEZONE", "FieldError", "Issue", "InvalidIssue", "declare", "what_of",
    "is_valid_id", "id_problem", "alias_problem", "slug_of",
]

STATUSES = ("backlog", "todo", "in_progress", "done", "canceled")
TERMINAL_STATUSES = frozenset({"done", "canceled"})
PRIORITIES = ("urgent", "high", "medium", "low", "none")
PRIORITY_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}
ASSIGNEE_POLICIES = ("@new-each-run", "@new-then-resume", "@human", "@unassigned")
TIMEOUTS = {"15m": 900, "30m": 1800, "45m": 2700, "60m": 3600}
# A session assignee owns these: its binding was frozen when it was born.
RUNTIME_FIELDS = ("agent", "credential", "credentialSource", "model", "effort")
KNOWN_FIELDS = ("title", "status", "priority", "assignee", "when", "agent", "credential",
                "credentialSource", "model", "effort", "timeout", "commentPrompt",
                "telegramConnector", "what", "execution")
WHEN_KINDS = ("at", "every", "cron")
COMMENT_PROMPT_TOKENS = ("comment", "title", "id", "workspaceId", "author", "what")
COMMENT_PROMPT_MAX = 8000
MAX_BYTES = 64 * 1024
ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]*$"
ID_MAX = 128
ID_RE = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}\Z")
# The vault's slug grammar (openalice.credentials): lowercase, digits, dashes.
CREDENTIAL_RE = patterns.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
RESUME_ASSIGNEE_RE = patterns.compile(r"@resume-\S{1,200}\Z")
# A cron `when` without `timezone` means the machine's zone: for the reader, the
# writers (which then write it out), validate and the scheduler alike.
DEFAULT_CRON_TIMEZONE = "local"
# Read-only aliases: accepted when read, refused when written.
READ_ALIASES = {"@workspace": None, "@new": "@new-then-resume"}

_TOKEN_RE = patterns.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_COMMENTS_HEADING_RE = patterns.compile("(?m)" r"^##[ \t]+Comments[ \t]*$")
_SLUG_DROP_RE = patterns.compile(r"[^a-z0-9]+")


@record_class(frozen=True)
class FieldError:
    """One reason a file is not a valid issue: ``field`` is a frontmatter key
    (``when.timezone`` for nested ones) or ``file``/``frontmatter``/``id``."""

    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}"

    def to_dict(self) -> dict:
        return {"field": self.field, "reason": self.reason}


@record_class(frozen=True)
class InvalidIssue:
    """A file that could not be read as an issue, with every reason found."""

    id: str
    path: Path
    errors: list[FieldError]

    @property
    def message(self) -> str:
        return "; ".join(str(e) for e in self.errors)


@record_class(frozen=True)
class Issue:
    """A valid issue, normalized: defaults applied, read-only aliases resolved.

    ``when`` is None or one of ``{"kind": "at", "at": str}``,
    ``{"kind": "every", "every": str}``,
    ``{"kind": "cron", "cron": str, "timezone": str, "catchUp": bool}``.
    ``what`` is the exact prompt of a scheduled run; ``extra`` holds the keys
    this contract does not know, in file order.
    """

    id: str
    path: Path
    title: str
    status: str = "todo"
    priority: str = "none"
    assignee: str = "@unassigned"
    when: dict | None = None
    agent: str | None = None
    credential: str | None = None
    credential_source: str | None = None
    model: str | None = None
    effort: str | None = None
    timeout: str | None = None
    timeout_seconds: int | None = None
    comment_prompt: str | None = None
    what: str = ""
    body: str = ""
    extra: dict = field(default_factory=dict)
    telegram_connector: bool = False
    legacy_what: bool = False
    workspace_id: str | None = None

    @property
    def credentialSource(self) -> str | None:
        return self.credential_source

    @property
    def is_scheduled(self) -> bool:
        return self.when is not None

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


def is_valid_id(issue_id: object) -> bool:
    return isinstance(issue_id, str) and ID_RE.match(issue_id) is not None


def id_problem(issue_id: object) -> str | None:
    """Why ``issue_id`` cannot name an issue file (a reason for field ``id``), or None."""
    if not isinstance(issue_id, str) or not issue_id:
        return "is empty"
    if ID_RE.match(issue_id):
        return None
    if len(issue_id) > ID_MAX:
        return f"is longer than {ID_MAX} characters"
    if "/" in issue_id or "\\" in issue_id or ".." in issue_id:
        return f"`{_clip(issue_id)}` is not a file name (no `/`, `\\` or `..`)"
    return (f"`{_clip(issue_id)}` must start with a letter or digit and use only "
            f"letters, digits, `_` and `-`")


def slug_of(title: str) -> str:
    """The id ``create`` derives from a title: lowercase, runs of anything but
    ``a-z0-9`` become ``-``, dashes trimmed, at most 64 characters."""
    return _SLUG_DROP_RE.sub("-", title.lower()).strip("-")[:64].strip("-")


def alias_problem(value: object) -> str | None:
    """Writers refuse the read-only aliases, with or without ``@``, in any case."""
    if not isinstance(value, str):
        return None
    bare = value.strip().lstrip("@").lower()
    if bare == "workspace":
        return (f"`{value}` is deprecated; use `@new-each-run` (a fresh session each run) "
                "or `@unassigned` (no schedule)")
    if bare == "new":
        return f"`{value}` is deprecated; use `@new-then-resume`"
    return None


def what_of(body: str, legacy_what: object, title: str) -> str:
    """The prompt of a scheduled run: the body up to a legacy ``## Comments``
    heading, trimmed; a legacy ``what:`` key comes first, the body (when it
    says something else) follows under ``## Context``; else the title."""
    match = _COMMENTS_HEADING_RE.search(body) if "## " in body else None
    text = (body[:match.start()] if match else body).strip()
    legacy = legacy_what.strip() if isinstance(legacy_what, str) else ""
    if legacy and text and text != legacy:
        return f"{legacy}\n\n## Context\n\n{text}"
    return legacy or text or title


def declare(data: dict, body: str, *, issue_id: str, path: Path,
            workspace_id: str | None = None) -> tuple[Issue | None, list[FieldError]]:
    """Judge one parsed file.  Returns ``(issue, [])`` or ``(None, errors)``
    with every problem found (not just the first)."""
    errors: list[FieldError] = []
    err = errors.append
    get = data.get

    title = get("title")
    if title is None:
        err(FieldError("title", "is required"))
    elif not isinstance(title, str):
        err(FieldError("title", f"must be a string, not {_kind(title)} "
                                f"(quote it: title: \"{_clip(str(title))}\")"))
    elif not title.strip():
        err(FieldError("title", "must not be empty"))

    status = _enum(get("status"), "status", STATUSES, "todo", err)
    priority = _enum(get("priority"), "priority", PRIORITIES, "none", err)
    when = _when(get("when"), err)
    scheduled = get("when") is not None

    raw_assignee = get("assignee")
    assignee = None
    if raw_assignee is None:
        assignee = "@new-then-resume" if scheduled else "@unassigned"
    elif not isinstance(raw_assignee, str):
        err(FieldError("assignee", f"must be a string, not {_kind(raw_assignee)}"))
    elif raw_assignee in ASSIGNEE_POLICIES or RESUME_ASSIGNEE_RE.match(raw_assignee):
        assignee = raw_assignee
    elif raw_assignee in READ_ALIASES:
        assignee = READ_ALIASES[raw_assignee] or ("@new-each-run" if scheduled else "@unassigned")
    else:
        hint = ""
        if ("@" + raw_assignee) in ASSIGNEE_POLICIES or raw_assignee.startswith("resume-"):
            hint = f"; did you mean `@{raw_assignee}` (quoted: \"@{raw_assignee}\")?"
        err(FieldError("assignee", "must be @new-each-run, @new-then-resume, @human, "
                                   f"@unassigned or @resume-<id> (got `{_clip(raw_assignee)}`){hint}"))

    agent = _text(get("agent"), "agent", err)
    model = _text(get("model"), "model", err)
    credential = _text(get("credential"), "credential", err)
    if credential is not None and not CREDENTIAL_RE.match(credential):
        err(FieldError("credential", f"`{_clip(credential)}` is not a vault slug (lowercase "
                                     "letters, digits and `-`, at most 64 characters)"))
        credential = None
    credential_source = get("credentialSource")
    if credential_source is not None and credential_source != "native":
        err(FieldError("credentialSource", f"must be `native` (got `{_clip(str(credential_source))}`)"))
    if credential_source is not None and get("credential") is not None:
        err(FieldError("credentialSource", "cannot be combined with credential; keep one of them"))
    effort = _enum(get("effort"), "effort", EFFORTS, None, err)
    timeout = _enum(get("timeout"), "timeout", tuple(TIMEOUTS), None, err)

    comment_prompt = get("commentPrompt")
    if comment_prompt is not None:
        comment_prompt = _comment_prompt(comment_prompt, err)

    telegram = get("telegramConnector")
    if telegram is not None and telegram is not True:
        err(FieldError("telegramConnector", "must be true (remove the key to turn it off)"))

    legacy = get("what")
    if legacy is not None and not isinstance(legacy, str):
        err(FieldError("what", f"must be a string, not {_kind(legacy)} "
                               "(what is legacy: write the prompt in the body)"))
    if "execution" in data:
        err(FieldError("execution", "is retired; use when, assignee and the runtime fields "
                                    "(agent, credential, model, effort, timeout)"))

    # Cross-field rules, only once the fields themselves are sound.
    if assignee is not None:
        if scheduled and assignee in ("@human", "@unassigned"):
            err(FieldError("assignee", f"`{assignee}` cannot run a schedule; use @new-then-resume, "
                                       "@new-each-run or @resume-<id>, or remove when"))
        elif not scheduled and assignee in ("@new-each-run", "@new-then-resume"):
            err(FieldError("assignee", f"`{assignee}` needs a schedule (add when, or assign "
                                       "@human or @unassigned)"))
        if assignee.startswith("@resume-"):
            for name in RUNTIME_FIELDS:
                if get(name) is not None:
                    err(FieldError(name, f"session assignee owns its runtime: `{assignee}` keeps "
                                         f"the {name} it was born with; remove {name}"))

    if errors:
        return None, errors
    extra = {k: v for k, v in data.items() if k not in _KNOWN}
    return Issue(
        id=issue_id, path=path, title=title, status=status, priority=priority,
        assignee=assignee, when=when, agent=agent, credential=credential,
        credential_source=credential_source, model=model, effort=effort, timeout=timeout,
        timeout_seconds=TIMEOUTS[timeout] if timeout else None, comment_prompt=comment_prompt,
        what=what_of(body, legacy, title), body=body, extra=extra,
        telegram_connector=telegram is True, legacy_what=legacy is not None,
        workspace_id=workspace_id,
    ), errors


_KNOWN = frozenset(KNOWN_FIELDS)


def _when(value: object, err) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        err(FieldError("when", "must be a mapping with kind: at, every or cron "
                               "(e.g. when: {kind: every, every: 30m})"))
        return None
    kind = value.get("kind")
    if kind is None:
        err(FieldError("when.kind", "is required: at, every or cron"))
        return None
    if kind not in WHEN_KINDS:
        err(FieldError("when.kind", f"must be at, every or cron (got `{_clip(str(kind))}`)"))
        return None
    text = value.get(kind)
    if text is None:
        err(FieldError(f"when.{kind}", f"is required for kind {kind}"))
        return None
    if not isinstance(text, str):
        err(FieldError(f"when.{kind}", f"must be a string, not {_kind(text)}"))
        return None
    if kind != "cron":
        return {"kind": kind, kind: text}
    ok = True
    zone = value.get("timezone")
    if zone is None:
        zone = DEFAULT_CRON_TIMEZONE
    elif not isinstance(zone, str) or not _zone_ok(zone):
        err(FieldError("when.timezone", "timezone must be `local` or a valid IANA timezone "
                                        f"(got `{_clip(str(zone))}`)"))
        ok = False
    catch_up = value.get("catchUp")
    if catch_up is None:
        catch_up = True
    elif not isinstance(catch_up, bool):
        err(FieldError("when.catchUp", f"catchUp must be true or false (got `{_clip(str(catch_up))}`)"))
        ok = False
    return {"kind": "cron", "cron": text, "timezone": zone, "catchUp": catch_up} if ok else None


def _zone_ok(name: str) -> bool:
    if name == "local":
        return True
    try:
        resolve_zone(name)
    except InvalidInput:
        return False
    return True


def _enum(value: object, name: str, allowed: tuple, default, err):
    if value is None:
        return default
    if isinstance(value, str) and value in allowed:
        return value
    shown = value if isinstance(value, str) else f"{value!r}"
    err(FieldError(name, f"must be one of {', '.join(allowed)} (got `{_clip(str(shown))}`)"))
    return default


def _text(value: object, name: str, err) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        err(FieldError(name, f"must be a string, not {_kind(value)}"))
        return None
    if not value.strip():
        err(FieldError(name, "must not be empty (remove the key instead)"))
        return None
    return value


def _comment_prompt(value: object, err) -> str | None:
    if not isinstance(value, str):
        err(FieldError("commentPrompt", f"must be a string, not {_kind(value)}"))
        return None
    ok = True
    if len(value) > COMMENT_PROMPT_MAX:
        err(FieldError("commentPrompt", f"is longer than {COMMENT_PROMPT_MAX} characters "
                                        f"({len(value)})"))
        ok = False
    tokens = _TOKEN_RE.findall(value)
    if "comment" not in tokens:
        err(FieldError("commentPrompt", "must contain the {comment} token"))
        ok = False
    unknown = sorted({t for t in tokens if t not in COMMENT_PROMPT_TOKENS})
    if unknown:
        err(FieldError("commentPrompt", f"unknown token {{{unknown[0]}}}; the tokens are "
                                        + ", ".join("{" + t + "}" for t in COMMENT_PROMPT_TOKENS)))
        ok = False
    return value if ok else None


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _clip(text: str, limit: int = 60) -> str:
    return excerpt(text.replace("\n", "\\n"), limit)
