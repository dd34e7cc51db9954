"""``alice session open`` and ``alice chat`` with stand-in interactive CLIs.

Argv, environment and cwd of the launched CLI on fresh launch and on resume
(interactive flags, no secret in argv or in what ``ps`` shows, the workspace's
shims first), the engine id recorded so the next open resumes, the recent
choice, the journal facts, and every refusal before launch.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.helpers.schemas import conforms

from .interactive_standins import ENGINES, InteractiveStandIns

NOW = "2026-12-01T10:00:00Z"
CANARY = "sk-canary-open-must-not-leak-4f1d"


@pytest.fixture
def standins(tmp_path) -> InteractiveStandIns:
    return InteractiveStandIns(tmp_path / "standins")


@pytest.fixture
def env(standins, isolated_homes) -> dict:
    return {"PATH": standins.path_env(), "ALICE_NOW": NOW}


def open_session(cli, workspace, env, *args, extra_env=None):
    return cli("alice", "session", "open", *args, cwd=workspace, env={**env, **(extra_env or {})})


def journal_types(cli) -> list[str]:
    result = cli("alice", "journal", "--limit", "50", "--json")
    assert result.returncode == 0, result
    return [e["type"] for e in result.json()["entries"]]


@pytest.mark.parametrize("engine", ENGINES)
def test_fresh_open_then_resume_continues_the_engine_session(engine, cli, workspace, env, standins):
    first = open_session(cli, workspace, env, "--new", "--agent", engine)
    assert first.returncode == 0, first
    [call] = standins.calls()
    assert call["cwd"] == str(workspace)
    assert call["pathHead"][0] == str(workspace / ".alice" / "bin"), "the workspace's shims come first"
    assert call["resumed"] is None
    argv = call["argv"]
    full_access = {"claude": ["--dangerously-skip-permissions"],
                   "codex": ["--sandbox", "danger-full-access", "--ask-for-approval", "never"],
                   "opencode": ["--auto"], "pi": []}[engine]
    for flag in full_access:
        assert flag in argv, (engine, argv)
    assert "-p" not in argv and "exec" not in argv and "run" not in argv, "interactive, not headless"

    listed = cli("alice", "session", "list", "--json", cwd=workspace, env=env)
    assert listed.returncode == 0, listed
    conforms("session-list", listed.json())
    [session] = listed.json()["sessions"]
    native = session["nativeSessionId"]
    assert session["bornOn"] == "interactive"
    assert session["lastLaunch"]["surface"] == "interactive" and session["lastLaunch"]["exitStatus"] == 0
    if engine == "claude":
        assert argv[argv.index("--session-id") + 1] == native, "claude's id is given up front"

    again = open_session(cli, workspace, env, session["resumeId"])
    assert again.returncode == 0, again
    second = standins.calls()[-1]
    assert second["resumed"] == native, (engine, second["argv"])
    for flag in full_access:
        assert flag in second["argv"], "full access on resume as on fresh launch"
    assert "--session-id" not in second["argv"]


def test_the_exit_status_is_the_clis_and_the_journal_records_open_and_close(cli, workspace, env, standins):
    result = open_session(cli, workspace, env, "--new", "--agent", "claude", extra_env={"STANDIN_EXIT": "7"})
    assert result.returncode == 7, result
    types = journal_types(cli)
    assert "session.opened" in types and "session.closed" in types
    page = cli("alice", "journal", "--type", "session.closed", "--json").json()
    [closed] = page["entries"]
    assert closed["payload"]["exitStatus"] == 7


def test_extra_arguments_go_to_the_cli_after_its_own_flags(cli, workspace, env, standins):
    result = open_session(cli, workspace, env, "--new", "--agent", "claude", "--", "--verbose", "hello there")
    assert result.returncode == 0, result
    argv = standins.calls()[-1]["argv"]
    assert argv[-2:] == ["--verbose", "hello there"]


@pytest.mark.parametrize("engine", ["claude", "codex", "opencode", "pi"])
def test_a_vault_key_reaches_only_the_environment(engine, cli, workspace, env, standins, tmp_path):
    vendor = {"claude": "anthropic", "codex": "openai", "opencode": "deepseek", "pi": "deepseek"}[engine]
    added = cli("alice", "credential", "add", "key-1", "--vendor", vendor, input=CANARY, env=env)
    assert added.returncode == 0, added
    result = open_session(cli, workspace, env, "--new", "--agent", engine, "--credential", "key-1",
                          *(("--model", "deepseek-v4-pro") if vendor == "deepseek" else ()))
    assert result.returncode == 0, result
    call = standins.calls()[-1]
    assert CANARY not in json.dumps(call["argv"]) and CANARY not in json.dumps(call["cmdline"])
    assert hashlib.sha256(CANARY.encode()).hexdigest() in call["secrets"].values()
    for path in [*workspace.rglob("*"), *Path(env.get("OPENALICE_HOME", tmp_path)).rglob("*")]:
        if path.is_file() and "vault" not in path.parts:
            assert CANARY not in path.read_text(errors="replace"), path
    assert CANARY not in result.stdout + result.stderr
    shown = cli("alice", "session", "show", cli("alice", "session", "list", "--json", cwd=workspace,
                                                   env=env).json()["sessions"][0]["resumeId"],
                cwd=workspace, env=env)
    assert shown.returncode == 0, shown
    assert CANARY not in shown.stdout and "=<secret>" in shown.stdout


def test_the_recent_choice_is_recorded_and_shown(cli, workspace, env, standins):
    result = open_session(cli, workspace, env, "--new", "--agent", "codex", "--model", "gpt-5.5",
                          "--effort", "high")
    assert result.returncode == 0, result
    settings = json.loads((workspace / ".alice" / "settings.json").read_text())
    recent = settings["runtime"]["interactive"]["recent"]
    assert recent == {"agent": "codex", "agents": {"codex": {"accessMode": "native", "model": "gpt-5.5",
                                                             "reasoningEffort": "high"}}}
    shown = cli("alice", "settings", "show", cwd=workspace, env=env)
    assert shown.returncode == 0 and "recent" in shown.stdout, shown


def test_chat_creates_the_default_session_once_then_reopens_it(cli, workspace, env, standins):
    first = cli("alice", "chat", cwd=workspace, env=env)
    assert first.returncode == 0, first
    second = cli("alice", "chat", cwd=workspace, env=env)
    assert second.returncode == 0, second
    sessions = cli("alice", "session", "list", "--json", cwd=workspace, env=env).json()["sessions"]
    assert len(sessions) == 1 and sessions[0]["agent"] == "claude"
    calls = standins.calls()
    assert calls[0]["resumed"] is None and calls[1]["resumed"] == sessions[0]["nativeSessionId"]


@pytest.mark.parametrize("args, code, exit_code", [
    (("--new", "resume-calm-amber-river-abcdef"), "usage", 2),
    ((), "usage", 2),
    (("resume-calm-amber-river-abcdef",), "session_not_found", 2),
])
def test_bad_combinations_are_refused_naming_them(args, code, exit_code, cli, workspace, env, standins):
    result = cli("alice", "session", "open", *args, "--json", cwd=workspace, env=env)
    assert result.returncode == exit_code, result
    assert result.json()["error"]["code"] == code
    assert standins.calls() == []


def test_a_frozen_binding_is_not_changed_by_open_flags(cli, workspace, env, standins):
    made = cli("alice", "session", "new", "--agent", "claude", "--json", cwd=workspace, env=env)
    resume_id = made.json()["session"]["resumeId"]
    result = cli("alice", "session", "open", resume_id, "--model", "other", "--json", cwd=workspace, env=env)
    assert result.returncode == 2, result
    error = result.json()["error"]
    assert error["code"] == "binding_frozen" and error["field"] == "model"
    assert standins.calls() == []


def test_a_missing_agent_or_credential_is_refused_before_launch(cli, workspace, env, standins, tmp_path):
    bare = {**env, "PATH": "/usr/bin:/bin"}
    missing = cli("alice", "session", "open", "--new", "--agent", "codex", "--json", cwd=workspace, env=bare)
    assert missing.returncode == 3 and missing.json()["error"]["code"] == "agent_missing", missing
    assert cli("alice", "session", "list", "--json", cwd=workspace, env=env).json()["sessions"] == [], \
        "nothing is created for a launch that cannot start"

    cli("alice", "credential", "add", "gone-1", "--vendor", "anthropic", input=CANARY, env=env)
    made = cli("alice", "session", "new", "--agent", "claude", "--credential", "gone-1", "--json",
               cwd=workspace, env=env)
    assert made.returncode == 0, made
    cli("alice", "credential", "remove", "gone-1", env=env)
    gone = cli("alice", "session", "open", made.json()["session"]["resumeId"], "--json", cwd=workspace, env=env)
    assert gone.returncode == 2 and gone.json()["error"]["code"] == "credential_not_found", gone
    assert standins.calls() == []


def test_show_prints_the_command_open_would_run(cli, workspace, env, standins):
    made = cli("alice", "session", "new", "--agent", "codex", "--json", cwd=workspace, env=env)
    resume_id = made.json()["session"]["resumeId"]
    shown = cli("alice", "session", "show", resume_id, "--json", cwd=workspace, env=env)
    assert shown.returncode == 0, shown
    conforms("session", shown.json())
    opened = shown.json()["open"]
    assert opened["argv"][0] == "codex" and "--sandbox" in opened["argv"]
    assert opened["cwd"] == str(workspace)
    assert standins.calls() == [], "show never launches"


INTERACTIVE_WRAPPER = r'''#!{python}
import json, os, sys, uuid
args = sys.argv[1:]
record = {{"argv": args, "cwd": os.getcwd(), "stdinIsTty": os.isatty(0),
          "sessionFile": os.environ.get("HARNESS_SESSION_FILE")}}
with open({log!r}, "a") as log:
    log.write(json.dumps(record) + "\n")
if "--resume" not in args and os.environ.get("HARNESS_SESSION_FILE"):
    with open(os.environ["HARNESS_SESSION_FILE"], "w") as out:
        out.write("eng-" + uuid.uuid4().hex[:12] + "\n")
'''


def test_a_catalog_wrapper_that_declares_interactive_opens_and_resumes(cli, workspace, env, tmp_path):
    import sys

    log = tmp_path / "wrapper-calls.jsonl"
    catalog = tmp_path / "catalog" / "adapters.json"
    catalog.parent.mkdir()
    wrapper = catalog.parent / "my-engine"
    wrapper.write_text(INTERACTIVE_WRAPPER.format(python=sys.executable, log=str(log)))
    wrapper.chmod(0o755)
    plain = catalog.parent / "plain-engine"
    plain.write_text("#!/bin/sh\nexit 0\n")
    plain.chmod(0o755)
    catalog.write_text(json.dumps({"version": "adapters/v1", "adapters": [
        {"id": "my-engine", "kind": "cli", "wrapper": "my-engine", "models": ["m-1"], "interactive": True},
        {"id": "plain-engine", "kind": "cli", "wrapper": "plain-engine", "models": ["m-1"]}]}))
    env = {**env, "HARNESS_CATALOG": str(catalog)}

    first = cli("alice", "session", "open", "--new", "--agent", "my-engine", "--model", "m-1", cwd=workspace,
                env=env)
    assert first.returncode == 0, first
    [session] = cli("alice", "session", "list", "--json", cwd=workspace, env=env).json()["sessions"]
    native = session["nativeSessionId"]
    assert native.startswith("eng-"), session
    again = cli("alice", "session", "open", session["resumeId"], cwd=workspace, env=env)
    assert again.returncode == 0, again
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls[0]["argv"] == ["--interactive", "--model", "m-1"] and calls[0]["cwd"] == str(workspace)
    assert calls[1]["argv"] == ["--interactive", "--model", "m-1", "--resume", native]
    assert calls[1]["sessionFile"] is None, "a resumed session is told nothing to write"

    refused = cli("alice", "session", "open", "--new", "--agent", "plain-engine", "--model", "m-1", "--json",
                  cwd=workspace, env=env)
    assert refused.returncode == 2 and refused.json()["error"]["code"] == "not_interactive", refused
