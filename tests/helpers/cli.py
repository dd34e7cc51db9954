"""Running the five tools from tests: in this process by default, as a process when asked.

``Cli(env)("alice", "workspace", "list", "--json")`` calls the tool's ``main(argv)``
(``pyproject.toml`` ``[project.scripts]``) inside the test process, the way the
console script would, and answers the :class:`Result` a subprocess would have
given:

- stdout and stderr are captured at the file-descriptor level (fds 1 and 2 point
  at temporary files during the call, ``sys.stdout``/``sys.stderr`` are fresh
  UTF-8 streams over them, so ``sys.stdout.buffer`` works and children the tool
  starts write into the same capture); text input gives text decoded with
  universal newlines (``subprocess.run(text=True)``), bytes input gives the bytes
  decoded as UTF-8 with replacement, as the subprocess runner did;
- stdin is ``input`` (str or bytes, readable through ``sys.stdin`` and
  ``sys.stdin.buffer`` and fd 0), else ``/dev/null`` (what pytest gives a child);
- the environment is exactly the fixture's environment plus ``env`` (``None``
  values removed) while the call runs, the cwd is ``cwd``; both are restored;
- ``SystemExit`` is the exit code; an exception escaping ``main`` is printed as
  a traceback on the captured stderr and is exit 1, as the interpreter does;
- process-wide state is the call's own and is put back: ``sys.argv``, signal
  handlers, the lock registry of :mod:`openalice.core.locks` (so a lock the test
  holds conflicts with the call as it would with another process), the scan lock
  of :mod:`openalice.schedule.fastpath` (a process drops it on exit) and the
  supervisor's current run; a non-daemon thread the call leaves running is
  waited for (a process would not exit before it) and fails the call after
  ``timeout`` seconds.

Caches that are keyed on what they depend on (``core.paths``' per-home paths,
``core.zones``' per-TZ zones, the shipped data of ``core.resources``) are
process-wide on purpose and stay.

``Cli(env, process=True)``, :meth:`Cli.process`, a test marked
``@pytest.mark.process``, ``OPENALICE_TEST_CLI=process`` in the environment, or a
call whose environment sets a crash point (``OPENALICE_TEST_CRASH_AFTER``: the
tool SIGKILLs itself) run the installed console scripts as subprocesses instead (docs/conventions.md,
"CLI tests": when a test needs a process boundary).
"""

from __future__ import annotations

import faulthandler
import importlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Cli", "Result", "TOOLS", "MODE_ENV", "tool_path", "process_mode_forced", "run_in_process"]

REPO = Path(__file__).resolve().parent.parent.parent

#: The console scripts and their entry points (pyproject.toml [project.scripts]).
TOOLS = {
    "alice": "openalice.cli.alice",
    "alice-schedule": "openalice.cli.schedule",
    "alice-inbox": "openalice.cli.inbox",
    "alice-harness": "openalice.cli.harness",
    "harness-adapter": "openalice.cli.adapter",
}

#: ``OPENALICE_TEST_CLI=process`` runs every ``cli(...)`` call as a subprocess.
MODE_ENV = "OPENALICE_TEST_CLI"
#: A call with a crash point set SIGKILLs itself (``core.crash.crash_point``): always a subprocess.
CRASH_ENV = "OPENALICE_TEST_CRASH_AFTER"


def process_mode_forced() -> bool:
    return os.environ.get(MODE_ENV, "").strip().lower() == "process"


def tool_path(name: str) -> str:
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found:
        return found
    return str(REPO / "bin" / name)


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    argv: list

    def json(self):
        try:
            return json.loads(self.stdout)
        except ValueError as exc:
            raise AssertionError(f"stdout is not one JSON document: {exc}\n{self.stdout!r}\n"
                                 f"stderr: {self.stderr}") from None

    def __repr__(self) -> str:
        return (f"Result(rc={self.returncode}, argv={self.argv})\n--- stdout\n{self.stdout}"
                f"\n--- stderr\n{self.stderr}")


class Cli:
    """Runs the tools: ``cli("alice", "workspace", "list", "--json")`` (see the module doc)."""

    def __init__(self, env: dict, *, process: bool = False) -> None:
        self.env = env
        self.processes = process

    def __call__(self, tool: str, *args: str, input: str | bytes | None = None, cwd=None,
                 env: dict | None = None, timeout: float = 60) -> Result:
        full_env = self._env(env)
        if self.processes or process_mode_forced() or full_env.get(CRASH_ENV):
            return self.process(tool, *args, input=input, cwd=cwd, env=env, timeout=timeout)
        return run_in_process(tool, [str(a) for a in args], env=full_env, input=input, cwd=cwd,
                              timeout=timeout)

    def process(self, tool: str, *args: str, input: str | bytes | None = None, cwd=None,
                env: dict | None = None, timeout: float = 60) -> Result:
        """The installed console script as a subprocess, whatever the mode."""
        argv = [tool_path(tool), *map(str, args)]
        text = not isinstance(input, bytes)
        proc = subprocess.run(argv, input=input, capture_output=True, cwd=cwd, env=self._env(env),
                              timeout=timeout, text=text)
        out, err = proc.stdout, proc.stderr
        if not text:
            out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
        return Result(proc.returncode, out, err, argv)

    def _env(self, extra: dict | None) -> dict:
        full = {**self.env, **(extra or {})}
        return {k: str(v) for k, v in full.items() if v is not None}


# -- the in-process runner ------------------------------------------------------------------------

def run_in_process(tool: str, args: list[str], *, env: dict, input: str | bytes | None = None,
                   cwd=None, timeout: float = 60) -> Result:
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r} (one of {', '.join(TOOLS)})")
    argv = [tool_path(tool), *args]
    text = not isinstance(input, bytes)
    with _Captured(input) as captured, _Process(argv, env, cwd, captured.saved[2]) as state:
        # no way to kill a call that hangs; after `timeout` the stacks go to the real stderr
        faulthandler.dump_traceback_later(timeout, file=state.stderr_fd)
        try:
            code = _call_main(tool, args)
        finally:
            faulthandler.cancel_dump_traceback_later()
        state.wait_for_threads(timeout)
    out, err = captured.output
    if text:
        out, err = _universal_newlines(out), _universal_newlines(err)
    return Result(code, out, err, argv)


def _call_main(tool: str, args: list[str]) -> int:
    """What the console script does (``sys.exit(main())``), and what the
    interpreter does with whatever escapes."""
    try:
        module = importlib.import_module(TOOLS[tool])
        return _exit_code(module.main(list(args)))
    except SystemExit as exc:
        return _exit_code(exc.code)
    except Exception:
        traceback.print_exc()
        return 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)  # sys.exit("message"): printed, exit 1
    return 1


def _universal_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


class _Captured:
    """fds 0/1/2 and ``sys.stdin``/``stdout``/``stderr`` pointed at temporary files."""

    def __init__(self, input: str | bytes | None) -> None:
        self.input = input
        self.output = ("", "")

    def __enter__(self) -> "_Captured":
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        self.streams = (sys.stdin, sys.stdout, sys.stderr)
        self.saved = {fd: os.dup(fd) for fd in (0, 1, 2)}
        self.out, self.err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        if self.input is None:
            source = open(os.devnull, "rb")
        else:
            source = tempfile.TemporaryFile()
            source.write(self.input if isinstance(self.input, bytes) else self.input.encode("utf-8"))
            source.seek(0)
        with source:
            os.dup2(source.fileno(), 0)
        os.dup2(self.out.fileno(), 1)
        os.dup2(self.err.fileno(), 2)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb", closefd=False)),
                                     encoding="utf-8", errors="surrogateescape")
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "wb", closefd=False)),
                                      encoding="utf-8", errors="surrogateescape")
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "wb", closefd=False)),
                                      encoding="utf-8", errors="backslashreplace", line_buffering=True)
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdin, sys.stdout, sys.stderr = self.streams
        for fd, saved in self.saved.items():
            os.dup2(saved, fd)
            os.close(saved)
        self.output = tuple(self._read(f) for f in (self.out, self.err))

    @staticmethod
    def _read(file) -> str:
        with file:
            file.seek(0)
            return file.read().decode("utf-8", "replace")


class _Process:
    """The environment, cwd, argv, signal handlers and module state of one call, put back after."""

    def __init__(self, argv: list[str], env: dict, cwd, stderr_fd: int) -> None:
        self.argv, self.env, self.cwd = argv, env, cwd
        self.stderr_fd = stderr_fd  # the test process's own stderr, for faulthandler

    def __enter__(self) -> "_Process":
        self.saved_env = dict(os.environ)
        self.saved_cwd = os.getcwd()
        self.saved_argv = sys.argv
        self.handlers = _signal_handlers()
        self.threads = set(threading.enumerate())
        self.modules = _ModuleState()
        os.environ.clear()
        os.environ.update(self.env)
        sys.argv = list(self.argv)
        try:
            if self.cwd is not None:
                os.chdir(self.cwd)
        except BaseException:
            self.__exit__()
            raise
        return self

    def wait_for_threads(self, timeout: float) -> None:
        """A process exits only when its non-daemon threads have ended."""
        deadline = time.monotonic() + timeout
        for thread in self._new_threads():
            thread.join(max(0.0, deadline - time.monotonic()))
        left = self._new_threads()
        if left:
            raise AssertionError(f"the call left non-daemon threads running after {timeout}s: "
                                 f"{[t.name for t in left]} ({self.argv})")

    def _new_threads(self) -> list[threading.Thread]:
        return [t for t in threading.enumerate()
                if t not in self.threads and t.is_alive() and not t.daemon]

    def __exit__(self, *exc: object) -> None:
        self.modules.restore()
        for signum, handler in self.handlers.items():
            if signal.getsignal(signum) is not handler:
                signal.signal(signum, handler)
        sys.argv = self.saved_argv
        os.environ.clear()
        os.environ.update(self.saved_env)
        os.chdir(self.saved_cwd)


def _signal_handlers() -> dict:
    handlers = {}
    for signum in signal.valid_signals():
        if signum in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            handler = signal.getsignal(signum)
        except (OSError, ValueError):
            continue
        if handler is not None:  # None: installed outside Python, cannot be put back
            handlers[signum] = handler
    return handlers


class _ModuleState:
    """The process-wide state of :mod:`openalice` that a process would start
    without and drop on exit: swapped for fresh state during the call."""

    def __init__(self) -> None:
        from openalice.core import locks  # the registry of held lock files

        self.locks = locks
        self.registry = locks._registry
        locks._registry = {}
        self.fastpath = sys.modules.get("openalice.schedule.fastpath")
        self.held_fd = None
        if self.fastpath is not None:
            self.held_fd, self.fastpath._held_fd = self.fastpath._held_fd, None
        self.supervisor = sys.modules.get("openalice.runs.supervisor")
        self.current = getattr(self.supervisor, "_current", None)

    def restore(self) -> None:
        for slot in self.locks._registry.values():  # locks the call left held: exit drops them
            if slot.fd is not None:
                fd, slot.fd = slot.fd, None
                os.close(fd)
        self.locks._registry = self.registry
        fastpath = sys.modules.get("openalice.schedule.fastpath")
        if fastpath is not None:
            fastpath.release_lock()
            fastpath._held_fd = self.held_fd if fastpath is self.fastpath else None
        supervisor = sys.modules.get("openalice.runs.supervisor")
        if supervisor is not None:
            supervisor._current = self.current if supervisor is self.supervisor else None
