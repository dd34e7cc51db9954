"""Run supervision: one headless agent turn per task record.

    pid = launch(task_id)          # detached `python -m openalice.runs.supervisor TASK_ID`
    record = run_task(task_id)     # the same work in this process (tests, `--foreground`)

A supervisor owns exactly one task record that admission created with status
``running``.  It records itself (``supervisor: {pid, startToken}``) first,
resolves the runtime binding (a new session for ``@new-then-resume`` /
``@new-each-run``, the frozen one for ``@resume-…``), projects argv/env
through the engine's adapter, starts the engine as the leader of its own
process group, normalizes its stdout into ``structured.json`` while it runs,
enforces the watchdog, and finally writes the terminal status, records the
engine's native session id for the next resume, journals the run, and
releases the admission marker.  See docs/runs.md ("Runner").

Nothing here writes the child's environment or argv anywhere: the environment
holds credential secrets, and argv is only ever used to exec.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any


__all__ = [
    "launch", "run_task", "main", "status_for", "output_summary",
    "STREAM_CAP", "LINE_LIMIT", "KILL_GRACE", "DRAIN_TIMEOUT", "SNAPSHOT_INTERVAL", "JOURNAL_TURN_LIMIT",
    "PREVIEW_CHARS", "JOURNAL_TEXT_BYTES",
]

STREAM_CAP = 16 * 1024 * 1024        # bytes kept of each raw stream (stdout.log, stderr.log)
LINE_LIMIT = 4 * 1024 * 1024         # one stdout line held in memory at most; the rest is skipped
READ_SIZE = 64 * 1024                # bytes per read of a child's pipe
KILL_GRACE = 5.0                     # SIGTERM → SIGKILL
DRAIN_TIMEOUT = 5.0                  # after the group is gone, wait this long for the pipes to close
SNAPSHOT_INTERVAL = 0.25             # structured.json is rewritten at most this often while running
JOURNAL_TURN_LIMIT = 50              # runtime.turn.* facts journalled per run
PREVIEW_CHARS = 1000                 # output.assistantPreview
JOURNAL_TEXT_BYTES = 4 * 1024        # runtime.stopped assistantText
BORN_LOOKBACK = 200                  # journal lines searched for the session.born fact of a new session

_TERMINAL = ("done", "failed", "interrupted")


# -- launching ------------------------------------------------------------------------------------

def launch(task_id: str) -> int:
    """Start a detached supervisor for ``task_id`` and return its pid at once.

    The supervisor runs detached (:func:`openalice.core.proc.launch_detached`)
    with its own diagnostics appended to ``<task_dir>/supervisor.log``.
    """
    from openalice.core import fs, proc
    from openalice.runs import tasks

    _check_task_id(task_id)
    directory = fs.ensure_dir(tasks.task_dir(task_id), 0o700)
    return proc.launch_detached("openalice.runs.supervisor", [task_id],
                                log_path=directory / "supervisor.log")


def _check_task_id(task_id: str) -> str:
    from openalice.core.errors import InvalidInput

    if (not isinstance(task_id, str) or not task_id or len(task_id) > 128 or task_id.startswith("-")
            or "/" in task_id or "\\" in task_id or task_id in (".", "..") or "\x00" in task_id):
        raise InvalidInput(f"invalid task id {task_id!r}", field="taskId", code="bad_task_id")
    return task_id


# -- the status rule and the output summary --------------------------------------------------------

def status_for(*, exit_code: int | None, killed: bool, interrupted: bool, engine_failed: bool,
               error_after_text: bool) -> str:
    """The terminal status of a run whose process started.

    Interrupted (the supervisor was told to stop) wins; then the watchdog or
    a non-zero/absent exit code means ``failed``; then the engine's own verdict
    in its stream (pi and claude report API errors that way), or an error block
    after the last text; else ``done``.
    """
    if interrupted:
        return "interrupted"
    if killed or exit_code != 0:
        return "failed"
    if engine_failed or error_after_text:
        return "failed"
    return "done"


def output_summary(structured: dict) -> dict:
    """The task record's ``output``: a small digest of the structured output."""
    text = structured.get("assistantText")
    metrics = structured.get("metrics") or {}
    return {
        "hasAssistantReply": bool(text),
        "assistantPreview": (text or "")[:PREVIEW_CHARS],
        "blockCount": len(structured.get("blocks") or ()),
        "toolCalls": int(metrics.get("toolCalls", 0)),
        "toolFailures": int(metrics.get("toolFailures", 0)),
        "truncated": bool(structured.get("truncated")),
    }


def _clip_utf8(text: str, limit: int) -> str:
    from openalice.runs.streams.base import clip_text

    return clip_text(text, limit)[0]


# -- capture ----------------------------------------------------------------------------------------

class _Pump(threading.Thread):
    """Drain one pipe into a capped log file, handing each stdout line on.

    The pipe is read in chunks as they arrive (one log write per chunk, so
    the log is current without a write per line), then split into lines.
    Past ``STREAM_CAP`` the log stops growing but the pipe is still drained
    (a child blocked on a full pipe would never exit) and lines still reach
    ``on_line``.  A line longer than ``LINE_LIMIT`` is handed on cut at the
    limit and its remainder skipped, so memory stays bounded.
    """

    def __init__(self, pipe, log_path: Path, on_line: Callable[[bytes], None] | None, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.pipe = pipe
        self.log_path = log_path
        self.on_line = on_line
        self.written = 0
        self.dropped = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        except OSError as exc:
            self.error = exc
            fd = -1
        source = self.pipe.fileno()
        pending = bytearray()
        skipping = False          # inside the remainder of an overlong line
        try:
            while True:
                chunk = os.read(source, READ_SIZE)
                if not chunk:
                    break
                self._log(fd, chunk)
                if self.on_line is None:
                    continue
                pending += chunk
                start = 0
                while True:
                    end = pending.find(b"\n", start)
                    if end < 0:
                        break
                    if skipping:
                        skipping = False
                    else:
                        self.on_line(bytes(pending[start:min(end + 1, start + LINE_LIMIT)]))
                    start = end + 1
                del pending[:start]
                if len(pending) >= LINE_LIMIT:
                    if not skipping:
                        self.on_line(bytes(pending[:LINE_LIMIT]))
                    skipping = True
                    pending.clear()
            if pending and not skipping and self.on_line is not None:
                self.on_line(bytes(pending))
        except BaseException as exc:  # noqa: BLE001 -- reported by the supervisor, never a hang
            self.error = exc
            _drain(source)
        finally:
            if fd >= 0:
                if self.dropped:
                    note = f"\n[openalice: log capped at {STREAM_CAP} bytes; {self.dropped} bytes not kept]\n"
                    _write_all(fd, note.encode())
                os.close(fd)
            try:
                self.pipe.close()
            except OSError:
                pass

    def _log(self, fd: int, chunk: bytes) -> None:
        room = STREAM_CAP - self.written
        if fd < 0 or room <= 0:
            self.dropped += len(chunk)
            return
        part = chunk[:room]
        try:
            _write_all(fd, part)
        except OSError as exc:
            self.error = exc
            self.dropped += len(chunk)
            return
        self.written += len(part)
        self.dropped += len(chunk) - len(part)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _drain(fd: int) -> None:
    try:
        while os.read(fd, READ_SIZE):
            pass
    except OSError:
        pass


class _SnapshotWriter(threading.Thread):
    """Rewrites structured.json (atomically, compact) at most every
    ``SNAPSHOT_INTERVAL`` seconds while new output arrives."""

    def __init__(self, path: Path, snapshot: Callable[[], dict]) -> None:
        super().__init__(name="structured-writer", daemon=True)
        self.path = path
        self.snapshot = snapshot
        self.dirty = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        from openalice.core import fs

        while True:
            self.dirty.wait()
            if self.stopping.is_set():
                return
            self.dirty.clear()
            try:
                fs.atomic_write_json(self.path, self.snapshot(), indent=None, mode=0o600, durable=False)
            except OSError as exc:  # the final write at the end still happens
                print(f"supervisor: structured.json not updated: {exc}", file=sys.stderr)
            if self.stopping.wait(SNAPSHOT_INTERVAL):
                return

    def stop(self) -> None:
        self.stopping.set()
        self.dirty.set()
        self.join()


# -- one run ----------------------------------------------------------------------------------------

class _LaunchError(Exception):
    """The engine could not be started (nothing ran)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class _Run:
    def __init__(self, task_id: str) -> None:
        from openalice.runs import tasks

        self.task_id = task_id
        self.tasks = tasks
        self.dir = Path(tasks.task_dir(task_id))
        self.record: dict = {}
        self.ws = None
        self.issue = None
        self.binding = None
        self.born_seq: int | None = None
        self.started_seq: int | None = None
        self.interruption: str | None = None
        self.killed = False
        self.proc = None
        self.lock = threading.Lock()          # guards the normalizer
        self.normalizer = None
        self.journalled_turns = 0
        self.skipped_turns = 0
        self.structured_path = self.dir / "structured.json"

    # -- helpers --
    def now(self):
        from openalice.core import clock

        return clock.now()

    def note(self, message: str) -> None:
        """A diagnostic line in supervisor.log (stderr); never secrets."""
        print(f"supervisor {self.task_id}: {message}", file=sys.stderr, flush=True)

    def journal(self, type_: str, payload: dict, caused_by: int | None = None) -> int | None:
        try:
            from openalice import journal
        except ImportError:
            return None
        stored = journal.record(type_, payload, now=self.now(), caused_by=caused_by)
        return stored.get("seq") if isinstance(stored, dict) else None

    def update(self, changes: dict) -> dict:
        self.record = self.tasks.update_task(self.task_id, changes)
        return self.record

    def interrupt(self, reason: str) -> None:
        """Stop the run: the agent's group gets SIGTERM, then SIGKILL after the grace."""
        if self.interruption is None:
            self.interruption = reason
        proc = self.proc
        if proc is not None and proc.returncode is None:
            from openalice.core import proc as procs

            threading.Thread(target=procs.terminate_group, args=(proc.pid,),
                             kwargs={"grace": KILL_GRACE, "proc": proc}, name="interrupt", daemon=True).start()

    # -- the steps --
    def claim_supervision(self) -> bool:
        """Record this process as the supervisor; False if the task is not ours to run."""
        from openalice.core import proc as procs

        me = {"pid": os.getpid(), "startToken": procs.start_token(os.getpid())}
        refused: list[str] = []

        def claim(record: dict) -> dict:
            if record.get("status") != "running":
                refused.append(f"task is {record.get('status')}")
                return record
            other = record.get("supervisor")
            if (isinstance(other, dict) and other.get("pid") not in (None, me["pid"])
                    and procs.is_alive(other.get("pid"), other.get("startToken"))):
                refused.append(f"supervised by live pid {other.get('pid')}")
                return record
            return {**record, "supervisor": me}

        self.record = self.tasks.update_task(self.task_id, claim)
        if refused:
            self.note(f"not running: {refused[0]}")
            return False
        return True

    def load_context(self) -> None:
        from openalice import workspaces
        from openalice.core.errors import AliceError

        ws_id = self.record.get("workspaceId")
        try:
            self.ws = workspaces.get(ws_id)
        except AliceError as exc:
            raise _LaunchError(f"workspace {ws_id!r} is not available: {exc}") from None
        if not self.ws.root.is_dir():
            raise _LaunchError(f"workspace directory {self.ws.root} does not exist")
        issue_id = self.issue_id
        if issue_id:
            try:
                from openalice import issues
            except ImportError:
                return
            try:
                self.issue = issues.load_issue(self.ws, issue_id)
            except AliceError as exc:
                # The record carries the prompt and the owner: the admitted run still runs.
                self.note(f"issue {issue_id!r} not readable now ({exc}); running from the task record")

    @property
    def trigger(self) -> dict:
        trigger = self.record.get("trigger")
        return trigger if isinstance(trigger, dict) else {}

    @property
    def issue_id(self) -> str | None:
        return self.trigger.get("issueId") or self.record.get("issueId")

    def resolve_binding(self) -> str | None:
        """The session to run and its native id (None → a fresh native session)."""
        from openalice import sessions
        from openalice.core.errors import AliceError

        owner = self.record.get("owner") or "@new-each-run"
        try:
            if owner.startswith("@resume-"):
                self.binding = sessions.load_session(self.ws, owner[1:])
                return sessions.native_session_id(self.ws, self.binding.resume_id)
            if owner not in ("@new-then-resume", "@new-each-run"):
                raise _LaunchError(f"owner {owner!r} cannot run headless")
            request = self.record.get("runtimeRequest") or {}
            resolved = sessions.resolve_binding(
                self.ws, surface="headless", agent=request.get("agent"), credential=request.get("credential"),
                native_credential=request.get("credentialSource") == "native", model=request.get("model"),
                effort=request.get("effort"))
            self.binding = sessions.create_session(
                self.ws, agent=resolved["agent"], credential=resolved["credential"],
                model=resolved.get("model"), effort=resolved.get("reasoningEffort"),
                display_name=self.display_name(), now=self.now())
        except AliceError as exc:
            raise _LaunchError(f"cannot resolve the runtime of owner {owner}: {exc}") from None
        self.born_seq = self.born_fact_seq(self.binding.resume_id)
        if owner == "@new-then-resume" and self.issue_id:
            self.claim_issue(self.binding.resume_id)
        return None

    def born_fact_seq(self, resume_id: str) -> int | None:
        """The seq of the ``session.born`` fact ``create_session`` just journalled.

        Only the newest few facts are looked at: the fact was appended a moment
        ago, and a journal that could not be written must not cost a full scan.
        """
        try:
            from openalice import journal

            for count, line in enumerate(journal.open_journal().iter_backward()):
                record = line.record
                if (record.get("type") == "session.born"
                        and (record.get("payload") or {}).get("resumeId") == resume_id):
                    return record.get("seq")
                if count >= BORN_LOOKBACK:
                    break
        except Exception as exc:  # noqa: BLE001 -- causedBy is a courtesy link
            self.note(f"session.born fact not found: {exc}")
        return None

    def display_name(self) -> str | None:
        name = (self.record.get("displayName") or self.record.get("issueTitle")
                or (self.issue.title if self.issue is not None else None))
        if not isinstance(name, str):
            return None
        name = " ".join(name.split())
        return name[:120] or None

    def claim_issue(self, resume_id: str) -> None:
        """The issue now names its session; a concurrent edit wins (logged, the run goes on)."""
        try:
            from openalice import issues
        except ImportError:
            self.note("issues capability missing: the issue keeps @new-then-resume")
            return
        try:
            claimed = issues.claim_new_then_resume(self.ws, self.issue_id, resume_id)
        except Exception as exc:  # noqa: BLE001 -- the session exists; the run must still happen
            self.note(f"could not claim issue {self.issue_id!r} for @{resume_id}: {exc}")
            return
        if not claimed:
            self.note(f"issue {self.issue_id!r} no longer says @new-then-resume; left as it is")

    def parent_task(self) -> str | None:
        """The previous task of the same session, for resumed runs."""
        if self.record.get("parentTaskId") or not self.issue_id:
            return self.record.get("parentTaskId")
        try:
            earlier = self.tasks.list_tasks(workspace_id=self.ws.id, issue_id=self.issue_id, limit=20)
        except Exception:  # noqa: BLE001 -- lineage is informative only
            return None
        for item in earlier:
            if item.get("taskId") != self.task_id and item.get("resumeId") == self.binding.resume_id:
                return item.get("taskId")
        return None

    def project(self, native_id: str | None):
        from openalice import agents
        from openalice.core import fs
        from openalice.core.errors import AliceError

        self.ensure_shims()
        try:
            adapter = agents.get_adapter(self.binding.agent)
            run_dir = fs.ensure_dir(self.dir / "engine", 0o700)
            projection = adapter.project(
                self.binding, mode="headless", prompt=self.record.get("prompt") or "",
                native_session_id=native_id, workspace=self.ws.root,
                run_env={"ALICE_RUN_ID": self.task_id, "ALICE_RESUME_ID": self.binding.resume_id,
                         "ALICE_WORKSPACE_ID": self.ws.id},
                base_env=os.environ, run_dir=run_dir)
            model = adapter.model_for({"model": self.binding.model},
                                      adapter.resolve_access(self.binding.credential))
        except AliceError as exc:
            raise _LaunchError(f"cannot start {self.binding.agent}: {exc}") from None
        return adapter, projection, model

    def ensure_shims(self) -> None:
        """The workspace's CLI shims (``.alice/bin``), first on the agent's PATH,
        are (re)written for every run, so they always run this toolkit."""
        try:
            from openalice import harness

            harness.ensure_shims(self.ws.root)
        except Exception as exc:  # noqa: BLE001 -- the run goes on with the toolkit's tools on PATH
            self.note(f"workspace shims not written: {exc}")

    def spawn(self, projection):
        import subprocess

        from openalice.core import proc as procs

        stdin = subprocess.PIPE if projection.stdin is not None else subprocess.DEVNULL
        try:
            return procs.spawn(projection.argv, cwd=self.ws.root, env=projection.env, stdin=stdin,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError as exc:
            if exc.filename is not None and os.fspath(exc.filename) == os.fspath(self.ws.root):
                raise _LaunchError(f"workspace directory {self.ws.root} does not exist",
                                   "spawn_failed") from None
            raise _LaunchError(f"executable not found: {projection.argv[0]}", "executable_not_found") from None
        except OSError as exc:
            raise _LaunchError(f"cannot start {projection.argv[0]}: {exc.strerror or exc}", "spawn_failed") from None

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
    def execute(self) -> dict:
        from openalice.runs.streams import normalizer_for

        if not self.claim_supervision():
            return self.record
        monotonic_start = time.monotonic()
        try:
            self.load_context()
            if self.interruption:
                return self.finish_unstarted(interrupted=True)
            native_id = self.resolve_binding()
            adapter, projection, model = self.project(native_id)
            self.normalizer = normalizer_for(adapter.capabilities.stream)
        except _LaunchError as exc:
            return self.finish_unstarted(error=exc.message, code=exc.code)

        changes: dict[str, Any] = {"resumeId": self.binding.resume_id, "agent": self.binding.agent,
                                   "startedAt": _iso(self.now())}
        for key, value in (("model", model), ("effort", self.binding.reasoning_effort),
                           ("displayName", self.binding.display_name), ("parentTaskId", self.parent_task())):
            if value:
                changes[key] = value
        self.update(changes)
        cause = ({"kind": "issue", "workspaceId": self.trigger.get("workspaceId", self.ws.id),
                  "issueId": self.issue_id, "fire": self.trigger.get("fire")}
                 if self.issue_id else {"kind": "run"})
        started = {"taskId": self.task_id, "resumeId": self.binding.resume_id, "workspaceId": self.ws.id,
                   "agent": self.binding.agent, "resumed": native_id is not None, "cause": cause}
        if model:
            started["model"] = model
        if self.binding.reasoning_effort:
            started["effort"] = self.binding.reasoning_effort
        self.started_seq = self.journal("runtime.started", started, caused_by=self.born_seq)

        if self.interruption:
            return self.finish_unstarted(interrupted=True)
        try:
            self.proc = self.spawn(projection)
        except _LaunchError as exc:
            return self.finish_unstarted(error=exc.message, code=exc.code)
        self.update({"processStarted": True})
        return self.supervise(projection, monotonic_start)

    def supervise(self, projection, monotonic_start: float) -> dict:
        from openalice.core import proc as procs

        proc = self.proc
        if self.interruption:  # a signal arrived between spawn and here
            self.interrupt(self.interruption)
        self.writer = _SnapshotWriter(self.structured_path, self.snapshot)
        self.writer.start()
        out = _Pump(proc.stdout, self.dir / "stdout.log", self.on_stdout_line, "stdout")
        err = _Pump(proc.stderr, self.dir / "stderr.log", None, "stderr")
        out.start()
        err.start()
        if projection.stdin is not None:
            threading.Thread(target=_feed_stdin, args=(proc.stdin, projection.stdin), name="stdin",
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
        from openalice.core import proc as procs

        if finished.wait(seconds):
            return
        self.killed = True
        self.note(f"timeout after {seconds:g}s: stopping the agent's process group")
        procs.terminate_group(self.proc.pid, grace=KILL_GRACE, proc=self.proc)

    def write_structured(self, structured: dict) -> None:
        from openalice.core import fs

        try:
            fs.atomic_write_json(self.structured_path, structured, indent=None, mode=0o600)
        except OSError as exc:
            self.note(f"structured.json not written: {exc}")

    def record_native_session(self, native_session: str | None) -> None:
        if not native_session or self.binding is None:
            return
        from openalice import sessions
        from openalice.core.errors import AliceError

        try:
            sessions.record_native_session(self.ws, self.binding.resume_id, native_session, self.now())
        except (AliceError, OSError) as exc:
            self.note(f"native session id not recorded: {exc}")

    def finish_started(self, structured: dict, engine_failed: bool, error_after_text: bool,
                       native_session: str | None, elapsed: float) -> dict:
        code = self.proc.returncode
        status = status_for(exit_code=code, killed=self.killed, interrupted=self.interruption is not None,
                            engine_failed=engine_failed, error_after_text=error_after_text)
        self.record_native_session(native_session)
        changes: dict[str, Any] = {"status": status, "finishedAt": _iso(self.now()),
                                   "durationMs": int(elapsed * 1000), "killed": self.killed,
                                   "output": output_summary(structured)}
        if code is not None and code >= 0:
            changes["exitCode"] = code
        elif code is not None:
            changes["signal"] = _signal_name(-code)
        if native_session:
            changes["agentSessionId"] = native_session
        if status == "interrupted":
            changes["interruptionReason"] = self.interruption
        self.update(changes)
        if status == "done":
            self.mark_issue_done()
        stopped: dict[str, Any] = {"taskId": self.task_id, "resumeId": self.binding.resume_id,
                                   "status": status, "metrics": structured.get("metrics", {}),
                                   "truncated": bool(structured.get("truncated"))}
        for key in ("exitCode", "signal"):
            if key in changes:
                stopped[key] = changes[key]
        if self.killed:
            stopped["killed"] = True
        if status != "done":
            stopped["error"] = self.failure_text(structured, changes)
        if structured.get("assistantText"):
            stopped["assistantText"] = _clip_utf8(structured["assistantText"], JOURNAL_TEXT_BYTES)
        if self.skipped_turns:
            stopped["turnEventsNotJournalled"] = self.skipped_turns
        self.journal("runtime.stopped", stopped, caused_by=self.started_seq)
        return self.record

    def failure_text(self, structured: dict, changes: dict) -> str:
        if self.interruption:
            return self.interruption
        if self.killed:
            return f"stopped by the watchdog after {int(self.record.get('timeoutMs') or 0) // 1000}s"
        errors = [b.get("message") for b in structured.get("blocks") or () if b.get("type") == "error"]
        if errors and errors[-1]:
            return _clip_utf8(errors[-1], JOURNAL_TEXT_BYTES)
        if "signal" in changes:
            return f"the agent was killed by {changes['signal']}"
        if changes.get("exitCode"):
            return f"the agent exited with code {changes['exitCode']}"
        return "the agent reported a failure"

    def finish_unstarted(self, *, error: str | None = None, code: str | None = None,
                         interrupted: bool = False) -> dict:
        """Nothing ran: the launch failed, or the supervisor was stopped first."""
        changes: dict[str, Any] = {"finishedAt": _iso(self.now()), "processStarted": False}
        if interrupted or (self.interruption and error is None):
            changes.update(status="interrupted", interruptionReason=self.interruption or "interrupted")
        else:
            changes.update(status="failed", error=error or "launch failed", exitCode=-1)
            if code:
                changes["launchErrorCode"] = code
        self.update(changes)
        payload: dict[str, Any] = {"taskId": self.task_id}
        if self.binding is not None:
            payload.update(resumeId=self.binding.resume_id, agent=self.binding.agent)
        if changes["status"] == "interrupted":
            payload.update(status="interrupted", error=changes["interruptionReason"],
                           metrics={"textBlocks": 0, "toolCalls": 0, "toolFailures": 0}, truncated=False)
            self.journal("runtime.stopped", payload, caused_by=self.started_seq)
        else:
            if code:
                payload["launchErrorCode"] = code
            payload["error"] = changes["error"]
            self.journal("runtime.spawn_failed", payload, caused_by=self.started_seq or self.born_seq)
        return self.record

    def mark_issue_done(self) -> None:
        """A one-shot (``at``) issue is done after its first successful run."""
        if self.issue is None or not isinstance(self.issue.when, dict) or self.issue.when.get("kind") != "at":
            return
        try:
            from openalice import issues

            issues.mark_done(self.ws, self.issue_id)
        except Exception as exc:  # noqa: BLE001 -- the run is done either way
            self.note(f"could not mark issue {self.issue_id!r} done: {exc}")

    def release(self) -> None:
        try:
            from openalice.runs import admission

            admission.release(self.task_id)
        except Exception as exc:  # noqa: BLE001 -- a stale marker is dropped by the next admission
            self.note(f"admission marker not released: {exc}")

    def crash(self, exc: BaseException) -> None:
        """An unexpected error: the record must not stay ``running`` forever."""
        import traceback

        traceback.print_exc(file=sys.stderr)
        proc = self.proc
        if proc is not None and proc.returncode is None:
            from openalice.core import proc as procs

            procs.terminate_group(proc.pid, grace=KILL_GRACE, proc=proc)
        try:
            current = self.tasks.load_task(self.task_id)
            if current.get("status") == "running":
                changes = {"status": "failed", "finishedAt": _iso(self.now())}
                if proc is None:
                    # Nothing started: the run reads as a launch failure.
                    changes.update(processStarted=False, exitCode=-1,
                                   error=f"supervisor error: {type(exc).__name__}: {exc}"[:1000])
                else:
                    changes["killed"] = self.killed
                    if proc.returncode is not None and proc.returncode >= 0:
                        changes["exitCode"] = proc.returncode
                self.update(changes)
        except Exception as inner:  # noqa: BLE001
            self.note(f"could not record the failure: {inner}")


def _feed_stdin(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError, ValueError):
        pass  # the engine closed its stdin early; its exit tells the story
    finally:
        try:
            pipe.close()
        except (BrokenPipeError, OSError, ValueError):
            pass


def _iso(dt) -> str:
    from openalice.core import clock

    return clock.to_iso(dt)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


# -- entry points -----------------------------------------------------------------------------------

_current: _Run | None = None


def run_task(task_id: str, *, handle_signals: bool = False) -> dict:
    """Supervise ``task_id`` in this process until the run ends; the final record.

    With ``handle_signals`` (the ``python -m`` entry), SIGTERM, SIGINT and
    SIGHUP stop the agent's group and end the run ``interrupted``.
    """
    global _current
    from openalice.runs import tasks

    _check_task_id(task_id)
    tasks.load_task(task_id)  # NotFound (exit 2) before anything else happens
    run = _Run(task_id)
    previous: dict = {}
    if handle_signals:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            previous[signum] = signal.signal(
                signum, lambda n, _f: run.interrupt(f"supervisor received {_signal_name(n)}"))
    _current = run
    try:
        try:
            return run.execute()
        except BaseException as exc:
            run.crash(exc)
            if not isinstance(exc, Exception):
                raise
            return run.record
        finally:
            run.release()
    finally:
        _current = None
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def interrupt_current(reason: str) -> bool:
    """Interrupt the run this process supervises (tests; signal handlers)."""
    run = _current
    if run is None:
        return False
    run.interrupt(reason)
    return True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m openalice.runs.supervisor TASK_ID", file=sys.stderr)
        return 2
    from openalice.core.errors import AliceError

    try:
        record = run_task(args[0], handle_signals=True)
    except AliceError as exc:
        print(f"supervisor: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0 if record.get("status") in _TERMINAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
