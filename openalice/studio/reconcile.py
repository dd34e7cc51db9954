"""A generation's processes and leftovers: stopping a process group, the per-workspace operation
lease, reconciling a record whose supervisor is gone, and tearing a live generation down.

Operations on one workspace are serialized by its operation lease
(:func:`openalice.core.leases.acquire_waiting`: a second command queues behind
the first).  Every command first *reconciles*: a live-looking record whose
supervisor is gone (SIGKILLed, machine restarted) has its route withdrawn and
every process of its group stopped, and reads ``failed`` with
``errorCode: supervisor_lost``.
"""

from __future__ import annotations

import os
import signal
import time
from contextlib import contextmanager
from datetime import datetime

from openalice.core import clock, fs, leases
from openalice.core import proc as procs
from openalice.core.errors import Busy
from openalice.studio import state

GRACE = 4.0                  # SIGTERM → SIGKILL, and SIGKILL → gone
LEASE_WAIT = 30.0 + 2 * GRACE
LEASE_TTL = 600.0
WAIT_POLL = 0.05
SUPERVISOR_EXIT_WAIT = 2.0   # after the group is gone, how long the supervisor gets to notice and exit


def terminate(pgid: int | None, token: str | None, *, grace: float = GRACE, proc=None) -> bool:
    """Stop every process of group ``pgid`` (TERM, ``grace``, KILL, up to ``grace`` more).

    Works after the leader (a wrapper script) has exited: the group id lives on
    in its children.  A pid reused by another program is never signalled
    (:func:`openalice.core.proc.group_is_ours`).  True if a process was signalled.
    """
    if not pgid or not procs.group_is_ours(pgid, token) or not procs.group_members(pgid):
        return False
    procs.terminate_group(pgid, grace=grace, proc=proc, kill_wait=grace)
    return True


def supervisor_alive(record: dict) -> bool:
    holder = record.get("supervisor") or {}
    return procs.is_alive(holder.get("pid"), holder.get("startToken"))


def is_live(record: dict) -> bool:
    return record.get("phase") in state.LIVE_PHASES


@contextmanager
def operation_lease(ws_id: str, verb: str, now: datetime, wait: float = LEASE_WAIT):
    fs.ensure_dir(state.workspace_dir(ws_id), 0o700)
    try:
        lease = leases.acquire_waiting(state.lease_path(ws_id), f"studio {verb} (pid {os.getpid()})", LEASE_TTL,
                                       now=lambda: now, wait=wait)
    except Busy as exc:
        raise Busy(f"another Studio operation on workspace {ws_id!r} is still running: {exc.message}",
                   code="studio_busy", file=exc.file) from None
    try:
        yield lease
    finally:
        leases.release(lease)


def reconcile_record(ws_id: str, now: datetime, grace: float) -> dict:
    """Reap a generation whose supervisor is gone; the record as it is now.  Caller holds the lease."""
    record = state.read_state(ws_id)
    if is_live(record) and not supervisor_alive(record):
        generation = record["generation"]
        pid = (record.get("supervisor") or {}).get("pid")

        def withdraw(current: dict):
            if current.get("generation") != generation:
                return None
            state.withdraw_route(current.get("host"))
            current["host"] = None
            return current

        state.update_state(ws_id, withdraw)
        terminate(record.get("pid"), record.get("startToken"), grace=grace)
        was = record["phase"]

        def settle(current: dict):
            from openalice.studio.supervisor import SUPERVISOR_LOST  # lazy: the supervisor imports this module

            if current.get("generation") != generation:
                return None
            if was == "stopping":
                current.update(phase="stopped", error=None, errorCode=None)
            else:
                current.update(phase="failed", errorCode=SUPERVISOR_LOST,
                               error=f"the Studio supervisor (pid {pid}) ended unexpectedly; "
                                     "its processes were stopped")
            current.update(pid=None, host=None, stoppedAt=clock.to_iso(now))
            return current

        record = state.update_state(ws_id, settle)
    elif not is_live(record) and record.get("pid"):
        # A teardown that did not finish (the stopper was killed): finish it.
        terminate(record.get("pid"), record.get("startToken"), grace=grace)
        record = state.update_state(ws_id, lambda r: r.update(pid=None) or r
                                    if r.get("generation") == record["generation"] else None)
    return record


def teardown(ws_id: str, record: dict, now: datetime, grace: float) -> dict:
    """Withdraw the route, stop the group, let the supervisor go; the record reads ``stopped``."""
    generation = record["generation"]

    def mark(current: dict):
        if current.get("generation") != generation:
            return None
        state.withdraw_route(current.get("host"))
        current.update(phase="stopping", host=None)
        return current

    record = state.update_state(ws_id, mark)
    terminate(record.get("pid"), record.get("startToken"), grace=grace)
    holder = record.get("supervisor") or {}
    if holder.get("pid") not in (None, os.getpid()):
        deadline = time.monotonic() + SUPERVISOR_EXIT_WAIT
        while procs.is_alive(holder.get("pid"), holder.get("startToken")) and time.monotonic() < deadline:
            time.sleep(WAIT_POLL)
        if procs.is_alive(holder.get("pid"), holder.get("startToken")):
            try:
                os.kill(holder["pid"], signal.SIGKILL)
            except OSError:
                pass

    def settle(current: dict):
        if current.get("generation") != generation:
            return None
        current.update(phase="stopped", pid=None, host=None, error=None, errorCode=None,
                       stoppedAt=clock.to_iso(now))
        return current

    return state.update_state(ws_id, settle)
