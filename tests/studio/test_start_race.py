"""Studio start with a wrapper that backgrounds its app (`sh start.sh`, `python3 toy_app.py &`) is
deterministic (issue 27 item 9).

The race: the supervisor took "no live process has the group's id" from one scan of ``/proc``
as "the app exited".  A scan lists ``/proc`` first and reads each process's ``stat`` after it;
a wrapper that forks its app and exits between the two is read as a zombie, and the app it
forked is not in the listing yet.  The start then failed ``early_exit`` ("exit status
unknown": the wrapper had not been reaped yet) and the supervisor killed the app it had
just missed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import datetime, timezone

import pytest

from .conftest import leftovers

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)

# A fast toy app: one socket, an answer to every request, its first line when it listens.
TOY_APP = textwrap.dedent("""\
    import json, os, socket
    port = json.loads(os.environ["HARNESS_PORTS"])["http"]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(16)
    print("toy app: listening", flush=True)
    while True:
        c, _ = s.accept()
        c.recv(65536)
        c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 3\\r\\nConnection: close\\r\\n\\r\\nok\\n")
        c.close()
    """)


def test_a_wrapper_that_forks_and_exits_is_never_read_as_an_empty_group():
    """The supervisor's own check, polled as fast as it can go right after the spawn (where a
    wrapper forks and exits): before the fix most spawns read as an empty group at least once."""
    script = textwrap.dedent("""\
        import os, signal, time
        from openalice.core import proc
        from openalice.studio.supervisor import Generation
        assert proc.become_subreaper()
        false_empty = 0
        for _ in range(25):
            gen = Generation("race", 1, launcher_pid=os.getpid(), ready_timeout=1.0, subreaper=True)
            gen.child = proc.spawn(["sh", "-c", "sleep 30 &"])
            gen.pgid = gen.child.pid
            deadline = time.monotonic() + 0.15
            while time.monotonic() < deadline:
                if gen.group_empty():
                    false_empty += 1
                    break
            os.killpg(gen.pgid, signal.SIGKILL)
            while not gen.group_empty():
                time.sleep(0.01)
        print(false_empty)
        """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0", f"{r.stdout.strip()} of 25 spawns read as an empty group"


def backgrounding_workspace(tmp_path):
    from openalice import workspaces

    root = tmp_path / "bg"
    root.mkdir()
    (root / "toy_app.py").write_text(TOY_APP)
    (root / "start.sh").write_text(f"{sys.executable} toy_app.py &\n")
    (root / "harness.json").write_text(json.dumps({
        "manifestVersion": 1, "version": "0.1.0",
        "capabilities": {"studio": {"command": ["sh", "start.sh"], "ports": ["http"], "entryPort": "http",
                                    "readinessPath": "/ready"}}}))
    ws, _ = workspaces.init(root, label="bg", now=NOW)
    return ws


CYCLES = int(os.environ.get("STUDIO_RACE_CYCLES", "200"))


@pytest.mark.slow
def test_start_and_stop_a_backgrounding_wrapper_200_times_in_a_row(tmp_path):
    from openalice.studio import lifecycle, state

    ws = backgrounding_workspace(tmp_path)
    failures = []
    for n in range(CYCLES):
        view = lifecycle.start(ws, now=NOW, ready_timeout=20)
        if view["phase"] != "ready":
            failures.append((n, view["phase"], view["lastErrorCode"], view["lastError"]))
        stopped = lifecycle.stop(ws, now=NOW)
        assert stopped["phase"] in ("stopped", "failed"), stopped
        if len(failures) > 3:
            break
    log = state.log_path(ws.id).read_text(errors="replace")
    assert failures == [], f"{len(failures)} failed starts within {n + 1} cycles: {failures}"
    assert log.count("toy app: listening") >= CYCLES
    assert leftovers() == []
