"""The agent's process: projection, spawn, capture hand-off to the normalizer, watchdog."""

from __future__ import annotations

import os
import subprocess
import threading
import time

from openalice import agents
from openalice.agents import shims
from openalice.core import fs
from openalice.core import proc as procs
from openalice.core.errors import AliceError
from openalice.runs import results

from .capture import Pump, SnapshotWriter, feed_stdin
from .context import LaunchError

KILL_GRACE = 5.0                     # SIGTERM → SIGKILL
DRAIN_TIMEOUT = 5.0                  # after the group is gone, wait this long for the pipes to close
JOURNAL_TURN_LIMIT = 50              # runtime.turn.* facts journalled per run


class EngineSteps:
    """The steps of :class:`~.run.Run` that start and watch the engine (a mixin)."""

    def interrupt(self, reason: str) -> None:
        """Stop the run: the agent's group gets SIGTERM, then SIGKILL after the grace."""
        if self.interruption is None:
            self.interruption = reason
        proc = self.proc
        if proc is not None and proc.returncode is None:
            threading.Thread(target=procs.terminate_group, args=(proc.pid,),
                             kwargs={"grace": KILL_GRACE, "proc": proc}, name="interrupt", daemon=True).start()

    # -- the steps --
    def project(self, native_id: str | None):
        self.ensure_shims()
        try:
            adapter = agents.get_adapter(self.binding.agent)
            run_dir = fs.ensure_dir(self.dir / results.ENGINE_DIR, 0o700)
            projection = adapter.project(
                self.binding, mode="headless", prompt=self.record.get("prompt") or "",
                native_session_id=native_id, workspace=self.ws.root,
                run_env={"ALICE_RUN_ID": self.task_id, "ALICE_RESUME_ID": self.binding.resume_id,
                         "ALICE_WORKSPACE_ID": self.ws.id},
                base_env=os.environ, run_dir=run_dir)
            model = adapter.model_for({"model": self.binding.model},
                                      adapter.resolve_access(self.binding.credential))
        except AliceError as exc:
            raise LaunchError(f"cannot start {self.binding.agent}: {exc}") from None
        return adapter, projection, model

    def ensure_shims(self) -> None:
        """The workspace's CLI shims (``.alice/bin``), first on the agent's PATH,
        are (re)written for every run, so they always run this toolkit."""
        try:
            shims.ensure(self.ws.root)
        except Exception as exc:
            self.note(f"workspace shims not written: {exc}")

    def spawn(self, projection):
        stdin = subprocess.PIPE if projection.stdin is not None else subprocess.DEVNULL
        try:
            return procs.spawn(projection.argv, cwd=self.ws.root, env=projection.env, stdin=stdin,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError as exc:
            if exc.filename is not None and os.fspath(exc.filename) == os.fspath(self.ws.root):
                raise LaunchError(f"workspace directory {self.ws.root} does not exist",
                                   "spawn_failed") from None
            raise LaunchError(f"executable not found: {projection.argv[0]}", "executable_not_found") from None
        except OSError as exc:
            raise LaunchError(f"cannot start {projection.argv[0]}: {exc.strerror or exc}", "spawn_failed") from None

    def on_stdout_line(self, line: bytes) -> None:
        with self.lock:
            events = self.normalizer.feed(line)
        if events:
            self.journal_turns(events)
            if not self.writer.dirty.is_set():
                self.writer.dirty.set()

    def journal_turns(self, events) -> None:
        for event in events:
            if self.journalled_turns >= JOURNAL_TURN_LIMIT:
                self.skipped_turns += 1
                continue
            self.journalled_turns += 1
            payload = {"taskId": self.task_id, **event.payload()}
            self.journal(event.journal_type, payload, caused_by=self.started_seq)

    def snapshot(self) -> dict:
        with self.lock:
            return self.normalizer.snapshot()

    # -- the whole run --
    def supervise(self, projection, monotonic_start: float) -> dict:
        proc = self.proc
        if self.interruption:  # a signal arrived between spawn and here
            self.interrupt(self.interruption)
        self.writer = SnapshotWriter(self.structured_path, self.snapshot)
        self.writer.start()
        out = Pump(proc.stdout, self.dir / results.STDOUT_LOG, self.on_stdout_line, "stdout")
        err = Pump(proc.stderr, self.dir / results.STDERR_LOG, None, "stderr")
        out.start()
        err.start()
        if projection.stdin is not None:
            threading.Thread(target=feed_stdin, args=(proc.stdin, projection.stdin), name="stdin",
                             daemon=True).start()
        finished = threading.Event()
        timeout_ms = self.record.get("timeoutMs")
        if isinstance(timeout_ms, (int, float)) and not isinstance(timeout_ms, bool) and timeout_ms > 0:
            threading.Thread(target=self.watchdog, args=(finished, timeout_ms / 1000.0), name="watchdog",
                             daemon=True).start()
        proc.wait()
        finished.set()
        # Whatever the leader left behind in its group (a backgrounded tool, a
        # grandchild holding the pipes) ends with it.
        if procs.group_alive(proc.pid):
            procs.terminate_group(proc.pid, grace=KILL_GRACE)
        # A process that left the group (setsid) may still hold the pipes:
        # what it writes later is not part of this run.
        for pump in (out, err):
            pump.join(DRAIN_TIMEOUT)
            if pump.is_alive():
                self.note(f"{pump.name} is still held open by a process outside the agent's group; "
                          "not waiting for it")
        self.writer.stop()
        for pump in (out, err):
            if pump.error is not None:
                self.note(f"{pump.name} capture problem: {pump.error}")
        with self.lock:
            closing = self.normalizer.flush()
            structured = self.normalizer.finish()
            engine_failed = self.normalizer.engine_reported_failure()
            error_after_text = self.normalizer.error_after_last_text()
            native_session = self.normalizer.native_session_id
        self.journal_turns(closing)
        self.write_structured(structured)
        return self.finish_started(structured, engine_failed, error_after_text, native_session,
                                   time.monotonic() - monotonic_start)

    def watchdog(self, finished: threading.Event, seconds: float) -> None:
        if finished.wait(seconds):
            return
        self.killed = True
        self.note(f"timeout after {seconds:g}s: stopping the agent's process group")
        procs.terminate_group(self.proc.pid, grace=KILL_GRACE, proc=self.proc)

    def write_structured(self, structured: dict) -> None:
        try:
            fs.atomic_write_json(self.structured_path, structured, indent=None, mode=0o600)
        except OSError as exc:
            self.note(f"structured.json not written: {exc}")
