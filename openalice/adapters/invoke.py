"""Run a wrapper in one of its optional modes, bounded in time and output.

The wrapper runs as the leader of its own process group (``core.proc``) so a
timeout kills everything it started, not just the shell at the top.  Output
beyond ``max_output`` bytes per stream is read and dropped, so a chatty
wrapper can neither block on a full pipe nor fill our memory.  Nothing secret
is passed: the wrapper sources its own env file, and we only tell it where
that is (``HARNESS_ENV_FILE``, a path).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Mapping

from openalice.core.records import record_class

from .catalog import AdapterEntry

__all__ = ["DEFAULT_TIMEOUT", "MAX_OUTPUT", "WrapperRun", "wrapper_env", "wrapper_problem",
           "run_wrapper", "known_secret_values"]

DEFAULT_TIMEOUT = 10.0
MAX_OUTPUT = 64 * 1024


@record_class
class WrapperRun:
    """What one wrapper invocation did."""

    returncode: int | None  # None: it never started, or was killed on timeout
    stdout: bytes = b""
    stderr: bytes = b""
    timed_out: bool = False
    elapsed: float = 0.0
    error: str | None = None  # why it could not start

    @property
    def stdout_text(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", "replace")


def wrapper_env(entry: AdapterEntry, base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["HARNESS_ADAPTER_ID"] = entry.id
    if entry.envFile is not None:
        env["HARNESS_ENV_FILE"] = str(entry.envFile)
    else:
        env.pop("HARNESS_ENV_FILE", None)
    return env


def wrapper_problem(entry: AdapterEntry) -> str | None:
    """Why the wrapper cannot be run at all, or None."""
    try:
        st = os.stat(entry.wrapper)
    except FileNotFoundError:
        return f"wrapper not found: {entry.wrapper}"
    except OSError as exc:
        return f"wrapper unreadable: {entry.wrapper}: {exc.strerror}"
    if not stat.S_ISREG(st.st_mode):
        return f"wrapper is not a regular file: {entry.wrapper}"
    if not os.access(entry.wrapper, os.X_OK):
        return f"wrapper is not executable: {entry.wrapper} (chmod +x)"
    return None


def known_secret_values(entry: AdapterEntry, environ: Mapping[str, str] | None = None) -> list[str]:
    """Values that must never be shown: those in the adapter's env file and any
    secret-named variable of our own environment (a wrapper may echo either)."""
    from openalice.core.secrets import load_env_file, looks_secret  # lazy: getpass & co., only to run a wrapper

    values: list[str] = []
    if entry.envFile is not None:
        try:
            values.extend(load_env_file(entry.envFile).values())
        except Exception:  # an unreadable env file must not break redaction of the rest
            pass
    env = os.environ if environ is None else environ
    values.extend(v for k, v in env.items() if looks_secret(k) and v)
    return values


def _drain(fd: int, keep: int, sink: list[bytes]) -> None:
    from openalice.core import pipes  # lazy: only a wrapper run reads a pipe, not `harness-adapter list`

    kept = 0
    try:
        for chunk in pipes.read_chunks(fd):
            if kept < keep:
                part = chunk[: keep - kept]
                sink.append(part)
                kept += len(part)
    except OSError:
        pass
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


def run_wrapper(entry: AdapterEntry, args: list[str], *, timeout: float = DEFAULT_TIMEOUT,
                max_output: int = MAX_OUTPUT, env: Mapping[str, str] | None = None,
                clock=time.monotonic) -> WrapperRun:
    """Run ``<wrapper> args...`` with stdin closed; kill its group at ``timeout``."""
    import subprocess  # lazy: only a probe runs a wrapper, not a listing
    import threading

    from openalice.core import proc  # lazy: subprocess, only to run a wrapper

    problem = wrapper_problem(entry)
    if problem:
        return WrapperRun(None, error=problem)
    started = clock()
    try:
        child = proc.spawn([str(entry.wrapper), *args], env=wrapper_env(entry, env),
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if getattr(exc, "errno", None) == 8:  # ENOEXEC: no #! line
            reason = "not a valid executable (missing #! line?)"
        return WrapperRun(None, error=f"cannot run wrapper {entry.wrapper}: {reason}")
    out: list[bytes] = []
    err: list[bytes] = []
    readers = []
    for pipe, sink in ((child.stdout, out), (child.stderr, err)):
        fd = os.dup(pipe.fileno())
        pipe.close()
        reader = threading.Thread(target=_drain, args=(fd, max_output, sink), daemon=True)
        reader.start()
        readers.append(reader)
    deadline = started + timeout
    timed_out = False
    try:
        child.wait(timeout=max(0.0, deadline - clock()))
    except subprocess.TimeoutExpired:
        timed_out = True
    if not timed_out:
        # A background process may still hold the pipes; give it until the deadline.
        for reader in readers:
            reader.join(max(0.0, deadline - clock()))
    if timed_out or any(r.is_alive() for r in readers):
        proc.terminate_group(child.pid, grace=1.0, proc=child)
        for reader in readers:
            reader.join(2.0)
    elif proc.group_alive(child.pid):
        # The wrapper exited but left helpers behind: an optional mode starts nothing lasting.
        proc.terminate_group(child.pid, grace=1.0)
    if child.poll() is None:
        child.kill()
        child.wait()
    elapsed = clock() - started
    return WrapperRun(None if timed_out else child.returncode, b"".join(out), b"".join(err),
                      timed_out=timed_out, elapsed=elapsed)
