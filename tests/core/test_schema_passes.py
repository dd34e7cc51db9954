"""core.schema_passes: a document that passed its schema is not checked again; anything else is."""

from __future__ import annotations

import copy
import json
import os

import pytest

from openalice.core import homes, resources, schema_passes


@pytest.fixture
def catalog():
    return copy.deepcopy(resources.load_json("presets", "adapters.json"))


@pytest.fixture
def state_dir():
    path = os.path.join(homes.openalice_home(), "state")
    os.makedirs(path, exist_ok=True)
    return path


def no_compiling(monkeypatch):
    def refuse(name):
        raise AssertionError(f"compiled the {name} schema")
    monkeypatch.setattr(resources, "schema_validator", refuse)


def test_a_passing_document_is_recorded_and_then_not_checked_again(catalog, state_dir, monkeypatch):
    assert schema_passes.violations("adapters", catalog) == []
    with open(schema_passes.record_file("adapters")) as fh:
        record = json.load(fh)
    assert resources.schema_validator("schema-pass").errors(record) == []  # spec/schema-pass.schema.json
    assert record["schema"] == "adapters"
    no_compiling(monkeypatch)
    assert schema_passes.violations("adapters", copy.deepcopy(catalog)) == []


def test_a_changed_document_is_checked_and_a_failure_never_recorded(catalog, state_dir, monkeypatch):
    assert schema_passes.violations("adapters", catalog) == []
    recorded = open(schema_passes.record_file("adapters")).read()
    catalog["adapters"][0]["kind"] = 7
    expected = resources.schema_validator("adapters").errors(catalog)
    got = schema_passes.violations("adapters", catalog)
    assert got and [(v.instance_path, v.message) for v in got] == [(v.instance_path, v.message) for v in expected]
    assert open(schema_passes.record_file("adapters")).read() == recorded  # the failure left no trace
    assert schema_passes.violations("adapters", catalog)  # and is found again


@pytest.mark.parametrize("record", [b"", b"{", b"null", b'{"version": 1, "schema": "adapters", "passed": "00"}',
                                    b'{"version": 2, "schema": "adapters", "passed": "' + b"0" * 64 + b'"}',
                                    b"\xff" * 300, b" " * 5000])
def test_a_record_that_is_not_this_documents_pass_means_check_again(catalog, state_dir, record):
    path = schema_passes.record_file("adapters")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(record)
    catalog["adapters"][0]["kind"] = 7
    assert schema_passes.violations("adapters", catalog)  # checked: an invalid document stays invalid


def test_another_schema_means_check_again(catalog, state_dir, monkeypatch):
    assert schema_passes.violations("adapters", catalog) == []
    stricter = copy.deepcopy(resources.schema("adapters"))
    monkeypatch.setattr(resources, "schema", lambda name: {**stricter, "maxProperties": 0})
    compiled = []
    monkeypatch.setattr(resources, "schema_validator", lambda name: compiled.append(name) or
                        type("V", (), {"errors": staticmethod(lambda doc: ["refused"])})())
    assert schema_passes.violations("adapters", catalog) == ["refused"] and compiled == ["adapters"]


def test_a_read_never_creates_the_home(catalog):
    home = homes.openalice_home()
    assert not os.path.exists(os.path.join(home, "state"))
    assert schema_passes.violations("adapters", catalog) == []
    assert not os.path.exists(os.path.join(home, "state"))
