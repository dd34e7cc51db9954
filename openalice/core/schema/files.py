"""Validating JSON files against a schema file, for CI steps (``alice schema validate``).

    report = validate_files("spec/x.schema.json", ["a.json", "b.json"], registry=["schemas/"])
    report["valid"]                     # every file conforms
    report["files"][0]["errors"][0]     # {"path", "keyword", "message", "line"}

The schema is compiled once, with a :class:`~.registry.Registry` of the given
directories (searched recursively) and files, and with its own ``file://`` URI
as its retrieval URI, so a relative ``$ref`` finds a registered neighbour.  A
bad schema or registry raises :class:`SchemaError` naming the file; a file that
cannot be read, is not JSON or is nested too deeply is reported as one error of
that file, so that one bad file does not hide the others.  ``line`` is the
line in the file where the instance path starts (a member's key line).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from json.decoder import scanstring
from pathlib import Path

from openalice.core import patterns

from ..errors import AliceError
from .instances import escape_token
from .registry import Registry, load_document
from .report import SchemaError
from .validator import Validator

__all__ = ["validate_files", "pointer_lines"]


def validate_files(schema_path, files, *, registry=(), format_assertion: bool = False) -> dict:
    """``{"schema", "valid", "files": [{"file", "valid", "errors": [...]}]}`` (see
    ``spec/schema-validate.schema.json``)."""
    held = Registry()
    for place in registry:
        place = Path(place)
        if place.is_dir():
            held.add_directory(place)
        elif place.is_file():
            held.add_file(place)
        else:
            raise SchemaError("the registry path does not exist", file=str(place), field="--registry")
    schema_file = Path(schema_path)
    if schema_file.is_dir():
        raise SchemaError("the schema is a directory, not a JSON file", file=str(schema_file))
    schema = load_document(schema_file)
    if not isinstance(schema, (dict, bool)):
        raise SchemaError("a schema must be a JSON object or a boolean", file=str(schema_file), field="/")
    validator = Validator(schema, source=str(schema_file), registry=held, uri=schema_file.resolve().as_uri(),
                          format_assertion=format_assertion)
    results = [_check(validator, Path(name)) for name in files]
    return {"schema": str(schema_file), "valid": all(r["valid"] for r in results), "files": results}


def _check(validator: Validator, path: Path) -> dict:
    def failed(message: str, line=None) -> dict:
        return {"file": str(path), "valid": False, "errors": [{"path": "", "keyword": "", "message": message,
                                                                "line": line}]}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return failed(f"cannot read the file: {exc.strerror if isinstance(exc, OSError) else exc}")
    try:
        document = json.loads(text)
    except RecursionError:
        return failed("the file is nested too deeply to parse")
    except ValueError as exc:
        return failed(f"not valid JSON: {exc.msg}" if hasattr(exc, "msg") else f"not valid JSON: {exc}",
                      getattr(exc, "lineno", None))
    try:
        violations = validator.errors(document)
    except AliceError as exc:  # too deep to validate
        return failed(exc.message)
    lines = pointer_lines(text) if violations else {}
    return {"file": str(path), "valid": not violations,
            "errors": [{"path": v.instance_path, "keyword": v.keyword_path, "message": v.message,
                        "line": lines.get(v.instance_path)} for v in violations]}


_SPACE = patterns.compile(r"[ \t\n\r]*")
_SCALAR = patterns.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity")


def pointer_lines(text: str) -> dict[str, int]:
    """The 1-based line of every JSON pointer of a valid JSON *text* (a member's
    is the line of its key); {} if the text is nested too deeply to walk."""
    breaks = [i for i, char in enumerate(text) if char == "\n"]
    lines: dict[str, int] = {}

    def line(position: int) -> int:
        return bisect_left(breaks, position) + 1

    def space(position: int) -> int:
        return _SPACE.match(text, position).end()

    def value(position: int, pointer: str) -> int:
        position = space(position)
        lines.setdefault(pointer, line(position))
        char = text[position]
        if char == '"':
            return scanstring(text, position + 1)[1]
        if char == "{":
            position = space(position + 1)
            if text[position] == "}":
                return position + 1
            while True:
                position = space(position)
                key, after = scanstring(text, position + 1)
                member = f"{pointer}/{escape_token(key)}"
                lines[member] = line(position)
                position = space(after) + 1  # the ':'
                position = space(value(position, member))
                if text[position] != ",":
                    return position + 1
                position += 1
        if char == "[":
            position = space(position + 1)
            if text[position] == "]":
                return position + 1
            index = 0
            while True:
                position = space(value(position, f"{pointer}/{index}"))
                index += 1
                if text[position] != ",":
                    return position + 1
                position += 1
        return _SCALAR.match(text, position).end()

    try:
        value(0, "")
    except (RecursionError, IndexError, AttributeError, ValueError):
        return {}
    return lines
