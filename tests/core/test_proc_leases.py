import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from openalice.core import leases, proc
from openalice.core.errors import Busy

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


def test_start_token_identifies_incarnation():
    me = proc.start_token(os.getpid())
    assert me and proc.is_alive(os.getpid(), me)
    assert not proc.is_alive(os.getpid(), me + "-other")
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    token = proc.start_token(child.pid)
    child.wait()
    assert not proc.is_alive(child.pid, token)
    assert not proc.is_alive(0, None) and proc.start_token(-5) is None


def test_spawn_new_group_and_terminate_whole_tree(tmp_path):
    # The leader starts a grandchild and exits at once; the grandchild must still die.
    pidfile = tmp_path / "grandchild.pid"
    script = (f"import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', "
              f"'import time; time.sleep(60)']); open({str(pidfile)!r}, 'w').write(str(p.pid))")
    leader = proc.spawn([sys.executable, "-c", script])
    assert os.getpgid(leader.pid) == leader.pid  # its own group
    leader.wait(timeout=20)
    grandchild = int(pidfile.read_text())
    token = proc.start_token(grandchild)
    assert proc.is_alive(grandchild, token)
    assert proc.group_alive(leader.pid)
    proc.terminate_group(leader.pid, grace=2)
    for _ in range(200):
        if not proc.is_alive(grandchild, token):
            break
        import time
        time.sleep(0.01)  # reaping by init is asynchronous
    assert not proc.is_alive(grandchild, token)


def test_terminate_group_escalates_to_sigkill(tmp_path):
    stubborn = proc.spawn([sys.executable, "-c",
                           "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                           "print('ready', flush=True)\ntime.sleep(60)"], stdout=subprocess.PIPE)
    assert stubborn.stdout.readline().strip() == b"ready"
    assert proc.terminate_group(stubborn.pid, grace=0.3, proc=stubborn) is True
    assert stubborn.wait(timeout=5) == -9


def test_lease_acquire_busy_expire_and_fence(tmp_path):
    path = tmp_path / "owner.lease"
    a = leases.acquire(path, "scanner-a", 60, now=T0)
    assert a.generation == 1
    with pytest.raises(Busy) as info:
        leases.acquire(path, "scanner-b", 60, now=T0 + timedelta(seconds=30))
    assert "scanner-a" in info.value.message
    # after expiry the claim can be taken over, and the old holder is fenced out
    b = leases.acquire(path, "scanner-b", 60, now=T0 + timedelta(seconds=61))
    assert b.generation == 2
    with pytest.raises(leases.LeaseLost):
        leases.check(a)
    with pytest.raises(leases.LeaseLost):
        leases.renew(a, 60, now=T0 + timedelta(seconds=62))
    leases.check(b)
    assert leases.release(a) is False
    assert leases.release(b) is True
    c = leases.acquire(path, "scanner-c", 60, now=T0 + timedelta(seconds=63))
    assert c.generation == 3


def test_lease_of_dead_holder_is_free_before_expiry(tmp_path):
    path = tmp_path / "x.lease"
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    leases.acquire(path, "dead", 3600, now=T0, pid=child.pid)
    rec = leases.read(path)
    assert rec["pid"] == child.pid
    taken = leases.acquire(path, "alive", 60, now=T0 + timedelta(seconds=1))
    assert taken.generation == 2


def test_renew_extends(tmp_path):
    a = leases.acquire(tmp_path / "r.lease", "me", 10, now=T0)
    renewed = leases.renew(a, 100, now=T0 + timedelta(seconds=5))
    assert renewed.expiresAt == "2026-11-30T09:01:45Z"
    leases.check(renewed)
