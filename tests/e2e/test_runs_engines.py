"""The whole loop through the installed tools, with stand-in engines first on PATH.

``alice issue create`` → ``alice-schedule scan`` (which launches a detached
supervisor) → ``alice-schedule run TASK --wait``.  The stand-ins named
``claude``, ``codex``, ``opencode`` and ``pi`` (``tests/runs/standins.py``)
check the argv they get and replay the real CLIs' recorded streams, so each
test checks the projection, the normalized output, the native session id
capture and, on the next fire, the resume with that id.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.helpers.polling import wait_for
from tests.helpers.schemas import schema_errors
from tests.runs.standins import ENGINES, StandIns, fixtures_dir

CREATED = "2026-03-02T08:00:00Z"
T0 = "2026-03-02T09:00:00Z"
T1 = "2026-03-02T09:01:00Z"
PROMPT = "Write today's report to reports/daily.md"


@pytest.fixture
def engines(tmp_path) -> StandIns:
    return StandIns(tmp_path / "standin-bin", fixtures_dir())


def env_for(engines: StandIns, now: str, **extra) -> dict:
    return {"ALICE_NOW": now, "PATH": engines.path_env(), **extra}


def create_issue(cli, workspace: Path, *args: str) -> dict:
    result = cli("alice", "issue", "create", "--title", "Daily report", "--id", "daily", "--body", PROMPT,
                 *args, "--json", cwd=workspace, env={"ALICE_NOW": CREATED})
    assert result.returncode == 0, result
    return result.json()


def scan(cli, engines: StandIns, now: str, **extra) -> list[dict]:
    result = cli("alice-schedule", "scan", "--json", env=env_for(engines, now, **extra))
    assert result.returncode == 0, result
    return result.json()["fired"]


def wait_run(cli, task_id: str, timeout: int = 60) -> dict:
    result = cli("alice-schedule", "run", task_id, "--wait", "--timeout", str(timeout), "--json",
                 timeout=timeout + 30)
    assert result.returncode == 0, result
    return result.json()


def show_run(cli, task_id: str) -> dict:
    result = cli("alice-schedule", "run", task_id, "--json")
    assert result.returncode == 0, result
    return result.json()




def journal(cli) -> list[dict]:
    result = cli("alice", "journal", "--limit", "100", "--json")
    assert result.returncode == 0, result
    return list(reversed(result.json()["entries"]))      # oldest first


@pytest.mark.parametrize("engine", ENGINES)
def test_scheduled_issue_runs_then_resumes_its_session(engine, cli, workspace, engines):
    create_issue(cli, workspace, "--every", "1m", "--agent", engine, "--model", "fake-model", "--effort", "high")

    [fired] = scan(cli, engines, T0)
    first = wait_run(cli, fired["taskId"])

    task = first["task"]
    assert task["status"] == "done", first
    assert task["processStarted"] is True and task["exitCode"] == 0
    assert task["agent"] == engine and task["model"] == "fake-model" and task["effort"] == "high"
    native = engines.recorded_session(engine)
    assert task["agentSessionId"] == native
    assert first["structured"]["assistantText"] == engines.expected_text(engine)
    assert schema_errors("structured-output", first["structured"]) == []
    assert schema_errors("task-record", tasks_record(task["taskId"])) == []
    resume_id = task["resumeId"]
    # The claim: the issue now names the session it created, without the runtime tuple.
    issue_text = (workspace / ".alice" / "issues" / "daily.md").read_text()
    assert f'assignee: "@{resume_id}"' in issue_text
    assert "agent:" not in issue_text and "model:" not in issue_text
    [call] = engines.calls()
    assert call["prompt"] == PROMPT and call["resume"] is None
    assert call["run_env"] == {"ALICE_RUN_ID": task["taskId"], "ALICE_RESUME_ID": resume_id,
                               "ALICE_WORKSPACE_ID": task["workspaceId"]}
    assert Path(call["cwd"]).resolve() == workspace.resolve()

    [fired2] = scan(cli, engines, T1)
    second = wait_run(cli, fired2["taskId"])

    task2 = second["task"]
    assert task2["status"] == "done", second
    assert task2["owner"] == f"@{resume_id}" and task2["resumeId"] == resume_id
    assert task2["parentTaskId"] == task["taskId"]
    assert task2["agent"] == engine and task2["model"] == "fake-model"
    calls = engines.calls()
    assert calls[1]["resume"] == native          # resumed with the id captured on the first run
    assert second["structured"]["assistantText"] == engines.expected_text(engine, "resume-stream")
    assert task2["agentSessionId"] == native

    facts = journal(cli)
    types = [f["type"] for f in facts]
    assert types.count("runtime.started") == 2 and types.count("runtime.stopped") == 2
    assert types.count("session.born") == 1


def tasks_record(task_id: str) -> dict:
    from openalice.runs import tasks

    return tasks.load_task(task_id)


def test_new_each_run_never_resumes(cli, workspace, engines):
    create_issue(cli, workspace, "--every", "1m", "--assignee", "@new-each-run", "--agent", "codex")
    [a] = scan(cli, engines, T0)
    first = wait_run(cli, a["taskId"])["task"]
    [b] = scan(cli, engines, T1)
    second = wait_run(cli, b["taskId"])["task"]
    assert first["status"] == second["status"] == "done"
    assert first["resumeId"] != second["resumeId"]
    assert [c["resume"] for c in engines.calls()] == [None, None]
    assert "@new-each-run" in (workspace / ".alice" / "issues" / "daily.md").read_text()


def test_a_successful_at_issue_is_marked_done(cli, workspace, engines):
    create_issue(cli, workspace, "--at", "2026-03-02T08:59:00Z", "--agent", "pi", "--model", "fake-model")
    [fired] = scan(cli, engines, T0)
    assert wait_run(cli, fired["taskId"])["task"]["status"] == "done"
    shown = cli("alice", "issue", "show", "daily", "--json", cwd=workspace).json()
    assert (shown.get("issue") or shown)["status"] == "done"
    assert scan(cli, engines, T1) == []


def test_a_failed_at_issue_stays_open(cli, workspace, engines):
    engines.behave("error")
    create_issue(cli, workspace, "--at", "2026-03-02T08:59:00Z", "--agent", "claude")
    [fired] = scan(cli, engines, T0)
    run = wait_run(cli, fired["taskId"])
    assert run["task"]["status"] == "failed"
    assert run["task"]["failure"]["kind"] == "process_exit"
    shown = cli("alice", "issue", "show", "daily", "--json", cwd=workspace).json()
    assert (shown.get("issue") or shown)["status"] == "todo"


def test_a_failed_run_says_why_in_every_view(cli, workspace, engines):
    """A not-logged-in pi (its recorded stream and stderr replayed): run, runs and
    health say why in words, with the next step, the end of stderr and the logs."""
    engines.behave("failure", name="pi-nologin", exitCode=1)
    create_issue(cli, workspace, "--every", "1m", "--agent", "pi")
    [fired] = scan(cli, engines, T0)
    run = wait_run(cli, fired["taskId"])
    task = run["task"]
    assert task["status"] == "failed" and task["reason"] == "not_logged_in", task
    assert "No API key found" in task["detail"]
    assert task["failure"]["reason"] == "not_logged_in" and "`pi`" in task["failure"]["next"]
    assert run["stderrTail"] and "docs/models.md" in run["stderrTail"][-1]
    for name, doc in (("schedule-run", run), ("task-record", tasks_record(task["taskId"]))):
        assert schema_errors(name, doc) == [], name

    shown = cli("alice-schedule", "run", task["taskId"], env={"ALICE_NOW": T0}).stdout
    assert "why: Not logged in: No API key found for anthropic." in shown, shown
    assert "next: run `pi` and type `/login`" in shown and "alice credential add" in shown
    assert "stderr (last lines):" in shown and "logs: " in shown and "stderr.log" in shown
    listed = cli("alice-schedule", "runs", env={"ALICE_NOW": T0})
    assert "not_logged_in" in listed.stdout and "why: Not logged in" in listed.stdout, listed.stdout
    runs = cli("alice-schedule", "runs", "--json").json()
    assert runs["runs"][0]["reason"] == "not_logged_in" and schema_errors("schedule-runs", runs) == []
    # Health: pi has no login here (no key variable, no ~/.pi/agent/auth.json): blocked, saying so.
    health = cli("alice-schedule", "health", env={"ALICE_NOW": T0, "PATH": engines.path_env()}).stdout
    assert "blocked: agent 'pi' is not logged in" in health and "next: run `pi` and type `/login`" in health, health
    # With a login the failed run speaks for itself.
    health = cli("alice-schedule", "health", env={"ALICE_NOW": T0, "PATH": engines.path_env(),
                                                  "GEMINI_API_KEY": "x"}).stdout
    assert "why: Not logged in: No API key found" in health and "stderr (last lines):" in health, health


def test_missing_engine_blocks_the_scan_and_is_a_launch_error_at_spawn(cli, workspace, engines, tmp_path,
                                                                      monkeypatch):
    # A PATH with only a python3 (the tools' launchers need one) and no engine.
    only_python = tmp_path / "only-python"
    only_python.mkdir()
    (only_python / "python3").symlink_to(sys.executable)
    create_issue(cli, workspace, "--every", "1m", "--agent", "codex")
    # The scan does not start a run that cannot start: skipped, stays due, health says blocked.
    result = cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": T0, "PATH": str(only_python)})
    assert result.returncode == 0, result
    report = result.json()
    assert report["fired"] == [] and [s["reason"] for s in report["skipped"]] == ["agent_not_installed"]
    assert "'codex' is not on PATH" in report["skipped"][0]["detail"]
    health = cli("alice-schedule", "health", "--json", env={"ALICE_NOW": T0, "PATH": str(only_python)}).json()
    assert health["issues"][0]["state"] == "blocked"
    assert health["issues"][0]["blocker"]["reason"] == "agent_not_installed"
    # Admitted while the engine was there, spawned after it went away: a launch error.
    [fired] = scan(cli, engines, T0, OPENALICE_TEST_LAUNCH="none")
    monkeypatch.setenv("PATH", str(only_python))
    from openalice.runs import supervisor

    supervisor.launch(fired["taskId"])
    task = wait_run(cli, fired["taskId"])["task"]
    assert task["status"] == "failed" and task["processStarted"] is False
    assert task["launchErrorCode"] == "executable_not_found" and task["exitCode"] == -1
    assert task["failure"]["kind"] == "launch_error"
    assert "runtime.spawn_failed" in [f["type"] for f in journal(cli)]


def test_watchdog_timeout_is_a_timeout_failure(cli, workspace, engines, monkeypatch):
    """A 15m budget cannot be waited for; the record's budget is shortened before launch."""
    engines.behave("hang")
    create_issue(cli, workspace, "--every", "1m", "--agent", "claude", "--timeout", "15m")
    # Admission only (no launch), then a 0.5 s budget, then the real detached supervisor.
    [fired] = scan(cli, engines, T0, OPENALICE_TEST_LAUNCH="none")
    from openalice.runs import supervisor, tasks

    assert tasks.load_task(fired["taskId"])["timeoutMs"] == 15 * 60 * 1000
    tasks.update_task(fired["taskId"], {"timeoutMs": 500})
    monkeypatch.setenv("PATH", engines.path_env())
    supervisor.launch(fired["taskId"])
    task = wait_run(cli, fired["taskId"])["task"]
    assert task["status"] == "failed" and task["killed"] is True and task["signal"] == "SIGTERM"
    assert task["failure"]["kind"] == "timeout"


def _hanging_run(cli, workspace, engines) -> tuple[str, int, int]:
    """A launched run whose engine hangs: (task id, supervisor pid, engine pid)."""
    engines.behave("hang")
    create_issue(cli, workspace, "--every", "1m", "--agent", "claude")
    [fired] = scan(cli, engines, T0)
    engine_pid = int(wait_for(lambda: (engines.bin / "hanging").exists() and (engines.bin / "hanging").read_text(),
                              "the engine to hang"))
    supervisor_pid = tasks_record(fired["taskId"])["supervisor"]["pid"]
    return fired["taskId"], supervisor_pid, engine_pid


def test_sigterm_to_the_supervisor_interrupts_the_run(cli, workspace, engines):
    from openalice.core import proc

    task_id, supervisor_pid, engine_pid = _hanging_run(cli, workspace, engines)
    assert show_run(cli, task_id)["task"]["status"] == "running"

    os.kill(supervisor_pid, signal.SIGTERM)
    task = wait_run(cli, task_id)["task"]

    assert task["status"] == "interrupted"
    assert task["interruptionReason"] == "supervisor received SIGTERM"
    assert task["processStarted"] is True
    assert not proc.group_alive(engine_pid)
    stopped = [f for f in journal(cli) if f["type"] == "runtime.stopped"]
    assert stopped and stopped[0]["payload"]["status"] == "interrupted"


def test_sigkill_of_the_supervisor_reads_interrupted(cli, workspace, engines):
    from openalice.core import proc

    task_id, supervisor_pid, engine_pid = _hanging_run(cli, workspace, engines)
    try:
        os.kill(supervisor_pid, signal.SIGKILL)
        wait_for(lambda: not proc.is_alive(supervisor_pid, None), "the supervisor to die")

        run = show_run(cli, task_id)

        assert run["task"]["status"] == "interrupted"
        assert run["task"]["interruptionReason"] == "supervisor_exited"
        assert tasks_record(task_id)["status"] == "running"     # the stored record is not rewritten
        health = cli("alice-schedule", "health", "--json", env={"ALICE_NOW": T0}).json()
        assert "interrupted" in json.dumps(health)
    finally:
        proc.kill_group(engine_pid, signal.SIGKILL)


CANARY = "sk-ant-api03-CANARY-" + "c0ffee" * 8


def test_a_vault_secret_stays_in_the_child_environment(cli, workspace, engines, isolated_homes):
    added = cli("alice", "credential", "add", "canary", "-", "--vendor", "anthropic", "--base-url",
                "http://127.0.0.1:9", input=CANARY)
    assert added.returncode == 0, added
    create_issue(cli, workspace, "--every", "1m", "--agent", "claude", "--credential", "canary",
                 "--model", "claude-sonnet-4-6")
    [fired] = scan(cli, engines, T0)
    task = wait_run(cli, fired["taskId"])["task"]
    assert task["status"] == "done"
    [fired2] = scan(cli, engines, T1)       # and once more, resuming
    assert wait_run(cli, fired2["taskId"])["task"]["status"] == "done"

    fingerprint = hashlib.sha256(CANARY.encode()).hexdigest()
    assert all(fingerprint in c["secret_sha256"].values() for c in engines.calls())
    needle = CANARY.encode()
    home = Path(isolated_homes["OPENALICE_HOME"])
    hits = [str(p) for root in (home, workspace) for p in root.rglob("*")
            if p.is_file() and "vault" not in p.relative_to(root).parts and needle in p.read_bytes()]
    assert hits == []
    assert CANARY not in json.dumps(engines.calls())


WRAPPER = r'''#!{python}
import json, os, sys
args = sys.argv[1:]
if "--model" not in args:
    sys.exit(2)
resume = args[args.index("--resume") + 1] if "--resume" in args else None
prompt = sys.stdin.read()
with open({log!r}, "a") as fh:
    fh.write(json.dumps({{"argv": args, "prompt": prompt, "run": os.environ.get("ALICE_RUN_ID")}}) + "\n")
print(json.dumps({{"type": "session", "id": resume or "wrap-" + os.environ["ALICE_RUN_ID"]}}))
print(json.dumps({{"type": "tool", "id": "t1", "name": "grep", "status": "running", "input": {{"q": "x"}}}}))
print(json.dumps({{"type": "tool", "id": "t1", "status": "completed", "output": "3 hits"}}))
print("plain line from the engine")
print(json.dumps({{"type": "text", "text": ("resumed " + resume) if resume else "fresh turn"}}))
'''


def write_catalog(tmp_path: Path, entries: list[dict]) -> Path:
    catalog = tmp_path / "catalog" / "adapters.json"
    catalog.parent.mkdir(exist_ok=True)
    catalog.write_text(json.dumps({"version": "adapters/v1", "adapters": entries}))
    return catalog


def test_a_wrapper_engine_from_the_catalog_runs_and_resumes(cli, workspace, engines, tmp_path):
    log = tmp_path / "wrapper-calls.jsonl"
    wrapper = tmp_path / "catalog" / "my-engine"
    wrapper.parent.mkdir()
    wrapper.write_text(WRAPPER.format(python=sys.executable, log=str(log)))
    wrapper.chmod(0o755)
    catalog = write_catalog(tmp_path, [{"id": "my-engine", "kind": "cli", "wrapper": "my-engine",
                                        "models": ["m-1"]}])
    extra = {"HARNESS_CATALOG": str(catalog)}
    result = cli("alice", "issue", "create", "--title", "Wrapped", "--id", "daily", "--body", PROMPT,
                 "--every", "1m", "--agent", "my-engine", "--model", "m-1", "--effort", "low",
                 cwd=workspace, env={"ALICE_NOW": CREATED, **extra})
    assert result.returncode == 0, result

    [fired] = scan(cli, engines, T0, **extra)
    first = wait_run(cli, fired["taskId"])
    [fired2] = scan(cli, engines, T1, **extra)
    second = wait_run(cli, fired2["taskId"])

    assert first["task"]["status"] == "done", first
    assert first["structured"]["assistantText"] == "plain line from the engine\n\nfresh turn"
    assert first["task"]["output"]["toolCalls"] == 1
    native = "wrap-" + fired["taskId"]
    assert first["task"]["agentSessionId"] == native
    assert second["task"]["status"] == "done", second
    assert second["structured"]["assistantText"].endswith("resumed " + native)
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls[0]["argv"] == ["--model", "m-1", "--effort", "low"]
    assert calls[1]["argv"] == ["--model", "m-1", "--effort", "low", "--resume", native]
    assert calls[0]["prompt"] == PROMPT and calls[0]["run"] == fired["taskId"]


def test_a_wrapper_passing_a_native_stream_is_read_in_that_format(cli, workspace, engines, tmp_path):
    """The catalog's `stream` extension: a wrapper that execs claude passes stream-json through."""
    wrapper = tmp_path / "catalog" / "claude-wrap"
    wrapper.parent.mkdir()
    wrapper.write_text("#!/bin/sh\nexec claude -p --output-format stream-json --verbose "
                       "--dangerously-skip-permissions -- \"$(cat)\"\n")
    wrapper.chmod(0o755)
    catalog = write_catalog(tmp_path, [{"id": "claude-wrap", "kind": "cli", "wrapper": "claude-wrap",
                                        "models": ["sonnet"], "stream": "claude-stream-json"}])
    extra = {"HARNESS_CATALOG": str(catalog)}
    result = cli("alice", "issue", "create", "--title", "Wrapped", "--id", "daily", "--body", PROMPT,
                 "--every", "1m", "--agent", "claude-wrap", "--model", "sonnet",
                 cwd=workspace, env={"ALICE_NOW": CREATED, **extra})
    assert result.returncode == 0, result
    [fired] = scan(cli, engines, T0, **extra)
    run = wait_run(cli, fired["taskId"])
    assert run["task"]["status"] == "done", run
    assert run["structured"]["assistantText"] == engines.expected_text("claude")
    assert run["task"]["agentSessionId"] == engines.recorded_session("claude")
