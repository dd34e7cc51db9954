"""The in-process runner behind the ``cli`` fixture (tests/helpers/cli.py): it must
answer what a subprocess would, and leave this process as it found it."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import types

import pytest

from openalice.core import locks
from tests.helpers import cli as runner


@pytest.fixture
def fake_tool(monkeypatch):
    """A sixth tool whose ``main`` is whatever the test sets."""
    module = types.ModuleType("tests_fake_tool")
    monkeypatch.setitem(sys.modules, "tests_fake_tool", module)
    monkeypatch.setitem(runner.TOOLS, "fake", "tests_fake_tool")

    def install(main):
        module.main = main
    return install


def call(*args, env=None, **kw):
    return runner.run_in_process("fake", list(args), env=env if env is not None else dict(os.environ), **kw)


def test_the_fixture_runs_in_process_unless_told(cli, monkeypatch):
    assert not cli.processes
    monkeypatch.setenv(runner.MODE_ENV, "process")
    assert runner.process_mode_forced()


@pytest.mark.process
def test_a_marked_test_gets_processes(cli, cli_process):
    assert cli.processes and cli_process.processes


def test_version_and_json_match_the_console_script(cli):
    inproc = cli("alice", "--version", "--json")
    proc = cli.process("alice", "--version", "--json")
    assert (inproc.returncode, inproc.stdout, inproc.stderr) == (proc.returncode, proc.stdout, proc.stderr)
    assert inproc.json()["tool"] == "alice"


def test_usage_error_matches_the_console_script(cli):
    inproc = cli("alice", "workspace", "show", "no-such", "--json")
    proc = cli.process("alice", "workspace", "show", "no-such", "--json")
    assert inproc.returncode == proc.returncode != 0
    assert inproc.stdout == proc.stdout and inproc.stderr == proc.stderr


def test_environment_is_the_calls_own_and_restored(fake_tool, monkeypatch):
    seen = {}

    def main(argv):
        seen.update(os.environ)
        os.environ["LEAKED_BY_TOOL"] = "1"
        return 0
    fake_tool(main)
    monkeypatch.setenv("ONLY_IN_TEST", "x")
    before = dict(os.environ)
    result = call(env={"ONLY_IN_CALL": "y", "PATH": os.environ["PATH"]})
    assert result.returncode == 0
    assert seen == {"ONLY_IN_CALL": "y", "PATH": os.environ["PATH"]}
    assert dict(os.environ) == before


def test_cwd_is_the_calls_own_and_restored(fake_tool, tmp_path):
    seen = []

    def main(argv):
        seen.append(os.getcwd())
        os.chdir("/")
        return 0
    fake_tool(main)
    before = os.getcwd()
    call(cwd=tmp_path)
    assert seen == [str(tmp_path)]
    assert os.getcwd() == before


@pytest.mark.parametrize("given", ["héllo\nworld\n", "héllo\nworld\n".encode()])
def test_stdin_is_the_input_through_text_buffer_and_fd(fake_tool, given):
    def main(argv):
        if argv == ["text"]:
            sys.stdout.write(sys.stdin.read())
        elif argv == ["buffer"]:
            sys.stdout.buffer.write(sys.stdin.buffer.read())
        else:
            os.write(1, os.read(0, 100))
        return 0
    fake_tool(main)
    for how in ("text", "buffer", "fd"):
        assert call(how, input=given).stdout == "héllo\nworld\n", how


def test_no_input_is_an_empty_stdin(fake_tool):
    fake_tool(lambda argv: print(repr(sys.stdin.read())) or 0)
    assert call().stdout == "''\n"


def test_stdout_and_stderr_are_captured_with_children_output(fake_tool):
    def main(argv):
        print("out")
        print("err", file=sys.stderr)
        sys.stdout.flush()
        os.system("echo child-out; echo child-err >&2")
        return 0
    fake_tool(main)
    result = call()
    assert result.stdout == "out\nchild-out\n"
    assert result.stderr == "err\nchild-err\n"


def test_text_mode_has_universal_newlines_bytes_mode_keeps_them(fake_tool):
    fake_tool(lambda argv: sys.stdout.write("a\r\nb\rc\n") and 0)
    assert call().stdout == "a\nb\nc\n"
    assert call(input=b"").stdout == "a\r\nb\rc\n"


@pytest.mark.parametrize("outcome, code", [(0, 0), (3, 3), (None, 0), (SystemExit(4), 4),
                                           (SystemExit(None), 0), (SystemExit("bye"), 1)])
def test_exit_codes(fake_tool, outcome, code):
    def main(argv):
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome
    fake_tool(main)
    result = call()
    assert result.returncode == code
    if code == 1:
        assert result.stderr == "bye\n"


def test_an_escaping_exception_is_a_traceback_and_exit_1(fake_tool):
    def main(argv):
        raise RuntimeError("boom")
    fake_tool(main)
    result = call()
    assert result.returncode == 1
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert "RuntimeError: boom" in result.stderr


def test_signal_handlers_are_restored(fake_tool):
    before = signal.getsignal(signal.SIGTERM)

    def main(argv):
        signal.signal(signal.SIGTERM, lambda *a: None)
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        return 0
    fake_tool(main)
    usr1 = signal.getsignal(signal.SIGUSR1)
    call()
    assert signal.getsignal(signal.SIGTERM) is before
    assert signal.getsignal(signal.SIGUSR1) == usr1


def test_argv_is_the_tools_and_restored(fake_tool):
    seen = []
    fake_tool(lambda argv: seen.append((list(sys.argv), argv)) or 0)
    before = list(sys.argv)
    call("a", "b")
    assert seen == [([runner.tool_path("fake"), "a", "b"], ["a", "b"])]
    assert sys.argv == before


def test_a_lock_the_test_holds_is_held_against_the_call(fake_tool, tmp_path):
    lock_file = tmp_path / "x.lock"

    def main(argv):
        try:
            locks.acquire(lock_file, blocking=False).release()
        except Exception as exc:
            print(type(exc).__name__)
            return 3
        return 0
    fake_tool(main)
    with locks.locked(lock_file):
        assert call().stdout == "Busy\n"  # as from another process; re-entrant would say 0
    assert call().returncode == 0


def test_a_lock_the_call_leaves_held_is_dropped(fake_tool, tmp_path):
    lock_file = tmp_path / "x.lock"
    fake_tool(lambda argv: locks.acquire(lock_file) and 0)
    call()
    locks.acquire(lock_file, blocking=False).release()  # would be Busy if the call's fd were still open


def test_the_scan_lock_is_dropped_after_a_call(fake_tool):
    from openalice.schedule import fastpath
    fake_tool(lambda argv: 0 if fastpath.take_lock() else 3)
    assert call().returncode == 0
    assert call().returncode == 0  # the first call's lock would make this 3
    assert fastpath._held_fd is None


def test_a_non_daemon_thread_is_waited_for(fake_tool):
    done = threading.Event()

    def main(argv):
        threading.Thread(target=lambda: (done.wait(0.2), print("late"))).start()
        return 0
    fake_tool(main)
    assert call().stdout == "late\n"
    stuck = threading.Event()
    fake_tool(lambda argv: threading.Thread(target=stuck.wait, name="stuck").start() or 0)
    with pytest.raises(AssertionError, match="stuck"):
        call(timeout=0.2)
    stuck.set()


def test_a_crash_point_always_runs_a_process(cli, monkeypatch):
    def refuse(*a, **kw):
        raise AssertionError("ran in-process")
    monkeypatch.setattr(runner, "run_in_process", refuse)
    r = cli("alice", "--version", env={runner.CRASH_ENV: "never-reached"})
    assert r.returncode == 0 and r.stdout.startswith("alice ")


def test_a_call_that_outlives_its_timeout_dumps_the_stacks(fake_tool, capfd):
    def main(argv):
        time.sleep(0.6)
        return 0
    fake_tool(main)
    assert call(timeout=0.1).returncode == 0  # it cannot be killed, but it is shown
    assert "in main" in capfd.readouterr().err
