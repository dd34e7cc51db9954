"""Reporting: the errors a schema or an instance gives, and the hints in messages."""

from __future__ import annotations

from ..errors import InvalidInput
from .instances import json_pointer


class SchemaError(InvalidInput):
    """The schema itself is unusable: a bad keyword value or regex, a
    ``$ref`` that cannot be resolved inside the document, or a ``$ref`` cycle."""

    default_code = "schema_error"


class Violation(tuple):
    """One reason an instance fails its schema: ``(instance_path, keyword_path,
    message)``.  ``instance_path`` is a JSON pointer into the instance ("" for
    the root), ``keyword_path`` one to the failing keyword in the schema.

    A tuple subclass rather than a dataclass: importing ``dataclasses`` (and
    with it ``inspect``) would cost more than the rest of this module, and the
    validator sits on start-up paths.
    """

    __slots__ = ()

    def __new__(cls, instance_path: str, keyword_path: str, message: str) -> "Violation":
        return tuple.__new__(cls, (instance_path, keyword_path, message))

    instance_path = property(lambda self: self[0])
    keyword_path = property(lambda self: self[1])
    message = property(lambda self: self[2])

    def __repr__(self) -> str:
        return (f"Violation(instance_path={self[0]!r}, keyword_path={self[1]!r}, "
                f"message={self[2]!r})")


def too_deep_error(instance, file) -> InvalidInput:
    depth, stack = 0, [(instance, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list, tuple)):
            depth = max(depth, level)
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, level + 1) for child in children)
    return InvalidInput(f"the value is nested too deeply to validate ({depth} levels)",
                        code="too_deep", file=file, field="/")


def closest_alternative(collectors, value, path) -> str:
    """A hint naming the first problem of the most plausible alternative: one
    whose ``type`` fits the value, then the one with the fewest problems."""
    here = json_pointer(path)
    best = best_rank = None
    for step in collectors:
        found: list[Violation] = []
        step(value, path, found)
        if not found:
            continue
        wrong_type = any(v.instance_path == here and v.keyword_path.endswith("/type") for v in found)
        rank = (wrong_type, len(found))
        if best_rank is None or rank < best_rank:
            best, best_rank = found, rank
    if not best:
        return ""
    where = best[0].instance_path or "/"
    return f" (closest: {where}: {best[0].message})"
