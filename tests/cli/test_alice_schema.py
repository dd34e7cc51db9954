"""``alice schema validate``: the CI verb, run in-process (``alice.main``) and once as the console script."""

from __future__ import annotations

import json

import pytest

from openalice.cli import alice
from tests.helpers.schemas import conforms

SCHEMA = {"type": "object", "required": ["name"],
          "properties": {"name": {"type": "string", "maxLength": 3}, "when": {"format": "date"}},
          "unevaluatedProperties": False}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "bad.json").write_text('{\n  "name": "toolong",\n  "when": "2026-02-30",\n  "extra": 1\n}\n')
    (tmp_path / "good.json").write_text('{"name": "ok", "when": "2026-02-30"}')
    (tmp_path / "broken.json").write_text('{\n  "name": \n}')
    return tmp_path


def run(capsys, *args):
    code = alice.main(["schema", "validate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_all_valid_exits_0(files, capsys):
    code, out, _ = run(capsys, files / "s.json", files / "good.json")
    assert code == 0
    assert out == f"{files / 'good.json'}: valid\n1 of 1 file(s) valid against {files / 's.json'}\n"


def test_any_invalid_exits_2_with_file_line_path_and_message(files, capsys):
    code, out, _ = run(capsys, files / "s.json", files / "good.json", files / "bad.json", files / "broken.json")
    assert code == 2
    bad, broken = files / "bad.json", files / "broken.json"
    assert out.splitlines() == [
        f"{files / 'good.json'}: valid",
        f"{bad}:2: /name: 'toolong' is longer than 3 character(s)",
        f"{bad}:4: /extra: unevaluated property 'extra'",
        f"{broken}:3: /: not valid JSON: Expecting value",
        f"1 of 3 file(s) valid against {files / 's.json'}",
    ]


def test_github_annotations(files, capsys):
    odd = files / "a,b.json"
    odd.write_text('{"name": "x",\n "extra": "50%"}')
    code, out, _ = run(capsys, files / "s.json", files / "bad.json", odd, "--format", "github")
    assert code == 2
    lines = out.splitlines()
    assert lines[0] == (f"::error file={files / 'bad.json'},line=2,title=JSON Schema /properties/name/maxLength"
                        "::/name: 'toolong' is longer than 3 character(s)")
    assert lines[2] == (f"::error file={str(odd).replace(',', '%2C')},line=2,title=JSON Schema /unevaluatedProperties"
                        "::/extra: unevaluated property 'extra'")
    assert lines[-1] == f"0 of 2 file(s) valid against {files / 's.json'}"


def test_json_output_conforms_to_its_schema(files, capsys):
    code, out, _ = run(capsys, files / "s.json", files / "good.json", files / "bad.json", "--json")
    assert code == 2
    document = conforms("schema-validate", json.loads(out))
    assert document["valid"] is False and document["error"]["code"] == "schema_violation"
    assert document["files"][1]["errors"][0] == {"path": "/name", "keyword": "/properties/name/maxLength",
                                                 "message": "'toolong' is longer than 3 character(s)", "line": 2}
    code, out, _ = run(capsys, files / "s.json", files / "good.json", "--format", "json")
    assert code == 0 and conforms("schema-validate", json.loads(out))["valid"] is True


def test_format_assertion_is_opt_in(files, capsys):
    code, out, _ = run(capsys, files / "s.json", files / "good.json", "--assert-formats")
    assert code == 2 and "/when: '2026-02-30' is not a valid date" in out


def test_a_bad_schema_exits_2_naming_it(files, capsys):
    schema = files / "typo.schema.json"
    schema.write_text('{"properties": {"name": {"maxLenght": 3}}}')
    code, out, err = run(capsys, schema, files / "good.json")
    assert code == 2 and out == ""
    assert err == (f"alice: error: {schema}:/properties/name/maxLenght: unknown keyword 'maxLenght': no vocabulary "
                   "of the dialect defines it; did you mean 'maxLength'?\n")
    code, out, _ = run(capsys, schema, files / "good.json", "--json")
    envelope = conforms("error", json.loads(out))
    assert code == 2 and envelope["error"]["file"] == str(schema) and envelope["error"]["code"] == "schema_error"
    code, out, err = run(capsys, schema, files / "good.json", "--format", "json")
    assert code == 2 and err == "" and conforms("error", json.loads(out))["error"]["field"] == "/properties/name/maxLenght"
    code, out, _ = run(capsys, schema, files / "good.json", "--format", "github")
    assert code == 2
    assert out.startswith(f"::error file={schema},title=JSON Schema unusable::/properties/name/maxLenght: unknown")
    code, _, err = run(capsys, files / "missing.json", files / "good.json")
    assert code == 2 and str(files / "missing.json") in err


def test_registry_resolves_references_without_the_network(files, capsys, tmp_path):
    schemas_dir = tmp_path / "schemas" / "nested"
    schemas_dir.mkdir(parents=True)
    (schemas_dir / "name.json").write_text(json.dumps({"$id": "https://example.com/name.json", "type": "string",
                                                       "minLength": 2}))
    (files / "ref.json").write_text(json.dumps({"properties": {"name": {"$ref": "https://example.com/name.json"}}}))
    (files / "short.json").write_text('{"name": "x"}')
    code, _, err = run(capsys, files / "ref.json", files / "short.json")
    assert code == 2 and "nor in the registry (nothing is fetched from the network)" in err
    code, out, _ = run(capsys, files / "ref.json", files / "short.json", "--registry", tmp_path / "schemas")
    assert code == 2 and "/name: 'x' is shorter than 2 character(s)" in out
    code, _, _ = run(capsys, files / "ref.json", files / "good.json", "--registry", tmp_path / "schemas")
    assert code == 0


def test_the_console_script(files, cli):
    result = cli("alice", "schema", "validate", str(files / "s.json"), str(files / "bad.json"), "--json")
    assert result.returncode == 2
    assert conforms("schema-validate", result.json())["files"][0]["valid"] is False
    assert cli("alice", "schema", "validate", "--help").returncode == 0


def test_an_unusable_registry_schema_is_named_by_its_own_file(files, capsys, tmp_path):
    schemas_dir = tmp_path / "schemas"
    schemas_dir.mkdir()
    (schemas_dir / "name.json").write_text(json.dumps({"$id": "https://example.com/name.json", "minLenght": 2}))
    (files / "ref.json").write_text(json.dumps({"properties": {"name": {"$ref": "https://example.com/name.json"}}}))
    code, out, err = run(capsys, files / "ref.json", files / "good.json", "--registry", schemas_dir, "--json")
    error = conforms("error", json.loads(out))["error"]
    assert code == 2 and error["file"] == str(schemas_dir / "name.json") and error["field"] == "/minLenght"
