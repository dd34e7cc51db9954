"""`alice-harness studio ...` end to end: the real toy app, the detached supervisor, /proc checks."""

from __future__ import annotations

import http.client
import json
import os
import signal
from pathlib import Path

import pytest

from tests.helpers.schemas import conforms

from .conftest import alive, leftovers, wait_until


def studio_dir() -> Path:
    return Path(os.environ["OPENALICE_HOME"]) / "state" / "studio"


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def app_env(status: dict) -> dict:
    code, body = get(status["ports"][status["entryPort"]], "/env")
    assert code == 200
    return json.loads(body)


def group_of(pgid: int) -> list[int]:
    from openalice.core import proc

    return proc.group_members(pgid)


def started(harness, *args, env=None) -> dict:
    r = harness("studio", "start", "--json", *args, env=env)
    assert r.returncode == 0, r
    status = r.json()
    conforms("studio-status", status)
    return status


def test_start_runs_the_app_supervised_and_stop_leaves_no_process(harness, toy_app):
    status = started(harness)
    assert status["phase"] == "ready" and status["generation"] == 1
    assert status["host"].startswith("oa-surface-") and status["host"].endswith(".localhost")
    assert len(status["host"]) == len("oa-surface-") + 24 + len(".localhost")
    assert set(status["ports"]) == {"http", "api"} and len(set(status["ports"].values())) == 2

    env = app_env(status)
    assert env["HARNESS_CAPABILITY"] == "studio" and env["HARNESS_HOST"] == "127.0.0.1"
    assert env["HARNESS_NO_OPEN"] == "1" and json.loads(env["HARNESS_PORTS"]) == status["ports"]
    assert env["cwd"] == str(toy_app) and env["ALICE_RUN_ID"] is None
    # Both declared ports are the app's: the second one answers too.
    assert get(status["ports"]["api"], "/ready")[0] == 200

    # The wrapper (the group leader) exited at once; its server and the server's worker live on in its group.
    pgid = status["pid"]
    assert env["pgid"] == pgid and not alive(pgid)
    members = group_of(pgid)
    assert env["pid"] in members and env["workerPid"] in members

    state = json.loads((studio_dir() / "toy" / "state.json").read_text())
    conforms("studio-state", state)
    surface = status["host"][len("oa-surface-"):-len(".localhost")]
    route_file = studio_dir() / "routes" / f"{surface}.json"
    route = json.loads(route_file.read_text())
    conforms("studio-route", route)
    assert route["upstream"] == {"host": "127.0.0.1", "port": status["ports"]["http"]}

    # Idempotent: a second start keeps the generation, its host and its processes.
    again = started(harness)
    assert (again["generation"], again["host"], again["pid"]) == (1, status["host"], pgid)

    r = harness("studio", "stop", "--json")
    assert r.returncode == 0, r
    stopped = r.json()
    conforms("studio-status", stopped)
    assert stopped["phase"] == "stopped" and stopped["host"] is None and stopped["pid"] is None
    assert not route_file.exists()
    for pid in (env["pid"], env["workerPid"]):
        assert not alive(pid), pid
    assert group_of(pgid) == [] and leftovers() == []
    # Stopping again is fine.
    assert harness("studio", "stop").returncode == 0


def test_start_no_wait_reports_starting_without_host_until_ready(harness, toy_app):
    (toy_app / "hold-ready").write_text("")
    status = started(harness, "--no-wait")
    assert status["phase"] == "starting" and status["host"] is None
    r = harness("studio", "status", "--json")
    assert r.returncode == 0
    polled = r.json()
    assert polled["phase"] == "starting" and polled["host"] is None and polled["generation"] == 1
    assert not list((studio_dir() / "routes").glob("*.json")) if (studio_dir() / "routes").exists() else True

    # The readiness path answers 503 until the fixture lets it go.
    wait_until(lambda: harness("studio", "status", "--json").json()["pid"], what="the app to be spawned")
    (toy_app / "hold-ready").unlink()
    ready = started(harness)
    assert ready["phase"] == "ready" and ready["generation"] == 1 and ready["host"]
    assert harness("studio", "stop").returncode == 0
    assert leftovers() == []


def test_readiness_timeout_fails_with_exit_3_and_kills_the_group(harness, toy_app):
    (toy_app / "hold-ready").write_text("")
    r = harness("studio", "start", "--ready-timeout", "0.5", "--json")
    assert r.returncode == 3, r
    error = r.json()["error"]
    conforms("error", r.json())
    assert error["code"] == "readiness_timeout"
    assert error["message"] == "Studio readiness timed out after 0.5 seconds"
    status = error["details"]["status"]
    assert status["phase"] == "failed" and status["host"] is None
    assert leftovers() == []
    human = harness("studio", "start", "--ready-timeout", "0.5")
    assert human.returncode == 3 and "readiness timed out after 0.5 seconds" in human.stderr
    assert "Traceback" not in human.stderr
    assert leftovers() == []


def test_default_readiness_limit_is_sixty_seconds():
    from openalice import studio
    from openalice.studio import supervisor

    assert studio.READY_TIMEOUT == 60.0
    assert (supervisor.READY_POLL, supervisor.READY_REQUEST_TIMEOUT) == (0.25, 1.0)


def test_early_exit_is_reported_with_the_exit_code_of_the_last_process(harness):
    # The wrapper exits 0 after forking; the server then exits 3 before it is ready.
    r = harness("studio", "start", "--json", env={"TOYAPP_EXIT_BEFORE_READY": "3"})
    assert r.returncode == 3, r
    error = r.json()["error"]
    assert error["code"] == "early_exit"
    assert error["message"] == "Studio exited before it was ready (exit 3)"
    assert error["details"]["status"]["lastExit"] == {"code": 3}
    assert leftovers() == []


def test_a_missing_executable_is_a_launch_failure(harness, toy_app):
    manifest = json.loads((toy_app / "harness.json").read_text())
    manifest["capabilities"]["studio"]["command"] = ["/nonexistent/studio-binary"]
    (toy_app / "harness.json").write_text(json.dumps(manifest))
    r = harness("studio", "start", "--json")
    assert r.returncode == 3
    assert r.json()["error"]["code"] == "spawn_failed"
    assert "/nonexistent/studio-binary" in r.json()["error"]["message"]


def test_restart_gives_a_new_generation_and_host_and_ends_the_old_one(harness):
    first = started(harness)
    old_env = app_env(first)
    r = harness("studio", "restart", "--json")
    assert r.returncode == 0, r
    second = r.json()
    conforms("studio-status", second)
    assert second["phase"] == "ready" and second["generation"] == first["generation"] + 1
    assert second["host"] != first["host"] and second["pid"] != first["pid"]
    old_surface = first["host"][len("oa-surface-"):-len(".localhost")]
    assert not (studio_dir() / "routes" / f"{old_surface}.json").exists()
    assert not alive(old_env["pid"]) and not alive(old_env["workerPid"])
    assert group_of(first["pid"]) == []
    assert harness("studio", "stop").returncode == 0
    assert leftovers() == []


def test_a_sigkilled_supervisor_is_reaped_by_the_next_command(harness):
    status = started(harness)
    env = app_env(status)
    os.kill(status["supervisorPid"], signal.SIGKILL)
    wait_until(lambda: not alive(status["supervisorPid"]), what="the supervisor to die")
    # The app is still up (nobody reaped it yet) ...
    assert alive(env["pid"])
    r = harness("studio", "status", "--json")
    assert r.returncode == 0
    reaped = r.json()
    conforms("studio-status", reaped)
    assert reaped["phase"] == "failed" and reaped["lastErrorCode"] == "supervisor_lost" and reaped["host"] is None
    # ... and the next command stopped every process of the generation and withdrew its route.
    assert not alive(env["pid"]) and not alive(env["workerPid"])
    assert not list((studio_dir() / "routes").glob("*.json"))
    assert leftovers() == []
    # A new start works after that.
    assert started(harness)["generation"] == status["generation"] + 1
    assert harness("studio", "stop").returncode == 0


def test_a_term_ignoring_app_is_killed_after_the_grace(harness):
    status = started(harness, env={"TOYAPP_IGNORE_TERM": "1"})
    env = app_env(status)
    r = harness("studio", "stop", "--grace", "0.5", "--json")
    assert r.returncode == 0, r
    assert not alive(env["pid"]) and not alive(env["workerPid"])
    assert leftovers() == []


def test_an_app_that_crashes_while_ready_reads_failed_and_loses_its_route(harness):
    status = started(harness)
    assert get(status["ports"]["http"], "/crash")[0] == 200
    failed = wait_until(lambda: (lambda s: s if s["phase"] == "failed" else None)(
        harness("studio", "status", "--json").json()), what="the supervisor to notice the crash")
    assert failed["lastErrorCode"] == "exited" and failed["lastError"] == "Studio exited (exit 7)"
    assert failed["lastExit"] == {"code": 7} and failed["host"] is None
    assert not list((studio_dir() / "routes").glob("*.json"))
    assert leftovers() == []


def test_logs_are_a_redacted_tail(harness):
    status = started(harness)
    r = harness("studio", "logs", "--json")
    assert r.returncode == 0, r
    shown = r.json()
    conforms("studio-logs", shown)
    text = shown["text"]
    assert "server: listening on http://[HARNESS_LOOPBACK]" in text
    assert "[REDACTED]" in text
    for secret in ("tok_live_abcdef1234567890", "sk-test-THISISASECRETVALUE", "hunter2hunter2",
                   f"127.0.0.1:{status['ports']['http']}"):
        assert secret not in text
    # Secrets never reached the disk either (the loopback address may: it is no secret).
    raw = (studio_dir() / "toy" / "studio.log").read_text()
    assert "wrapper: started the server" in raw
    for secret in ("tok_live_abcdef1234567890", "sk-test-THISISASECRETVALUE", "hunter2hunter2"):
        assert secret not in raw
    short = harness("studio", "logs", "--bytes", "200", "--json").json()
    assert short["bytes"] <= 200 and short["truncated"] is True
    assert short["text"].endswith("password: [REDACTED]\n")
    human = harness("studio", "logs", "--bytes", "200")
    assert human.returncode == 0 and human.stdout.startswith("[... older output in ")
    assert harness("studio", "stop").returncode == 0


@pytest.mark.process  # Studio verbs: a process of their own (tests/studio/conftest.py: harness)
def test_concurrent_starts_are_serialized_into_one_generation(cli, toy_app):
    import subprocess

    from tests.conftest import tool_path

    procs = [subprocess.Popen([tool_path("alice-harness"), "studio", "start", "--json"], cwd=toy_app, env=cli.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], results
    docs = [json.loads(out) for out, _err in results]
    assert {d["generation"] for d in docs} == {1} and len({d["host"] for d in docs}) == 1
    supervisors = [pid for pid in leftovers() if b"openalice.studio.supervisor" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert len(supervisors) == 1
    assert cli("alice-harness", "studio", "stop", cwd=toy_app).returncode == 0


def test_status_of_a_workspace_that_never_started(harness):
    r = harness("studio", "status", "--json")
    assert r.returncode == 0
    status = r.json()
    conforms("studio-status", status)
    assert (status["phase"], status["generation"], status["host"], status["pid"]) == ("stopped", 0, None, None)


def test_bad_ready_timeout_is_a_usage_error(harness):
    for value in ("0", "-1", "abc", "4000"):
        r = harness("studio", "start", "--ready-timeout", value, "--json")
        assert r.returncode == 2 and r.json()["error"]["code"] == "usage", value
    assert not (studio_dir() / "toy").exists()


@pytest.mark.process  # Studio verbs: a process of their own (tests/studio/conftest.py: harness)
@pytest.mark.parametrize("verb", ["start", "restart", "status", "logs", "stop"])
def test_every_verb_takes_workspace_from_anywhere(cli, toy_app, tmp_path, verb):
    r = cli("alice-harness", "studio", verb, "--workspace", "toy", "--json", cwd=tmp_path)
    assert r.returncode == 0, r
    assert r.json()["workspace"] == "toy"
    cli("alice-harness", "studio", "stop", "--workspace", "toy", cwd=tmp_path)
