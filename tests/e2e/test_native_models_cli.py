"""``alice models refresh --native AGENT``: the models a CLI lists under its own
login (the seed's NativeAIProvider), cached without a token or a vault record."""

from __future__ import annotations

import json
import os
import stat

from openalice.core import paths
from tests.helpers.schemas import schema_errors


def fake_cli(directory, name, body):
    directory.mkdir(exist_ok=True)
    (directory / name).write_text("#!/bin/sh\n" + body)
    (directory / name).chmod(0o755)
    return directory


def test_opencode_lists_its_models_into_the_native_cache(cli, tmp_path):
    bindir = fake_cli(tmp_path / "bin", "opencode",
                      '[ "$1" = models ] || exit 9\nprintf "opencode/big-pickle\\nanthropic/claude-sonnet-4-5\\n"\n')
    env = {"PATH": f"{bindir}{os.pathsep}/usr/bin:/bin", "ALICE_NOW": "2026-03-02T09:00:00Z"}
    result = cli("alice", "models", "refresh", "--native", "opencode", "--json", env=env)
    assert result.returncode == 0, result
    doc = result.json()
    assert doc == {"agent": "opencode", "source": "native", "status": "refreshed", "count": 2,
                   "fetchedAt": "2026-03-02T09:00:00Z",
                   "models": ["opencode/big-pickle", "anthropic/claude-sonnet-4-5"]}
    assert schema_errors("models-refresh", doc) == []
    cache = paths.data_dir() / "model-catalog" / "native" / "opencode.json"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    assert schema_errors("model-catalog-cache", json.loads(cache.read_text())) == []
    assert not (paths.openalice_home() / "vault").exists()      # no vault record
    human = cli("alice", "models", "refresh", "--native", "opencode", env=env)
    assert "opencode (native login): refreshed, 2 models" in human.stdout


def test_a_cli_that_cannot_list_says_so_and_caches_nothing(cli, tmp_path):
    result = cli("alice", "models", "refresh", "--native", "claude", "--json")
    assert result.returncode == 3, result
    assert result.json()["error"]["code"] == "cannot_list_models"
    assert "--model" in result.json()["error"]["message"]
    bindir = fake_cli(tmp_path / "bin", "pi", "echo 'No models available. Use /login to log into a provider'\n")
    result = cli("alice", "models", "refresh", "--native", "pi", "--json",
                 env={"PATH": f"{bindir}{os.pathsep}/usr/bin:/bin"})
    assert result.returncode == 3 and result.json()["error"]["code"] == "not_logged_in", result
    assert not (paths.data_dir() / "model-catalog" / "native").exists()


def test_a_slug_or_native_not_both_nor_neither(cli):
    for argv in ([], ["some-slug", "--native", "opencode"]):
        result = cli("alice", "models", "refresh", *argv, "--json")
        assert result.returncode == 2 and result.json()["error"]["code"] == "usage", result
    assert cli("alice", "models", "refresh", "--native", "no-such-engine", "--json").returncode == 2
