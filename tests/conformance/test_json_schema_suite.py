"""The official JSON Schema Test Suite (draft 2020-12) against openalice.core.schema.

The suite's data is copied into ``tests/data/json-schema-test-suite/`` (MIT, with its
licence): the COVERED files only.  Every file of the upstream suite is either COVERED
(one pytest case per test) or OUT_OF_SCOPE with a reason (not copied); tests that cannot
pass are listed by name in EXPECTED_FAILURES and run as strict xfails.  ``python tests/conformance/test_json_schema_suite.py`` prints the tally.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # when run as a script
    sys.path.insert(0, str(REPO_ROOT))

from openalice.core.schema import SchemaError, Validator  # noqa: E402
from tests.testdata import JSON_SCHEMA_SUITE as SUITE  # noqa: E402

COVERED = [
    "type.json", "enum.json", "const.json", "required.json", "properties.json", "additionalProperties.json",
    "patternProperties.json", "propertyNames.json", "items.json", "prefixItems.json", "contains.json",
    "minContains.json", "maxContains.json", "minItems.json", "maxItems.json", "uniqueItems.json",
    "minLength.json", "maxLength.json", "pattern.json", "minimum.json", "maximum.json", "exclusiveMinimum.json",
    "exclusiveMaximum.json", "multipleOf.json", "minProperties.json", "maxProperties.json",
    "dependentRequired.json", "dependentSchemas.json", "ref.json", "defs.json", "anchor.json", "allOf.json",
    "anyOf.json", "oneOf.json", "not.json", "if-then-else.json", "boolean_schema.json", "format.json",
    "default.json", "infinite-loop-detection.json",
]

OUT_OF_SCOPE = {
    "refRemote.json": "every case needs remote documents served at http://localhost:1234; "
                      "the validator resolves $ref only within one document",
    "dynamicRef.json": "$dynamicRef/$dynamicAnchor are not supported",
    "unevaluatedItems.json": "unevaluatedItems needs annotation collection, which is not supported",
    "unevaluatedProperties.json": "unevaluatedProperties needs annotation collection, which is not supported",
    "vocabulary.json": "$vocabulary needs custom metaschemas fetched by URI; not supported",
    "content.json": "contentEncoding/contentMediaType/contentSchema are not claimed by the project "
                    "(annotations only in 2020-12; the validator ignores them)",
}

_METASCHEMA = ("the official metaschema https://json-schema.org/draft/2020-12/schema is a remote document; "
               "the validator raises SchemaError for it")
_UNICODE_PROPERTY = "Python's re has no \\p{...} Unicode property escapes; the validator raises SchemaError"
_UNEVALUATED = "needs unevaluatedProperties (annotation collection), which is not supported"

# (file, case description, test description) -> (reason, exception the test fails with)
EXPECTED_FAILURES = {
    ("defs.json", "validate definition against metaschema", "valid definition schema"): (_METASCHEMA, SchemaError),
    ("defs.json", "validate definition against metaschema", "invalid definition schema"): (_METASCHEMA, SchemaError),
    ("ref.json", "remote ref, containing refs itself", "remote ref valid"): (_METASCHEMA, SchemaError),
    ("ref.json", "remote ref, containing refs itself", "remote ref invalid"): (_METASCHEMA, SchemaError),
    ("pattern.json", "pattern with Unicode property escape requires unicode mode", "ASCII letters match"):
        (_UNICODE_PROPERTY, SchemaError),
    ("pattern.json", "pattern with Unicode property escape requires unicode mode", "Non-ASCII letters match"):
        (_UNICODE_PROPERTY, SchemaError),
    ("pattern.json", "pattern with Unicode property escape requires unicode mode", "Digits do not match"):
        (_UNICODE_PROPERTY, SchemaError),
    ("patternProperties.json", "patternProperties with Unicode property escape", "Unicode letter property name matches"):
        (_UNICODE_PROPERTY, SchemaError),
    ("patternProperties.json", "patternProperties with Unicode property escape",
     "Non-letter property name does not match pattern"): (_UNICODE_PROPERTY, SchemaError),
    ("ref.json", "ref creates new scope when adjacent to keywords", "referenced subschema doesn't see annotations from properties"):
        (_UNEVALUATED, AssertionError),
    ("not.json", "collect annotations inside a 'not', even if collection is disabled", "unevaluated property"):
        (_UNEVALUATED, AssertionError),
}


def load_tests(suite: Path):
    """(file, case description, test description, schema, data, valid) for every covered test."""
    for name in COVERED:
        for case in json.loads((suite / name).read_text(encoding="utf-8")):
            for test in case["tests"]:
                yield name, case["description"], test["description"], case["schema"], test["data"], test["valid"]


def run_one(validators: dict, name, case, schema, data, expected) -> None:
    """Assert the validator's verdict; SchemaError propagates for unusable schemas."""
    key = (name, case)
    if key not in validators:
        try:
            validators[key] = Validator(schema, source=f"{name}: {case}")
        except SchemaError as error:
            validators[key] = error
    validator = validators[key]
    if isinstance(validator, SchemaError):
        raise validator
    verdict = validator.is_valid(data)
    assert verdict == (validator.errors(data) == []), "is_valid and errors() disagree"
    assert verdict is expected, f"expected {'valid' if expected else 'invalid'}, got {'valid' if verdict else 'invalid'}"


def tally(suite: Path) -> tuple[int, int, list[tuple[str, str, str]]]:
    """(passed, total, failed test names) over the covered files."""
    validators: dict = {}
    passed, total, failed = 0, 0, []
    for name, case, test, schema, data, expected in load_tests(suite):
        total += 1
        try:
            run_one(validators, name, case, schema, data, expected)
            passed += 1
        except (AssertionError, SchemaError):
            failed.append((name, case, test))
    return passed, total, failed


def _params():
    for name, case, test, schema, data, expected in load_tests(SUITE):
        marks = []
        known = EXPECTED_FAILURES.get((name, case, test))
        if known is not None:
            reason, raises = known
            marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=reason))
        yield pytest.param(name, case, schema, data, expected, id=f"{name[:-5]}::{case}::{test}", marks=marks)


_VALIDATORS: dict = {}


@pytest.mark.parametrize("name, case, schema, data, expected", list(_params()))
def test_suite_case(name, case, schema, data, expected):
    run_one(_VALIDATORS, name, case, schema, data, expected)


def test_every_suite_file_is_covered_or_explained():
    # The copy holds exactly the covered files; the upstream files left out say why above.
    present = {path.name for path in SUITE.glob("*.json")}
    assert present == set(COVERED), "the copied suite and COVERED disagree"
    assert not set(COVERED) & set(OUT_OF_SCOPE)


def test_expected_failures_name_real_tests():
    names = {(name, case, test) for name, case, test, *_ in load_tests(SUITE)}
    assert set(EXPECTED_FAILURES) <= names, set(EXPECTED_FAILURES) - names


def test_pass_count(record_property, capsys):
    passed, total, failed = tally(SUITE)
    summary = (f"JSON Schema Test Suite draft2020-12: {passed} of {total} tests pass in {len(COVERED)} files; "
               f"{len(EXPECTED_FAILURES)} expected failures; {len(OUT_OF_SCOPE)} files out of scope")
    record_property("conformance", summary)
    with capsys.disabled():
        print("\n" + summary)
    assert sorted(failed) == sorted(EXPECTED_FAILURES)
    assert passed == total - len(EXPECTED_FAILURES)


if __name__ == "__main__":
    passed, total, failed = tally(SUITE)
    print(f"{passed} of {total} tests pass in {len(COVERED)} files; {len(failed)} fail:")
    for entry in failed:
        reason = EXPECTED_FAILURES.get(entry, ("UNEXPECTED",))[0]
        print("  " + " :: ".join(entry) + f"  [{reason}]")
