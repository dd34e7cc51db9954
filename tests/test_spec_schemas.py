"""Every shipped schema is itself valid and usable by our validator."""

import json
from pathlib import Path

import pytest

from openalice.core.schema import Validator

SPEC = Path(__file__).resolve().parent.parent / "spec"
SCHEMAS = sorted(SPEC.glob("*.schema.json"))


def test_there_are_schemas():
    assert len(SCHEMAS) >= 4


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_schema_compiles_and_declares_draft_2020_12(path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema"
    assert schema.get("title")
    Validator(schema, source=str(path))  # raises SchemaError if unusable
