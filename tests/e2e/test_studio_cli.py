"""The issue's hand check, as a new user does it: start the toy Studio, open it through the proxy host,
restart (new host), stop, and see no process left."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from openalice.core import resources
from openalice.core.schema import Validator
from tests.conftest import tool_path
from tests.studio.conftest import APP, leftovers

# Studio and the proxy are daemons naming the pid of the command that started them:
# processes (docs/conventions.md, "CLI tests")
pytestmark = pytest.mark.process


def fetch(proxy_port: int, host: str, path: str = "/small") -> tuple[int, bytes]:
    """What `curl http://<host>:<proxy_port><path>` does: connect to loopback, send that Host."""
    conn = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=10)
    try:
        conn.request("GET", path, headers={"Host": f"{host}:{proxy_port}"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_start_open_through_the_proxy_restart_stop(cli, tmp_path):
    root = tmp_path / "studio-demo"
    shutil.copytree(APP, root)
    manifest = json.loads((root / "harness.json").read_text())
    manifest["capabilities"]["studio"]["command"][0] = sys.executable
    (root / "harness.json").write_text(json.dumps(manifest))
    assert cli("alice", "workspace", "init", str(root), "--label", "demo").returncode == 0

    proxy = subprocess.Popen([tool_path("alice-harness"), "proxy", "--port", "0", "--json"], cwd=tmp_path,
                             env=cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listening = json.loads(proxy.stdout.readline())
        Validator(resources.schema("studio-proxy")).validate(listening)
        port = listening["port"]
        proxy_state = json.loads((Path(os.environ["OPENALICE_HOME"]) / "state/studio/proxy.json").read_text())
        Validator(resources.schema("studio-proxy-state")).validate(proxy_state)
        assert proxy_state["pid"] == proxy.pid and proxy_state["port"] == port

        r = cli("alice-harness", "studio", "start", cwd=root)
        assert r.returncode == 0, r
        status = cli("alice-harness", "studio", "status", "--json", cwd=root).json()
        assert status["phase"] == "ready"
        assert status["url"] == f"http://{status['host']}:{port}/"
        assert status["url"] in cli("alice-harness", "studio", "status", cwd=root).stdout
        assert fetch(port, status["host"]) == (200, b"hello from the toy studio\n")

        r = cli("alice-harness", "studio", "restart", "--json", cwd=root)
        assert r.returncode == 0, r
        restarted = r.json()
        assert restarted["host"] != status["host"] and restarted["generation"] == status["generation"] + 1
        assert fetch(port, status["host"])[0] == 404
        assert fetch(port, restarted["host"]) == (200, b"hello from the toy studio\n")

        r = cli("alice-harness", "studio", "stop", cwd=root)
        assert r.returncode == 0 and "stopped" in r.stdout
        assert fetch(port, restarted["host"])[0] == 404
        assert [pid for pid in leftovers() if pid != proxy.pid] == []
    finally:
        cli("alice-harness", "studio", "stop", "--workspace", "demo")   # nothing leaks if an assert failed
        proxy.send_signal(signal.SIGTERM)
        out, err = proxy.communicate(timeout=10)
    assert proxy.returncode == 0, err
    assert not (Path(os.environ["OPENALICE_HOME"]) / "state/studio/proxy.json").exists()
    assert leftovers() == []


def test_proxy_port_in_use_is_exit_3(cli):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        r = cli("alice-harness", "proxy", "--port", str(busy.getsockname()[1]), "--json")
    assert r.returncode == 3 and r.json()["error"]["code"] == "port_in_use"
    assert cli("alice-harness", "proxy", "--port", "99999").returncode == 2


def test_harness_help_lists_studio_and_proxy(cli):
    r = cli("alice-harness", "--help")
    assert r.returncode == 0 and "studio" in r.stdout and "proxy" in r.stdout
    for args in (("studio", "--help"), ("studio", "start", "--help"), ("proxy", "--help")):
        r = cli("alice-harness", *args)
        assert r.returncode == 0 and "examples:" in r.stdout, args
