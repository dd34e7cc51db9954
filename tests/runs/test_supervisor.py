"""The run supervisor in-process (``run_task``) against stand-in engines.

The stand-ins (``standins.py``) check the argv they get, replay the real CLIs'
recorded streams, and log each call, so every test here checks the projection,
the process set-up, the normalized output and the bookkeeping in one go.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import pytest

from openalice.runs import supervisor
from openalice.runs.supervisor import capture, engine
from tests.helpers.polling import wait_for
from tests.helpers.schemas import conforms

from .conftest import NOW, journal_facts, structured_of
from .standins import ENGINES

PROMPT = "Summarize the open issues in reports/summary.md"


def new_task(tasks, ws, *, owner="@new-each-run", request=None, prompt=PROMPT, timeout_ms=None,
             issue_id="daily-report") -> str:
    task_id = tasks.new_task_id()
    tasks.create_task({
        "version": 1, "taskId": task_id, "status": "running", "workspaceId": ws.id, "issueId": issue_id,
        "trigger": {"kind": "issue", "workspaceId": ws.id, "issueId": issue_id, "fire": "schedule",
                    "slot": NOW},
        "owner": owner, "runtimeRequest": request or {}, "prompt": prompt, "timeoutMs": timeout_ms,
        "createdAt": NOW, "processStarted": False})
    return task_id


def request_for(engine: str) -> dict:
    return {"agent": engine, "model": "fake-model", "effort": "high"}




# -- the status rule ---------------------------------------------------------------------------------

@pytest.mark.parametrize("exit_code, killed, interrupted, engine_failed, error_after_text, expected", [
    (0, False, False, False, False, "done"),
    (1, False, False, False, False, "failed"),
    (None, False, False, False, False, "failed"),
    (0, True, False, False, False, "failed"),
    (0, False, False, True, False, "failed"),      # pi: exit 0 after an API error
    (0, False, False, False, True, "failed"),
    (0, True, True, False, False, "interrupted"),
    (1, False, True, False, False, "interrupted"),
])
def test_status_rule(exit_code, killed, interrupted, engine_failed, error_after_text, expected):
    assert supervisor.status_for(exit_code=exit_code, killed=killed, interrupted=interrupted,
                                 engine_failed=engine_failed, error_after_text=error_after_text) == expected


def test_output_summary_is_a_digest():
    text = "é" * 1500
    summary = supervisor.output_summary({
        "assistantText": text, "blocks": [{"type": "text", "text": text}, {"type": "tool"}],
        "metrics": {"toolCalls": 1, "toolFailures": 1}, "truncated": True})
    assert summary == {"hasAssistantReply": True, "assistantPreview": "é" * 1000, "blockCount": 2,
                       "toolCalls": 1, "toolFailures": 1, "truncated": True}
    assert supervisor.output_summary({"assistantText": None, "blocks": [], "metrics": {}})[
        "hasAssistantReply"] is False


# -- fresh runs and resume, every engine ---------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_fresh_run_normalizes_the_stream_and_captures_the_session(engine, registry, ws, standins):
    from openalice import sessions
    from openalice.agents import shims_dir

    tasks, _ = registry
    task_id = new_task(tasks, ws, request=request_for(engine))

    record = supervisor.run_task(task_id)

    assert record["status"] == "done", record
    assert record["exitCode"] == 0 and record["processStarted"] is True and record["killed"] is False
    assert record["agent"] == engine and record["model"] == "fake-model" and record["effort"] == "high"
    assert record["supervisor"]["pid"] == os.getpid()
    native = standins.recorded_session(engine)
    assert record["agentSessionId"] == native
    assert sessions.native_session_id(ws, record["resumeId"]) == native
    structured = structured_of(tasks, task_id)
    conforms("structured-output", structured)
    assert structured["assistantText"] == standins.expected_text(engine)
    assert record["output"] == supervisor.output_summary(structured)
    assert record["output"]["assistantPreview"].startswith("FAKE-REPLY[")
    conforms("task-record", tasks.load_task(task_id))
    # The raw stream is kept byte for byte.
    task_dir = Path(tasks.task_dir(task_id))
    assert (task_dir / "stdout.log").read_bytes() == (standins.fixtures / f"{engine}-stream.jsonl").read_bytes()
    # The process: the projected argv (checked by the stand-in), the run environment, its own group.
    [call] = standins.calls()
    assert call["prompt"] == PROMPT
    assert call["resume"] is None
    assert Path(call["cwd"]).resolve() == ws.root.resolve()
    assert call["run_env"] == {"ALICE_RUN_ID": task_id, "ALICE_RESUME_ID": record["resumeId"],
                               "ALICE_WORKSPACE_ID": ws.id}
    # The workspace's shims first (written for the run), then the toolkit's tools.
    assert call["path_head"] == [str(ws.root / ".alice" / "bin"), str(shims_dir())]
    assert (ws.root / ".alice" / "bin" / "alice").read_bytes().startswith(b"#!/bin/sh")
    assert call["pgid_is_pid"] is True


@pytest.mark.parametrize("engine", ENGINES)
def test_resume_owner_replays_its_binding_and_native_session(engine, registry, ws, standins):
    from openalice import sessions

    tasks, _ = registry
    first = supervisor.run_task(new_task(tasks, ws, owner="@new-then-resume", request=request_for(engine)))
    assert first["status"] == "done", first
    resume_id = first["resumeId"]

    second = supervisor.run_task(new_task(tasks, ws, owner=f"@{resume_id}"))

    assert second["status"] == "done", second
    assert second["resumeId"] == resume_id
    assert second["agent"] == engine and second["model"] == "fake-model" and second["effort"] == "high"
    assert second["parentTaskId"] == first["taskId"]
    calls = standins.calls()
    assert [c["resume"] for c in calls] == [None, first["agentSessionId"]]
    assert calls[1]["run_env"]["ALICE_RESUME_ID"] == resume_id
    assert structured_of(tasks, second["taskId"])["assistantText"] == standins.expected_text(engine, "resume-stream")
    # The resumed engine kept its session: the same id is recorded again, and no new session was born.
    assert second["agentSessionId"] == first["agentSessionId"]
    found, problems = sessions.list_sessions(ws)
    assert [b.resume_id for b in found] == [resume_id] and problems == []
    started = [f for f in journal_facts() if f["type"] == "runtime.started"]
    assert [f["payload"]["resumed"] for f in started] == [False, True]


def test_new_each_run_makes_a_new_session_every_fire(registry, ws, standins):
    from openalice import sessions

    tasks, _ = registry
    a = supervisor.run_task(new_task(tasks, ws, request=request_for("codex")))
    b = supervisor.run_task(new_task(tasks, ws, request=request_for("codex")))

    assert a["status"] == b["status"] == "done"
    assert a["resumeId"] != b["resumeId"]
    assert [c["resume"] for c in standins.calls()] == [None, None]
    found, _ = sessions.list_sessions(ws)
    assert sorted(s.resume_id for s in found) == sorted([a["resumeId"], b["resumeId"]])


def test_journal_facts_of_a_run(registry, ws, standins):
    tasks, _ = registry
    task_id = new_task(tasks, ws, request=request_for("claude"))
    record = supervisor.run_task(task_id)

    facts = journal_facts()
    types = [f["type"] for f in facts]
    assert types[0] == "session.born" and types[1] == "runtime.started" and types[-1] == "runtime.stopped"
    assert set(types[2:-1]) <= {"runtime.turn.text", "runtime.turn.tool", "runtime.turn.error"}
    assert "runtime.turn.text" in types
    born, started, stopped = facts[0], facts[1], facts[-1]
    assert born["payload"]["resumeId"] == record["resumeId"]
    assert born["payload"]["agent"] == "claude" and born["payload"]["workspaceId"] == ws.id
    assert started["causedBy"] == born["seq"]
    assert started["payload"]["cause"] == {"kind": "issue", "workspaceId": ws.id, "issueId": "daily-report",
                                           "fire": "schedule"}
    assert all(f["causedBy"] == started["seq"] for f in facts[2:])
    assert stopped["payload"]["status"] == "done"
    assert stopped["payload"]["exitCode"] == 0
    assert stopped["payload"]["assistantText"] == record["output"]["assistantPreview"]
    assert stopped["payload"]["metrics"] == structured_of(tasks, task_id)["metrics"]
    assert stopped["payload"]["truncated"] is False
    assert "error" not in stopped["payload"]


def test_turn_facts_are_capped_per_run(registry, ws, standins, monkeypatch):
    tasks, _ = registry
    monkeypatch.setattr(engine, "JOURNAL_TURN_LIMIT", 1)
    standins.behave("tool")
    supervisor.run_task(new_task(tasks, ws, request=request_for("claude")))

    facts = journal_facts()
    turns = [f for f in facts if f["type"].startswith("runtime.turn.")]
    assert len(turns) == 1
    stopped = facts[-1]["payload"]
    assert stopped["turnEventsNotJournalled"] >= 2


@pytest.mark.parametrize("engine", ENGINES)
def test_api_error_fails_the_run_even_on_exit_zero(engine, registry, ws, standins):
    tasks, _ = registry
    standins.behave("error")
    task_id = new_task(tasks, ws, request=request_for(engine))

    record = supervisor.run_task(task_id)

    assert record["status"] == "failed", record
    assert record["processStarted"] is True
    assert "error" not in record and "launchErrorCode" not in record   # not a launch failure
    structured = structured_of(tasks, task_id)
    assert any(b["type"] == "error" for b in structured["blocks"])
    assert structured["assistantText"] is None
    stopped = journal_facts()[-1]
    assert stopped["type"] == "runtime.stopped" and stopped["payload"]["status"] == "failed"
    assert "400" in stopped["payload"]["error"]


@pytest.mark.parametrize("name,reason,detail", [
    ("claude-nologin", "not_logged_in", "Not logged in · Please run /login"),
    ("codex-404", "model_not_found", "does not exist"),
    ("pi-nologin", "not_logged_in", "No API key found"),
    ("opencode-401", "credential_rejected", "Incorrect API key"),
])
def test_a_failed_run_records_why(name, reason, detail, registry, ws, standins):
    tasks, _ = registry
    engine = name.split("-")[0]
    standins.behave("failure", name=name, exitCode=1)
    task_id = new_task(tasks, ws, request=request_for(engine))

    record = supervisor.run_task(task_id)

    assert record["status"] == "failed"
    assert record["reason"] == reason and detail in record["detail"], record
    assert tasks.load_task(task_id)["reason"] == reason
    stopped = journal_facts()[-1]["payload"]
    assert stopped["reason"] == reason and stopped["detail"] == record["detail"]


def test_a_done_run_has_no_reason(registry, ws, standins):
    tasks, _ = registry
    record = supervisor.run_task(new_task(tasks, ws, request=request_for("codex")))
    assert record["status"] == "done" and "reason" not in record and "detail" not in record


def test_tool_stream(registry, ws, standins):
    tasks, _ = registry
    standins.behave("tool")
    task_id = new_task(tasks, ws, request=request_for("codex"))
    record = supervisor.run_task(task_id)
    assert record["status"] == "done"
    assert record["output"]["toolCalls"] >= 1 and record["output"]["toolFailures"] == 0
    assert structured_of(tasks, task_id)["assistantText"] == standins.expected_text("codex", "tool-stream")


# -- launch failures -------------------------------------------------------------------------------------

def test_missing_executable_is_a_launch_failure(registry, ws, tmp_path, monkeypatch):
    tasks, _ = registry
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    task_id = new_task(tasks, ws, request=request_for("claude"))

    record = supervisor.run_task(task_id)

    assert record["status"] == "failed"
    assert record["processStarted"] is False
    assert record["launchErrorCode"] == "executable_not_found"
    assert record["exitCode"] == -1
    assert "claude" in record["error"]
    assert record["reason"] == "agent_missing"
    facts = journal_facts()
    assert [f["type"] for f in facts] == ["session.born", "runtime.started", "runtime.spawn_failed"]
    assert facts[-1]["payload"]["launchErrorCode"] == "executable_not_found"
    assert facts[-1]["causedBy"] == facts[1]["seq"]


def test_unexecutable_file_is_spawn_failed(registry, ws, tmp_path, monkeypatch):
    tasks, _ = registry
    bindir = tmp_path / "bad-bin"
    bindir.mkdir()
    (bindir / "codex").write_text("not a program\n")
    (bindir / "codex").chmod(0o644)
    monkeypatch.setenv("PATH", str(bindir))
    # No execute bit at all: EACCES, even for root.
    record = supervisor.run_task(new_task(tasks, ws, request=request_for("codex")))
    assert record["status"] == "failed"
    assert record["launchErrorCode"] == "spawn_failed"
    assert record["processStarted"] is False and record["exitCode"] == -1
    assert "Permission denied" in record["error"]


def test_an_unresolvable_runtime_fails_before_anything_starts(registry, ws, standins):
    tasks, _ = registry
    record = supervisor.run_task(new_task(tasks, ws, request={"agent": "no-such-engine"}))

    assert record["status"] == "failed"
    assert record["processStarted"] is False
    assert "launchErrorCode" not in record
    assert "no-such-engine" in record["error"]
    assert standins.calls() == []
    assert [f["type"] for f in journal_facts()] == ["runtime.spawn_failed"]


def test_unknown_resume_owner_fails(registry, ws, standins):
    tasks, _ = registry
    record = supervisor.run_task(new_task(tasks, ws, owner="@resume-calm-amber-river-zzzzzz"))
    assert record["status"] == "failed" and "resume-calm-amber-river-zzzzzz" in record["error"]
    assert standins.calls() == []


def test_a_finished_task_is_not_run_again(registry, ws, standins):
    tasks, _ = registry
    task_id = new_task(tasks, ws, request=request_for("pi"))
    first = supervisor.run_task(task_id)
    again = supervisor.run_task(task_id)
    assert again == tasks.load_task(task_id) and again["finishedAt"] == first["finishedAt"]
    assert len(standins.calls()) == 1


# -- watchdog, interruption, process group ----------------------------------------------------------------

def test_watchdog_terminates_the_group(registry, ws, standins, monkeypatch):
    tasks, _ = registry
    standins.behave("hang")
    record = supervisor.run_task(new_task(tasks, ws, request=request_for("claude"), timeout_ms=300))
    assert record["status"] == "failed"
    assert record["killed"] is True
    assert record["signal"] == "SIGTERM" and "exitCode" not in record
    assert record["reason"] == "timeout"
    stopped = journal_facts()[-1]["payload"]
    assert stopped["killed"] is True and "watchdog" in stopped["error"]
    # The stream read before the kill is kept.
    assert record["output"]["hasAssistantReply"] is True


def test_watchdog_escalates_to_sigkill(registry, ws, standins, monkeypatch):
    tasks, _ = registry
    monkeypatch.setattr(engine, "KILL_GRACE", 0.3)
    standins.behave("hang-ignore-term")
    record = supervisor.run_task(new_task(tasks, ws, request=request_for("pi"), timeout_ms=200))
    assert record["status"] == "failed" and record["killed"] is True
    assert record["signal"] == "SIGKILL"


def test_interrupt_stops_the_agent_and_reads_interrupted(registry, ws, standins):
    from openalice.core import proc as procs

    tasks, _ = registry
    standins.behave("hang")
    task_id = new_task(tasks, ws, request=request_for("claude"))
    box = {}
    runner = threading.Thread(target=lambda: box.setdefault("record", supervisor.run_task(task_id)))
    runner.start()
    pid = int(wait_for(lambda: (standins.bin / "hanging").exists()
                       and (standins.bin / "hanging").read_text(), "the stand-in to hang"))
    # While it runs: the record says running, and structured.json already holds the reply so far.
    assert tasks.load_task(task_id)["status"] == "running"
    live = wait_for(lambda: (Path(tasks.task_dir(task_id)) / "structured.json").exists()
                    and structured_of(tasks, task_id), "a structured.json snapshot while running")
    assert live["assistantText"] == standins.expected_text("claude")

    assert supervisor.interrupt_current("stopped by the test")
    runner.join(30)
    record = box["record"]
    assert record["status"] == "interrupted"
    assert record["interruptionReason"] == "stopped by the test"
    assert not procs.group_alive(pid)
    assert journal_facts()[-1]["payload"]["status"] == "interrupted"


def test_leftover_descendants_are_stopped_when_the_agent_exits(registry, ws, tmp_path, monkeypatch):
    """A grandchild that keeps stdout open must not keep the run open forever."""
    tasks, _ = registry
    bindir = tmp_path / "orphan-bin"
    bindir.mkdir()
    marker = tmp_path / "grandchild.pid"
    script = bindir / "codex"
    script.write_text(f"""#!{os.sys.executable}
import json, os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open({str(marker)!r}, "w").write(str(child.pid))
print(json.dumps({{"type": "thread.started", "thread_id": "0199-orphan"}}), flush=True)
print(json.dumps({{"type": "item.completed", "item": {{"id": "i1", "type": "agent_message", "text": "bye"}}}}), flush=True)
os._exit(0)
""")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")

    record = supervisor.run_task(new_task(tasks, ws, request=request_for("codex")))

    assert record["status"] == "done", record
    assert record["agentSessionId"] == "0199-orphan"
    grandchild = int(marker.read_text())
    from openalice.core import proc as procs
    assert not procs.is_alive(grandchild, None)


def test_raw_logs_are_capped_but_drained(registry, ws, standins, monkeypatch):
    tasks, _ = registry
    monkeypatch.setattr(capture, "STREAM_CAP", 700)
    standins.behave("tool")
    task_id = new_task(tasks, ws, request=request_for("claude"))

    record = supervisor.run_task(task_id)

    assert record["status"] == "done"
    log = (Path(tasks.task_dir(task_id)) / "stdout.log").read_bytes()
    recorded = (standins.fixtures / "claude-tool-stream.jsonl").read_bytes()
    assert log.startswith(recorded[:700])
    assert log[700:].startswith(b"\n[openalice: log capped at 700 bytes; ")
    assert f"{len(recorded) - 700} bytes not kept".encode() in log
    # Normalization saw everything.
    assert structured_of(tasks, task_id)["assistantText"] == standins.expected_text("claude", "tool-stream")


def test_an_overlong_line_is_cut_not_held(registry, ws, tmp_path, monkeypatch):
    tasks, _ = registry
    monkeypatch.setattr(capture, "LINE_LIMIT", 1024)
    bindir = tmp_path / "long-bin"
    bindir.mkdir()
    script = bindir / "codex"
    script.write_text(f"""#!{os.sys.executable}
import json, sys
print(json.dumps({{"type": "thread.started", "thread_id": "t-long"}}))
sys.stdout.write("x" * 5000 + "\\n")
print(json.dumps({{"type": "item.completed", "item": {{"id": "i1", "type": "agent_message", "text": "after"}}}}))
""")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    task_id = new_task(tasks, ws, request=request_for("codex"))
    record = supervisor.run_task(task_id)
    assert record["status"] == "done"
    assert structured_of(tasks, task_id)["assistantText"] == "after"
    assert len((Path(tasks.task_dir(task_id)) / "stdout.log").read_bytes()) > 5000


# -- secrets ----------------------------------------------------------------------------------------------

CANARY = "sk-ant-CANARY-" + "7f3e9a1c5b2d4e6f" * 2


def _tree_contains(root: Path, needle: bytes, *, skip: tuple[Path, ...] = ()) -> list[str]:
    hits = []
    for path in root.rglob("*"):
        if any(path == s or s in path.parents for s in skip) or not path.is_file():
            continue
        try:
            if needle in path.read_bytes():
                hits.append(str(path))
        except OSError:
            pass
    return hits


@pytest.mark.parametrize("engine", ["claude", "codex", "pi", "opencode"])
def test_a_vault_secret_reaches_only_the_child_environment(engine, registry, ws, standins, isolated_homes):
    from openalice import credentials
    from openalice.core import clock

    tasks, _ = registry
    if engine == "claude":
        credentials.add("canary", vendor="anthropic", secret=CANARY, base_url="http://127.0.0.1:9/",
                        now=clock.now())
    else:
        credentials.add("canary", vendor="custom", secret=CANARY, wire_specs=["openai-responses=http://127.0.0.1:9/v1",
                                                                              "openai-chat=http://127.0.0.1:9/v1"],
                        now=clock.now())
    request = {"agent": engine, "credential": "canary", "model": "fake-model"}
    task_id = new_task(tasks, ws, request=request)

    record = supervisor.run_task(task_id)

    assert record["status"] == "done", record
    [call] = standins.calls()
    fingerprint = hashlib.sha256(CANARY.encode()).hexdigest()
    assert fingerprint in call["secret_sha256"].values(), call  # the child did get the key...
    assert CANARY not in json.dumps(call["argv"])                # ...never on argv
    needle = CANARY.encode()
    vault = credentials.vault_dir()
    home = Path(isolated_homes["OPENALICE_HOME"])
    assert _tree_contains(home, needle, skip=(vault,)) == []     # task record, logs, structured, journal
    assert _tree_contains(ws.root, needle) == []
    assert CANARY not in json.dumps(tasks.load_task(task_id))


def test_an_admitted_run_releases_its_live_marker(registry, ws, standins):
    from openalice.core import clock

    tasks, admission = registry
    issue = {"id": "daily-report", "title": "Daily report", "assignee": "@new-each-run", "agent": "codex",
             "model": "fake-model", "what": PROMPT, "timeout_seconds": 900}
    record = admission.admit(ws, issue, fire="run-now", now=clock.now())
    assert [m["taskId"] for m in admission.live_runs()] == [record["taskId"]]
    assert record["timeoutMs"] == 900_000

    final = supervisor.run_task(record["taskId"])

    assert final["status"] == "done" and final["displayName"] == "Daily report"
    assert admission.live_runs() == []
    # A second run of the same issue is admitted again now.
    assert admission.admit(ws, issue, fire="run-now", now=clock.now())["taskId"] != record["taskId"]


def test_an_unknown_task_is_refused_cleanly(registry, ws, capsys):
    from openalice.core.errors import NotFound

    with pytest.raises(NotFound):
        supervisor.run_task("run-AAAAAAAA")
    assert supervisor.main(["run-AAAAAAAA"]) == 2
    assert "unknown task run-AAAAAAAA" in capsys.readouterr().err
    assert supervisor.main(["--help"]) == 2
    assert journal_facts() == []


def test_a_process_that_left_the_group_cannot_hold_the_run_open(registry, ws, tmp_path, monkeypatch):
    from openalice.core import proc as procs

    tasks, _ = registry
    monkeypatch.setattr(engine, "DRAIN_TIMEOUT", 0.3)
    bindir = tmp_path / "escape-bin"
    bindir.mkdir()
    marker = tmp_path / "escaped.pid"
    script = bindir / "codex"
    script.write_text(f"""#!{os.sys.executable}
import json, os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
open({str(marker)!r}, "w").write(str(child.pid))
print(json.dumps({{"type": "item.completed", "item": {{"id": "i1", "type": "agent_message", "text": "bye"}}}}), flush=True)
""")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    try:
        record = supervisor.run_task(new_task(tasks, ws, request=request_for("codex")))
        assert record["status"] == "done"
        assert record["output"]["assistantPreview"] == "bye"
    finally:
        procs.kill_group(int(marker.read_text()), 9)


def test_the_pump_splits_chunks_into_lines_and_cuts_overlong_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(capture, "LINE_LIMIT", 100)
    monkeypatch.setattr(capture, "READ_SIZE", 7)     # lines straddle reads
    read_fd, write_fd = os.pipe()
    lines: list[bytes] = []
    pump = capture.Pump(os.fdopen(read_fd, "rb"), tmp_path / "out.log", lines.append, "test")
    pump.start()
    data = b"first\n" + b"y" * 250 + b"\nsecond\n" + b"z" * 120 + b"tail without newline"
    os.write(write_fd, data)
    os.close(write_fd)
    pump.join(10)
    assert lines == [b"first\n", b"y" * 100, b"second\n", b"z" * 100]
    assert (tmp_path / "out.log").read_bytes() == data
    assert pump.error is None
