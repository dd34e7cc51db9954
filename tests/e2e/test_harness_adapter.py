"""harness-adapter end to end: the real CLI against stub wrappers in tmp dirs.

Covers the seed's testing strategy: CLI verbs, merge precedence, schemas,
wrapper modes, the validator cross-check, and the secret discipline (a canary
never leaves its env file).
"""

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.adapters.stubs import adapter, calls, standard_catalog, write_catalog, write_stub
from tests.conftest import tool_path
from tests.helpers.schemas import conforms

CANARY = "sk-CANARY-e2e-7f1d2c3b4a5968"


@pytest.fixture
def repo(tmp_path):
    return tmp_path / "repo"


@pytest.fixture
def cat(repo):
    return standard_catalog(repo)


@pytest.fixture
def ha(cli, cat):
    def run(*args, **kw):
        return cli("harness-adapter", *args, "--catalog", str(cat), **kw)
    return run


# -- verbs and state ---------------------------------------------------------

def test_fresh_machine_lists_every_adapter_disabled(ha):
    r = ha("list", "--json")
    assert r.returncode == 0, r
    items = conforms("adapter-list", r.json())
    assert [d["id"] for d in items] == ["good", "leaky", "hang", "nohealth", "flaky"]
    assert all(d["enabled"] is False and d["health"] == "unknown" for d in items)
    assert items[0]["secrets"] == {"GOOD_API_KEY": "missing"}
    human = ha("list")
    assert human.returncode == 0 and human.stdout.splitlines()[0].split()[:4] == ["ID", "KIND", "ENABLED", "HEALTH"]


def test_enable_list_disable(ha, isolated_homes):
    r = ha("enable", "good", "--json")
    assert r.returncode == 0 and conforms("adapter-descriptor", r.json())["enabled"] is True
    listed = {d["id"]: d["enabled"] for d in ha("list", "--json").json()}
    assert listed == {"good": True, "leaky": False, "hang": False, "nohealth": False, "flaky": False}
    assert ha("disable", "good", "--json").json()["enabled"] is False
    assert ha("show", "good", "--json").json()["enabled"] is False
    state = json.loads((isolated_homes["HARNESS_HOME"] / "adapters.json").read_text())
    conforms("adapters-state", state)
    assert ha("enable", "good").stdout == "good: enabled\n"


def test_set_models_must_be_a_subset(ha):
    r = ha("set-models", "good", "m-9", "--json")
    assert r.returncode == 2
    error = conforms("error", r.json())["error"]
    assert error["code"] == "model_not_in_catalog"
    r = ha("set-models", "good", "m-33")
    assert r.returncode == 2 and "did you mean 'm-3'?" in r.stderr
    d = ha("set-models", "good", "m-3", "m-1", "--json").json()
    assert d["models"] == ["m-1", "m-3"] and d["catalogModels"] == ["m-1", "m-2", "m-3"]
    assert ha("set-models", "good", "--reset", "--json").json()["models"] == ["m-1", "m-2", "m-3"]
    assert ha("set-models", "good").returncode == 2  # neither models nor --reset


@pytest.mark.parametrize("pair", ["api_key=sk-live-0123456789", "token=abc-canary-1", "PASSWORD=hunter2-canary",
                                  "base_url=https://u:p4ssw0rd@proxy.example"])
def test_config_refuses_secrets(ha, pair):
    r = ha("config", "good", pair, "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "secret_in_config"
    value = pair.split("=", 1)[1]
    assert value not in r.stdout + r.stderr


def test_config_set_and_unset(ha):
    d = ha("config", "good", "region=eu", "base_url=http://127.0.0.1:9", "--json").json()
    assert d["config"] == {"region": "eu", "base_url": "http://127.0.0.1:9"}
    d = ha("config", "good", "--unset", "region", "--json").json()
    assert d["config"] == {"base_url": "http://127.0.0.1:9"}
    assert ha("config", "good", "novalue").returncode == 2


def test_merge_precedence(ha, cat, isolated_homes):
    """catalog ⊕ state: enabled from state, modelAllow narrows (and drops models the
    catalog no longer has), config passes through, secrets only as presence."""
    state = {"version": "adapters-state/v1", "state": {
        "good": {"enabled": True, "config": {"region": "eu"}, "modelAllow": ["m-3", "gone", "m-1"]}}}
    (isolated_homes["HARNESS_HOME"] / "adapters.json").write_text(json.dumps(state))
    env_file = cat.parent / "secrets" / "GOOD.env"
    env_file.parent.mkdir()
    env_file.write_text(f"GOOD_API_KEY='{CANARY}'\nOTHER='{CANARY}'\n")
    r = ha("show", "good", "--json")
    d = conforms("adapter-descriptor", r.json())
    assert d["enabled"] is True and d["models"] == ["m-1", "m-3"]
    assert d["config"] == {"region": "eu"}
    assert d["secrets"] == {"GOOD_API_KEY": "set", "OTHER": "set"}
    assert d["envFile"] == str(env_file) and d["wrapper"] == "wrappers/good.sh"
    assert "availableModels" not in d  # nothing cached yet
    assert CANARY not in r.stdout + ha("show", "good").stdout + ha("list", "--json").stdout


@pytest.mark.parametrize("verb", [["show"], ["enable"], ["disable"], ["set-models", "--reset"],
                                  ["config"], ["set-secret", "KEY", "-"], ["unset-secret", "KEY"],
                                  ["health"], ["available-models"]])
def test_unknown_id_is_exit_2(ha, verb):
    r = ha(verb[0], "godo", *verb[1:], "--json", input="x")
    assert r.returncode == 2
    error = conforms("error", r.json())["error"]
    assert error["code"] == "unknown_adapter" and error["details"]["hint"] == "did you mean 'good'?"


def test_malformed_catalog_is_exit_2_never_a_list(cli, cat):
    cat.write_text(cat.read_text().replace('"id": "leaky"', '"id": "good"'))
    r = cli("harness-adapter", "list", "--json", "--catalog", str(cat))
    assert r.returncode == 2
    error = r.json()["error"]
    assert error["file"] == str(cat) and "duplicate adapter id 'good'" in error["message"]
    cat.write_text("{")
    r = cli("harness-adapter", "list", "--catalog", str(cat))
    assert r.returncode == 2 and str(cat) in r.stderr and "malformed JSON" in r.stderr and r.stdout == ""


def test_malformed_state_is_exit_2_naming_the_file(ha, isolated_homes):
    path = isolated_homes["HARNESS_HOME"] / "adapters.json"
    path.write_text('{"version": "adapters-state/v1", "state": {"good": {"enabled": "yes"}}}')
    for verb in (["list"], ["enable", "good"], ["show", "good"]):
        r = ha(*verb, "--json")
        assert r.returncode == 2 and r.json()["error"]["file"] == str(path)
        assert r.json()["error"]["field"] == "/state/good/enabled"
    assert json.loads(path.read_text())["state"]["good"]["enabled"] == "yes"  # not overwritten


def test_harness_catalog_env_and_relative_paths(cli, cat, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = cli("harness-adapter", "health", "good", "--json", env={"HARNESS_CATALOG": str(cat)}, cwd=elsewhere)
    assert r.returncode == 0 and r.json()["adapters"][0]["health"] == "healthy"
    # A relative --catalog is relative to the cwd; its wrappers to the catalog's directory.
    rel = os.path.relpath(cat, elsewhere)
    r = cli("harness-adapter", "health", "good", "--catalog", rel, cwd=elsewhere)
    assert r.returncode == 0 and "healthy" in r.stdout


def test_timeout_must_be_a_positive_duration(ha):
    for bad in ("0", "-1", "soon", "11m"):
        r = ha("health", "good", "--timeout", bad, "--json")
        assert r.returncode == 2 and r.json()["error"]["code"] == "usage"


# -- health ------------------------------------------------------------------

def test_health_healthy_down_unknown_and_timeout(ha, cat):
    wrappers = cat.parent / "wrappers"
    r = ha("health", "good", "--json")
    assert r.returncode == 0
    doc = conforms("adapter-health", r.json())
    assert doc["ok"] is True and doc["adapters"][0]["health"] == "healthy"
    assert doc["adapters"][0]["detail"] == "all good" and doc["adapters"][0]["latencyMs"] == 7

    r = ha("health", "leaky", "--json")
    assert r.returncode == 3
    item = conforms("adapter-health", r.json())["adapters"][0]
    assert item["health"] == "down" and "auth failed" in item["detail"]
    assert "sk-LEAKED" not in r.stdout and "tok_abcdefghijkl" not in r.stdout

    r = ha("health", "nohealth", "--json")
    assert r.returncode == 0 and r.json()["adapters"][0]["health"] == "unknown"
    assert calls(wrappers / "nohealth.sh") == []  # never executed

    r = ha("health", "hang", "--timeout", "0.3", "--json")
    assert r.returncode == 3
    assert r.json()["adapters"][0]["detail"].startswith("timed out after 0.3s")


def test_health_defaults_to_enabled_adapters(ha, cat):
    r = ha("health", "--json")
    assert r.returncode == 0 and r.json() == {"adapters": [], "ok": True}
    assert "no adapter is enabled" in r.stderr
    ha("enable", "good")
    ha("enable", "nohealth")
    r = ha("health", "--json")
    assert [(a["id"], a["health"]) for a in r.json()["adapters"]] == [("good", "healthy"), ("nohealth", "unknown")]
    ha("enable", "leaky")
    assert ha("health").returncode == 3


def test_list_probe_reports_live_health_never_stored(ha, isolated_homes):
    r = ha("list", "--probe", "--timeout", "0.3", "--json")
    assert r.returncode == 0
    items = {d["id"]: d for d in conforms("adapter-list", r.json())}
    assert {k: v["health"] for k, v in items.items()} == {
        "good": "healthy", "leaky": "down", "hang": "down", "nohealth": "unknown", "flaky": "healthy"}
    assert "timed out" in items["hang"]["healthDetail"]
    assert not (isolated_homes["HARNESS_HOME"] / "adapters.json").exists()  # health is not persisted
    assert ha("show", "good", "--json").json()["health"] == "unknown"


# -- model lists ---------------------------------------------------------------

def test_available_models_caches_and_refreshes(ha, cat, isolated_homes):
    wrapper = cat.parent / "wrappers" / "good.sh"
    r = ha("available-models", "good", "--json", env={"ALICE_NOW": "2026-11-30T09:00:00Z"})
    assert r.returncode == 0
    doc = conforms("adapter-models", r.json())
    assert doc == {"id": "good", "models": ["m-1", "m-2", "m-3"], "stale": False,
                   "fetchedAt": "2026-11-30T09:00:00Z", "source": "wrapper"}
    r = ha("available-models", "good", "--json", env={"ALICE_NOW": "2026-11-30T20:00:00Z"})
    assert r.json()["source"] == "cache" and calls(wrapper) == ["--list-models"]
    r = ha("available-models", "good", "--refresh", "--json", env={"ALICE_NOW": "2026-11-30T20:00:00Z"})
    assert r.json()["source"] == "wrapper" and len(calls(wrapper)) == 2
    r = ha("available-models", "good", "--json", env={"ALICE_NOW": "2026-12-01T20:00:01Z"})
    assert r.json()["source"] == "wrapper"  # 24 h after the refresh
    conforms("adapters-cache", json.loads((isolated_homes["HARNESS_HOME"] / "adapters.cache.json").read_text()))
    assert ha("show", "good", "--json").json()["availableModels"] == ["m-1", "m-2", "m-3"]
    assert ha("available-models", "good").stdout == "m-1\nm-2\nm-3\n"


def test_failing_list_models_serves_the_stale_list(ha, cat, isolated_homes):
    flaky = cat.parent / "wrappers" / "flaky.sh"
    cache = {"version": "adapters-cache/v1", "entries": {"flaky": {
        "models": ["old-1", "old-2"], "fetchedAt": "2026-11-01T00:00:00Z", "wrapper": str(flaky),
        "wrapperMtimeNs": os.stat(flaky).st_mtime_ns}}}
    (isolated_homes["HARNESS_HOME"] / "adapters.cache.json").write_text(json.dumps(cache))
    r = ha("available-models", "flaky", "--json")
    assert r.returncode == 0
    doc = conforms("adapter-models", r.json())
    assert doc["stale"] is True and doc["models"] == ["old-1", "old-2"] and doc["source"] == "cache"
    assert "exited 1" in doc["detail"] and "abcd1234secret" not in r.stdout + r.stderr
    assert "stale list" in r.stderr
    (isolated_homes["HARNESS_HOME"] / "adapters.cache.json").unlink()
    r = ha("available-models", "flaky", "--json")
    assert r.returncode == 3 and r.json()["error"]["code"] == "list_models_failed"


def test_without_list_models_the_picker_gets_the_curated_list(ha, cat):
    r = ha("available-models", "nohealth", "--refresh", "--json")
    assert r.json() == {"id": "nohealth", "models": ["n-1"], "stale": False, "fetchedAt": None,
                        "source": "catalog"}
    assert calls(cat.parent / "wrappers" / "nohealth.sh") == []
    assert ha("show", "nohealth", "--json").json()["availableModels"] == ["n-1"]


# -- secrets ---------------------------------------------------------------------

def test_set_secret_writes_a_0600_file_and_never_shows_the_value(ha, cat):
    env_file = cat.parent / "secrets" / "GOOD.env"
    r = ha("set-secret", "good", "GOOD_API_KEY", "-", "--json", input=CANARY + "\n")
    assert r.returncode == 0, r
    d = conforms("adapter-descriptor", r.json())
    assert d["secrets"] == {"GOOD_API_KEY": "set"}
    assert CANARY not in r.stdout + r.stderr
    assert env_file.read_text() == f"GOOD_API_KEY='{CANARY}'\n"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(env_file.parent.stat().st_mode) == 0o700

    again = ha("set-secret", "good", "GOOD_API_KEY", "-", input="other\n")
    assert again.returncode == 2 and "--force" in again.stderr
    assert env_file.read_text() == f"GOOD_API_KEY='{CANARY}'\n"
    forced = ha("set-secret", "good", "GOOD_API_KEY", "-", "--force", input="other\n")
    assert forced.returncode == 0 and "replaced" in forced.stdout and "other" not in forced.stdout
    assert env_file.read_text() == "GOOD_API_KEY='other'\n"


def test_set_secret_refuses_argv_values_bad_names_and_newlines(ha, cat):
    env_file = cat.parent / "secrets" / "GOOD.env"
    ha("set-secret", "good", "GOOD_API_KEY", "-", input="first")
    r = ha("set-secret", "good", "GOOD_API_KEY", CANARY, "--json")  # argv refused before "already set"
    assert r.returncode == 2 and r.json()["error"]["code"] == "secret_in_argv"
    assert CANARY not in r.stdout + r.stderr
    r = ha("set-secret", "good", "BAD-NAME", "-", input="v")
    assert r.returncode == 2
    r = ha("set-secret", "good", "GOOD_API_KEY", "-", "--force", input="two\nlines\n")
    assert r.returncode == 2 and "newline" in r.stderr
    r = ha("set-secret", "good", "GOOD_API_KEY", "-", "--force", input="\n")
    assert r.returncode == 2 and "empty" in r.stderr
    r = ha("set-secret", "nohealth", "K", "-", input="v")
    assert r.returncode == 2 and "no envFile" in r.stderr  # nowhere to keep it
    assert env_file.read_text() == "GOOD_API_KEY='first'\n"  # untouched by every refusal


def test_undeclared_key_warns_and_unset_secret_removes(ha, cat):
    r = ha("set-secret", "good", "EXTRA_TOKEN", "-", input="v1")
    assert r.returncode == 0 and "not one of the keys" in r.stderr
    assert ha("show", "good", "--json").json()["secrets"] == {"GOOD_API_KEY": "missing", "EXTRA_TOKEN": "set"}
    r = ha("unset-secret", "good", "EXTRA_TOKEN", "--json")
    assert r.returncode == 0 and r.json()["secrets"] == {"GOOD_API_KEY": "missing"}
    r = ha("unset-secret", "good", "EXTRA_TOKEN")
    assert r.returncode == 0 and "was not set" in r.stderr


def test_set_secret_warns_when_the_env_file_is_not_git_ignored(cli, tmp_path):
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "gitrepo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    cat = write_catalog(repo, [adapter("a", "/bin/true", envFile="wrappers/A.env")])
    r = cli("harness-adapter", "set-secret", "a", "K", "-", "--catalog", str(cat), input="v")
    assert r.returncode == 0 and "not ignored" in r.stderr and "v" not in r.stdout.split()
    (repo / ".gitignore").write_text("wrappers/*.env\n")
    r = cli("harness-adapter", "set-secret", "a", "K2", "-", "--catalog", str(cat), input="v")
    assert r.returncode == 0 and "warning" not in r.stderr


def test_canary_never_leaves_its_env_file(cli, tmp_path, isolated_homes):
    """Set a canary secret, then drive every verb (human and --json) including
    probes of a wrapper that records its argv and environment: the canary must
    appear in no output, no argv and no file except the env file itself."""
    repo = tmp_path / "canary-repo"
    (repo / "wrappers").mkdir(parents=True)
    write_stub(repo / "wrappers", "dump.sh", "env-dump")
    write_stub(repo / "wrappers", "leak.sh", "down-echo-env")
    write_stub(repo / "wrappers", "lm.sh", "healthy")
    cat = write_catalog(repo, [
        adapter("dump", "wrappers/dump.sh", health=True, envFile="secrets/DUMP.env", env=["DUMP_KEY"]),
        adapter("leak", "wrappers/leak.sh", health=True, envFile="secrets/DUMP.env"),
        adapter("lm", "wrappers/lm.sh", models=["m-1"], health=True, listModels=True, envFile="secrets/DUMP.env"),
    ])
    write_stub(repo, "preset-wrapper.sh", "healthy")
    (repo / "p.json").write_text(json.dumps({"version": "preset/v1", "name": "p", "seats": {
        "w": {"wrapper": "wrappers/dump.sh", "model": "m-2"}}}))
    outputs = []

    def run(*args, input=None):
        r = cli("harness-adapter", *args, "--catalog", str(cat), input=input)
        outputs.extend([r.stdout, r.stderr, " ".join(r.argv)])
        return r

    assert run("set-secret", "dump", "DUMP_KEY", "-", input=CANARY + "\n").returncode == 0
    for json_flag in ([], ["--json"]):
        run("enable", "dump", *json_flag)
        run("list", *json_flag)
        run("list", "--probe", *json_flag)
        run("show", "dump", "--probe", *json_flag)
        run("show", "leak", "--probe", *json_flag)
        run("health", "--all", *json_flag)
        run("available-models", "lm", "--refresh", *json_flag)
        run("config", "dump", "region=eu", *json_flag)
        run("set-models", "dump", "m-1", *json_flag)
        run("validate", *json_flag)
        run("set-secret", "dump", "DUMP_KEY", "-", *json_flag, input="ignored\n")  # refused: exists
        run("disable", "dump", *json_flag)
    assert any("DUMP_KEY" in o for o in outputs)  # the verbs did talk about the key
    leaks = [o for o in outputs if CANARY in o]
    assert leaks == []
    env_file = repo / "secrets" / "DUMP.env"
    holders = []
    for root in (tmp_path, *isolated_homes.values()):
        for path in Path(root).rglob("*"):
            if path.is_file() and CANARY.encode() in path.read_bytes():
                holders.append(path)
    assert holders == [env_file]
    assert (repo / "wrappers" / "dump.sh.env-seen").exists()  # the probe ran (and saw no canary)
    assert all(CANARY not in line for line in calls(repo / "wrappers" / "dump.sh"))


# -- concurrency ---------------------------------------------------------------------

def test_eight_cli_processes_on_different_adapters_keep_every_change(cli, tmp_path):
    wrappers = tmp_path / "many" / "wrappers"
    wrappers.mkdir(parents=True)
    entries = []
    for n in range(8):
        write_stub(wrappers, f"w{n}.sh", "healthy")
        entries.append(adapter(f"a{n}", f"wrappers/w{n}.sh"))
    cat = write_catalog(tmp_path / "many", entries)

    def wave(verb_for):
        procs = [subprocess.Popen([tool_path("harness-adapter"), verb_for(n), f"a{n}", "--catalog", str(cat)],
                                  env=cli.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for n in range(8)]
        for p in procs:
            _, err = p.communicate(timeout=60)
            assert p.returncode == 0, err

    wave(lambda n: "enable")
    assert all(d["enabled"] for d in cli("harness-adapter", "list", "--json", "--catalog", str(cat)).json())
    wave(lambda n: "disable" if n % 2 else "enable")
    got = {d["id"]: d["enabled"] for d in cli("harness-adapter", "list", "--json", "--catalog", str(cat)).json()}
    assert got == {f"a{n}": n % 2 == 0 for n in range(8)}


# -- validate ------------------------------------------------------------------------

def test_validate_names_a_broken_binding(ha, cat):
    presets = cat.parent
    (presets / "team.json").write_text(json.dumps({"version": "preset/v1", "name": "team", "seats": {
        "worker": {"wrapper": "wrappers/good.sh", "model": "m-1"}}}))
    ha("enable", "good")
    ok = ha("validate", "--json")
    assert ok.returncode == 0 and conforms("adapter-validate", ok.json())["valid"] is True
    (presets / "team.json").write_text(json.dumps({"version": "preset/v1", "name": "team", "seats": {
        "worker": {"wrapper": "wrappers/good.sh", "model": "m-33"}}}))
    r = ha("validate", "--json")
    assert r.returncode == 2
    doc = conforms("adapter-validate", r.json())
    assert doc["errorCount"] == 1
    diag = doc["diagnostics"][0]
    assert (diag["file"], diag["pointer"]) == (str(presets / "team.json"), "/seats/worker/model")
    assert diag["suggestion"] == "did you mean 'm-3'?"
    human = ha("validate")
    assert human.returncode == 2
    assert f"{presets / 'team.json'}:/seats/worker/model: error: model 'm-33'" in human.stdout
    ha("disable", "good")
    r = ha("validate", str(presets / "team.json"), "--catalog-only", "--json")
    assert r.returncode == 2 and [d["pointer"] for d in r.json()["diagnostics"]] == ["/seats/worker/model"]


def test_validate_passes_on_a_fresh_machine_with_the_shipped_presets(cli):
    """Nothing enabled yet: the shipped example preset is checked against the catalog only,
    and the output says so (it used to fail: 'adapter claude is not enabled on this machine')."""
    r = cli("harness-adapter", "validate")
    assert r.returncode == 0, r
    assert "no adapter is enabled on this machine" in r.stdout and "catalog only" in r.stdout
    assert r.stdout.rstrip().splitlines()[-1] == "ok: 2 files read, all valid, 1 warning(s)"
    doc = conforms("adapter-validate", cli("harness-adapter", "validate", "--json").json())
    assert doc["valid"] is True and [Path(f).name for f in doc["files"]] == ["adapters.json", "pair.json"]


# -- packaging -------------------------------------------------------------------------

def test_wheel_ships_executable_wrappers_and_never_env_files(tmp_path):
    """Secrets written beside the shipped wrappers must never reach a wheel."""
    import shutil
    import sys
    import zipfile

    repo = Path(__file__).resolve().parents[2]
    copy = tmp_path / "src"
    shutil.copytree(repo, copy, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", "bench", "tests"))
    for name in ("CLAUDE.env", ".CLAUDE.env.lock", ".tmp-CLAUDE.env.x1"):
        (copy / "presets" / "wrappers" / name).write_text(f"ANTHROPIC_API_KEY='{CANARY}'\n")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "--no-build-isolation", "--wheel-dir", str(tmp_path / "dist"), str(copy)],
                           capture_output=True, text=True, cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    wheel = next((tmp_path / "dist").glob("openalice-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        assert not any(CANARY.encode() in zf.read(name) for name in infos)
    wrappers = {n: i for n, i in infos.items() if n.startswith("openalice/presets/wrappers/")}
    assert sorted(n.rsplit("/", 1)[1] for n in wrappers) == [
        "_lib.sh", "claude.sh", "codex.sh", "opencode.sh", "pi.sh"]
    for name, info in wrappers.items():
        if not name.endswith("_lib.sh"):
            assert (info.external_attr >> 16) & 0o111, name
    assert "openalice/presets/_validate.py" in infos and "openalice/presets/adapters.json" in infos


# -- adapter secrets live under the home -------------------------------------------

def _checkout_copy(tmp_path) -> Path:
    """A copy of the checkout (code, shipped data, launchers) to run the tools from,
    so a test that writes beside the shipped wrappers never touches the real one."""
    import shutil

    repo = Path(__file__).resolve().parents[2]
    copy = tmp_path / "checkout"
    copy.mkdir()
    for name in ("openalice", "presets", "spec", "default", "bin"):
        shutil.copytree(repo / name, copy / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.env", ".*.lock", ".tmp-*"))
    return copy


def _run_copy(copy, cli, *args, input=None, env=None):
    import sys

    from tests.conftest import Result

    full = {k: v for k, v in {**cli.env, **(env or {})}.items() if v is not None}
    argv = [sys.executable, str(copy / "bin" / "harness-adapter"), *args]
    proc = subprocess.run(argv, input=input, capture_output=True, text=True, env=full, timeout=60)
    return Result(proc.returncode, proc.stdout, proc.stderr, argv)


def test_shipped_catalog_keeps_secrets_under_the_harness_home(cli, tmp_path, isolated_homes):
    copy = _checkout_copy(tmp_path)
    r = _run_copy(copy, cli, "set-secret", "claude", "ANTHROPIC_API_KEY", "-", "--json",
                  input=CANARY + "\n")
    assert r.returncode == 0, r.stderr
    home_env = isolated_homes["HARNESS_HOME"] / "env"
    env_file = home_env / "CLAUDE.env"
    assert r.json()["envFile"] == str(env_file) and r.json()["secrets"]["ANTHROPIC_API_KEY"] == "set"
    assert env_file.read_text() == f"ANTHROPIC_API_KEY='{CANARY}'\n"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(home_env.stat().st_mode) == 0o700
    assert sorted(p.name for p in (copy / "presets" / "wrappers").iterdir()) == [
        "_lib.sh", "claude.sh", "codex.sh", "opencode.sh", "pi.sh"]   # nothing in the code tree
    # a loosened env directory is tightened again on the next write
    home_env.chmod(0o755)
    r = _run_copy(copy, cli, "set-secret", "claude", "CLAUDE_EXTRA", "-", input="x")
    assert r.returncode == 0 and stat.S_IMODE(home_env.stat().st_mode) == 0o700
    # the wrapper finds it by itself (no HARNESS_ENV_FILE), and through HARNESS_ENV_FILE
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "claude").write_text("#!/bin/sh\nexit 0\n")
    (bindir / "claude").chmod(0o755)
    env = {**cli.env, "PATH": f"{bindir}:/usr/bin:/bin", "ANTHROPIC_API_KEY": None}
    env = {k: v for k, v in env.items() if v is not None}
    env.pop("HARNESS_ENV_FILE", None)
    probe = subprocess.run([str(copy / "presets" / "wrappers" / "claude.sh"), "--health"],
                           capture_output=True, text=True, env=env, timeout=30)
    assert probe.returncode == 0 and "ANTHROPIC_API_KEY is set" in probe.stdout, probe
    elsewhere = tmp_path / "other.env"
    probe = subprocess.run([str(copy / "presets" / "wrappers" / "claude.sh"), "--health"],
                           capture_output=True, text=True, timeout=30,
                           env={**env, "HARNESS_ENV_FILE": str(elsewhere), "HOME": str(tmp_path)})
    assert probe.returncode == 3 and "no credentials" in probe.stdout   # that file does not exist
    # the runner's view: the wrapper engine gets the home file as HARNESS_ENV_FILE
    shown = _run_copy(copy, cli, "show", "claude", "--json").json()
    assert shown["envFile"] == str(env_file)


def test_env_files_at_the_old_place_are_moved_with_a_notice(cli, tmp_path, isolated_homes):
    copy = _checkout_copy(tmp_path)
    wrappers = copy / "presets" / "wrappers"
    (wrappers / "CODEX.env").write_text(f"OPENAI_API_KEY='{CANARY}'\n")
    (wrappers / "CODEX.env").chmod(0o600)
    (wrappers / ".CODEX.env.lock").write_text("")
    r = _run_copy(copy, cli, "list", "--json")
    assert r.returncode == 0, r.stderr
    new = isolated_homes["HARNESS_HOME"] / "env" / "CODEX.env"
    assert "notice: moved the adapter secrets in" in r.stderr and str(new) in r.stderr
    assert CANARY not in r.stdout + r.stderr
    assert new.read_text() == f"OPENAI_API_KEY='{CANARY}'\n"
    assert stat.S_IMODE(new.stat().st_mode) == 0o600
    assert not (wrappers / "CODEX.env").exists() and not (wrappers / ".CODEX.env.lock").exists()
    codex = next(d for d in r.json() if d["id"] == "codex")
    assert codex["secrets"] == {"OPENAI_API_KEY": "set"}
    again = _run_copy(copy, cli, "list", "--json")
    assert again.returncode == 0 and "notice" not in again.stderr          # once
    # both places hold different secrets: nothing is lost, a person decides
    (wrappers / "CODEX.env").write_text("OPENAI_API_KEY='older'\n")
    r = _run_copy(copy, cli, "show", "codex")
    assert r.returncode == 0 and "differs from" in r.stderr
    assert (wrappers / "CODEX.env").read_text() == "OPENAI_API_KEY='older'\n"
    assert new.read_text() == f"OPENAI_API_KEY='{CANARY}'\n"


@pytest.mark.parametrize("spec", ["/etc/openalice-evil.env", "../outside.env", "~/keys/a.env",
                                  "link/A.env"])
def test_an_env_file_outside_the_catalog_dir_and_the_home_is_refused(cli, tmp_path, spec):
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (repo / "link").symlink_to(tmp_path / "elsewhere")
    cat = write_catalog(repo, [adapter("a", "/bin/true", envFile=spec),
                               adapter("b", "/bin/false", envFile="$HARNESS_HOME/env/B.env")])
    for args in (["list"], ["set-secret", "a", "K", "-"]):
        r = cli("harness-adapter", *args, "--catalog", str(cat), "--json", input="v")
        assert r.returncode == 2, (args, r)
        error = r.json()["error"]
        assert error["code"] == "invalid_catalog" and error["field"] == "/adapters/0/envFile", error
        assert "outside the catalog's directory" in error["message"]
    r = cli("harness-adapter", "validate", "--catalog-only", "--catalog", str(cat), "--json")
    assert r.returncode == 2
    assert [d["pointer"] for d in r.json()["diagnostics"]][0] == "/adapters/0/envFile"
    assert list((tmp_path / "elsewhere").iterdir()) == [] and not (tmp_path / "outside.env").exists()
