"""The preset/run-config validator: schemas, bindings, machine state, suggestions."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from openalice.adapters import catalog, state
from openalice.adapters.validate import render, validate
from openalice.core.resources import schema
from openalice.core.schema import Validator

from .stubs import adapter, write_catalog, write_stub

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path):
    """A catalog dir with two adapters (both enabled) and a clean preset."""
    presets = tmp_path / "presets"
    (presets / "wrappers").mkdir(parents=True)
    write_stub(presets / "wrappers", "alpha.sh", "healthy")
    write_stub(presets / "wrappers", "beta.sh", "healthy")
    write_catalog(presets, [
        adapter("alpha", "wrappers/alpha.sh", models=["alpha-large", "alpha-small"]),
        adapter("beta", "wrappers/beta.sh", models=["beta-1"]),
    ])
    write(presets / "duo.json", preset("duo", worker=("wrappers/alpha.sh", "alpha-large"),
                                       reviewer=("wrappers/beta.sh", "beta-1")))
    state.set_enabled("alpha", True)
    state.set_enabled("beta", True)
    return presets


def preset(name, **seats):
    return {"version": "preset/v1", "name": name,
            "seats": {seat: {"wrapper": w, "model": m} for seat, (w, m) in seats.items()}}


def write(path, document):
    path.write_text(json.dumps(document, indent=2))
    return path


def run(presets, *files, machine=True):
    return validate([presets / f for f in files] if files else (),
                    catalog_path=presets / "adapters.json", machine=machine)


def errors(report):
    return [(Path(d.file).name, d.pointer, d.message, d.suggestion)
            for d in report.diagnostics if d.severity == "error"]


def test_a_clean_preset_passes(repo):
    report = run(repo)
    assert report.valid and report.diagnostics == []
    assert report.files == [str(repo / "adapters.json"), str(state.state_path()), str(repo / "duo.json")]
    assert render(report).startswith("ok: ")


def test_unknown_wrapper_fails_with_a_suggestion(repo):
    write(repo / "bad.json", preset("bad", worker=("wrappers/alpah.sh", "alpha-large"),
                                    other=("beta", "beta-1")))
    report = run(repo, "bad.json")
    assert not report.valid
    assert errors(report) == [
        ("bad.json", "/seats/worker/wrapper",
         f"wrapper 'wrappers/alpah.sh' is not an adapter of the catalog {repo / 'adapters.json'}",
         "did you mean 'wrappers/alpha.sh'?"),
        ("bad.json", "/seats/other/wrapper",
         f"wrapper 'beta' is not an adapter of the catalog {repo / 'adapters.json'}",
         "did you mean 'wrappers/beta.sh' (adapter 'beta')?"),
    ]


def test_model_not_in_the_adapter_models_fails(repo):
    write(repo / "bad.json", preset("bad", worker=("wrappers/alpha.sh", "alpha-lrge"),
                                    reviewer=("./wrappers/beta.sh", "gpt-5")))
    assert errors(run(repo, "bad.json")) == [
        ("bad.json", "/seats/worker/model", "model 'alpha-lrge' is not in the models of adapter 'alpha'",
         "did you mean 'alpha-large'?"),
        ("bad.json", "/seats/reviewer/model", "model 'gpt-5' is not in the models of adapter 'beta'",
         "the catalog allows: beta-1"),
    ]


def test_disabled_or_narrowed_adapters_fail_on_this_machine_only(repo):
    state.set_enabled("beta", False)
    state.set_model_allow(catalog.load_catalog(repo / "adapters.json").get("alpha"), ["alpha-small"])
    found = errors(run(repo, "duo.json"))
    assert ("duo.json", "/seats/reviewer", "adapter 'beta' is not enabled on this machine",
            "harness-adapter enable beta") in found
    assert any(e[1] == "/seats/worker/model" and "narrowed out on this machine" in e[2] for e in found)
    assert run(repo, "duo.json", machine=False).valid  # CI: catalog only


def test_a_fresh_machine_checks_against_the_catalog_only_and_says_so(repo, tmp_path):
    state.state_path().unlink()                       # nothing enabled anywhere yet
    report = run(repo, "duo.json")
    assert report.valid and errors(report) == []
    [note] = [d for d in report.diagnostics if d.severity == "warning"]
    assert "no adapter is enabled on this machine" in note.message and "catalog only" in note.message
    assert note.suggestion == "enable the adapters your presets use: harness-adapter enable ID"
    # Once something is enabled, the machine check applies: a disabled adapter fails.
    state.set_enabled("alpha", True)
    report = run(repo, "duo.json")
    assert [e[2] for e in errors(report)] == ["adapter 'beta' is not enabled on this machine"]


def test_the_files_counted_are_the_files_read(repo, tmp_path):
    missing = run(repo, "nothere.json")
    assert [e[2] for e in errors(missing)] == ["no such file"]
    assert missing.files == [str(repo / "adapters.json"), str(state.state_path())]
    assert render(missing).endswith("1 error(s), 0 warning(s); 2 files read")
    empty = tmp_path / "empty"
    empty.mkdir()
    report = validate([empty], catalog_path=repo / "adapters.json")
    assert report.files == [str(repo / "adapters.json"), str(state.state_path())]
    assert any("no *.json file here" in d.message and d.file == str(empty) for d in report.diagnostics)
    twice = run(repo, "duo.json", "duo.json")
    assert twice.files == [str(repo / "adapters.json"), str(state.state_path()), str(repo / "duo.json")]
    assert render(twice) == "ok: 3 files read, all valid"


def test_schema_violations_and_unknown_versions(repo):
    write(repo / "s.json", {"version": "preset/v1", "name": "Bad Name", "seats": {},
                            "extra": True})
    write(repo / "v.json", {"version": "preset/v2", "name": "x", "seats": {}})
    write(repo / "n.json", [1, 2])
    (repo / "m.json").write_text("{")
    found = errors(run(repo, "s.json", "v.json", "n.json", "m.json"))
    pointers = [(f, p) for f, p, _, _ in found]
    assert ("s.json", "/name") in pointers and ("s.json", "/seats") in pointers
    assert ("s.json", "/extra") in pointers
    assert ("v.json", "/version", "unknown version 'preset/v2' (expected one of adapters-state/v1, "
            "adapters/v1, preset/v1, run-config/v1)", "did you mean 'preset/v1'?") in found
    assert any(f == "n.json" and p == "" for f, p in pointers)
    assert any(f == "m.json" and "malformed JSON" in msg for f, _, msg, _ in found)


def test_run_config_overrides_and_preset_reference(repo):
    write(repo / "run.json", {"version": "run-config/v1", "preset": "duo",
                              "overrides": {"worker": {"wrapper": "wrappers/alpha.sh", "model": "alpha-small"},
                                            "reviwer": {"wrapper": "wrappers/beta.sh", "model": "beta-2"}}})
    write(repo / "run2.json", {"version": "run-config/v1", "preset": "dou"})
    found = errors(run(repo, "run.json", "run2.json"))
    assert ("run.json", "/overrides/reviwer/model", "model 'beta-2' is not in the models of adapter 'beta'",
            "did you mean 'beta-1'?") in found
    assert ("run.json", "/overrides/reviwer", "preset 'duo' has no seat 'reviwer'",
            "did you mean 'reviewer'?") in found
    assert ("run2.json", "/preset", "no preset named 'dou'", "did you mean 'duo'?") in found
    assert len(found) == 3


def test_duplicate_preset_names(repo):
    write(repo / "again.json", preset("duo", solo=("wrappers/alpha.sh", "alpha-large")))
    assert any(e[1] == "/name" and "also used by" in e[2] for e in errors(run(repo)))


def test_an_invalid_catalog_is_reported_and_blocks_the_cross_check(repo):
    write(repo / "adapters.json", {"version": "adapters/v1", "adapters": [
        adapter("alpha", "wrappers/alpha.sh"), adapter("alpha", "wrappers/beta.sh")]})
    found = errors(run(repo, "duo.json"))
    assert found[0][:2] == ("adapters.json", "/adapters/1/id")
    assert found[1][2] == "bindings were not cross-checked: the catalog itself is invalid"


def test_missing_wrapper_is_a_warning(repo):
    (repo / "wrappers" / "beta.sh").unlink()
    report = run(repo)
    assert report.valid and report.warning_count == 1
    assert report.diagnostics[0].pointer == "/adapters/1/wrapper"


def test_a_bad_state_file_is_reported(repo):
    state.state_path().write_text('{"version": "adapters-state/v1", "state": {"alpha": {"enabled": 1}}}')
    found = errors(run(repo, "duo.json"))
    assert found == [("adapters.json", "/state/alpha/enabled", found[0][2], found[0][3])]
    assert Path(run(repo, "duo.json").diagnostics[0].file) == state.state_path()


def test_report_json_matches_its_schema(repo):
    write(repo / "bad.json", preset("bad", w=("nope.sh", "x")))
    document = run(repo).to_dict()
    assert Validator(schema("adapter-validate")).errors(document) == []
    assert document["valid"] is False and document["errorCount"] == 1


def test_shipped_presets_validate_against_the_shipped_catalog():
    report = validate(catalog_path=REPO / "presets" / "adapters.json", machine=False)
    assert report.valid, render(report)
    assert {Path(f).name for f in report.files} >= {"adapters.json", "pair.json"}


def test_standalone_script_runs_from_a_checkout(repo, tmp_path):
    write(repo / "bad.json", preset("bad", w=("wrappers/alpha.sh", "alpha-huge")))
    out = subprocess.run([sys.executable, str(REPO / "presets" / "_validate.py"),
                          "--catalog", str(repo / "adapters.json"), str(repo / "bad.json"), "--json"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    document = json.loads(out.stdout)
    assert document["diagnostics"][0]["pointer"] == "/seats/w/model"
    ok = subprocess.run([sys.executable, str(REPO / "presets" / "_validate.py"),
                         "--catalog", str(repo / "adapters.json")], capture_output=True, text=True,
                        cwd=tmp_path)
    assert ok.returncode == 2 and "alpha-huge" in ok.stdout  # bad.json is beside the catalog


def test_standalone_script_is_importable():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_validate", REPO / "presets" / "_validate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = module.validate(catalog_path=REPO / "presets" / "adapters.json", machine=False)
    assert report.valid


def test_run_config_schema_accepts_the_documented_shape_and_refuses_others():
    validator = Validator(schema("run-config"))
    assert validator.errors({"version": "run-config/v1", "preset": "pair",
                             "overrides": {"worker": {"wrapper": "wrappers/claude.sh",
                                                      "model": "claude-sonnet-4-5"}}}) == []
    assert validator.errors({"version": "run-config/v1", "presett": "pair"}) != []
    assert validator.errors({"version": "preset/v1"}) != []
