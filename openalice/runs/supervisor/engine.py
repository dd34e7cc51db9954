"""The agent's process: projection, spawn, capture hand-off to the normalizer, watchdog."""

from __future__ import annotations

import os
import subprocess
import threading

from openalice import agents
from openalice.agents import shims
from openalice.core import fs
from openalice.core import proc as procs
from openalice.core.errors import AliceError
from openalice.core.records import record_class
from openalice.runs import results
from openalice.runs.streams import normalizer_for

from .capture import Pump, SnapshotWriter, feed_stdin
from .context import LaunchError, RunContext
from .state import KILL_GRACE, RunState

DRAIN_TIMEOUT = 5.0                  # after the group is gone, wait this long for the pipes to close
JOURNAL_TURN_LIMIT = 50              # runtime.turn.* facts journalled per run


@record_class(frozen=True)
class Ended:
    """What the engine's stream said once its process ended (the normalizer's verdict)."""
    structured: dict
    engine_failed: bool
    error_after_text: bool
    native_session: str | None
    skipped_turns: int              # runtime.turn.* facts not journalled (past JOURNAL_TURN_LIMIT)


class Engine:
    """The agent's process for the run ``state`` describes, in the ``context`` resolved for it:
    projected (:meth:`project`), spawned (:meth:`spawn`, into ``state.proc``) and watched to its
    end (:meth:`supervise`).  Writes to ``state``: ``proc``, ``killed`` (the watchdog)."""

    def __init__(self, state: RunState, context: RunContext) -> None:
        self.state = state
        self.context = context
        self.lock = threading.Lock()          # guards the normalizer
        self.normalizer = None
        self.writer: SnapshotWriter | None = None
        self.journalled_turns = 0
        self.skipped_turns = 0

    # -- the steps --
    def project(self, native_id: str | None):
        """``(adapter, projection, model)``; the normalizer of the adapter's stream is set up."""
        state, ws, binding = self.state, self.context.ws, self.context.binding
        self.ensure_shims()
        try:
            adapter = agents.get_adapter(binding.agent)
            run_dir = fs.ensure_dir(state.dir / results.ENGINE_DIR, 0o700)
            projection = adapter.project(
                binding, mode="headless", prompt=state.record.get("prompt") or "",
                native_session_id=native_id, workspace=ws.root,
                run_env={"ALICE_RUN_ID": state.task_id, "ALICE_RESUME_ID": binding.resume_id,
                         "ALICE_WORKSPACE_ID": ws.id},
                base_env=os.environ, run_dir=run_dir)
            model = adapter.model_for({"model": binding.model},
                                      adapter.resolve_access(binding.credential))
        except AliceError as exc:
            raise LaunchError(f"cannot start {binding.agent}: {exc}") from None
        self.normalizer = normalizer_for(adapter.capabilities.stream)
        return adapter, projection, model

    def ensure_shims(self) -> None:
        """The workspace's CLI shims (``.alice/bin``), first on the agent's PATH,
        are (re)written for every run, so they always run this toolkit."""
        try:
            shims.ensure(self.context.ws.root)
        except Exception as exc:
            self.state.note(f"workspace shims not written: {exc}")

    def spawn(self, projection) -> None:
        """Start the engine as the leader of its own process group (``state.proc``)."""
        root = self.context.ws.root
        stdin = subprocess.PIPE if projection.stdin is not None else subprocess.DEVNULL
        try:
            self.state.proc = procs.spawn(projection.argv, cwd=root, env=projection.env, stdin=stdin,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError as exc:
            if exc.filename is not None and os.fspath(exc.filename) == os.fspath(root):
                raise LaunchError(f"workspace directory {root} does not exist",
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
            payload = {"taskId": self.state.task_id, **event.payload()}
            self.state.journal(event.journal_type, payload, caused_by=self.state.started_seq)

    def snapshot(self) -> dict:
        with self.lock:
            return self.normalizer.snapshot()

    # -- the whole run --
    def supervise(self, projection) -> Ended:
        """Capture, normalize and watch the spawned engine until it and its pipes end."""
        state = self.state
        proc = state.proc
        if state.interruption:  # a signal arrived between spawn and here
            state.interrupt(state.interruption)
        self.writer = SnapshotWriter(state.structured_path, self.snapshot)
        self.writer.start()
        out = Pump(proc.stdout, state.dir / results.STDOUT_LOG, self.on_stdout_line, "stdout")
        err = Pump(proc.stderr, state.dir / results.STDERR_LOG, None, "stderr")
        out.start()
        err.start()
        if projection.stdin is not None:
            threading.Thread(target=feed_stdin, args=(proc.stdin, projection.stdin), name="stdin",
                             daemon=True).start()
        finished = threading.Event()
        timeout_ms = state.record.get("timeoutMs")
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
                state.note(f"{pump.name} is still held open by a process outside the agent's group; "
                          "not waiting for it")
        self.writer.stop()
        for pump in (out, err):
            if pump.error is not None:
                state.note(f"{pump.name} capture problem: {pump.error}")
        with self.lock:
            closing = self.normalizer.flush()
            structured = self.normalizer.finish()
            engine_failed = self.normalizer.engine_reported_failure()
            error_after_text = self.normalizer.error_after_last_text()
            native_session = self.normalizer.native_session_id
        self.journal_turns(closing)
        self.write_structured(structured)
        return Ended(structured, engine_failed, error_after_text, native_session, self.skipped_turns)

    def watchdog(self, finished: threading.Event, seconds: float) -> None:
        if finished.wait(seconds):
            return
        state = self.state
        state.killed = True
        state.note(f"timeout after {seconds:g}s: stopping the agent's process group")
        procs.terminate_group(state.proc.pid, grace=KILL_GRACE, proc=state.proc)

    def write_structured(self, structured: dict) -> None:
        try:
            fs.atomic_write_json(self.state.structured_path, structured, indent=None, mode=0o600)
        except OSError as exc:
            self.state.note(f"structured.json not written: {exc}")
