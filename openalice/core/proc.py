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
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import IO


__all__ = ["spawn", "start_token", "is_alive", "kill_group", "terminate_group",
           "group_alive", "group_members", "group_is_ours", "launch_detached", "reap_in_thread",
           "become_subreaper", "signal_name"]


def signal_name(number: int) -> str:
    """``SIGTERM`` for 15; ``SIG<n>`` for a number no signal has."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"



def start_token(pid: int) -> str | None:
    """An opaque token that identifies this incarnation of ``pid``, or None if
    there is no such process (a pid that is not a positive integer names none)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
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
    """True while the kernel knows the group (zombies count: see :func:`group_members`)."""
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
                    poll: float = 0.05, kill_wait: float = 0.0) -> bool:
    """SIGTERM the group, wait up to ``grace`` seconds, then SIGKILL it.

    Returns True if SIGKILL was needed.  ``proc`` (the leader) is reaped so it
    does not linger as a zombie while we wait for the group; the wait ends when
    no live (non-zombie) member is left.  ``kill_wait`` bounds how long to wait
    for the members to vanish after SIGKILL (0: do not wait).
    """
    if not kill_group(pgid, signal.SIGTERM):
        return False
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if proc is not None:
            proc.poll()
        if not group_members(pgid):
            return False
        time.sleep(poll)
    kill_group(pgid, signal.SIGKILL)
    if proc is not None:
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    deadline = time.monotonic() + kill_wait
    while time.monotonic() < deadline and group_members(pgid):
        time.sleep(poll)
    return True


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of group ``pgid``.

    On Linux this reads ``/proc/*/stat``; a zombie no longer runs anything, but
    ``killpg(pgid, 0)`` still succeeds while one waits for a parent that never
    reaps it (a container's pid 1 may not), so only this answer can say a group
    is really gone.  Elsewhere it falls back to ``[pgid]`` or ``[]`` from
    :func:`group_alive`.

    A scan lists ``/proc`` first and reads each ``stat`` after: a member that
    forks and exits in between (a wrapper backgrounding its app) reads as a
    zombie while its child is not listed yet.  So an empty scan of a group the
    kernel still knows is taken again (twice at most: the child is in the next
    listing).
    """
    if pgid <= 0:
        return []
    for _attempt in range(3):
        try:
            members = _scan_group(pgid)
        except OSError:
            return [pgid] if group_alive(pgid) else []
        if members or not group_alive(pgid):
            return members
    return members


def _scan_group(pgid: int) -> list[int]:
    members: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                raw = fh.read()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2:].split()
        # fields[0] is the state, fields[2] the process group.
        if len(fields) > 2 and fields[0] not in (b"Z", b"X") and fields[2] == str(pgid).encode():
            members.append(int(name))
    return sorted(members)


def group_is_ours(pgid: int | None, leader_token: str | None) -> bool:
    """May group ``pgid`` be signalled as the one we started (leader token recorded)?

    A pid (and so a group id) is not reused while any process of the group
    lives, so the group is ours if its leader still runs with our token, or if
    the leader is gone (then whatever is left of the group is what it left
    behind).  A leader alive with another token is a reused pid: not ours.
    """
    if not isinstance(pgid, int) or isinstance(pgid, bool) or pgid <= 1:
        return False
    current = start_token(pgid)
    return current is None or leader_token is None or current == leader_token


def launch_detached(module: str, args: Sequence[str], *, log_path: str | os.PathLike,
                    env: Mapping[str, str] | None = None) -> int:
    """Start ``python -m module args...`` detached and return its pid at once.

    The process runs in a new session (no terminal, immune to the caller's exit
    and to a Ctrl-C in the caller's terminal) with stdin from /dev/null and its
    own diagnostics appended to ``log_path``.  ``cwd`` is the directory holding
    the ``openalice`` package, so ``-m`` finds it whether the toolkit is
    installed or run from a checkout, without touching PYTHONPATH (which the
    programs it starts would inherit).  A thread reaps it, so a long-lived
    caller keeps no zombie.
    """
    package_parent = Path(__file__).resolve().parent.parent.parent
    log = open(log_path, "ab")
    try:
        child = subprocess.Popen([sys.executable, "-m", module, *args], cwd=package_parent,
                                 env=dict(env) if env is not None else None, stdin=subprocess.DEVNULL,
                                 stdout=log, stderr=log, start_new_session=True, close_fds=True)
    finally:
        log.close()
    reap_in_thread(child)
    return child.pid


def reap_in_thread(child: subprocess.Popen) -> None:
    """Let a daemon thread wait for ``child`` so it never lingers as a zombie.

    A zombie keeps its pid, but liveness checks read pid + start token, and a
    zombie has no start token.
    """
    threading.Thread(target=child.wait, name=f"reap-{child.pid}", daemon=True).start()


def become_subreaper() -> bool:
    """Make orphaned descendants of this process its children (Linux
    ``PR_SET_CHILD_SUBREAPER``), so a grandchild whose parent exited is reaped
    here instead of lingering as a zombie.  False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes  # lazy: 2 ms, and only Linux needs it

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False
