"""Route parameters, query values and JSON bodies, checked before any shell-out.

Ids use the same grammar as the CLI that will receive them (the regexes of the
owning packages, the catalog schema's ``$defs``), so a traversal such as
``..`` or ``a%2Fb`` never reaches a child process: it is a 400 here.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Callable, Iterable

from openalice.connectors.records import NAME_RE as CONNECTOR_NAME_RE
from openalice.core import patterns, resources
from openalice.core.schema import Validator
from openalice.core.secrets import NAME_RE as ENV_NAME_RE
from openalice.inbox.store import ID_RE as INBOX_ID_RE
from openalice.issues.declaration import ID_RE as ISSUE_ID_RE
from openalice.runs.tasks import is_task_id
from openalice.workspaces.registry import ID_RE as WORKSPACE_ID_RE

from .errors import HttpError

__all__ = ["PARAM_CHECKS", "check_param", "Query", "json_body", "text_value", "no_dash"]


@lru_cache(maxsize=None)
def _catalog_validator(name: str):
    defs = resources.schema("adapters")["$defs"]
    return Validator({"$ref": f"#/$defs/{name}", "$defs": defs},
                     source=f"spec/adapters.schema.json#/$defs/{name}")


def _workspace_id(value: str) -> bool:
    return WORKSPACE_ID_RE.match(value) is not None


def _issue_id(value: str) -> bool:
    return ISSUE_ID_RE.match(value) is not None


def _inbox_id(value: str) -> bool:
    return value.isascii() and INBOX_ID_RE.match(value) is not None


def _task_id(value: str) -> bool:
    return is_task_id(value)


def _adapter_id(value: str) -> bool:
    return _catalog_validator("adapterId").is_valid(value)


def _model_id(value: str) -> bool:
    return _catalog_validator("modelId").is_valid(value)


def _env_name(value: str) -> bool:
    return ENV_NAME_RE.match(value) is not None


def _log_name(value: str) -> bool:
    return value in ("stderr", "stdout")


#: The sticker library's grammars (``stickers.pack.ID_RE``/``FILE_RE``: the gateway
#: may not import that package, so they are restated; a test compares them).
PACK_ID_RE = patterns.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
STICKER_FILE_RE = patterns.compile(r"[a-zA-Z0-9][a-zA-Z0-9_-]{0,79}\.(png|webp)\Z")


def _index(value: str) -> bool:
    return value.isascii() and value.isdigit() and len(value) <= 6


PARAM_CHECKS: dict[str, Callable[[str], bool]] = {
    "workspace": _workspace_id, "issue": _issue_id, "entry": _inbox_id, "task": _task_id,
    "adapter": _adapter_id, "model": _model_id, "env_name": _env_name, "index": _index,
    "connector": lambda value: value.isascii() and CONNECTOR_NAME_RE.match(value) is not None,
    "log": _log_name,
    "pack": lambda value: value.isascii() and PACK_ID_RE.match(value) is not None,
    "sticker": lambda value: value.isascii() and STICKER_FILE_RE.match(value) is not None,
}


def check_param(kind: str, value: str, *, field: str | None = None) -> str:
    """``value`` if it is a valid ``kind``, else HttpError 400 (``bad_parameter``)."""
    if not isinstance(value, str) or not value or not PARAM_CHECKS[kind](value):
        shown = value if isinstance(value, str) and len(value) <= 80 else "<value>"
        raise HttpError(400, f"invalid {kind} id {shown!r}", code="bad_parameter",
                        field=field or kind)
    return value


def text_value(value: Any, field: str, *, max_chars: int = 100_000, allow_empty: bool = False) -> str:
    """A string that can travel as one argv item: no NUL, bounded."""
    if not isinstance(value, str):
        raise HttpError(400, f"{field} must be a string", code="bad_field", field=field)
    if "\x00" in value:
        raise HttpError(400, f"{field} contains a NUL character", code="bad_field", field=field)
    if not allow_empty and not value:
        raise HttpError(400, f"{field} must not be empty", code="bad_field", field=field)
    if len(value) > max_chars:
        raise HttpError(400, f"{field} is longer than {max_chars} characters", code="bad_field",
                        field=field)
    return value


def no_dash(value: str, field: str) -> str:
    """A positional argv item must not read as a flag."""
    if value.startswith("-"):
        raise HttpError(400, f"{field} must not start with '-'", code="bad_field", field=field)
    return value


class Query:
    """The query string: each key at most once, only the keys a route knows."""

    def __init__(self, pairs: Iterable[tuple[str, str]], allowed: Iterable[str]) -> None:
        allowed = set(allowed)
        self._values: dict[str, str] = {}
        for key, value in pairs:
            if key not in allowed:
                known = ", ".join(sorted(allowed)) or "none"
                raise HttpError(400, f"unknown query parameter {key[:40]!r} (known: {known})",
                                code="unknown_parameter", field=key[:40])
            if key in self._values:
                raise HttpError(400, f"query parameter {key!r} given twice", code="bad_parameter",
                                field=key)
            self._values[key] = text_value(value, key, max_chars=1000, allow_empty=True)

    def has(self, key: str) -> bool:
        return key in self._values

    def text(self, key: str, kind: str | None = None) -> str | None:
        value = self._values.get(key)
        if value is None or value == "":
            return None
        return check_param(kind, value, field=key) if kind else value

    def integer(self, key: str, *, low: int, high: int, default: int | None = None) -> int | None:
        value = self._values.get(key)
        if value is None or value == "":
            return default
        if not (value.isascii() and value.lstrip("-").isdigit()) or len(value) > 12:
            raise HttpError(400, f"{key} must be an integer", code="bad_parameter", field=key)
        number = int(value)
        if not low <= number <= high:
            raise HttpError(400, f"{key} must be in {low}..{high}", code="bad_parameter", field=key)
        return number

    def flag(self, key: str) -> bool:
        value = self._values.get(key)
        if value is None:
            return False
        if value in ("", "1", "true", "yes"):
            return True
        if value in ("0", "false", "no"):
            return False
        raise HttpError(400, f"{key} must be 1 or 0", code="bad_parameter", field=key)

    def choice(self, key: str, choices: Iterable[str]) -> str | None:
        value = self.text(key)
        if value is not None and value not in choices:
            raise HttpError(400, f"{key} must be one of {', '.join(choices)}", code="bad_parameter",
                            field=key)
        return value


def json_body(raw: bytes, *, allowed: Iterable[str], required: Iterable[str] = ()) -> dict:
    """The request body as a JSON object with only known fields."""
    if not raw.strip():
        data: Any = {}
    else:
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise HttpError(400, f"the body is not JSON: {exc}", code="bad_body") from None
    if not isinstance(data, dict):
        raise HttpError(400, "the body must be a JSON object", code="bad_body")
    allowed = set(allowed)
    unknown = sorted(k for k in data if k not in allowed)
    if unknown:
        raise HttpError(400, f"unknown field {unknown[0][:40]!r} (known: "
                             f"{', '.join(sorted(allowed))})", code="unknown_field",
                        field=unknown[0][:40])
    for key in required:
        if data.get(key) in (None, ""):
            raise HttpError(400, f"{key} is required", code="missing_field", field=key)
    return data
