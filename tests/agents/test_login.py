"""Native logins: the cheap evidence (variables, marker files) and each CLI's
status command, bounded; and the models a CLI lists under its own login."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from openalice.agents import login, native_models
from openalice.core.errors import Unavailable

SECRET = "sk-do-not-keep-0123456789abcdef"


def fake_cli(bindir: Path, name: str, body: str) -> Path:
    bindir.mkdir(parents=True, exist_ok=True)
    path = bindir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def env_for(tmp_path: Path, **extra) -> dict:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "PATH": str(tmp_path / "bin"), **extra}


@pytest.mark.parametrize("agent", ["claude", "codex", "opencode", "pi"])
def test_no_variable_and_no_marker_is_logged_out_with_a_hint(agent, tmp_path):
    found = login.evidence(agent, env_for(tmp_path))
    assert found.state == "logged_out", found
    assert "alice credential add" in found.hint and found.agent == agent


@pytest.mark.parametrize("agent,variable,marker", [
    ("claude", "ANTHROPIC_API_KEY", ".claude/.credentials.json"),
    ("codex", "CODEX_API_KEY", ".codex/auth.json"),
    ("opencode", "OPENROUTER_API_KEY", ".local/share/opencode/auth.json"),
    ("pi", "GEMINI_API_KEY", ".pi/agent/auth.json"),
])
def test_a_key_variable_or_a_marker_file_is_a_login_and_neither_is_read(agent, variable, marker, tmp_path):
    env = env_for(tmp_path)
    by_var = login.evidence(agent, {**env, variable: SECRET})
    assert by_var.state == "logged_in" and by_var.how == f"{variable} is set"
    path = Path(env["HOME"]) / marker
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"token": SECRET}))
    path.chmod(0)  # existence only: an unreadable file still counts
    by_file = login.evidence(agent, env)
    assert by_file.state == "logged_in" and by_file.how == f"~/{marker} exists"
    assert SECRET not in json.dumps([by_var.to_dict(), by_file.to_dict()])


def test_a_catalog_engine_is_unknown(tmp_path):
    assert login.evidence("my-wrapper", env_for(tmp_path)).state == "unknown"


def test_claude_auth_status_says_logged_out_or_in(tmp_path):
    env = env_for(tmp_path)
    fake_cli(tmp_path / "bin", "claude", 'echo \'{"loggedIn": false, "authMethod": "none"}\'; exit 1\n')
    found = login.check("claude", env)
    assert found.state == "logged_out" and "claude auth status --json" in found.how
    assert "`claude auth login`" in found.hint
    fake_cli(tmp_path / "bin", "claude", 'echo \'{"loggedIn": true, "authMethod": "claude.ai"}\'\n')
    found = login.check("claude", env)
    assert found.state == "logged_in" and found.hint is None


def test_codex_login_status_output_is_reduced_to_a_verdict(tmp_path):
    env = env_for(tmp_path)
    fake_cli(tmp_path / "bin", "codex", f'echo "Logged in using an API key - {SECRET[:8]}***"\n')
    found = login.check("codex", env)
    assert found.state == "logged_in" and SECRET[:8] not in json.dumps(found.to_dict())
    fake_cli(tmp_path / "bin", "codex", 'echo "Not logged in" >&2; exit 1\n')
    assert login.check("codex", env).state == "logged_out"


def test_opencode_and_pi_status_from_their_listings(tmp_path):
    env = env_for(tmp_path)
    fake_cli(tmp_path / "bin", "opencode", "printf '\\342\\224\\224  0 credentials\\n'\n")
    assert login.check("opencode", env).state == "logged_out"
    fake_cli(tmp_path / "bin", "opencode", "printf '0 credentials\\n\\n1 environment variable\\n'\n")
    assert login.check("opencode", env).state == "logged_in"
    fake_cli(tmp_path / "bin", "pi", "echo 'No models available. Use /login to log into a provider'\n")
    assert login.check("pi", env).state == "logged_out"


def test_a_status_command_is_bounded_and_an_odd_answer_is_unknown(tmp_path):
    env = env_for(tmp_path)
    fake_cli(tmp_path / "bin", "codex", "/bin/sleep 30 &\nexec /bin/sleep 30\n")
    found = login.check("codex", env, timeout=0.5)
    assert found.state == "unknown" and "did not answer within 0.5 s" in found.how
    fake_cli(tmp_path / "bin", "claude", "echo 'error: unknown command auth'; exit 2\n")
    assert login.check("claude", env).state == "unknown"
    assert login.check("pi", {**env, "PATH": str(tmp_path / "nothing")}).state == "unknown"


def test_opencode_free_models_need_no_login():
    assert not login.needs_login("opencode", "opencode/big-pickle")
    assert login.needs_login("opencode", "anthropic/claude-sonnet-4-5") and login.needs_login("claude", None)


OPENCODE_LISTING = "opencode/big-pickle\nopencode/space-bunny-free\n\x1b[0m"
PI_LISTING = ("provider   model                       context  max-out  thinking  images\n"
              "anthropic  claude-haiku-4-5            200K     64K      yes       yes\n"
              "openai     gpt-5.5                     400K     128K     yes       yes\n")


def test_native_listings_parse_to_ids():
    assert native_models.parse("opencode", OPENCODE_LISTING) == ["opencode/big-pickle", "opencode/space-bunny-free"]
    assert native_models.parse("pi", PI_LISTING) == ["anthropic/claude-haiku-4-5", "openai/gpt-5.5"]


def test_claude_and_codex_cannot_list_their_models():
    for agent in ("claude", "codex"):
        with pytest.raises(Unavailable) as caught:
            native_models.list_models(agent, os.environ)
        assert caught.value.code == "cannot_list_models" and "--model" in caught.value.message


def test_pi_without_a_login_lists_nothing_and_says_why(tmp_path):
    fake_cli(tmp_path / "bin", "pi", "echo 'No models available. Use /login'\n")
    with pytest.raises(Unavailable) as caught:
        native_models.list_models("pi", env_for(tmp_path))
    assert caught.value.code == "not_logged_in"
