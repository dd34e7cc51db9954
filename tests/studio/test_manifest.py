"""harness.json: strict, at most 64 KiB, every problem named; bad input is exit 2 and changes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from openalice.core import resources
from openalice.core.schema import Validator
from openalice.studio.manifest import MAX_BYTES, ManifestError, load_manifest, parse_manifest

from .conftest import APP


def good() -> dict:
    return {"manifestVersion": 1, "version": "1.2.3",
            "capabilities": {"studio": {"command": ["pnpm", "studio"], "ports": ["http", "api"],
                                        "entryPort": "http", "readinessPath": "/health"}}}


def parse(doc) -> object:
    return parse_manifest(json.dumps(doc).encode(), file="harness.json")


def problems_of(doc) -> tuple[str, list[dict]]:
    with pytest.raises(ManifestError) as caught:
        parse(doc)
    err = caught.value
    assert err.exit_code == 2 and err.file == "harness.json"
    return err.code, err.details.get("violations", [])


def test_the_shipped_fixture_is_valid_against_the_schema():
    doc = json.loads((APP / "harness.json").read_text())
    assert Validator(resources.schema("harness-manifest")).errors(doc) == []
    manifest = load_manifest(APP)
    studio = manifest.capability("studio")
    assert studio.entry_port == "http" and studio.ports == ("http", "api") and studio.readiness_path == "/ready"


def test_a_good_manifest_parses():
    manifest = parse(good())
    assert manifest.version == "1.2.3"
    assert manifest.capability("studio").command == ("pnpm", "studio")


@pytest.mark.parametrize("change, path, words", [
    (lambda d: d["capabilities"]["studio"].update(entryPort="web"), "/capabilities/studio/entryPort",
     "not one of ports"),
    (lambda d: d["capabilities"]["studio"].update(ports=["http", "http"]), "/capabilities/studio/ports",
     "duplicate port"),
    (lambda d: d["capabilities"]["studio"].update(command=[]), "/capabilities/studio/command", "command is empty"),
    (lambda d: d["capabilities"]["studio"].update(readinessPath="health"), "/capabilities/studio/readinessPath",
     "must start with"),
    (lambda d: d["capabilities"]["studio"].update(readinessPath="//evil.example/"),
     "/capabilities/studio/readinessPath", "must start with a single"),
    (lambda d: d.update(manifestVersion=2), "/manifestVersion", ""),
    (lambda d: d.update(version=""), "/version", ""),
    (lambda d: d.update(extra=True), "/extra", "unexpected"),
    (lambda d: d["capabilities"]["studio"].update(shell=True), "/capabilities/studio/shell", "unexpected"),
    (lambda d: d.update(capabilities={}), "/capabilities", ""),
    (lambda d: d["capabilities"]["studio"].update(command=["ok", 3]), "/capabilities/studio/command/1", ""),
])
def test_invalid_manifests(change, path, words):
    doc = good()
    change(doc)
    code, violations = problems_of(doc)
    assert code == "invalid_manifest"
    assert any(v["path"] == path and words in v["message"] for v in violations), violations


def test_every_problem_is_reported_at_once():
    doc = good()
    doc["capabilities"]["studio"].update(entryPort="web", ports=["a", "a"], command=[])
    _code, violations = problems_of(doc)
    paths = {v["path"] for v in violations}
    assert {"/capabilities/studio/entryPort", "/capabilities/studio/ports", "/capabilities/studio/command"} <= paths


def test_invalid_json_too_large_and_missing(tmp_path):
    for raw, code in ((b"{not json", "invalid_json"), (b"\xff\xfe", "invalid_json"),
                      (b" " * (MAX_BYTES + 1), "too_large")):
        with pytest.raises(ManifestError) as caught:
            parse_manifest(raw, file="x")
        assert caught.value.code == code
    with pytest.raises(ManifestError) as caught:
        load_manifest(tmp_path)
    assert caught.value.code == "missing" and caught.value.file == str(tmp_path / "harness.json")
    (tmp_path / "harness.json").write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(ManifestError) as caught:
        load_manifest(tmp_path)
    assert caught.value.code == "too_large"
    # Exactly at the limit is allowed (the content decides).
    (tmp_path / "harness.json").write_bytes(json.dumps(good()).encode().ljust(MAX_BYTES))
    assert load_manifest(tmp_path).version == "1.2.3"


def test_a_manifest_without_studio_says_so():
    doc = good()
    doc["capabilities"] = {"docs": doc["capabilities"]["studio"]}
    with pytest.raises(ManifestError) as caught:
        parse(doc).capability("studio")
    assert caught.value.code == "no_studio_capability" and "docs" in caught.value.message


@pytest.mark.parametrize("content, code", [
    (None, "missing"), (b"{", "invalid_json"), (b" " * (MAX_BYTES + 10), "too_large"),
    (json.dumps({**good(), "capabilities": {"studio": {**good()["capabilities"]["studio"], "entryPort": "web"}}})
     .encode(), "invalid_manifest"),
])
def test_start_with_a_bad_manifest_is_exit_2_and_writes_nothing(cli, workspace, content, code):
    path = Path(workspace) / "harness.json"
    if content is not None:
        path.write_bytes(content)
    home = Path(os.environ["OPENALICE_HOME"])
    for verb in ("start", "restart"):
        r = cli("alice-harness", "studio", verb, "--json", cwd=workspace)
        assert r.returncode == 2, r
        error = r.json()["error"]
        Validator(resources.schema("error")).validate(r.json())
        assert error["code"] == code and error["file"] == str(path)
        human = cli("alice-harness", "studio", verb, cwd=workspace)
        assert human.returncode == 2 and str(path) in human.stderr and "Traceback" not in human.stderr
    assert not (home / "state" / "studio").exists()
