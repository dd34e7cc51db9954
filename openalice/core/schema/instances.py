"""Instances: JSON types of Python values, JSON equality and short renderings for messages."""

from __future__ import annotations

NoneType = type(None)
JSON_TYPES = frozenset((str, int, float, bool, NoneType, list, dict))
NUMBER_TYPES = (int, float)
TYPES_BY_NAME = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "null": (NoneType,), "array": (list,), "object": (dict,),
}
MISSING = object()


def base_type(value) -> type:
    """The JSON Python type a subclass (or a tuple) stands for."""
    if isinstance(value, bool):
        return bool
    for base in (int, float, str, dict, list):
        if isinstance(value, base):
            return base
    if isinstance(value, tuple):
        return list
    raise TypeError(f"cannot validate a {type(value).__name__}: it is not a JSON value")


def json_type_name(value) -> str:
    try:
        base = type(value) if type(value) in JSON_TYPES else base_type(value)
    except TypeError:
        return type(value).__name__
    if base is float and value.is_integer():
        return "integer"
    return {str: "string", int: "integer", float: "number", bool: "boolean", NoneType: "null",
            list: "array", dict: "object"}[base]


def freeze(value):
    """A hashable key equal for JSON-equal values and only for them.

    Strings and numbers stand for themselves (1 and 1.0 hash and compare
    equal, as JSON wants); booleans are tagged so that true != 1.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or value is None:
        return value
    if kind is bool:
        return ("b", value)
    if kind is list or kind is tuple:
        return ("l", tuple(map(freeze, value)))
    if kind is dict:
        return ("o", frozenset((k, freeze(v)) for k, v in value.items()))
    return freeze(base_type(value)(value))


def show(value, depth: int = 0) -> str:
    """A short rendering of an instance value for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57]) + "..."
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if depth >= 2:
            return "[...]"
        parts = [show(item, depth + 1) for item in value[:3]]
        if len(value) > 3:
            parts.append("...")
        return "[" + ", ".join(parts) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        if depth >= 2:
            return "{...}"
        parts = [f"{show(k, 2)}: {show(v, depth + 1)}" for k, v in list(value.items())[:3]]
        if len(value) > 3:
            parts.append("...")
        return "{" + ", ".join(parts) + "}"
    return repr(value)


def escape_token(token) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def json_pointer(path: tuple) -> str:
    return "".join("/" + escape_token(token) for token in path)
