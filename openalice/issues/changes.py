"""What a change to an issue means for its frontmatter: the fields a writer
may set (in the order a new file lists them), their spellings on a command
line, what only a writer refuses, and how a change (``when`` patches
included) merges into the keys already written.  :mod:`.store` writes the
result."""

from __future__ import annotations

from openalice.core import patterns

from .declaration import DEFAULT_CRON_TIMEZONE, KNOWN_FIELDS, RUNTIME_FIELDS, FieldError, alias_problem

__all__ = ["WRITABLE_FIELDS", "FIELD_ORDER", "normalize_field_name"]

# The keys a writer may set, in the order a new file lists them.
FIELD_ORDER = ("title", "status", "priority", "assignee", "when", "agent", "credential",
               "credentialSource", "model", "effort", "timeout", "commentPrompt",
               "telegramConnector")
WRITABLE_FIELDS = frozenset(FIELD_ORDER)
SURROGATE = patterns.compile("[\ud800-\udfff]")
NOT_UTF8 = "is not valid UTF-8 text (check the terminal's or file's encoding)"
_WHEN_KEYS = frozenset({"kind", "at", "every", "cron", "timezone", "catchUp"})
_FIELD_ALIASES = {name.lower(): name for name in KNOWN_FIELDS}
_FIELD_ALIASES.update({"credential-source": "credentialSource", "comment-prompt": "commentPrompt",
                       "telegram-connector": "telegramConnector", "catch-up": "catchUp"})


def normalize_field_name(name: str) -> str:
    """``comment-prompt`` / ``commentprompt`` → ``commentPrompt``; others unchanged."""
    return _FIELD_ALIASES.get(name.lower(), name)



def check_writable_keys(fields: dict) -> None:
    unknown = [k for k in fields if k not in WRITABLE_FIELDS]
    if unknown:
        raise ValueError(f"not writable issue fields: {unknown}")


def writer_input_checks(fields: dict, errors: list[FieldError]) -> None:
    """What only a writer refuses: the read-only assignee aliases, and text
    that is not UTF-8 (a command line decoded with surrogate escapes)."""
    problem = alias_problem(fields.get("assignee"))
    if problem:
        errors.append(FieldError("assignee", problem))
    for key, value in fields.items():
        values = value.items() if isinstance(value, dict) else ((None, value),)
        for sub, item in values:
            if isinstance(item, str) and SURROGATE.search(item):
                errors.append(FieldError(f"{key}.{sub}" if sub else key, NOT_UTF8))


def merge_changes(data: dict, changes: dict, unset, errors: list[FieldError]) -> tuple[dict, set]:
    updates: dict = {}
    removes: set = set()
    for key, value in changes.items():
        if key == "when":
            merged = merge_when(data.get("when"), value, errors)
            if merged is not None:
                updates["when"] = merged
            continue
        updates[key] = value
        if key == "assignee" and isinstance(value, str) and value.startswith("@resume-"):
            removes.update(f for f in RUNTIME_FIELDS if f in data and f not in changes)
        elif key == "credential" and "credentialSource" in data and "credentialSource" not in changes:
            removes.add("credentialSource")
        elif key == "credentialSource" and "credential" in data and "credential" not in changes:
            removes.add("credential")
    for name in unset:
        key = normalize_field_name(name)
        if key == "title":
            errors.append(FieldError("title", "is required and cannot be unset"))
        elif key in changes:
            errors.append(FieldError(key, "cannot be both set and unset"))
        elif key in data:
            removes.add(key)
            updates.pop(key, None)
        elif key not in KNOWN_FIELDS:
            errors.append(FieldError(key, "is not in the file and is not an issue field"))
    return updates, removes


def merge_when(old: object, patch: object, errors: list[FieldError]) -> dict | None:
    if not isinstance(patch, dict) or not set(patch) <= _WHEN_KEYS:
        raise ValueError(f"bad when patch: {patch!r}")
    kind = patch.get("kind")
    old_cron = isinstance(old, dict) and old.get("kind") == "cron"
    if kind is None:
        if not old_cron:
            field = "when.timezone" if "timezone" in patch else "when.catchUp"
            errors.append(FieldError(field, "the issue has no cron schedule to change "
                                            "(give --cron EXPR too)"))
            return None
        new = dict(old)
    elif kind == "cron":
        new = {"kind": "cron", "cron": patch.get("cron")}
        zone = patch.get("timezone") or (old.get("timezone") if old_cron else None)
        # No timezone means the machine's, as the reader reads it; the file says so.
        new["timezone"] = zone or DEFAULT_CRON_TIMEZONE
        if old_cron and "catchUp" not in patch and old.get("catchUp") is False:
            new["catchUp"] = False
    else:
        stray = sorted(k for k in ("timezone", "catchUp") if k in patch)
        if stray:
            errors.append(FieldError(f"when.{stray[0]}", f"applies only to a cron schedule, "
                                                         f"not to kind {kind}"))
            return None
        return {"kind": kind, kind: patch.get(kind)}
    if "timezone" in patch and patch["timezone"] is not None:
        new["timezone"] = patch["timezone"]
    if "catchUp" in patch:
        if patch["catchUp"] is True:
            new.pop("catchUp", None)     # true is the default: the key goes
        else:
            new["catchUp"] = patch["catchUp"]
    return new
