"""A document's schema violations, without compiling the schema for a document that passed it before.

``harness-adapter list`` checks the adapter catalog and the adapter state
against their JSON Schemas on every run, and compiling a validator (with
``core.schema``'s imports) was about 8 ms of a 60-80 ms verb for two small
files that change once in a while.  :func:`violations` answers from a record
of the last document that passed each schema: the sha256 of the schema and
of the document, both as canonical JSON (sorted keys, no spaces, ASCII), so
a recorded digest names exactly a value that passed exactly this schema.  Any
other document — a changed one, a record that is missing, unreadable or of
another version — is validated, and a pass is recorded.  The record is
derived data, never the source of truth: it can only skip the check of a
value that was already checked.

Records live in ``$OPENALICE_HOME/state/schema-passes/<schema>.json``
(``spec/schema-pass.schema.json``: ``{"version": 1, "schema": name, "passed":
hex}``) and are written only where that home's ``state/`` already exists (a
read never creates a home); a record that cannot be written is not an error.
"""

from __future__ import annotations

import json
import os

from openalice.core import digests, fs, homes
from openalice.core.errors import AliceError

__all__ = ["violations", "record_file"]

_VERSION = 1


def record_file(schema_name: str) -> str:
    return os.path.join(homes.openalice_home(), "state", "schema-passes", f"{schema_name}.json")


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _digest(schema: object, document: object) -> str:
    h = digests.sha256(_canonical(schema))
    h.update(b"\0")
    h.update(_canonical(document))
    return h.hexdigest()


def violations(schema_name: str, document: object) -> list:
    """``core.resources.schema_validator(schema_name).errors(document)``: the
    same list, empty at once for a document recorded as having passed."""
    from openalice.core.resources import schema, schema_validator  # lazy: resources reads packaged data

    path = record_file(schema_name)
    key = _digest(schema(schema_name), document)
    record = {"version": _VERSION, "schema": schema_name, "passed": key}
    try:
        recorded = fs.read_json(path, max_bytes=1024, missing=None)
    except (OSError, AliceError):  # unreadable or malformed: not known
        recorded = None
    if recorded == record:
        return []
    found = schema_validator(schema_name).errors(document)
    if not found and os.path.isdir(os.path.dirname(os.path.dirname(path))):
        try:
            fs.atomic_write_json(path, record, indent=None, durable=False)
        except (OSError, AliceError):
            pass  # a home that cannot be written: the next read validates again
    return found
