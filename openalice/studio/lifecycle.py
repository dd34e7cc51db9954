"""Start, stop, restart and inspect a workspace's Studio (the command side).

    view = start(ws, now=now)                    # waits until ready or failed (wait=False: returns at once)
    view = stop(ws, now=now)                     # route withdrawn, then the whole group: TERM, grace, KILL
    view = restart(ws, now=now)                  # stop + start in one operation: a new generation and host
    view = status(ws, now=now)                   # also reaps a generation whose supervisor died
    require_idle(ws)                             # Busy unless no generation is live (for source upgrades)
    with held_idle(ws, "source apply", now=now): # ...and none can start until the block ends

Every verb runs under the workspace's operation lease and reconciles first
(:mod:`openalice.studio.reconcile`).
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from datetime import datetime

from openalice.core import clock, fs, leases, proc
from openalice.core.errors import AliceError, Busy, UsageError
from openalice.studio import logfile as log_tools
from openalice.studio import state
from openalice.studio.manifest import load_manifest

from .reconcile import (
    GRACE,
    LEASE_TTL,
    LEASE_WAIT,
    SUPERVISOR_EXIT_WAIT,
    WAIT_POLL,
    is_live,
    operation_lease,
    reconcile_record,
    supervisor_alive,
    teardown,
    terminate,
)

__all__ = ["READY_TIMEOUT", "GRACE", "LEASE_WAIT", "start", "stop", "restart", "status", "logs",
           "require_idle", "held_idle", "is_live", "terminate", "view"]

READY_TIMEOUT = 60.0
WAIT_SLACK = 15.0            # a start waits this much beyond the readiness limit before giving up on the supervisor


def _proxy_port() -> int | None:
    """The port of a running ``alice-harness proxy`` on this machine, if any."""
    try:
        data = fs.read_json(state.proxy_path(), missing=None)
    except AliceError:
        return None
    if not isinstance(data, dict) or not proc.is_alive(data.get("pid"), data.get("startToken")):
        return None
    port = data.get("port")
    return port if isinstance(port, int) else None


def view(ws_id: str, record: dict) -> dict:
    """The ``studio-status`` document of a record."""
    phase = record.get("phase")
    host = record.get("host") if phase == "ready" else None
    live = is_live(record)
    out = {
        "workspace": ws_id,
        "phase": phase,
        "generation": record.get("generation", 0),
        "host": host,
        "url": None,
        "ports": (record.get("ports") or {}) if live else {},
        "entryPort": (record.get("capability") or {}).get("entryPort"),
        "pid": record.get("pid") if live else None,
        "supervisorPid": (record.get("supervisor") or {}).get("pid") if live else None,
        # "last": what the generation ended with; a top-level "error" would read as
        # "this command failed" (docs/conventions.md, the --json rule)
        "lastError": record.get("error"),
        "lastErrorCode": record.get("errorCode"),
        "lastExit": record.get("exit"),
        "startedAt": record.get("startedAt"),
        "readyAt": record.get("readyAt") if phase == "ready" else None,
        "stoppedAt": record.get("stoppedAt"),
        "logFile": str(state.log_path(ws_id)),
    }
    if host:
        port = _proxy_port()
        if port is not None:
            out["url"] = f"http://{host}:{port}/"
    return out


# -- launching --------------------------------------------------------------------------------------

def _launch(ws, manifest, capability, now: datetime, ready_timeout: float) -> int:
    """Write the ``starting`` record of a new generation and start its supervisor; the generation."""
    me = {"pid": os.getpid(), "startToken": proc.start_token(os.getpid())}

    def begin(current: dict):
        return {
            "schemaVersion": 1, "workspaceId": ws.id, "workspacePath": str(ws.root), "phase": "starting",
            "generation": int(current.get("generation", 0)) + 1, "host": None, "ports": {}, "pid": None,
            "startToken": None, "supervisor": me, "error": None, "errorCode": None, "exit": None,
            "capability": capability.to_dict(), "manifestVersion": manifest.version,
            "readyTimeout": ready_timeout, "startedAt": clock.to_iso(now), "readyAt": None, "stoppedAt": None,
        }

    record = state.update_state(ws.id, begin)
    generation = record["generation"]
    pid = proc.launch_detached("openalice.studio.supervisor",
                               [ws.id, str(generation), str(os.getpid()), repr(float(ready_timeout))],
                               log_path=state.supervisor_log_path(ws.id))
    token = proc.start_token(pid)

    def hand_over(current: dict):
        if current.get("generation") != generation or (current.get("supervisor") or {}).get("pid") != me["pid"]:
            return None  # the supervisor claimed it already (or the record moved on)
        current["supervisor"] = {"pid": pid, "startToken": token}
        return current

    state.update_state(ws.id, hand_over)
    return generation


def _wait_for_outcome(ws_id: str, generation: int, ready_timeout: float, now: datetime, grace: float) -> dict:
    """Poll the record until the generation is ready, failed or stopped (or moved on)."""
    deadline = time.monotonic() + ready_timeout + WAIT_SLACK
    while True:
        record = state.read_state(ws_id)
        if record.get("generation") != generation or record.get("phase") in ("ready", "failed", "stopped"):
            if record.get("phase") in ("failed", "stopped"):
                _wait_for_supervisor_exit(record)
            return record
        holder = record.get("supervisor") or {}
        if holder.get("pid") != os.getpid() and not supervisor_alive(record):
            with operation_lease(ws_id, "reap", now):
                return reconcile_record(ws_id, now, grace)
        if time.monotonic() >= deadline:
            return record
        time.sleep(WAIT_POLL)


def _wait_for_supervisor_exit(record: dict) -> None:
    """A generation that ended is reported once its supervisor has gone too (it writes the
    record, then exits): nothing of the generation is left when ``start`` returns."""
    holder = record.get("supervisor") or {}
    deadline = time.monotonic() + SUPERVISOR_EXIT_WAIT
    while (holder.get("pid") not in (None, os.getpid()) and proc.is_alive(holder.get("pid"), holder.get("startToken"))
           and time.monotonic() < deadline):
        time.sleep(WAIT_POLL / 5)


def _studio_of(ws):
    manifest = load_manifest(ws.root)
    return manifest, manifest.capability("studio")


def _check_timeout(ready_timeout: float) -> float:
    if not isinstance(ready_timeout, (int, float)) or not (0 < ready_timeout <= 3600):
        raise UsageError("--ready-timeout must be more than 0 and at most 3600 seconds", field="readyTimeout",
                         code="usage")
    return float(ready_timeout)


# -- the verbs --------------------------------------------------------------------------------------

def start(ws, *, now: datetime, ready_timeout: float = READY_TIMEOUT, wait: bool = True,
          grace: float = GRACE) -> dict:
    """Start the workspace's Studio (idempotent: a starting or ready generation is kept)."""
    return _start_generation(ws, "start", now=now, ready_timeout=ready_timeout, wait=wait, grace=grace)


def restart(ws, *, now: datetime, ready_timeout: float = READY_TIMEOUT, wait: bool = True,
            grace: float = GRACE) -> dict:
    """A new generation (new ports, new host); the old one is gone before the new one starts."""
    return _start_generation(ws, "restart", now=now, ready_timeout=ready_timeout, wait=wait, grace=grace)


def _start_generation(ws, verb: str, *, now: datetime, ready_timeout: float, wait: bool, grace: float) -> dict:
    ready_timeout = _check_timeout(ready_timeout)
    manifest, capability = _studio_of(ws)   # bad input: exit 2 before anything changes
    with operation_lease(ws.id, verb, now):
        record = reconcile_record(ws.id, now, grace)
        if verb == "start" and record.get("phase") in ("starting", "ready"):
            generation = record["generation"]
        else:
            if is_live(record):
                teardown(ws.id, record, now, grace)
            generation = _launch(ws, manifest, capability, now, ready_timeout)
    if wait:
        record = _wait_for_outcome(ws.id, generation, ready_timeout, now, grace)
    else:
        record = state.read_state(ws.id)
    return view(ws.id, record)


def stop(ws, *, now: datetime, grace: float = GRACE) -> dict:
    """Stop the live generation, if any: route first, then every process of its group."""
    with operation_lease(ws.id, "stop", now):
        record = reconcile_record(ws.id, now, grace)
        if is_live(record):
            record = teardown(ws.id, record, now, grace)
    return view(ws.id, record)


def status(ws, *, now: datetime, grace: float = GRACE) -> dict:
    """The current generation; a dead supervisor's leftovers are reaped first (unless another
    operation holds the lease: then the record is reported as it is)."""
    record = state.read_state(ws.id)
    if (is_live(record) and not supervisor_alive(record)) or (not is_live(record) and record.get("pid")):
        try:
            lease = leases.acquire(state.lease_path(ws.id), f"studio status (pid {os.getpid()})", LEASE_TTL,
                                   now=now)
        except Busy:
            return view(ws.id, record)
        try:
            record = reconcile_record(ws.id, now, grace)
        finally:
            leases.release(lease)
    return view(ws.id, record)


def logs(ws, *, limit: int | None = None) -> dict:
    """The redacted tail of the workspace's Studio log (at most 64 KiB)."""
    record = state.read_state(ws.id)
    shown = log_tools.tail(state.log_path(ws.id), limit or log_tools.TAIL_BYTES)
    return {"workspace": ws.id, "generation": record.get("generation", 0), "phase": record.get("phase"),
            **shown}


def require_idle(ws) -> None:
    """Raise :class:`Busy` (``studio_running``) while a generation of ``ws`` is live.

    The check that source-backed upgrades make before they touch the work tree.
    """
    record = state.read_state(ws.id)
    if is_live(record) and supervisor_alive(record):
        raise Busy(f"Studio of workspace {ws.id!r} is {record['phase']} (generation {record['generation']}); "
                   f"stop it first: alice-harness studio stop --workspace {ws.id}", code="studio_running",
                   details={"phase": record["phase"], "generation": record["generation"]})


@contextmanager
def held_idle(ws, purpose: str, *, now: datetime, wait: float = 0.0, grace: float = GRACE):
    """Hold the Studio operation lease of ``ws`` for the block, with no generation live.

    A dead supervisor's leftovers are reaped first; a live generation is
    :class:`Busy` (``studio_running``), a held lease ``studio_busy`` (after
    ``wait`` seconds).  While the block runs no ``studio start`` can begin: what
    a source upgrade merges is never half-read by a starting app.
    """
    with operation_lease(ws.id, purpose, now, wait=wait):
        reconcile_record(ws.id, now, grace)
        require_idle(ws)
        yield
