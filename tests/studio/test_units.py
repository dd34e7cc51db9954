"""Studio parts in process: host parsing, log tail and redaction, the port retry, require_idle."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from openalice.core import clock
from openalice.studio import logfile, state

from .conftest import leftovers


def test_surface_ids_of_hosts():
    sid = "0123456789abcdef01234567"
    host = f"oa-surface-{sid}.localhost"
    assert state.surface_id_of_host(host) == sid
    assert state.surface_id_of_host(host.upper() + ":47331") == sid
    for bad in (None, "", "localhost", f"{host}:", f"{host}:x1", f"a{host}", f"{host}.", f"{host}.evil",
                f"oa-surface-{sid[:-1]}.localhost", f"oa-surface-{sid}0.localhost", "[::1]:80",
                f"oa-surface-{sid.upper()}X.localhost", f"oa-surface-{sid}.localhost/x"):
        assert state.surface_id_of_host(bad) is None, bad
    assert len(state.new_surface_id()) == 24 and state.new_surface_id() != state.new_surface_id()
    with pytest.raises(Exception):
        state.route_path("../../etc/passwd")


def test_display_redaction_hides_loopback_addresses_and_credentials():
    text = ("listening on http://127.0.0.1:49321/ and localhost:5173, [::1]:8080, 0.0.0.0:3000\n"
            "Authorization: Bearer abcdefghijklmnop\ntoken=supersecretvalue api_key: sk-abcdefghijkl\n"
            "secret=\"quoted value\" password=hunter2 version 1.2.3 at 10.0.0.1:80\n")
    shown = logfile.redact_for_display(text)
    for leaked in ("49321", "5173", "8080", ":3000", "abcdefghijklmnop", "supersecretvalue", "sk-abcdefghijkl",
                   "quoted value", "hunter2"):
        assert leaked not in shown, leaked
    assert shown.count("[HARNESS_LOOPBACK]") == 4
    # Only loopback addresses are hidden; prose and other hosts stay.
    assert "version 1.2.3 at 10.0.0.1:80" in shown


def test_tail_is_at_most_64_kib_across_the_rotation(tmp_path, monkeypatch):
    monkeypatch.setattr(logfile, "ROTATE_BYTES", 50_000)
    path = tmp_path / "studio.log"
    log = logfile.open_log(path)
    for i in range(2785):  # 1785 lines fill studio.log.1 (49,980 bytes), 1000 more in studio.log
        log.write_line(f"line {i:05d} token=abc{i}def".encode())
    log.close()
    assert (tmp_path / "studio.log.1").exists() and path.stat().st_size <= 50_000
    shown = logfile.tail(path)
    assert shown["truncated"] and shown["bytes"] <= logfile.TAIL_BYTES
    lines = shown["text"].splitlines()
    assert lines[-1] == "line 02784 token=[REDACTED]"
    assert all(line.startswith("line ") and line.endswith("token=[REDACTED]") for line in lines)
    numbers = [int(line.split()[1]) for line in lines]
    assert numbers == list(range(numbers[0], 2785))   # contiguous: the rotation is read across
    small = logfile.tail(path, 100)
    assert small["bytes"] <= 100 and small["text"].endswith("line 02784 token=[REDACTED]\n")
    assert logfile.tail(tmp_path / "absent.log") == {"file": str(tmp_path / "absent.log"), "bytes": 0,
                                                     "truncated": False, "text": ""}


def test_the_pump_redacts_each_line_and_cuts_overlong_ones(tmp_path):
    read_end, write_end = os.pipe()
    path = tmp_path / "studio.log"
    log = logfile.open_log(path)
    pump = logfile.LogPump(os.fdopen(read_end, "rb"), log, "test")
    pump.start()
    with os.fdopen(write_end, "wb") as pipe:
        pipe.write(b"password=hunter2 split ")
        pipe.flush()
        pipe.write(b"across writes\n" + b"z" * (logfile.LINE_LIMIT + 10) + b"\nlast line without newline")
    pump.join(10)
    log.close()
    lines = path.read_text().splitlines()
    assert lines[0] == "password=[REDACTED] split across writes"
    assert lines[1].endswith("[line cut]") and len(lines[1]) < logfile.LINE_LIMIT + 20
    assert lines[-1] == "last line without newline"


def _starting_record(ws_root, capability: dict) -> dict:
    return {"schemaVersion": 1, "workspaceId": "toy", "workspacePath": str(ws_root), "phase": "starting",
            "generation": 1, "host": None, "ports": {}, "pid": None, "startToken": None,
            "supervisor": {"pid": os.getpid(), "startToken": None}, "error": None, "errorCode": None, "exit": None,
            "capability": capability, "manifestVersion": "0.1.0", "readyTimeout": 20.0,
            "startedAt": clock.to_iso(clock.now()), "readyAt": None, "stoppedAt": None}


def test_a_port_taken_before_the_app_binds_it_is_retried(toy_app):
    """The allocator hands out a port someone else then takes; the app fails to bind and exits;
    the supervisor sees the port held by another process and starts again on fresh ports."""
    from openalice.studio import ports
    from openalice.studio.supervisor import Generation

    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen(1)
    taken = squatter.getsockname()[1]
    calls = []

    def allocate(ids):
        calls.append(list(ids))
        fresh = ports.allocate(ids)
        return {**fresh, "http": taken} if len(calls) == 1 else fresh

    manifest = json.loads((toy_app / "harness.json").read_text())
    capability = manifest["capabilities"]["studio"]
    state.update_state("toy", lambda _r: _starting_record(toy_app, capability))
    generation = Generation("toy", 1, launcher_pid=os.getpid(), ready_timeout=20.0, allocate=allocate)
    try:
        record = generation.claim()
        assert record is not None
        generation.log = logfile.open_log(state.log_path("toy"))
        assert generation.launch(record) == "ready"
        assert len(calls) == 2 and generation.ports["http"] != taken
        assert state.read_state("toy")["ports"] == generation.ports
        assert "were taken; retrying with new ports" in state.log_path("toy").read_text()
    finally:
        generation.kill_group()
        generation.log.close()
        squatter.close()
    assert leftovers() == []


def test_the_claim_is_fenced_by_generation_and_launcher(toy_app):
    from openalice.studio.supervisor import Generation

    capability = json.loads((toy_app / "harness.json").read_text())["capabilities"]["studio"]
    state.update_state("toy", lambda _r: _starting_record(toy_app, capability))
    assert Generation("toy", 2, launcher_pid=os.getpid(), ready_timeout=1).claim() is None
    # A record naming another launcher (a later start took over) is not ours.
    state.update_state("toy", lambda r: {**r, "supervisor": {"pid": 1, "startToken": None}})
    assert Generation("toy", 1, launcher_pid=os.getpid(), ready_timeout=1).claim() is None
    assert Generation("toy", 1, launcher_pid=1, ready_timeout=1).claim()["supervisor"]["pid"] == os.getpid()
    state.update_state("toy", lambda r: {**r, "phase": "stopping"})
    assert Generation("toy", 1, launcher_pid=os.getpid(), ready_timeout=1).claim() is None


def test_require_idle_refuses_while_a_generation_is_live(cli, toy_app):
    from openalice import studio, workspaces
    from openalice.core.errors import Busy

    ws = workspaces.get("toy")
    studio.require_idle(ws)   # never started
    assert cli("alice-harness", "studio", "start", cwd=toy_app).returncode == 0
    with pytest.raises(Busy) as caught:
        studio.require_idle(ws)
    assert caught.value.code == "studio_running" and caught.value.exit_code == 3
    assert cli("alice-harness", "studio", "stop", cwd=toy_app).returncode == 0
    studio.require_idle(ws)


def test_app_environment_drops_run_identity():
    from openalice.studio.supervisor import app_environment

    env = app_environment({"PATH": "/bin", "ALICE_RUN_ID": "r", "ALICE_RESUME_ID": "s"}, {"http": 1234})
    assert env == {"PATH": "/bin", "HARNESS_CAPABILITY": "studio", "HARNESS_HOST": "127.0.0.1",
                   "HARNESS_PORTS": '{"http":1234}', "HARNESS_NO_OPEN": "1"}


def test_operations_queue_behind_the_lease_then_give_up(monkeypatch):
    from datetime import timedelta

    from openalice.core import leases
    from openalice.core.errors import Busy

    now = clock.now()
    path = state.lease_path("toy")
    held = leases.acquire(path, "first", 60, now=now)
    threading.Timer(0.2, leases.release, args=(held,)).start()
    second = leases.acquire_waiting(path, "second", 60, now=lambda: now, wait=10)
    assert second.generation == held.generation + 1
    with pytest.raises(Busy):
        leases.acquire_waiting(path, "third", 60, now=lambda: now, wait=0.1)
    # An expiry that passes while waiting counts.
    later = iter([now, now + timedelta(seconds=120)])
    assert leases.acquire_waiting(path, "fourth", 60, now=lambda: next(later), wait=5).owner == "fourth"


def test_the_rest_of_an_overlong_line_is_skipped_not_logged_as_more_lines(tmp_path):
    read_end, write_end = os.pipe()
    path = tmp_path / "studio.log"
    log = logfile.open_log(path)
    pump = logfile.LogPump(os.fdopen(read_end, "rb"), log, "test")
    pump.start()
    with os.fdopen(write_end, "wb") as pipe:      # longer than one read of the pipe: it straddles reads
        pipe.write(b"z" * 100_000 + b" token=hunter2\nnext\n")
    pump.join(10)
    log.close()
    assert path.read_text().splitlines() == ["z" * logfile.LINE_LIMIT + " [line cut]", "next"]


def test_the_error_codes_are_the_ones_the_record_schema_allows():
    from openalice.core.resources import schema
    from openalice.studio.supervisor import ERROR_CODES, OUTCOMES

    assert schema("studio-state")["properties"]["errorCode"]["enum"] == [None, *ERROR_CODES]
    assert len(set(OUTCOMES)) == len(OUTCOMES)
