"""Child processes: own session, whole-group kill, liveness by pid + start time.

A pid alone can be reused after its process dies, so every record of a live
process stores a *start token* (the kernel's start time of the process) and
liveness checks both.  Children are started in a new session, so the whole
descendant tree shares one process group and can be killed together even after
a wrapper script in the middle has exited.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import IO, Mapping, Sequence

__all__ = ["spawn", "start_token", "is_alive", "kill_group", "terminate_group",
           "group_alive"]


def start_token(pid: int) -> str | None:
    """An opaque token that identifies this incarnation of ``pid``, or None if
    there is no such process."""
    if pid <= 0:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return None
    except OSError:
        raw = None
    if raw is not None:
        # The command name (field 2) may contain spaces and ')': split after the last ')'.
        fields = raw[raw.rfind(b")") + 2:].split()
        if len(fields) > 19:
            state = fields[0]
            if state in (b"Z", b"X"):
                return None
            return f"linux:{fields[19].decode()}"
    if sys.platform.startswith("linux"):
        return None
    try:
        out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True,
                             text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.strip()
    return f"ps:{text}" if out.returncode == 0 and text else None


def is_alive(pid: int | None, token: str | None) -> bool:
    """True if ``pid`` runs and is the same incarnation that ``token`` names."""
    if not pid:
        return False
    current = start_token(pid)
    if current is None:
        return False
    return token is None or current == token


def spawn(argv: Sequence[str], *, cwd: str | os.PathLike | None = None,
          env: Mapping[str, str] | None = None, stdin: int | IO | None = subprocess.DEVNULL,
          stdout: int | IO | None = None, stderr: int | IO | None = None) -> subprocess.Popen:
    """Start ``argv`` (no shell) as the leader of a new session and process group."""
    return subprocess.Popen(list(argv), cwd=cwd, env=dict(env) if env is not None else None,
                            stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=True,
                            close_fds=True)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_group(pgid: int, sig: int = signal.SIGTERM) -> bool:
    """Send ``sig`` to the whole group; False if the group is already gone."""
    try:
        os.killpg(pgid, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return False


def terminate_group(pgid: int, *, grace: float = 5.0, proc: subprocess.Popen | None = None,
                    poll: float = 0.05) -> bool:
    """SIGTERM the group, wait up to ``grace`` seconds, then SIGKILL it.

    Returns True if SIGKILL was needed.  ``proc`` (the leader) is reaped so it
    does not linger as a zombie while we wait for the group.
    """
    if not kill_group(pgid, signal.SIGTERM):
        return False
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if proc is not None:
            proc.poll()
        if not group_alive(pgid):
            return False
        time.sleep(poll)
    kill_group(pgid, signal.SIGKILL)
    if proc is not None:
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    return True
