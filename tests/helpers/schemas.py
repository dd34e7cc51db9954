"""The one schema check tests use: a real document against its ``spec/`` schema.

    from tests.helpers.schemas import conforms, schema_errors

    doc = conforms("issue-list", r.json())      # asserts, then hands the document back
    assert schema_errors("workspace", {"workspace": {}}) != []

The validator is the product's own (``resources.schema_validator``: the
shipped ``spec/<name>.schema.json``, compiled once per process), so a test
checks output against exactly what the tools publish.  A failure names the
schema, every violation and the document.
"""

from __future__ import annotations

from openalice.core import resources
from openalice.core.schema import Violation

__all__ = ["conforms", "schema_errors"]


def schema_errors(name: str, document) -> list[Violation]:
    """Every violation of ``spec/<name>.schema.json`` by ``document`` ([] when it conforms)."""
    return resources.schema_validator(name).errors(document)


def conforms(name: str, document):
    """Assert that ``document`` satisfies ``spec/<name>.schema.json``; return the document."""
    errors = schema_errors(name, document)
    assert errors == [], (name, errors, document)
    return document
