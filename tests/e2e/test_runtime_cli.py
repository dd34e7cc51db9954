"""The agent-runtime verbs as a new user runs them, each --json output checked
against its schema: credential from stdin -> headless preference -> session ->
binding frozen -> preference changed -> old binding unchanged -> doctor."""

import json

from tests.helpers.schemas import conforms

KEY = "sk-user-flow-secret-0042"
NOW = {"ALICE_NOW": "2026-11-30T09:00:00Z"}


def test_new_user_flow(cli, workspace):
    run = lambda *a, **k: cli("alice", *a, cwd=workspace, env=NOW, **k)
    assert run("credential", "add", "ds-1", "--vendor", "deepseek", input=KEY + "\n").returncode == 0

    r = run("settings", "set", "--agent", "pi", "--credential", "ds-1", "--model", "deepseek-v4-pro",
            "--effort", "high", "--default", "--json")
    assert r.returncode == 0, r
    shown = conforms("settings-show", r.json())
    assert shown["settings"]["runtime"]["headless"]["defaultAgent"] == "pi"
    conforms("settings", json.loads((workspace / ".alice" / "settings.json").read_text()))

    r = run("session", "new", "--name", "Nightly report", "--json")
    assert r.returncode == 0, r
    born = conforms("session", r.json())
    sid = born["session"]["resumeId"]
    assert born["session"] == {"resumeId": sid, "agent": "pi",
                               "credential": {"source": "vault", "credentialSlug": "ds-1"},
                               "model": "deepseek-v4-pro", "reasoningEffort": "high",
                               "displayName": "Nightly report", "createdAt": "2026-11-30T09:00:00Z"}
    assert born["sources"]["agent"] == "defaultAgent" and born["sources"]["credential"] == "fixed"
    path = workspace / ".alice" / "sessions" / f"{sid}.json"
    frozen = path.read_bytes()
    conforms("session-binding", json.loads(frozen))

    r = run("settings", "set", "--agent", "pi", "--native-credential", "--model", "other-model", "--effort", "low")
    assert r.returncode == 0, r
    assert path.read_bytes() == frozen
    shown = conforms("session", run("session", "show", sid, "--json").json())
    assert shown["session"] == born["session"]
    listed = conforms("session-list", run("session", "list", "--json").json())
    assert [s["resumeId"] for s in listed["sessions"]] == [sid] and listed["problems"] == []
    header, row = run("session", "list").stdout.splitlines()
    assert header.split() == ["RESUME", "ID", "AGENT", "CREDENTIAL", "MODEL", "EFFORT", "BORN", "LAST", "LAUNCH",
                              "NATIVE", "ID", "NAME"]
    assert row.split()[:3] == [sid, "pi", "vault:ds-1"]

    # A new session now follows the new preference; the old one did not move.
    newer = run("session", "new", "--json").json()["session"]
    assert newer["credential"] == {"source": "native"} and newer["model"] == "other-model"

    # Freezing the old id with a different binding fails with exit 3 and leaves it alone.
    r = run("session", "new", "--resume-id", sid, "--agent", "pi", "--json")
    assert r.returncode == 3 and r.json()["error"]["code"] == "binding_conflict"
    assert path.read_bytes() == frozen
    same = run("session", "new", "--resume-id", sid, "--agent", "pi", "--credential", "ds-1", "--effort", "high",
               "--model", "deepseek-v4-pro", "--json")
    assert same.returncode == 0 and path.read_bytes() == frozen

    # replace: credential/model/effort may change, the agent never.
    r = run("session", "replace", sid, "--native-credential", "--no-effort", "--json")
    assert r.returncode == 0, r
    replaced = conforms("session", r.json())["session"]
    assert replaced["agent"] == "pi" and replaced["credential"] == {"source": "native"}
    assert "reasoningEffort" not in replaced and replaced["displayName"] == "Nightly report"
    assert run("session", "replace", sid, "--agent", "codex").returncode == 2

    for out in (r.stdout, shown, listed):
        assert KEY not in json.dumps(out)


def test_session_cli_errors(cli, workspace):
    run = lambda *a, **k: cli("alice", *a, cwd=workspace, **k)
    r = run("session", "new", "--agent", "nonesuch", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "unknown_agent"
    r = run("session", "new", "--agent", "pi", "--effort", "max", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "effort_unsupported"
    assert "pi does not accept effort 'max'" in r.json()["error"]["message"]
    r = run("session", "new", "--credential", "nope", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "credential_not_found"
    r = run("session", "new", "--credential", "x", "--native-credential", "--json")
    assert r.returncode == 2
    r = run("session", "show", "resume-no-such-session-abcdef", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "session_not_found"
    conforms("error", r.json())


def test_settings_cli(cli, workspace):
    run = lambda *a, **k: cli("alice", *a, cwd=workspace, **k)
    absent = conforms("settings-show", run("settings", "show", "--json").json())
    assert absent["status"] == "absent"
    r = run("settings", "set", "--agent", "codex", "--credential", "missing", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "credential_not_found"
    r = run("settings", "set", "--agent", "claude", "--effort", "none", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "effort_unsupported"
    assert run("settings", "set", "--default-agent", "codex").returncode == 0
    assert run("settings", "set", "--surface", "interactive", "--agent", "claude", "--model", "claude-opus-5").returncode == 0
    doc = conforms("settings-show", run("settings", "show", "--json").json())
    assert doc["settings"]["runtime"] == {
        "headless": {"defaultAgent": "codex"},
        "interactive": {"agents": {"claude": {"accessMode": "native", "model": "claude-opus-5"}}}}
    assert run("settings", "unset", "--default-agent").returncode == 0
    assert "headless" not in run("settings", "show", "--json").json()["settings"]["runtime"]
    (workspace / ".alice" / "settings.json").write_text('{"version": 1, "runtime": {"headless": {"apiKey": "x"}}}')
    bad = run("settings", "show", "--json")
    assert bad.returncode == 2 and conforms("settings-show", bad.json())["status"] == "invalid"
    assert "secret-shaped" in bad.json()["error"]["message"]
    human = run("settings", "show")
    assert "runtime/headless/apiKey" in human.stdout or "secret-shaped" in human.stdout


def test_models_cli(cli):
    listed = conforms("models-list", cli("alice", "models", "list", "--json").json())
    assert len(listed["models"]) >= 50
    only = conforms("models-list", cli("alice", "models", "list", "--vendor", "xai", "--json").json())
    assert {m["model"] for m in only["models"]} == {"grok-4.6", "grok-4.5"}
    shown = conforms("models-show", cli("alice", "models", "show", "gpt-5.6-sol", "--json").json())
    assert shown["known"] and shown["matches"][0]["contextWindow"] == 1_050_000
    unknown = cli("alice", "models", "show", "my-own-finetune", "--json")
    assert unknown.returncode == 0 and conforms("models-show", unknown.json())["known"] is False
    bad = cli("alice", "models", "list", "--vendor", "acme", "--json")
    assert bad.returncode == 2 and bad.json()["error"]["code"] == "unknown_vendor"
    human = cli("alice", "models", "show", "LongCat-2.0")
    assert "Reasoning optional · thinking default on" in human.stdout


def test_writes_from_a_run_stay_in_its_workspace(cli, workspace, tmp_path):
    other = tmp_path / "other"
    assert cli("alice", "workspace", "init", str(other)).returncode == 0
    run_env = {"ALICE_RUN_ID": "run-AbCdEf12", "ALICE_WORKSPACE_ID": "test-ws"}
    own = cli("alice", "session", "new", "--agent", "codex", "--json", env=run_env, cwd=tmp_path)
    assert own.returncode == 0, own  # the run's workspace is inferred from the run environment
    assert own.json()["file"].startswith(str(workspace))
    foreign = cli("alice", "settings", "set", "--default-agent", "pi", "--workspace", str(other), "--json",
                  env=run_env)
    assert foreign.returncode == 4 and foreign.json()["error"]["code"] == "cross_workspace"
    r = cli("alice", "session", "new", "--workspace", "other", "--json", env=run_env)
    assert r.returncode == 4
    vault = cli("alice", "credential", "add", "x", "--vendor", "openai", "--json", env=run_env, input="k")
    assert vault.returncode == 4 and vault.json()["error"]["code"] == "cross_workspace"
    assert cli("alice", "credential", "list", "--json", env=run_env).returncode == 0  # reading is fine
