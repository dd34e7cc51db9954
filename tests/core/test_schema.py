"""Unit tests for openalice.core.schema (JSON Schema draft 2020-12)."""

from __future__ import annotations

from collections import OrderedDict

import pytest

from openalice.core.errors import EXIT_INVALID, InvalidInput
from openalice.core.schema import SchemaError, Validator, Violation


def valid(schema, instance) -> bool:
    """is_valid, after checking that errors() agrees with it."""
    validator = Validator(schema)
    result = validator.is_valid(instance)
    assert result == (validator.errors(instance) == []), "is_valid and errors() disagree"
    return result


def messages(schema, instance) -> list[tuple[str, str, str]]:
    return [(v.instance_path, v.keyword_path, v.message) for v in Validator(schema).errors(instance)]


def nested_lists(depth: int):
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


# -- type ----------------------------------------------------------------------

@pytest.mark.parametrize("name, good, bad", [
    ("string", "x", 1),
    ("integer", 3, 3.5),
    ("number", 3.5, "3.5"),
    ("boolean", False, 0),
    ("null", None, False),
    ("array", [], {}),
    ("object", {}, []),
])
def test_type_accepts_its_own_kind_only(name, good, bad):
    assert valid({"type": name}, good)
    assert not valid({"type": name}, bad)


@pytest.mark.parametrize("name", ["integer", "number"])
def test_bool_is_not_a_number(name):
    assert not valid({"type": name}, True)
    assert not valid({"type": name}, False)


def test_integral_float_is_an_integer():
    assert valid({"type": "integer"}, 1.0)
    assert not valid({"type": "integer"}, 1.5)
    assert not valid({"type": "integer"}, float("inf"))


def test_type_list_and_message():
    schema = {"type": ["string", "null"]}
    assert valid(schema, None) and valid(schema, "x")
    assert messages(schema, 2026) == [("", "/type", "2026 is not of type 'string', 'null'")]
    assert messages({"type": "string"}, 2026) == [("", "/type", "2026 is not of type 'string'")]


def test_subclasses_and_tuples_are_their_json_kinds():
    assert valid({"type": "object", "required": ["a"]}, OrderedDict(a=1))
    assert valid({"type": "array", "items": {"type": "integer"}}, (1, 2))
    assert not valid({"type": "array", "items": {"type": "integer"}}, (1, "2"))


def test_enum_accepts_subclass_instances():
    class Name(str):
        pass
    assert valid({"enum": ["a"]}, Name("a"))
    assert not valid({"enum": ["a"]}, Name("b"))
    assert valid({"const": [1]}, (1,))


def test_non_json_value_is_a_type_error():
    with pytest.raises(TypeError, match="not a JSON value"):
        Validator({"type": "string"}).is_valid(object())


# -- enum, const, uniqueItems: JSON equality ------------------------------------

def test_enum_does_not_confuse_bool_and_number():
    assert not valid({"enum": [1, 0]}, True)
    assert not valid({"enum": [True]}, 1)
    assert valid({"enum": [1]}, 1.0)
    assert valid({"enum": [None, "a"]}, None)
    assert messages({"enum": ["a", "b"]}, "c") == [("", "/enum", "'c' is not one of ['a', 'b']")]


def test_enum_and_const_compare_structures_recursively():
    assert not valid({"enum": [[1]]}, [True])
    assert not valid({"const": [False]}, [0])
    assert valid({"const": {"a": 1}}, {"a": 1.0})
    assert not valid({"const": {"a": 1}}, {"a": 1, "b": 2})
    assert valid({"const": {"a": [1, {"b": None}]}}, {"a": [1.0, {"b": None}]})
    assert not valid({"const": None}, False)


def test_unique_items_uses_json_equality():
    schema = {"uniqueItems": True}
    assert valid(schema, [1, True])
    assert valid(schema, [[1], [True]])
    assert valid(schema, [0, False, None, "", [], {}])
    assert not valid(schema, [1, 1.0])
    assert not valid(schema, [{"a": 1}, {"a": 1.0}])
    assert not valid(schema, [[1, {"x": [2]}], [1, {"x": [2.0]}]])
    assert messages(schema, ["a", "b", "a"]) == [("", "/uniqueItems", "array items 0 and 2 are equal (items must be unique)")]
    assert valid({"uniqueItems": False}, [1, 1])


# -- objects --------------------------------------------------------------------

def test_required_message_and_order():
    assert messages({"required": ["title", "id"]}, {"id": 1}) == [("", "/required", "'title' is a required property")]
    assert [m[2] for m in messages({"required": ["b", "a"]}, {})] == ["'b' is a required property",
                                                                       "'a' is a required property"]
    assert valid({"required": ["a"]}, [])  # only objects are constrained


def test_properties_patternproperties_additionalproperties():
    schema = {"properties": {"a": {"type": "integer"}},
              "patternProperties": {"^x-": {"type": "string"}},
              "additionalProperties": False}
    assert valid(schema, {"a": 1, "x-b": "y"})
    assert not valid(schema, {"a": "1"})
    assert not valid(schema, {"x-b": 2})
    assert messages(schema, {"a": 1, "other": 0}) == [("/other", "/additionalProperties", "unexpected property 'other'")]


def test_additional_properties_schema_and_pattern_overlap():
    schema = {"properties": {"a": {"minimum": 5}}, "patternProperties": {"a": {"maximum": 10}},
              "additionalProperties": {"type": "boolean"}}
    assert valid(schema, {"a": 7, "b": True, "ba": 3})
    assert not valid(schema, {"a": 11})   # both properties and patternProperties apply to "a"
    assert not valid(schema, {"b": 1})    # additionalProperties applies to "b"


def test_property_names():
    schema = {"propertyNames": {"pattern": "^[a-z]+$", "maxLength": 3}}
    assert valid(schema, {"abc": 1})
    assert messages(schema, {"Ab": 1}) == [("", "/propertyNames/pattern", "property name 'Ab' does not match '^[a-z]+$'")]
    assert not valid({"propertyNames": False}, {"a": 1})
    assert valid({"propertyNames": False}, {})


def test_min_max_properties_and_dependencies():
    assert not valid({"minProperties": 2}, {"a": 1})
    assert not valid({"maxProperties": 1}, {"a": 1, "b": 2})
    schema = {"dependentRequired": {"card": ["billing"]}}
    assert valid(schema, {"billing": 1}) and valid(schema, {"card": 1, "billing": 1})
    assert messages(schema, {"card": 1}) == [("", "/dependentRequired/card", "'billing' is required when 'card' is present")]
    schema = {"dependentSchemas": {"card": {"required": ["billing"]}}}
    assert not valid(schema, {"card": 1})
    assert valid(schema, {"other": 1})


# -- arrays ----------------------------------------------------------------------

def test_items_and_prefix_items():
    schema = {"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}}
    assert valid(schema, ["a", 1, True, False])
    assert valid(schema, ["a"])
    assert messages(schema, ["a", 1, "no"]) == [("/2", "/items/type", "'no' is not of type 'boolean'")]
    closed = {"prefixItems": [{}], "items": False}
    assert valid(closed, [1]) and not valid(closed, [1, 2])
    assert messages(closed, [1, 2]) == [("/1", "/items", "unexpected item at index 1 (at most 1 item(s) allowed)")]


def test_contains_min_max():
    assert valid({"contains": {"type": "integer"}}, ["a", 1])
    assert not valid({"contains": {"type": "integer"}}, ["a"])
    assert not valid({"contains": {"type": "integer"}}, [])
    assert valid({"contains": {"type": "integer"}, "minContains": 0}, [])
    schema = {"contains": {"const": 1}, "minContains": 2, "maxContains": 3}
    assert not valid(schema, [1]) and valid(schema, [1, 1]) and not valid(schema, [1, 1, 1, 1])
    assert messages(schema, [1, 2]) == [("", "/minContains", "array has 1 item(s) matching 'contains', fewer than minContains 2")]
    assert valid({"minContains": 5}, [])  # without contains, minContains does nothing


def test_min_max_items():
    assert not valid({"minItems": 1}, [])
    assert not valid({"maxItems": 1}, [1, 2])
    assert valid({"minItems": 1.0}, [1])  # 1.0 is an integer in a schema too


# -- strings ---------------------------------------------------------------------

def test_lengths_count_code_points():
    assert valid({"maxLength": 1}, "\U0001F600")  # one code point, two UTF-16 units
    assert not valid({"minLength": 2}, "\U0001F600")
    assert valid({"minLength": 2}, "e\u0301")     # a combining mark is its own code point


def test_pattern_is_unanchored_and_ecma_dollar():
    assert valid({"pattern": "b+"}, "abbc")
    kebab = {"pattern": "^[a-z][a-z0-9-]*$"}
    assert valid(kebab, "codex")
    assert not valid(kebab, "codex\n")  # Python's $ would match before the newline
    assert valid({"pattern": "[$]"}, "a$b")
    assert valid({"pattern": "^a\\$$"}, "a$")


@pytest.mark.parametrize("pattern, text, matches", [
    ("^\\d+$", "\u0661\u0662", False),     # ECMA \d is ASCII only
    ("^\\w+$", "\u00e9", False),           # so is \w
    ("^\\s$", "\u00a0", True),             # but \s is Unicode whitespace
    ("^\\S$", "\u00a0", False),
    ("^[^\\S]$", "\u2003", True),
    ("^.$", "\r", False),                  # '.' excludes every line terminator
    ("^.$", "\u2028", False),
    ("^\\cJ$", "\n", True),                # control escapes
    ("^(?<y>\\d\\d)-\\k<y>$", "12-12", True),  # named groups
    ("^[]", "a", False),                   # empty class matches nothing
    ("^[^]$", "\n", True),                 # negated empty class matches anything
    ("^\\u{1F600}$", "\U0001F600", True),
    ("^[\\d-z]+$", "1-z", True),           # '-' after a class escape is literal
])
def test_pattern_follows_ecma_262(pattern, text, matches):
    assert valid({"pattern": pattern}, text) is matches


@pytest.mark.parametrize("pattern, text, matches", [
    ("^\\p{Letter}+$", "aéЖ", True), ("^\\p{L}+$", "a1", False), ("^\\p{digit}+$", "\u09ea\u09e8", True),
    ("^\\p{gc=Lu}$", "É", True), ("^\\p{Lu}$", "é", False), ("^\\P{L}+$", "12-", True), ("^\\P{L}+$", "1a", False),
    ("^[\\p{N}x]+$", "4x\u0664", True), ("^[^\\p{N}]+$", "abc", True), ("^[^\\p{N}]+$", "a1", False),
    ("^\\p{Cn}$", "\U00050000", True), ("^\\p{Assigned}$", "a", True), ("^\\p{ASCII}+$", "é", False),
])
def test_unicode_property_escapes_of_a_general_category(pattern, text, matches):
    assert valid({"pattern": pattern}, text) is matches


def test_pattern_only_applies_to_strings():
    assert valid({"pattern": "^a$", "minLength": 5}, 12)


def test_bad_pattern_is_a_schema_error_naming_it():
    with pytest.raises(SchemaError) as caught:
        Validator({"properties": {"name": {"pattern": "^\\p{Script=Greek}+$"}}}, source="spec/x.schema.json")
    error = caught.value
    assert isinstance(error, InvalidInput) and error.exit_code == EXIT_INVALID
    assert error.code == "schema_error"
    assert error.file == "spec/x.schema.json" and error.field == "/properties/name/pattern"
    assert "^\\p{Script=Greek}+$" in error.message and "only General_Category ones" in error.message
    with pytest.raises(SchemaError, match="unterminated"):
        Validator({"patternProperties": {"[a-": {}}})


# -- numbers ---------------------------------------------------------------------

def test_bounds():
    assert valid({"minimum": 1}, 1) and not valid({"minimum": 1}, 0.999)
    assert valid({"maximum": 1.5}, 1.5) and not valid({"maximum": 1.5}, 2)
    assert not valid({"exclusiveMinimum": 1}, 1) and valid({"exclusiveMinimum": 1}, 1.0001)
    assert not valid({"exclusiveMaximum": 1}, 1)
    assert valid({"minimum": 10}, "short")  # numeric keywords ignore other types
    assert valid({"minimum": 10}, True)     # ... and a bool is not a number
    assert messages({"minimum": 10}, 5) == [("", "/minimum", "5 is less than the minimum of 10")]


def test_multiple_of_is_exact_for_integers():
    assert valid({"multipleOf": 3}, 10 ** 30 + 2)
    assert not valid({"multipleOf": 3}, 10 ** 30)
    assert valid({"multipleOf": 2.0}, 2 ** 70)
    assert not valid({"multipleOf": 2}, 7)


def test_multiple_of_floats_use_their_decimal_value():
    assert valid({"multipleOf": 0.01}, 19.99)
    assert valid({"multipleOf": 0.0001}, 0.0075)
    assert not valid({"multipleOf": 0.0001}, 0.00751)
    assert valid({"multipleOf": 0.1}, 0.3)
    assert valid({"multipleOf": 1.5}, 4.5)
    assert not valid({"multipleOf": 0.123456789}, 1e308)
    assert valid({"multipleOf": 1e-8}, 12391239123)
    assert not valid({"multipleOf": 1}, float("nan"))


# -- $ref, $defs, $anchor, $id -----------------------------------------------------

def test_ref_to_defs_with_escaped_pointer():
    schema = {"$defs": {"a/b": {"type": "integer"}, "t~x": {"type": "string"}, "p%q": {"type": "null"}},
              "properties": {"one": {"$ref": "#/$defs/a~1b"}, "two": {"$ref": "#/$defs/t~0x"},
                             "three": {"$ref": "#/$defs/p%25q"}}}
    assert valid(schema, {"one": 1, "two": "s", "three": None})
    assert messages(schema, {"one": "x"}) == [("/one", "/$defs/a~1b/type", "'x' is not of type 'integer'")]


def test_ref_to_anchor_and_embedded_resource():
    schema = {"$id": "https://example.com/root.json",
              "properties": {"a": {"$ref": "item.json"}, "b": {"$ref": "#positive"},
                             "c": {"$ref": "https://example.com/item.json#/$defs/name"}},
              "$defs": {"item": {"$id": "item.json", "type": "object", "required": ["name"],
                                 "$defs": {"name": {"type": "string"}}},
                        "pos": {"$anchor": "positive", "exclusiveMinimum": 0}}}
    assert valid(schema, {"a": {"name": "n"}, "b": 1, "c": "x"})
    assert not valid(schema, {"a": {}})
    assert not valid(schema, {"b": 0})
    assert not valid(schema, {"c": 1})


def test_ref_resolves_against_nearest_id():
    schema = {"$id": "http://example.com/a/", "$defs": {
        "x": {"$id": "b/", "$defs": {"y": {"$id": "c.json", "type": "integer"}}}},
        "$ref": "b/c.json"}
    assert valid(schema, 1) and not valid(schema, "1")


def test_recursive_ref_descends_into_instance():
    tree = {"type": "object", "properties": {"value": {"type": "integer"},
                                             "children": {"type": "array", "items": {"$ref": "#"}}}}
    assert valid(tree, {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]})
    assert messages(tree, {"children": [{"children": [{"value": "x"}]}]}) == [
        ("/children/0/children/0/value", "/properties/value/type", "'x' is not of type 'integer'")]


def test_ref_to_boolean_schemas():
    assert valid({"$defs": {"t": True}, "$ref": "#/$defs/t"}, 1)
    assert not valid({"$defs": {"f": False}, "$ref": "#/$defs/f"}, 1)


@pytest.mark.parametrize("ref", ["#/$defs/missing", "#nowhere", "other.json", "http://localhost:1234/x.json",
                                 "https://json-schema.org/draft/2020-12/nowhere"])
def test_unresolvable_ref_is_a_schema_error(ref):
    with pytest.raises(SchemaError) as caught:
        Validator({"$defs": {"a": {}}, "properties": {"p": {"$ref": ref}}}, source="s.json")
    assert caught.value.field == "/properties/p/$ref"
    assert ref in caught.value.message


@pytest.mark.parametrize("schema", [
    {"$ref": "#"},
    {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
    {"allOf": [{"$ref": "#"}]},
    {"$defs": {"a": {"not": {"$ref": "#/$defs/a"}}}},
    {"if": {"$ref": "#"}},
    {"dependentSchemas": {"k": {"$ref": "#"}}},
])
def test_ref_cycle_without_progress_is_a_schema_error(schema):
    with pytest.raises(SchemaError, match="cycle"):
        Validator(schema)


def test_same_location_twice_is_not_a_cycle():
    schema = {"$defs": {"int": {"type": "integer"}},
              "allOf": [{"properties": {"foo": {"$ref": "#/$defs/int"}}},
                        {"additionalProperties": {"$ref": "#/$defs/int"}}]}
    assert valid(schema, {"foo": 1}) and not valid(schema, {"foo": "a"})


def test_python_object_cycle_is_a_schema_error():
    schema: dict = {"type": "array"}
    schema["items"] = schema
    with pytest.raises(SchemaError, match="contains itself"):
        Validator(schema)


# -- applicators -------------------------------------------------------------------

def test_all_any_one_not():
    assert valid({"allOf": [{"minimum": 1}, {"maximum": 3}]}, 2)
    assert not valid({"allOf": [{"minimum": 1}, {"maximum": 3}]}, 4)
    assert valid({"anyOf": [{"type": "string"}, {"minimum": 3}]}, 5)
    assert not valid({"anyOf": [{"type": "string"}, {"minimum": 3}]}, 1)
    one = {"oneOf": [{"type": "integer"}, {"minimum": 2}]}
    assert valid(one, 1) and valid(one, 2.5) and not valid(one, 3) and not valid(one, 1.5)
    assert messages(one, 3) == [("", "/oneOf", "3 matches more than one schema in oneOf (#0 and #1)")]
    assert valid({"not": {"type": "string"}}, 1) and not valid({"not": {"type": "string"}}, "s")


def test_any_of_message_points_at_the_closest_alternative():
    schema = {"anyOf": [{"type": "string"}, {"type": "object", "required": ["kind"]}]}
    assert messages(schema, {}) == [
        ("", "/anyOf", "{} does not match any of the schemas in anyOf (closest: /: 'kind' is a required property)")]


def test_if_then_else():
    schema = {"if": {"properties": {"status": {"const": "done"}}, "required": ["status"]},
              "then": {"required": ["completedAt"]}, "else": {"not": {"required": ["completedAt"]}}}
    assert valid(schema, {"status": "done", "completedAt": "x"})
    assert not valid(schema, {"status": "done"})
    assert valid(schema, {"status": "todo"})
    assert not valid(schema, {"status": "todo", "completedAt": "x"})
    assert valid({"then": False}, 1)  # then without if does nothing


def test_boolean_schemas():
    assert Validator(True).is_valid({"anything": [1]})
    assert not Validator(False).is_valid(None)
    assert Validator(False).errors(1) == [Violation("", "", "1 is not allowed here (the schema is false)")]
    assert messages({"properties": {"x": False}}, {"x": 1}) == [
        ("/x", "/properties/x", "1 is not allowed here (the schema is false)")]


def test_annotations_are_ignored():
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "t", "description": "d",
              "$comment": "c", "default": 5, "examples": [1], "deprecated": True, "readOnly": True,
              "writeOnly": False, "format": "email", "contentMediaType": "text/plain"}
    assert valid(schema, "not an email")
    assert valid(schema, 1)


def test_unknown_keywords_are_schema_errors_unless_asked_to_ignore_them():
    with pytest.raises(SchemaError) as caught:
        Validator({"properties": {"name": {"type": "string", "maxLenght": 3}}}, source="s.json")
    assert caught.value.field == "/properties/name/maxLenght"
    assert caught.value.message == ("unknown keyword 'maxLenght': no vocabulary of the dialect defines it; "
                                    "did you mean 'maxLength'?")
    with pytest.raises(SchemaError, match="unknown keyword 'x-custom'"):
        Validator({"x-custom": {"type": "string"}})
    lenient = Validator({"x-custom": {"type": "string"}, "minimumish": 3}, unknown_keywords="ignore")
    assert lenient.is_valid(1)
    with pytest.raises(ValueError):
        Validator({}, unknown_keywords="warn")


# -- schema errors -----------------------------------------------------------------

@pytest.mark.parametrize("schema, field", [
    ({"minLength": "3"}, "/minLength"),
    ({"minItems": -1}, "/minItems"),
    ({"type": "integr"}, "/type"),
    ({"type": []}, "/type"),
    ({"required": "name"}, "/required"),
    ({"properties": {"a": 3}}, "/properties/a"),
    ({"items": [{"type": "string"}]}, "/items"),
    ({"allOf": []}, "/allOf"),
    ({"multipleOf": 0}, "/multipleOf"),
    ({"enum": "a"}, "/enum"),
    ({"$ref": 5}, "/$ref"),
    ({"$defs": {"a": {"maxLength": 1.5}}}, "/$defs/a/maxLength"),  # unused definitions are checked too
])
def test_malformed_keyword_is_a_schema_error(schema, field):
    with pytest.raises(SchemaError) as caught:
        Validator(schema)
    assert caught.value.field == field


def test_schema_must_be_object_or_boolean():
    with pytest.raises(SchemaError, match="object or a boolean"):
        Validator([])  # type: ignore[arg-type]


def test_deeply_nested_schema_is_a_schema_error():
    schema: dict = {}
    for _ in range(50_000):
        schema = {"items": schema}
    with pytest.raises(SchemaError, match="nested too deeply"):
        Validator(schema)


# -- deep instances ----------------------------------------------------------------

def test_deep_instance_is_a_clear_error_not_recursion_error():
    validator = Validator({"items": {"$ref": "#"}})
    deep = nested_lists(20_000)
    for call in (validator.is_valid, validator.errors, lambda v: validator.validate(v, file="deep.json")):
        with pytest.raises(InvalidInput) as caught:
            call(deep)
        assert caught.value.code == "too_deep"
        assert "20001 levels" in caught.value.message
    assert validator.is_valid(nested_lists(50))


def test_deep_instance_with_flat_schema_is_fine():
    assert Validator({"type": "array"}).is_valid(nested_lists(20_000))


# -- violations and validate() -----------------------------------------------------

def test_violation_paths_escape_pointer_tokens():
    schema = {"properties": {"a/b": {"properties": {"c~d": {"items": {"type": "string"}}}}}}
    assert messages(schema, {"a/b": {"c~d": ["ok", 3]}}) == [
        ("/a~1b/c~0d/1", "/properties/a~1b/properties/c~0d/items/type", "3 is not of type 'string'")]


def test_violation_is_frozen():
    violation = Violation("/a", "/type", "m")
    with pytest.raises(AttributeError):
        violation.message = "other"  # type: ignore[misc]
    assert violation == Violation("/a", "/type", "m") and hash(violation) == hash(Violation("/a", "/type", "m"))
    assert (violation.instance_path, violation.keyword_path, violation.message) == ("/a", "/type", "m")


def test_errors_are_all_reported_in_schema_order_and_stable():
    schema = {"type": "object", "required": ["id"], "properties": {"n": {"minimum": 0, "multipleOf": 2},
                                                                   "s": {"maxLength": 1}}}
    instance = {"n": -3, "s": "long"}
    found = Validator(schema).errors(instance)
    assert [v.keyword_path for v in found] == ["/required", "/properties/n/minimum", "/properties/n/multipleOf",
                                               "/properties/s/maxLength"]
    assert Validator(schema).errors(instance) == found


def test_validate_raises_invalid_input_with_all_violations():
    validator = Validator({"type": "object", "required": ["title"],
                           "properties": {"year": {"type": "string"}}}, source="spec/issue.schema.json")
    assert validator.validate({"title": "t"}) is None
    with pytest.raises(InvalidInput) as caught:
        validator.validate({"year": 2026}, file="issues/a.json")
    error = caught.value
    assert type(error) is InvalidInput and error.exit_code == EXIT_INVALID
    assert error.code == "schema_violation"
    assert error.file == "issues/a.json"
    assert error.field == "/"  # the first violation is at the root
    assert error.message == "'title' is a required property"
    assert error.details == {"violations": [
        {"path": "", "keyword": "/required", "message": "'title' is a required property"},
        {"path": "/year", "keyword": "/properties/year/type", "message": "2026 is not of type 'string'"}]}
    assert str(error) == "issues/a.json:/: 'title' is a required property"


def test_validate_field_is_the_first_instance_path():
    with pytest.raises(InvalidInput) as caught:
        Validator({"items": {"type": "integer"}}).validate([1, "x"])
    assert caught.value.field == "/1"
    assert caught.value.file is None


@pytest.mark.parametrize("instance", [
    {}, {"id": "a"}, {"id": "a-1", "tags": ["x"]}, {"id": "A"}, {"id": "a", "tags": ["x", "x"]},
    {"id": "a", "tags": [1]}, {"id": "a", "extra": 1}, [], "s", None, {"id": "a", "when": {"kind": "at"}},
    {"id": "a", "when": {"kind": "every", "every": "1h"}}, {"id": "a", "when": {"kind": "every"}},
])
def test_is_valid_agrees_with_errors(instance):
    schema = {"type": "object", "required": ["id"], "additionalProperties": False,
              "properties": {"id": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
                             "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                             "when": {"oneOf": [{"properties": {"kind": {"const": "at"}}, "required": ["kind"]},
                                                {"properties": {"kind": {"const": "every"}},
                                                 "required": ["kind", "every"]}]}}}
    valid(schema, instance)
