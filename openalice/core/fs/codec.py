"""The JSON of state: the one decoding (strict UTF-8, no lone surrogates) and
the encoding of state files and of JSONL records.

A state file is printed by ``core.output.to_json``, the one JSON printer (a
``--json`` document is its text too), plus a newline: the printer lives there
because every verb loads it and ``--help`` must not load this package."""

from __future__ import annotations

import json

from ..output import to_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


def loads_json(text: str | bytes) -> Any:
    """``json.loads`` of UTF-8 text, where a string holding a lone surrogate
    (``"\\ud800"``: valid JSON, but not Unicode text, so it can be neither
    printed nor written back) is a ValueError too, as bytes that are not UTF-8
    are.  The one JSON decoding of state (files and JSONL lines)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")  # strictly: json.loads would let bytes pass as surrogates
    value = json.loads(text)
    if ("\\ud" in text or "\\uD" in text) and _has_surrogate(value):
        raise ValueError("a string holds a lone surrogate (\\ud800-\\udfff), which is not text")
    return value


def _has_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def json_type(value: Any) -> str:
    """JSON's name for the type of ``value`` (for "the top level is null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def dump_json(obj: Any, *, indent: int | None = 2) -> str:
    """A state file's text: :func:`~openalice.core.output.to_json`'s, with a trailing newline."""
    return to_json(obj, indent=indent) + "\n"


def dump_json_line(record: Any) -> str:
    """The one serialization of a JSONL record: :func:`dump_json`'s text
    (UTF-8, not ASCII-escaped) made compact, so the record is one line and an
    append the fewest bytes.  The two differ for that reason only."""
    return to_json(record, compact=True) + "\n"
