"""The Studio supervisor: one detached process per generation.

    python -m openalice.studio.supervisor WORKSPACE_ID GENERATION LAUNCHER_PID READY_TIMEOUT

``studio start`` writes a ``starting`` record naming itself (the launcher),
then starts this process detached (:func:`openalice.core.proc.launch_detached`):
it outlives the command, and its state is on disk, so ``status`` and ``stop``
from any later shell work.  The supervisor

1. claims the record (only for its generation, only if the launcher or itself
   is named: a record that moved on is left alone);
2. allocates the loopback ports and starts the manifest's argv, without a
   shell, in the workspace, as the leader of a new session and process group,
   with ``HARNESS_CAPABILITY``, ``HARNESS_HOST``, ``HARNESS_PORTS`` and
   ``HARNESS_NO_OPEN``; its output goes, redacted, to ``studio.log``;
3. polls ``GET readinessPath`` on the entry port (every 50 ms for the first
   second, then every 250 ms; 1 s per request) until a 2xx, the
   readiness limit, or the group being empty (the wrapper exiting is normal;
   *all* of its processes gone is an early exit: see :meth:`Generation.group_empty`);
   if the app died because one of its ports was taken meanwhile, it retries
   with fresh ports;
4. when ready, publishes a new opaque route and the ``ready`` phase together
   (under the record's lock);
5. watches the group until it ends (a crash: ``failed``, route withdrawn
   first) or the record leaves ``ready`` (a ``stop``: the stopper tears down).

It is a child subreaper (Linux), so a grandchild whose wrapper exited is reaped
here and its exit status is the one reported; a child's exit (SIGCHLD) wakes
its polling.  Whatever way it ends, no process of its group is left running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from openalice.core import clock, fs, proc
from openalice.core.errors import AliceError
from openalice.studio import logfile, state
from openalice.studio import ports as port_tools
from openalice.studio.ports import LOOPBACK_HOST
from openalice.studio.reconcile import terminate

__all__ = ["READY_POLL", "READY_REQUEST_TIMEOUT", "WATCH_INTERVAL", "PORT_ATTEMPTS", "Generation", "main",
           "app_environment", "OUTCOMES", "ERROR_CODES"]

# How a phase of the loop ends (launch, await_ready, watch).
READY, EXITED, TIMEOUT, STOPPED, SIGNALLED, FAILED = OUTCOMES = (
    "ready", "exited", "timeout", "stopped", "signalled", "failed")
# Why a generation ended: the record's errorCode (spec/studio-state.schema.json, lastErrorCode).
ERROR_CODES = READINESS_TIMEOUT, EARLY_EXIT, APP_EXITED, SPAWN_FAILED, SUPERVISOR_LOST, SUPERVISOR_SIGNALLED = (
    "readiness_timeout", "early_exit", "exited", "spawn_failed", "supervisor_lost", "supervisor_signalled")

READY_POLL = 0.25
READY_FAST_POLL = 0.05       # the first second: a fast app is seen ready at once, a slow one polled every READY_POLL
READY_REQUEST_TIMEOUT = 1.0
WATCH_INTERVAL = 0.25
PORT_ATTEMPTS = 3
KILL_GRACE = 4.0
_DROPPED_ENV = ("ALICE_RUN_ID", "ALICE_RESUME_ID")


def app_environment(base: dict, ports: dict[str, int]) -> dict:
    """The app's environment: ours, minus run identity, plus the HARNESS_* contract."""
    env = {k: v for k, v in base.items() if k not in _DROPPED_ENV}
    env.update(HARNESS_CAPABILITY="studio", HARNESS_HOST=LOOPBACK_HOST,
               HARNESS_PORTS=json.dumps(ports, separators=(",", ":")), HARNESS_NO_OPEN="1")
    return env


def format_exit(status: dict | None) -> str:
    if not status:
        return "exit status unknown"
    if "signal" in status:
        return f"signal {status['signal']}"
    return f"exit {status['code']}"


class Generation:
    """One generation's life.  ``allocate`` is the port allocator (a test seam)."""

    def __init__(self, workspace_id: str, generation: int, *, launcher_pid: int, ready_timeout: float,
                 allocate=None, subreaper: bool = False) -> None:
        self.workspace_id = workspace_id
        self.generation = generation
        self.launcher_pid = launcher_pid
        self.ready_timeout = ready_timeout
        self.allocate = allocate or port_tools.allocate
        self.stop_event = threading.Event()
        self.wake = threading.Event()        # set by a signal: stop, or a child exited (SIGCHLD)
        self.subreaper = subreaper           # every orphan of the group is reparented to us
        self.child = None
        self.pgid: int | None = None
        self.token: str | None = None
        self.ports: dict[str, int] = {}
        self.last_exit: dict | None = None
        self.log = None
        self.pumps: list = []

    # -- the record ---------------------------------------------------------------------------------
    def now_iso(self) -> str:
        return clock.to_iso(clock.now())

    def note(self, message: str) -> None:
        print(f"studio supervisor {self.workspace_id}#{self.generation}: {message}", file=sys.stderr, flush=True)

    def update(self, change, *, phases: tuple[str, ...]) -> bool:
        """Apply ``change`` to our generation's record if it is in one of ``phases``."""
        applied: list[bool] = []

        def fenced(record: dict):
            if record.get("generation") != self.generation or record.get("phase") not in phases:
                return None
            applied.append(True)
            return change(record) or record

        state.update_state(self.workspace_id, fenced)
        return bool(applied)

    def current_phase(self) -> str | None:
        """Our record's phase, or None once another generation owns the record."""
        try:
            record = state.read_state(self.workspace_id)
        except AliceError:
            return None
        return record.get("phase") if record.get("generation") == self.generation else None

    def claim(self) -> dict | None:
        me = {"pid": os.getpid(), "startToken": proc.start_token(os.getpid())}
        claimed: list[dict] = []

        def change(record: dict):
            holder = record.get("supervisor") or {}
            if holder.get("pid") not in (self.launcher_pid, me["pid"]):
                return None
            record["supervisor"] = me
            claimed.append(record)
            return record

        self.update(change, phases=("starting",))
        return claimed[0] if claimed else None

    def fail(self, message: str, code: str, *, from_phases=("starting",)) -> None:
        self.note(message)

        def change(record: dict):
            state.withdraw_route(record.get("host"))
            record.update(phase="failed", host=None, error=message, errorCode=code, exit=self.last_exit,
                          pid=None, stoppedAt=self.now_iso())
            return record

        self.update(change, phases=from_phases)

    # -- processes ----------------------------------------------------------------------------------
    def reap(self) -> None:
        """Collect exit statuses: the leader through Popen, orphans (we are their subreaper) directly."""
        if self.child is not None and self.child.returncode is None:
            if self.child.poll() is not None:
                self.last_exit = self._status_of_returncode(self.child.returncode)
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except (ChildProcessError, OSError):
                return
            if info is None or info.si_pid == 0:
                return
            if self.child is not None and info.si_pid == self.child.pid:
                self.child.poll()
                self.last_exit = self._status_of_returncode(self.child.returncode)
                continue
            try:
                os.waitpid(info.si_pid, 0)
            except ChildProcessError:
                continue
            if info.si_code == os.CLD_EXITED:
                self.last_exit = {"code": info.si_status}
            else:
                self.last_exit = {"signal": proc.signal_name(info.si_status)}

    @staticmethod
    def _status_of_returncode(code: int | None) -> dict | None:
        if code is None:
            return None
        return {"code": code} if code >= 0 else {"signal": proc.signal_name(-code)}

    def group_empty(self) -> bool:
        """True once no process of the app's group is left.  One scan of ``/proc`` cannot
        tell: it lists first and reads each ``stat`` after, so a wrapper that forks its app
        and exits meanwhile reads as a zombie and its app is not listed yet (issue 27: a
        third of ``sh start.sh`` starts failed ``early_exit``).  As the subreaper we reap
        every member that exits, so while the kernel knows the group (``killpg(0)``) a
        member lives, or one just exited and is reaped on the next call."""
        self.reap()
        if self.pgid is None:
            return True
        if proc.group_members(self.pgid):
            return False
        if not self.subreaper:
            return True
        self.reap()
        return not proc.group_alive(self.pgid)

    def nap(self, seconds: float, floor: float = 0.02) -> None:
        """Sleep up to ``seconds``; a signal (stop, SIGCHLD) ends it early, but not before
        ``floor`` (an app that runs many short children does not make us scan per child)."""
        began = time.monotonic()
        self.wake.wait(seconds)
        self.wake.clear()
        left = min(seconds, floor) - (time.monotonic() - began)
        if left > 0:
            self.stop_event.wait(left)

    def kill_group(self) -> None:
        if self.pgid is not None:
            terminate(self.pgid, self.token, grace=KILL_GRACE, proc=self.child)
            self.reap()

    def spawn(self, record: dict, ports: dict[str, int]):
        capability = record["capability"]
        env = app_environment(dict(os.environ), ports)
        self.child = proc.spawn(capability["command"], cwd=record["workspacePath"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.pgid = self.child.pid
        self.token = proc.start_token(self.child.pid)
        self.last_exit = None
        self.pumps = [logfile.LogPump(self.child.stdout, self.log, "stdout"),
                      logfile.LogPump(self.child.stderr, self.log, "stderr")]
        for pump in self.pumps:
            pump.start()

    # -- the phases ---------------------------------------------------------------------------------
    def probe(self, path: str, port: int, timeout: float) -> bool:
        return port_tools.probe(path, port, timeout)

    def await_ready(self, record: dict) -> str:
        """``ready``, ``exited``, ``timeout``, ``stopped`` (the record moved on) or ``signalled``."""
        capability = record["capability"]
        port = self.ports[capability["entryPort"]]
        deadline = time.monotonic() + self.ready_timeout
        fast_until = time.monotonic() + 1.0
        while True:
            if self.stop_event.is_set():
                return SIGNALLED
            if self.current_phase() != "starting":
                return STOPPED
            if self.group_empty():
                return EXITED
            remaining = deadline - time.monotonic()
            if self.probe(capability["readinessPath"], port, max(0.05, min(READY_REQUEST_TIMEOUT, remaining))):
                return READY
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return TIMEOUT
            self.nap(min(READY_FAST_POLL if time.monotonic() < fast_until else READY_POLL, remaining))

    def publish(self) -> bool:
        def change(record: dict):
            surface_id = state.new_surface_id()
            host = state.host_for(surface_id)
            entry = record["capability"]["entryPort"]
            state.publish_route(surface_id, {
                "schemaVersion": 1, "host": host, "workspaceId": self.workspace_id,
                "generation": self.generation,
                "upstream": {"host": LOOPBACK_HOST, "port": self.ports[entry]},
                "supervisor": record.get("supervisor"), "publishedAt": self.now_iso()})
            record.update(phase="ready", host=host, readyAt=self.now_iso())
            return record

        return self.update(change, phases=("starting",))

    def launch(self, record: dict) -> str:
        """Start the app until it is ready; the outcome of :meth:`await_ready` or ``failed``."""
        capability = record["capability"]
        for attempt in range(1, PORT_ATTEMPTS + 1):
            self.ports = self.allocate(capability["ports"])
            logfile.write_marker(self.log, f"generation {self.generation} starting: {capability['command'][0]} "
                                        f"(attempt {attempt})")
            try:
                self.spawn(record, self.ports)
            except FileNotFoundError as exc:
                missing = exc.filename if exc.filename is not None else capability["command"][0]
                what = "workspace directory" if os.fspath(missing) == record["workspacePath"] else "executable"
                self.fail(f"cannot start Studio: {what} not found: {missing}", SPAWN_FAILED)
                return FAILED
            except OSError as exc:
                self.fail(f"cannot start Studio: {capability['command'][0]}: {exc.strerror or exc}",
                          SPAWN_FAILED)
                return FAILED
            started = self.update(lambda r: r.update(pid=self.pgid, startToken=self.token, ports=self.ports,
                                                     entryPort=capability["entryPort"]) or r,
                                  phases=("starting",))
            if not started:
                return STOPPED
            outcome = self.await_ready(record)
            if outcome != EXITED:
                return outcome
            taken = port_tools.taken_by_others(self.ports)
            if taken and attempt < PORT_ATTEMPTS:
                self.note(f"port(s) {', '.join(taken)} taken by another process before the app bound them; "
                          "retrying with new ports")
                logfile.write_marker(self.log, f"port(s) {', '.join(taken)} were taken; retrying with new ports")
                continue
            return EXITED
        return EXITED

    def watch(self) -> str:
        """While ready: ``exited`` (the whole group ended), ``stopped`` or ``signalled``."""
        while True:
            if self.stop_event.is_set():
                return SIGNALLED
            if self.current_phase() != "ready":
                return STOPPED
            if self.group_empty():
                return EXITED
            self.nap(WATCH_INTERVAL)

    def shut_down(self, reason: str) -> None:
        """Told to stop (a signal): route first, then the group; the record says stopped."""
        def withdraw(record: dict):
            state.withdraw_route(record.get("host"))
            record.update(phase="stopping", host=None)
            return record

        self.update(withdraw, phases=("starting", "ready"))
        self.kill_group()
        self.update(lambda r: r.update(phase="stopped", pid=None, error=reason, errorCode=SUPERVISOR_SIGNALLED,
                                       exit=self.last_exit, stoppedAt=self.now_iso()) or r,
                    phases=("stopping",))

    def run(self) -> int:
        record = self.claim()
        if record is None:
            self.note("not running: the record names another generation or supervisor")
            return 0
        fs.ensure_dir(state.workspace_dir(self.workspace_id), 0o700)
        self.log = logfile.open_log(state.log_path(self.workspace_id))
        try:
            outcome = self.launch(record)
            if outcome == READY:
                if not self.publish():
                    outcome = STOPPED
                else:
                    self.note(f"ready on ports {self.ports}")
                    outcome = self.watch()
                    if outcome == EXITED:
                        self.fail(f"Studio exited ({format_exit(self.last_exit)})", APP_EXITED,
                                  from_phases=("ready",))
            elif outcome == EXITED:
                self.fail(f"Studio exited before it was ready ({format_exit(self.last_exit)})", EARLY_EXIT)
            elif outcome == TIMEOUT:
                self.kill_group()
                self.fail(f"Studio readiness timed out after {self.ready_timeout:g} seconds",
                          READINESS_TIMEOUT)
            if outcome == SIGNALLED:
                self.shut_down("the Studio supervisor was told to stop")
            return 0
        finally:
            # Whatever happened, nothing of this generation outlives its supervisor.
            if self.pgid is not None and not self.group_empty():
                self.kill_group()
            for pump in self.pumps:
                pump.join(2.0)
            self.log.close()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 4:
        print("usage: python -m openalice.studio.supervisor WORKSPACE_ID GENERATION LAUNCHER_PID READY_TIMEOUT",
              file=sys.stderr)
        return 2
    try:
        workspace_id, generation, launcher, timeout = args[0], int(args[1]), int(args[2]), float(args[3])
    except ValueError:
        print(f"studio supervisor: bad arguments {args!r}", file=sys.stderr)
        return 2
    subreaper = proc.become_subreaper()
    run = Generation(workspace_id, generation, launcher_pid=launcher, ready_timeout=timeout, subreaper=subreaper)

    def stop(_n, _f) -> None:
        run.stop_event.set()
        run.wake.set()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    signal.signal(signal.SIGCHLD, lambda _n, _f: run.wake.set())
    try:
        return run.run()
    except AliceError as exc:
        print(f"studio supervisor: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
