"""The workspace checkout lease (openalice.workspaces.checkout): one writer of
a workspace's managed files at a time; a dead holder frees it at once."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from openalice import workspaces
from openalice.core import leases
from openalice.core.errors import Busy
from openalice.workspaces import registry
from openalice.workspaces.checkout import TTL_SECONDS, checkout, lease_path

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "INIT_PROJECTORS", [])
    return workspaces.init(tmp_path / "notes", now=NOW)[0]


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_one_holder_at_a_time_and_released_after_the_block(ws):
    with checkout(ws, "alice-harness upgrade", now=NOW) as lease:
        assert lease_path(ws).exists() and lease.owner == "alice-harness upgrade"
        with pytest.raises(Busy) as err:
            with checkout(ws, "alice-harness stickers apply", now=NOW):
                pass
        assert err.value.code == "workspace_busy" and err.value.exit_code == 3
        assert "alice-harness upgrade" in err.value.message and str(err.value.file) == str(lease_path(ws))
    with checkout(ws, "alice-harness stickers apply", now=NOW):  # free again
        pass


def test_a_holder_that_died_frees_the_lease_at_once(ws):
    leases.acquire(lease_path(ws), "killed upgrade", TTL_SECONDS, now=NOW, pid=_dead_pid())
    with checkout(ws, "alice-harness upgrade", now=NOW) as lease:
        assert lease.owner == "alice-harness upgrade"


def test_an_expired_lease_is_free_even_if_its_pid_runs(ws):
    leases.acquire(lease_path(ws), "stuck", TTL_SECONDS, now=NOW)  # this very (live) process
    with pytest.raises(Busy):
        with checkout(ws, "second", now=NOW + timedelta(seconds=TTL_SECONDS - 1)):
            pass
    with checkout(ws, "second", now=NOW + timedelta(seconds=TTL_SECONDS + 1)):
        pass
