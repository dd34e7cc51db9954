"""The shipped wrappers honour the contract, driven against stub engines on PATH."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from openalice.adapters import catalog

REPO = Path(__file__).resolve().parents[2]
WRAPPERS = REPO / "presets" / "wrappers"
ENGINES = {"claude": "claude", "codex": "codex", "opencode": "opencode", "pi": "pi"}
KEYS = {"claude": "ANTHROPIC_API_KEY", "codex": "OPENAI_API_KEY", "opencode": "ANTHROPIC_API_KEY",
        "pi": "ANTHROPIC_API_KEY"}
MODEL = {"claude": "claude-sonnet-4-5", "codex": "gpt-5-codex", "opencode": "anthropic/claude-sonnet-4-5",
         "pi": "anthropic/claude-sonnet-4-5"}
STUB_ENGINE = """#!/bin/sh
printf '%s\\n' "$@" > "$OUT_DIR/argv"
cat > "$OUT_DIR/stdin"
eval "printf '%s' \\"\\${$KEY_NAME:-unset}\\"" > "$OUT_DIR/key"
echo '{"type":"text","text":"stub"}'
"""
SYSTEM_PATH = "/usr/bin:/bin"


@pytest.fixture
def sandbox(tmp_path):
    for engine in ENGINES.values():
        if shutil.which(engine, path=SYSTEM_PATH):
            pytest.skip(f"a real {engine} is installed in {SYSTEM_PATH}")
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    return {"home": home, "bin": bin_dir, "out": out, "tmp": tmp_path}


def env_for(sandbox, adapter_id, *, engine=True, env_file=None):
    if engine:
        stub = sandbox["bin"] / ENGINES[adapter_id]
        stub.write_text(STUB_ENGINE)
        stub.chmod(0o755)
    env = {"PATH": f"{sandbox['bin']}:{SYSTEM_PATH}", "HOME": str(sandbox["home"]),
           "OUT_DIR": str(sandbox["out"]), "KEY_NAME": KEYS[adapter_id],
           "HARNESS_ENV_FILE": str(env_file or sandbox["tmp"] / "absent.env")}
    return env


def wrapper(adapter_id, *args, env, input="", cwd=None):
    return subprocess.run([str(WRAPPERS / f"{adapter_id}.sh"), *args], input=input, env=env,
                          capture_output=True, text=True, timeout=30, cwd=cwd)


@pytest.mark.parametrize("adapter_id", ENGINES)
def test_health_down_without_the_engine(sandbox, adapter_id):
    r = wrapper(adapter_id, "--health", env=env_for(sandbox, adapter_id, engine=False))
    assert r.returncode == 3
    status = json.loads(r.stdout)
    assert status["ok"] is False and "not found on PATH" in status["detail"]
    assert not any(sandbox["out"].iterdir())  # nothing dispatched


@pytest.mark.parametrize("adapter_id", ENGINES)
def test_health_down_without_credentials(sandbox, adapter_id):
    r = wrapper(adapter_id, "--health", env=env_for(sandbox, adapter_id))
    assert r.returncode == 3 and json.loads(r.stdout)["detail"].startswith("no credentials")
    assert not (sandbox["out"] / "argv").exists()  # the engine was never started


@pytest.mark.parametrize("adapter_id", ENGINES)
def test_health_ok_with_the_key_from_the_env_file(sandbox, adapter_id):
    env_file = sandbox["tmp"] / "X.env"
    env_file.write_text(f"{KEYS[adapter_id]}='sk-canary-wrapper-0001'\n")
    r = wrapper(adapter_id, "--health", env=env_for(sandbox, adapter_id, env_file=env_file))
    assert r.returncode == 0, r.stderr
    status = json.loads(r.stdout)
    assert status["ok"] is True and KEYS[adapter_id] in status["detail"]
    assert "canary" not in r.stdout + r.stderr
    assert not (sandbox["out"] / "argv").exists()


@pytest.mark.parametrize("adapter_id", ENGINES)
def test_list_models_covers_the_catalog_models(sandbox, adapter_id):
    r = wrapper(adapter_id, "--list-models", env=env_for(sandbox, adapter_id, engine=False))
    assert r.returncode == 0
    listed = r.stdout.split()
    assert set(catalog.find(adapter_id).models) <= set(listed)


@pytest.mark.parametrize("adapter_id", ENGINES)
def test_model_is_required_and_bad_flags_are_usage_errors(sandbox, adapter_id):
    env = env_for(sandbox, adapter_id)
    assert wrapper(adapter_id, input="hi", env=env).returncode == 2
    assert wrapper(adapter_id, "--model", env=env).returncode == 2
    assert wrapper(adapter_id, "--model", MODEL[adapter_id], "--bogus", input="hi", env=env).returncode == 2
    assert wrapper(adapter_id, "--model", MODEL[adapter_id], "--effort", "ultra plus", input="hi",
                   env=env).returncode == 2
    assert not (sandbox["out"] / "argv").exists()


@pytest.mark.parametrize("adapter_id", ENGINES)
def test_turn_is_unavailable_without_the_engine(sandbox, adapter_id):
    r = wrapper(adapter_id, "--model", MODEL[adapter_id], input="hi",
                env=env_for(sandbox, adapter_id, engine=False))
    assert r.returncode == 3 and "not found on PATH" in r.stderr


EXPECTED_ARGV = {
    "claude": ["-p", "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5",
               "--dangerously-skip-permissions", "--effort", "high", "--resume", "S1", "PROMPT"],
    "codex": ["exec", "--json", "--skip-git-repo-check", "-m", "gpt-5-codex",
              "--dangerously-bypass-approvals-and-sandbox", "-c", "model_reasoning_effort=high",
              "resume", "S1", "-"],
    "opencode": ["run", "--format", "json", "-m", "anthropic/claude-sonnet-4-5", "--variant", "high",
                 "-s", "S1"],
    "pi": ["-p", "--mode", "json", "--model", "anthropic/claude-sonnet-4-5", "--thinking", "high",
           "--session", "S1", "PROMPT"],
}
PROMPT_ON_STDIN = {"codex", "opencode"}


@pytest.mark.parametrize("adapter_id", ENGINES)
@pytest.mark.parametrize("via_file", [False, True])
def test_turn_execs_the_engine_pinned_with_the_env_file_loaded(sandbox, adapter_id, via_file):
    env_file = sandbox["tmp"] / "X.env"
    env_file.write_text(f"{KEYS[adapter_id]}='value-from-env-file'\n")
    env = env_for(sandbox, adapter_id, env_file=env_file)
    prompt = "write a haiku\nabout 'quotes' and $HOME"
    args = ["--model", MODEL[adapter_id], "--effort", "high", "--resume", "S1"]
    if via_file:
        (sandbox["tmp"] / "prompt.txt").write_text(prompt)
        args += ["--prompt-file", str(sandbox["tmp"] / "prompt.txt")]
        r = wrapper(adapter_id, *args, env=env, input="")
    else:
        r = wrapper(adapter_id, *args, env=env, input=prompt)
    assert r.returncode == 0, r.stderr
    assert r.stdout == '{"type":"text","text":"stub"}\n'
    argv = (sandbox["out"] / "argv").read_text()
    if adapter_id in PROMPT_ON_STDIN:
        assert argv.splitlines() == EXPECTED_ARGV[adapter_id]
        assert (sandbox["out"] / "stdin").read_text() == prompt
    else:
        assert argv == "\n".join(EXPECTED_ARGV[adapter_id][:-1]) + "\n" + prompt + "\n"
    assert (sandbox["out"] / "key").read_text() == "value-from-env-file"


def test_a_prompt_that_looks_like_an_option_stays_a_prompt(sandbox):
    env = env_for(sandbox, "claude")
    r = wrapper("claude", "--model", "claude-sonnet-4-5", input="--help me", env=env)
    assert r.returncode == 0
    assert (sandbox["out"] / "argv").read_text().splitlines()[-1] == " --help me"


def test_opencode_needs_provider_slash_model(sandbox):
    r = wrapper("opencode", "--model", "gpt-5", input="hi", env=env_for(sandbox, "opencode"))
    assert r.returncode == 2 and "PROVIDER/MODEL" in r.stderr


def test_wrappers_are_posix_sh():
    shell = shutil.which("dash") or shutil.which("sh")
    for path in WRAPPERS.glob("*.sh"):
        assert subprocess.run([shell, "-n", str(path)]).returncode == 0, path
        if path.name != "_lib.sh":
            assert os.access(path, os.X_OK) and path.read_text().startswith("#!/bin/sh\n")


def test_shipped_reasons_reach_people_unredacted(sandbox, monkeypatch):
    """The shipped wrappers' own down-reasons are plain enough to survive redaction."""
    from datetime import datetime, timezone

    from openalice.adapters import health

    from .stubs import adapter, write_catalog

    cat = catalog.load_catalog(write_catalog(sandbox["tmp"], [
        adapter("claude", str(WRAPPERS / "claude.sh"), health=True, envFile="CLAUDE.env")]))
    monkeypatch.setenv("PATH", f"{sandbox['bin']}:{SYSTEM_PATH}")
    monkeypatch.setenv("HOME", str(sandbox["home"]))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    now = datetime(2026, 11, 30, tzinfo=timezone.utc)
    result = health.probe(cat.get("claude"), now=now)
    assert result.detail == "claude CLI not found on PATH (npm install -g @anthropic-ai/claude-code)"
    env_for(sandbox, "claude")  # installs the stub engine
    result = health.probe(cat.get("claude"), now=now)
    assert result.health == "down" and result.detail == (
        "no credentials: set ANTHROPIC_API_KEY (harness-adapter set-secret claude ANTHROPIC_API_KEY -) "
        "or run 'claude login'")
