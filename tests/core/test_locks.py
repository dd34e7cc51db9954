import os
import subprocess
import sys
import threading

import pytest

from openalice.core import locks
from openalice.core.errors import Busy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HOLDER = """
import sys, time
sys.path.insert(0, sys.argv[2])
from openalice.core import locks
with locks.locked(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_nonblocking_lock_held_by_other_process_raises_busy(tmp_path):
    lock_file = tmp_path / "scan.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock_file), REPO],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(Busy) as info:
            locks.acquire(lock_file, blocking=False)
        assert info.value.exit_code == 3
        with pytest.raises(Busy):
            locks.acquire(lock_file, timeout=0.05)
    finally:
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=10)
    with locks.locked(lock_file, blocking=False):
        pass


def test_lock_released_when_holder_is_killed(tmp_path):
    lock_file = tmp_path / "k.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock_file), REPO],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait(timeout=10)
    with locks.locked(lock_file, blocking=False):
        pass


def test_reentrant_in_one_thread_and_exclusive_across_threads(tmp_path):
    lock_file = tmp_path / "t.lock"
    with locks.locked(lock_file):
        with locks.locked(lock_file, blocking=False):  # re-entrant, one descriptor
            pass
        outcome = []

        def other():
            try:
                locks.acquire(lock_file, blocking=False)
                outcome.append("got it")
            except Busy:
                outcome.append("busy")

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert outcome == ["busy"]
    with locks.locked(lock_file, blocking=False):
        pass


def test_lock_path_for():
    assert str(locks.lock_path_for("/a/b/state.json")) == "/a/b/.state.json.lock"
