"""The supervisor's steps are explicit objects sharing one :class:`RunState` (no mixins): the
state each step changes is the one it was given."""

from __future__ import annotations

import ast
import subprocess
import threading

from openalice.core import proc as procs
from openalice.runs.supervisor import context, engine, finish, run, state
from tests.conftest import REPO

SUPERVISOR = REPO / "openalice" / "runs" / "supervisor"


def test_no_class_of_the_supervisor_is_assembled_from_others():
    mixed = []
    for path in sorted(SUPERVISOR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b) for b in node.bases]
                if bases not in ([], ["Exception"], ["threading.Thread"]):
                    mixed.append(f"{path.name}: {node.name}({', '.join(bases)})")
    assert mixed == []
    assert run.Run.__mro__ == (run.Run, object)


def test_the_steps_share_the_state_they_were_given(tmp_path):
    shared = state.RunState("t-steps")
    ctx = context.RunContext(shared)
    eng = engine.Engine(shared, ctx)
    fin = finish.Finish(shared, ctx)
    assert eng.state is fin.state is ctx.state is shared and eng.context is fin.context is ctx
    shared.record = {"trigger": {"issueId": "daily"}, "issueId": "other"}
    assert ctx.issue_id == "daily"                      # the trigger names the issue first
    shared.record = {"issueId": "other", "trigger": "not an object"}
    assert ctx.issue_id == "other"


def sleeper() -> subprocess.Popen:
    return procs.spawn(["sleep", "30"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def test_interrupt_keeps_the_first_reason_and_stops_the_process_it_holds():
    shared = state.RunState("t-interrupt")
    shared.interrupt("first")
    shared.interrupt("second")
    assert shared.interruption == "first" and shared.proc is None
    shared.proc = sleeper()
    try:
        shared.interrupt("third")
        assert shared.proc.wait(timeout=10) is not None
        assert shared.interruption == "first"
    finally:
        procs.kill_group(shared.proc.pid, 9)


def test_the_watchdog_marks_the_shared_state_killed(monkeypatch):
    shared = state.RunState("t-watchdog")
    eng = engine.Engine(shared, context.RunContext(shared))
    shared.proc = sleeper()
    try:
        finished = threading.Event()
        finished.set()
        eng.watchdog(finished, 0)                      # the run ended first: nothing happens
        assert shared.killed is False and shared.proc.poll() is None
        eng.watchdog(threading.Event(), 0.01)
        assert shared.killed is True
        assert shared.proc.wait(timeout=10) is not None
    finally:
        procs.kill_group(shared.proc.pid, 9)
