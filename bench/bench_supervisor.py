"""What supervision costs on top of a bare capture of the same engine output.

An engine stand-in prints a large codex ``--json`` stream (agent messages and
shell tool calls, ~10 MB).  Compared, each round interleaved:

- baseline: ``subprocess.run(capture_output=True)`` of the stand-in, then the
  same normalizer fed line by line in this process (the unavoidable work);
- supervised: ``supervisor.run_task`` of a task record for the same stand-in
  (binding, projection, process group, capped logs, live ``structured.json``
  snapshots, journal facts, record updates, native session capture).

The script checks that both agree: ``stdout.log`` equals the captured bytes
and the final ``structured.json`` equals the baseline normalizer's document.
Run: ``python bench/bench_supervisor.py [rounds]``.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report

MESSAGES = 12000


def make_stream(path: Path) -> None:
    lines = [json.dumps({"type": "thread.started", "thread_id": "0199-bench-thread"})]
    for i in range(MESSAGES):
        lines.append(json.dumps({"type": "item.completed", "item": {
            "id": f"item_{i}", "type": "agent_message", "text": f"step {i}: " + "lorem ipsum " * 40}}))
        if i % 10 == 0:
            command = {"id": f"cmd_{i}", "type": "command_execution", "command": f"ls -la dir{i}",
                       "aggregated_output": "file\n" * 50, "exit_code": 0, "status": "completed"}
            lines.append(json.dumps({"type": "item.started", "item": {**command, "status": "in_progress"}}))
            lines.append(json.dumps({"type": "item.completed", "item": command}))
    lines.append(json.dumps({"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 5}}))
    path.write_text("\n".join(lines) + "\n")


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    base = Path(tempfile.mkdtemp(prefix="bench-supervisor-"))
    try:
        return run(base, rounds)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run(base: Path, rounds: int) -> int:
    os.environ.update(OPENALICE_HOME=str(base / "home"), HARNESS_HOME=str(base / "harness"),
                      HOME=str(base / "user"), ALICE_NOW="2026-03-02T09:00:00Z")
    (base / "user").mkdir()
    stream = base / "stream.jsonl"
    make_stream(stream)
    bindir = base / "bin"
    bindir.mkdir()
    engine = bindir / "codex"
    engine.write_text(f"#!{sys.executable}\nimport shutil, sys\n"
                      f"with open({str(stream)!r}, 'rb') as fh:\n    shutil.copyfileobj(fh, sys.stdout.buffer)\n")
    engine.chmod(0o755)
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"

    from openalice import workspaces
    from openalice.core import clock
    from openalice.runs import supervisor, tasks
    from openalice.runs.streams import normalizer_for

    ws, _ = workspaces.init(base / "ws", label="Bench", now=clock.now())

    def baseline():
        out = subprocess.run([str(engine)], capture_output=True, check=True).stdout
        normalizer = normalizer_for("codex-json")
        for line in out.splitlines(keepends=True):
            normalizer.feed(line)
        return out, normalizer.finish()

    def supervised():
        task = tasks.create_task({
            "workspaceId": ws.id, "createdAt": clock.to_iso(clock.now()), "owner": "@new-each-run",
            "runtimeRequest": {"agent": "codex"}, "prompt": "bench", "timeoutMs": None})
        record = supervisor.run_task(task["taskId"])
        directory = tasks.task_dir(task["taskId"])
        return record, (directory / "stdout.log").read_bytes(), json.loads((directory / "structured.json").read_text())

    times = {"baseline": [], "supervised": []}
    expected = None
    for _ in range(rounds):
        start = time.perf_counter()
        out, document = baseline()
        times["baseline"].append(time.perf_counter() - start)
        start = time.perf_counter()
        record, log, structured = supervised()
        times["supervised"].append(time.perf_counter() - start)
        if record["status"] != "done" or log != out or structured != document:
            print("DISAGREE: the supervised run's log or structured output differs from the baseline",
                  file=sys.stderr)
            return 1
        expected = document
    b, s = statistics.median(times["baseline"]), statistics.median(times["supervised"])
    report("Supervisor", [
        ("stream", f"{stream.stat().st_size / 1e6:.1f} MB, {MESSAGES} messages, "
                   f"{expected['metrics']['toolCalls']} tool calls ({len(expected['blocks'])} blocks kept)"),
        ("baseline (capture + normalize)", f"{b * 1000:.0f} ms"),
        ("supervised run_task", f"{s * 1000:.0f} ms = {s / b:.2f}× the baseline"),
        ("agreement", "stdout.log and structured.json equal the baseline's in every round"),
    ])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
