"""`alice doctor`: one line per finding, exit 0 when all is well, 3 otherwise."""

import json
import os
import shutil
import stat

import pytest

from openalice.core import resources
from openalice.core.schema import Validator

KEY = "sk-doctor-secret-31337"


@pytest.fixture
def fakebin(tmp_path):
    """Fake agent CLIs that print their pinned versions, and a crontab with no entries."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    versions = {"claude": "2.1.197 (Claude Code)", "codex": "codex-cli 0.171.0", "opencode": "1.18.33",
                "pi": "0.73.1"}
    for name, version in versions.items():
        script = bindir / name
        script.write_text(f"#!/bin/sh\necho '{version}'\n")
        script.chmod(0o755)
    crontab = bindir / "crontab"
    crontab.write_text("#!/bin/sh\nexit 1\n")
    crontab.chmod(0o755)
    return bindir


def _doctor(cli, path_dirs, *extra):
    env = {"PATH": os.pathsep.join([*map(str, path_dirs), "/usr/bin", "/bin"])}
    r = cli("alice", "doctor", *extra, env=env)
    return r


def _tighten(isolated_homes):
    for var in ("OPENALICE_HOME", "HARNESS_HOME"):
        os.chmod(isolated_homes[var], 0o700)


def test_all_well_exits_0(cli, workspace, isolated_homes, fakebin):
    _tighten(isolated_homes)
    assert cli("alice", "credential", "add", "ds-1", "--vendor", "deepseek", input=KEY).returncode == 0
    assert cli("alice", "settings", "set", "--default-agent", "codex", cwd=workspace).returncode == 0
    r = _doctor(cli, [fakebin], "--json")
    doc = r.json()
    assert Validator(resources.schema("doctor")).errors(doc) == []
    assert r.returncode == 0 and doc["ok"] is True and doc["summary"]["attention"] == 0, doc["findings"]
    by_check = {}
    for f in doc["findings"]:
        by_check.setdefault(f["check"], []).append(f)
    assert {f["subject"] for f in by_check["agents"]} == {"claude", "codex", "opencode", "pi"}
    assert all(f["status"] == "ok" for f in by_check["agents"])
    assert any("2.1.197" in f["message"] for f in by_check["agents"])
    assert [f["subject"] for f in by_check["credentials"]] == ["ds-1"]
    assert by_check["workspaces"][0]["status"] == "ok"
    assert {f["check"] for f in doc["findings"]} >= {"homes", "credentials", "agents", "workspaces", "adapters",
                                                     "timers"}
    assert [a["version"] for a in doc["agents"] if a["name"] == "pi"] == ["0.73.1"]
    human = _doctor(cli, [fakebin])
    assert human.returncode == 0 and "all well" in human.stdout
    lines = human.stdout.strip().splitlines()
    assert len(lines) == len(doc["findings"]) + 1  # one line per finding, then the summary
    assert KEY not in r.stdout + human.stdout


def test_loose_home_missing_workspace_and_missing_default_agent(cli, workspace, isolated_homes, fakebin, tmp_path):
    _tighten(isolated_homes)
    os.chmod(isolated_homes["OPENALICE_HOME"], 0o755)
    assert cli("alice", "settings", "set", "--default-agent", "pi", cwd=workspace).returncode == 0
    (fakebin / "pi").unlink()
    other = tmp_path / "gone"
    assert cli("alice", "workspace", "init", str(other)).returncode == 0
    shutil.rmtree(other / ".alice")
    r = _doctor(cli, [fakebin], "--json")
    assert r.returncode == 3
    doc = r.json()
    attention = [f["message"] for f in doc["findings"] if f["status"] == "attention"]
    assert any("looser than 0700" in m for m in attention)
    assert any("headless default agent 'pi' is not on PATH" in m for m in attention)
    assert any("gone" in m and "missing" in m for m in attention)
    info = [f["message"] for f in doc["findings"] if f["status"] == "info"]
    assert any("pi: 'pi' is not on PATH" in m for m in info)  # absent CLI alone is informational
    human = _doctor(cli, [fakebin])
    assert human.returncode == 3 and "[!!]" in human.stdout and "needs attention" in human.stdout


def test_credential_without_key_and_invalid_settings(cli, workspace, isolated_homes, fakebin):
    _tighten(isolated_homes)
    assert cli("alice", "credential", "add", "k-1", "--vendor", "openai", input=KEY).returncode == 0
    (isolated_homes["OPENALICE_HOME"] / "vault" / "secrets" / "k-1.env").unlink()
    (workspace / ".alice" / "settings.json").write_text(json.dumps({"version": 1, "token": "x"}))
    r = _doctor(cli, [fakebin], "--json")
    assert r.returncode == 3
    attention = {f["check"]: f["message"] for f in r.json()["findings"] if f["status"] == "attention"}
    assert "k-1 has no key stored" in attention["credentials"]
    assert "secret-shaped" in attention["settings"]


def test_secret_file_permissions_are_checked(cli, isolated_homes, fakebin):
    _tighten(isolated_homes)
    assert cli("alice", "credential", "add", "k-1", "--vendor", "openai", input=KEY).returncode == 0
    secret = isolated_homes["OPENALICE_HOME"] / "vault" / "secrets" / "k-1.env"
    os.chmod(secret, 0o644)
    r = _doctor(cli, [fakebin], "--json")
    assert r.returncode == 3
    assert any("secret file" in f["message"] and "0644" in f["message"] for f in r.json()["findings"])
    assert stat.S_IMODE(secret.stat().st_mode) == 0o644  # doctor changes nothing


def test_a_broken_agent_cli_needs_attention(cli, isolated_homes, fakebin):
    _tighten(isolated_homes)
    (fakebin / "codex").write_text("#!/bin/sh\necho boom >&2\nexit 7\n")
    r = _doctor(cli, [fakebin], "--json")
    assert r.returncode == 3
    assert any(f.get("subject") == "codex" and f["status"] == "attention" and "exited 7" in f["message"]
               for f in r.json()["findings"])
