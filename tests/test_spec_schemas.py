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
    Validator(schema, source=str(path))  # raises SchemaError if unusable (an unknown keyword too)


_METASCHEMA = Validator({"$ref": "https://json-schema.org/draft/2020-12/schema"})  # shipped, never fetched


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_schema_is_valid_against_the_draft_2020_12_metaschema(path):
    assert _METASCHEMA.errors(json.loads(path.read_text(encoding="utf-8"))) == []


EXAMPLES = sorted((SPEC / "examples").glob("*/*.json"))


def test_every_example_dir_names_a_schema():
    assert len(EXAMPLES) >= 15
    for path in EXAMPLES:
        assert (SPEC / f"{path.parent.name}.schema.json").is_file(), path


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_examples_captured_from_real_runs_validate(path):
    """spec/examples/<schema>/ holds documents captured from real runs of the
    tools (and the shipped data files); they double as the schema benchmark's input."""
    schema = json.loads((SPEC / f"{path.parent.name}.schema.json").read_text(encoding="utf-8"))
    assert Validator(schema).errors(json.loads(path.read_text(encoding="utf-8"))) == []
