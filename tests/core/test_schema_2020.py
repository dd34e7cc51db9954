"""core.schema beyond one self-contained document: unevaluated*, $dynamicRef,
vocabularies, the registry, format assertion (the official suite covers the
semantics in breadth; these pin the project's own choices and messages)."""

from __future__ import annotations

import json
import threading

import pytest

from openalice.core.schema import Registry, SchemaError, Validator
from openalice.core.schema.compiler import Compiler


def test_the_issue_reproduction_unevaluated_properties_false():
    validator = Validator({"properties": {"a": {}}, "unevaluatedProperties": False})
    assert not validator.is_valid({"a": 1, "b": 2})
    assert validator.errors({"a": 1, "b": 2}) == [("/b", "/unevaluatedProperties", "unevaluated property 'b'")]
    assert validator.is_valid({"a": 1})


def test_unevaluated_properties_see_through_applicators_and_refs():
    schema = {
        "$defs": {"named": {"properties": {"name": {"type": "string"}}}},
        "allOf": [{"$ref": "#/$defs/named"}],
        "anyOf": [{"properties": {"x": {"type": "integer"}}, "required": ["x"]},
                  {"properties": {"y": {"type": "integer"}}, "required": ["y"]}],
        "if": {"required": ["kind"], "properties": {"kind": {"const": "a"}}},
        "then": {"properties": {"extra": True}},
        "dependentSchemas": {"z": {"properties": {"z": True, "w": True}}},
        "unevaluatedProperties": False,
    }
    validator = Validator(schema)
    assert validator.is_valid({"name": "n", "x": 1})
    assert not validator.is_valid({"name": "n", "x": 1, "y": "no"})  # the failing anyOf branch evaluates nothing
    assert validator.is_valid({"x": 1, "kind": "a", "extra": 5})
    assert not validator.is_valid({"x": 1, "kind": "b", "extra": 5})
    assert validator.is_valid({"x": 1, "z": 1, "w": 2})
    assert not validator.is_valid({"x": 1, "w": 2})
    # `not` never contributes annotations
    assert not Validator({"not": {"not": {"properties": {"a": True}}}, "unevaluatedProperties": False}).is_valid({"a": 1})


def test_unevaluated_items_with_prefix_items_and_contains():
    validator = Validator({"prefixItems": [{"type": "string"}], "contains": {"type": "integer"},
                           "unevaluatedItems": {"type": "boolean"}})
    assert validator.is_valid(["a", 1, True, 2])
    assert not validator.is_valid(["a", 1, None])
    assert validator.errors(["a", 1, None]) == [("/2", "/unevaluatedItems/type", "null is not of type 'boolean'")]
    strict = Validator({"prefixItems": [True], "unevaluatedItems": False})
    assert strict.errors([1, 2]) == [("/1", "/unevaluatedItems", "unevaluated item at index 1")]


def test_nested_unevaluated_sees_only_its_own_adjacent_keywords():
    schema = {"properties": {"a": True}, "allOf": [{"unevaluatedProperties": False}]}
    assert not Validator(schema).is_valid({"a": 1})  # the inner one cannot see the outer properties


def test_schemas_without_unevaluated_never_build_annotations():
    compiler = Compiler({"properties": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/n"}]}},
                          "$defs": {"n": {"type": "integer"}}}, None)
    root = compiler.compile()
    assert root.check({"a": 1}) and not root.check({"a": None})
    assert all(node._annotate is None for node in compiler.nodes.values())
    assert not compiler.dynamic and compiler.scope is None


def test_dynamic_ref_resolves_to_the_outermost_dynamic_anchor():
    registry = Registry({"https://example.com/tree": {
        "$id": "https://example.com/tree", "$dynamicAnchor": "node", "type": "object",
        "properties": {"data": True, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}}})
    strict_tree = {"$id": "https://example.com/strict-tree", "$dynamicAnchor": "node",
                   "$ref": "tree", "unevaluatedProperties": False}
    validator = Validator(strict_tree, registry=registry)
    assert validator.is_valid({"children": [{"data": 1}]})
    assert not validator.is_valid({"children": [{"daat": 1}]})  # the misspelling is caught deep down
    assert Validator(registry.get("https://example.com/tree"), registry=registry).is_valid({"children": [{"daat": 1}]})


def test_the_dynamic_scope_is_per_thread():
    schema = {"$id": "https://example.com/list", "$dynamicAnchor": "item", "type": "array",
              "items": {"$dynamicRef": "#item"}}
    validator = Validator(schema)
    results = []

    def work():
        results.append(all(validator.is_valid([[[]], []]) and not validator.is_valid([1]) for _ in range(300)))
    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 4


# -- vocabularies ---------------------------------------------------------------

def _metaschema(uri, vocabularies):
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": uri,
            "$vocabulary": {f"https://json-schema.org/draft/2020-12/vocab/{v}": True for v in vocabularies}}


def test_a_vocabulary_the_metaschema_leaves_out_is_ignored():
    registry = Registry({"https://example.com/meta": _metaschema("https://example.com/meta", ["core", "applicator"])})
    validator = Validator({"$schema": "https://example.com/meta", "properties": {"n": {"minimum": 10}}},
                          registry=registry)
    assert validator.is_valid({"n": 1})  # minimum belongs to the validation vocabulary, which is off
    assert not Validator({"properties": {"n": {"minimum": 10}}}).is_valid({"n": 1})


def test_a_required_unknown_vocabulary_is_a_schema_error_an_optional_one_opens_the_dialect():
    meta = {"$id": "https://example.com/meta", "$vocabulary": {
        "https://json-schema.org/draft/2020-12/vocab/core": True,
        "https://json-schema.org/draft/2020-12/vocab/validation": True,
        "https://example.com/vocab/custom": True}}
    with pytest.raises(SchemaError, match="requires the vocabulary 'https://example.com/vocab/custom'"):
        Validator({"$schema": "https://example.com/meta"}, registry=Registry({meta["$id"]: meta}))
    meta["$vocabulary"]["https://example.com/vocab/custom"] = False
    validator = Validator({"$schema": "https://example.com/meta", "customKeyword": 3, "maximum": 1},
                          registry=Registry({meta["$id"]: meta}))
    assert validator.is_valid(1) and not validator.is_valid(2)


def test_an_unknown_schema_uri_is_a_schema_error():
    with pytest.raises(SchemaError, match="unknown \\$schema 'http://json-schema.org/draft-07/schema#'"):
        Validator({"$schema": "http://json-schema.org/draft-07/schema#"})


def test_the_metaschema_is_shipped_and_validates_schemas():
    meta = Validator({"$ref": "https://json-schema.org/draft/2020-12/schema"})
    assert meta.is_valid({"type": "string", "properties": {"a": {"minLength": 1}}})
    assert not meta.is_valid({"type": "strin"})
    assert not meta.is_valid({"properties": {"a": {"minLength": -1}}})


# -- the registry ---------------------------------------------------------------

def test_registry_directory_is_searched_recursively_by_id_and_file_uri(tmp_path):
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "name.json").write_text(json.dumps(
        {"$id": "https://example.com/schemas/name", "type": "string", "minLength": 2}))
    (tmp_path / "no-id.json").write_text(json.dumps({"type": "integer"}))
    (tmp_path / "notes.txt").write_text("not a schema")
    registry = Registry()
    assert registry.add_directory(tmp_path) == 2
    validator = Validator({"properties": {"n": {"$ref": "https://example.com/schemas/name"},
                                          "i": {"$ref": (tmp_path / "no-id.json").as_uri()}}}, registry=registry)
    assert validator.is_valid({"n": "ab", "i": 3})
    assert not validator.is_valid({"n": "a"}) and not validator.is_valid({"i": "x"})
    assert registry.source("https://example.com/schemas/name") == str(tmp_path / "deep" / "er" / "name.json")


def test_a_relative_ref_resolves_against_the_schema_file_uri(tmp_path):
    (tmp_path / "item.json").write_text(json.dumps({"type": "integer"}))
    registry = Registry()
    registry.add_directory(tmp_path)
    schema_path = tmp_path / "list.json"
    validator = Validator({"type": "array", "items": {"$ref": "item.json"}}, registry=registry,
                          uri=schema_path.as_uri())
    assert validator.is_valid([1, 2]) and not validator.is_valid(["x"])


def test_nothing_is_fetched_a_uri_outside_the_registry_is_a_schema_error():
    with pytest.raises(SchemaError) as caught:
        Validator({"$ref": "https://example.com/elsewhere.json"}, registry=Registry())
    assert caught.value.field == "/$ref"
    assert "neither inside this schema document nor in the registry" in caught.value.message


def test_registry_refuses_bad_json_and_conflicting_ids(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(SchemaError) as caught:
        Registry().add_directory(tmp_path)
    assert caught.value.file == str(tmp_path / "bad.json") and "not valid JSON" in caught.value.message
    (tmp_path / "bad.json").unlink()
    (tmp_path / "a.json").write_text(json.dumps({"$id": "https://example.com/x", "type": "string"}))
    (tmp_path / "b.json").write_text(json.dumps({"$id": "https://example.com/x", "type": "integer"}))
    with pytest.raises(SchemaError, match="two registry documents claim the URI 'https://example.com/x'"):
        Registry().add_directory(tmp_path)
    with pytest.raises(SchemaError, match="not a directory"):
        Registry().add_directory(tmp_path / "missing")


# -- formats --------------------------------------------------------------------

@pytest.mark.parametrize("fmt, good, bad", [
    ("date-time", "2026-12-01T09:30:00Z", "2026-02-30T09:30:00Z"),
    ("date", "2024-02-29", "2023-02-29"),
    ("time", "23:59:60Z", "22:59:60Z"),
    ("duration", "P1DT12H", "P1Y2D"),
    ("email", "joe.bloggs@example.com", "joe..bloggs@example.com"),
    ("hostname", "xn--9n2bp8q.xn--9t4b11yi5a", "host_name"),
    ("idn-hostname", "실례.테스트", "-bad.example"),
    ("ipv4", "192.168.0.1", "192.168.0.01"),
    ("ipv6", "::ffff:192.168.0.1", "fe80::a%eth1"),
    ("uri", "https://example.com/a?b#c", "/relative"),
    ("uri-reference", "../a", "/a b"),
    ("iri", "http://ƒøø.ßår/", "âππ"),
    ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa08aa9811eab4aa73b441d16380"),
    ("json-pointer", "/a~1b", "/a~2"),
    ("relative-json-pointer", "0#", "/a"),
    ("uri-template", "http://example.com/{term:1}", "{a,,b}"),
    ("regex", "^(?<n>a)\\k<n>$", "(?P<n>a)"),
])
def test_format_assertion_is_opt_in(fmt, good, bad):
    schema = {"format": fmt}
    assert Validator(schema).is_valid(bad)
    asserting = Validator(schema, format_assertion=True)
    assert asserting.is_valid(good) and asserting.is_valid(12)
    assert not asserting.is_valid(bad)
    assert asserting.errors(bad) == [("", "/format", f"{bad!r} is not a valid {fmt}")]


def test_an_unknown_format_asserts_nothing():
    assert Validator({"format": "color"}, format_assertion=True).is_valid("not a colour")


# -- line numbers for CI output ---------------------------------------------------

def test_pointer_lines_name_the_line_each_instance_path_starts_on():
    from openalice.core.schema.files import pointer_lines

    text = '{\n  "a/b": [\n    1,\n    {"c~d": null}\n  ],\n  "e": "x",\n  "e": {"f": true}\n}\n'
    lines = pointer_lines(text)
    assert lines[""] == 1
    assert lines["/a~1b"] == 2 and lines["/a~1b/0"] == 3 and lines["/a~1b/1"] == 4
    assert lines["/a~1b/1/c~0d"] == 4
    assert lines["/e"] == 7 and lines["/e/f"] == 7  # a duplicate key: the last one, as json.loads keeps it
    assert pointer_lines("[" * 5000 + "]" * 5000) == {}  # too deep to walk: no lines, no crash
