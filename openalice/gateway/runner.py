"""Running the toolkit's CLIs for the gateway: argv lists, never a shell.

Each child gets the gateway's environment minus every variable whose name
looks secret (``core.secrets.looks_secret``), runs in ``/`` — outside every
workspace, so the caller rule (:mod:`openalice.workspaces.access`: a caller
that stands in no registered workspace and is not in a run writes the
workspace it names) treats it as a person naming the workspace with
``--workspace`` — and reads stdin only when a route passes
bytes (a secret for ``set-secret``, an issue body).  A semaphore bounds how
many run at once, so a page asking for fifty images cannot fork fifty
interpreters on a two-core machine.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import Callable, Mapping, Sequence

from openalice.core import proc as core_proc
from openalice.core.secrets import looks_secret
from openalice.core.tools import tool_argv

__all__ = ["CHILD_CWD", "CliResult", "CliRunner", "child_environment"]

CHILD_CWD = "/"
DEFAULT_TIMEOUT = 120.0
TIMED_OUT = -1000
# Paths the children must resolve exactly as the gateway does, whatever their cwd.
_PATH_VARS = ("OPENALICE_HOME", "HARNESS_HOME", "HARNESS_CATALOG", "HOME")


def child_environment(base: Mapping[str, str]) -> dict[str, str]:
    """``base`` without secret-looking names; relative home paths made absolute."""
    env = {k: v for k, v in base.items() if not looks_secret(k)}
    for var in _PATH_VARS:
        value = env.get(var)
        if value and not os.path.isabs(os.path.expanduser(value)):
            env[var] = os.path.abspath(value)
    return env


class CliResult:
    """What a finished child left: exit code (``TIMED_OUT`` when killed for
    time), stdout and stderr bytes, and how long it took."""

    __slots__ = ("tool", "args", "exit_code", "stdout", "stderr", "seconds")

    def __init__(self, tool: str, args: Sequence[str], exit_code: int, stdout: bytes,
                 stderr: bytes, seconds: float) -> None:
        self.tool, self.args = tool, tuple(args)
        self.exit_code, self.stdout, self.stderr, self.seconds = exit_code, stdout, stderr, seconds

    @property
    def timed_out(self) -> bool:
        return self.exit_code == TIMED_OUT

    def __repr__(self) -> str:
        return f"CliResult({self.tool} {' '.join(self.args[:2])}..., exit={self.exit_code})"


class CliRunner:
    """Starts the tools.  ``on_spawn(tool, args)`` is called before every child
    (tests count spawns with it); ``spawned`` is the running total."""

    def __init__(self, *, env: Mapping[str, str] | None = None, cwd: str = CHILD_CWD,
                 timeout: float = DEFAULT_TIMEOUT, concurrency: int = 6,
                 on_spawn: Callable[[str, Sequence[str]], None] | None = None) -> None:
        self.env = child_environment(os.environ if env is None else env)
        self.cwd = cwd
        self.timeout = timeout
        self.on_spawn = on_spawn
        self.spawned = 0
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen] = set()
        self._closed = False

    def _start(self, tool: str, args: Sequence[str], *, stdin, stdout, stderr) -> subprocess.Popen:
        argv = [*tool_argv(tool), *args]
        with self._lock:
            if self._closed:
                raise RuntimeError("the gateway is shutting down")
            self.spawned += 1
            if self.on_spawn is not None:
                self.on_spawn(tool, tuple(args))
            child = core_proc.spawn(argv, cwd=self.cwd, env=self.env, stdin=stdin, stdout=stdout,
                                    stderr=stderr)
            self._live.add(child)
        return child

    def _forget(self, child: subprocess.Popen) -> None:
        with self._lock:
            self._live.discard(child)

    def run(self, tool: str, args: Sequence[str], *, stdin: bytes | None = None,
            timeout: float | None = None) -> CliResult:
        """Run one verb to completion and capture its output."""
        limit = self.timeout if timeout is None else timeout
        with self._slots:
            started = time.monotonic()
            child = self._start(tool, args, stdin=subprocess.PIPE if stdin is not None
                                else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
            try:
                out, err = child.communicate(stdin, timeout=limit)
                code = child.returncode
            except subprocess.TimeoutExpired:
                core_proc.terminate_group(child.pid, grace=1.0, proc=child)
                out, err = child.communicate()
                code = TIMED_OUT
            finally:
                self._forget(child)
            seconds = time.monotonic() - started
        return CliResult(tool, args, code, out or b"", err or b"", seconds)

    def follow(self, tool: str, args: Sequence[str]) -> subprocess.Popen:
        """Start a long-lived child whose stdout the caller streams (SSE).
        The caller must :meth:`stop` it."""
        return self._start(tool, args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)

    def stop(self, child: subprocess.Popen) -> None:
        if child.poll() is None:
            core_proc.terminate_group(child.pid, grace=2.0, proc=child)
        try:
            child.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        if child.stdout is not None:
            child.stdout.close()
        self._forget(child)

    def close(self) -> None:
        """Refuse new children and end the live ones (followers, slow verbs)."""
        with self._lock:
            self._closed = True
            live = list(self._live)
        for child in live:
            if child.poll() is None:
                core_proc.terminate_group(child.pid, grace=2.0, proc=child)
