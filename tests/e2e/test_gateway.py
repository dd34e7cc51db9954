"""`alice serve` end to end: the real gateway over a temp home, shelling out to
the real CLIs; every document checked against the CLI's schema."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.adapters.stubs import adapter, write_catalog, write_stub
from tests.conftest import tool_path
from tests.helpers.gateway import Served
from tests.helpers.polling import wait_for
from tests.helpers.schemas import conforms
from tests.runs.standins import StandIns
from tests.testdata import AGENT_STREAMS

CANARY = "sk-CANARY-gateway-4f3e2d1c0b9a"


def png_bytes(width: int = 4, height: int = 3) -> bytes:
    import struct
    import zlib

    raw = b"".join(b"\x00" + b"\x30\x60\xd0" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.fixture
def home(cli, tmp_path):
    """A workspace with a report (an image, an HTML page, a missing file), an
    issue, and a catalog of stub adapters (one healthy with an env file, one down)."""
    ws = tmp_path / "notes"
    r = cli("alice", "workspace", "init", str(ws), "--label", "Notes", "--json")
    assert r.returncode == 0, r
    (ws / "charts").mkdir()
    (ws / "charts" / "a.png").write_bytes(png_bytes())
    (ws / "page.html").write_text("<script>alert(1)</script>")
    r = cli("alice-inbox", "push", "--body", "# Close\n[[charts/a.png]] [[page.html]] [[gone.md]]",
            "--json", cwd=ws)
    assert r.returncode == 0, r
    entry = r.json()["id"]
    r = cli("alice", "issue", "create", "--title", "Daily report", "--id", "daily", "--every", "24h",
            "--body", "Summarize", "--json", cwd=ws)
    assert r.returncode == 0, r
    (ws / ".alice" / "issues" / "broken.md").write_text("---\ntitle: [unclosed\n---\n")
    repo = tmp_path / "catalog"
    (repo / "wrappers").mkdir(parents=True)
    write_stub(repo / "wrappers", "good.sh", "healthy")
    write_stub(repo / "wrappers", "down.sh", "down-leaky")
    catalog = write_catalog(repo, [
        adapter("good", "wrappers/good.sh", models=["m-1", "m-2", "m-3"], health=True,
                listModels=True, envFile="secrets/GOOD.env", env=["GOOD_API_KEY"]),
        adapter("down", "wrappers/down.sh", health=True),
    ])
    engines = StandIns(tmp_path / "standin-bin", AGENT_STREAMS)  # Run now needs an agent on PATH
    env = {**cli.env, "HARNESS_CATALOG": str(catalog), "PATH": engines.path_env(cli.env.get("PATH"))}
    return {"ws": ws, "entry": entry, "catalog": catalog, "env": env, "repo": repo}


@pytest.fixture
def served(home):
    with Served(tool_path("alice"), home["env"]) as gateway:
        yield gateway


def test_first_line_is_the_url_and_the_token_becomes_a_cookie(served):
    assert served.first_line == f"http://127.0.0.1:{served.port}/?token={served.token}"
    r = served.get(f"/?token={served.token}", auth=None)
    assert r.status == 303
    cookie = r.header("Set-Cookie")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = served.get("/", auth="cookie")
    assert page.status == 200 and b"<title>OpenAlice</title>" in page.body
    assert served.get("/api/inbox", auth=None).status == 401
    assert served.post("/api/inbox/mark-all-read", state=False).status == 403
    # each access log line is written after its reply, by the request's own thread, so the
    # lines of requests in quick succession may land in any order: wait for each, find it by content
    wanted = ('"GET /" 303 ', '"GET /api/inbox" 401 ', '"POST /api/inbox/mark-all-read" 403 ')
    wait_for(lambda: all(w in served.log for w in wanted), what="the access log lines")
    for w in wanted:
        [line] = [line for line in served.log.splitlines() if w in line]
        assert line.endswith(" cli=0"), line
    assert served.token not in served.log


def test_every_view_route_returns_the_clis_document(served, home):
    entry = home["entry"]
    checks = [
        ("/api/workspaces", "workspace-list"),
        ("/api/issues", "issue-board"),
        ("/api/issues/notes/daily", "issue"),
        ("/api/runs", "schedule-runs"),
        ("/api/health", "schedule-health"),
        ("/api/inbox", "inbox-list"),
        ("/api/inbox/unread-count", "inbox-count"),
        (f"/api/inbox/{entry}", "inbox-show"),
        (f"/api/inbox/{entry}/files", "inbox-files"),
        ("/api/agent-runtime", "journal-page"),
        ("/api/agent-runtime?afterSeq=0", "journal-after"),
        ("/api/adapters?probe=0", "adapter-list"),
        ("/api/adapters", "adapter-list"),
        ("/api/adapters/good", "adapter-descriptor"),
        ("/api/adapters/good/available-models", "adapter-models"),
    ]
    for path, name in checks:
        r = served.get(path)
        assert r.status == 200, (path, r)
        conforms(name, r.json())
    board = served.get("/api/issues").json()
    todo = next(c for c in board["columns"] if c["status"] == "todo")
    assert [i["id"] for i in todo["issues"]] == ["daily"]
    assert [i["id"] for i in board["invalid"]] == ["broken"] and board["invalid"][0]["errors"]
    inbox = served.get("/api/inbox?limit=1").json()
    assert [e["id"] for e in inbox["entries"]] == [entry] and inbox["hasMore"] is False
    assert inbox["entries"][0]["references"] == ["charts/a.png", "page.html", "gone.md"]
    adapters = {d["id"]: d for d in served.get("/api/adapters").json()}
    assert adapters["good"]["health"] == "healthy"
    assert adapters["down"]["health"] == "down" and "auth failed" in adapters["down"]["healthDetail"]
    assert "sk-LEAKED" not in json.dumps(adapters)
    assert "cli=1" in served.log


def test_cli_errors_map_to_statuses_with_the_clis_envelope(served, home):
    cases = [
        ("/api/issues/notes/nope", 400, "unknown_issue"),
        ("/api/inbox/inbox-1796029200000-7k2m9x4q", 400, None),
        ("/api/issues/ghost/daily", 400, None),
        ("/api/adapters/nosuch", 400, "unknown_adapter"),
        (f"/api/inbox/{home['entry']}/files/2", 400, "not_found"),
        (f"/api/inbox/{home['entry']}/files/9", 400, "no_such_reference"),
    ]
    for path, status, code in cases:
        r = served.get(path)
        assert r.status == status, (path, r)
        err = conforms("error", r.json())["error"]
        assert err["exit"] == 2
        if code:
            assert err["code"] == code, (path, err)


def test_inbox_pages_newest_first(served, home, cli):
    ids = [home["entry"]] + [cli("alice-inbox", "push", "--body", f"n{i}", "--workspace", "notes",
                                 "--json").json()["id"] for i in range(3)]
    first = served.get("/api/inbox?limit=3").json()
    assert [e["id"] for e in first["entries"]] == ids[::-1][:3] and first["hasMore"] is True
    rest = served.get(f"/api/inbox?limit=3&before={first['nextBefore']}").json()
    assert [e["id"] for e in rest["entries"]] == [ids[0]] and rest["hasMore"] is False


def test_inbox_triage_round_trip(served, home, cli):
    entry = home["entry"]
    assert served.get("/api/inbox/unread-count").json()["unread"] == 1
    r = served.post(f"/api/inbox/{entry}/read")
    assert r.status == 200 and conforms("inbox-read", r.json())["read"] is True
    assert served.get("/api/inbox?unread=1").json()["entries"] == []
    served.post(f"/api/inbox/{entry}/unread")
    r = cli("alice-inbox", "push", "--body", "second", "--workspace", "notes", "--json")
    assert r.returncode == 0
    r = served.post("/api/inbox/mark-all-read")
    assert r.status == 200
    assert conforms("inbox-mark-all-read", r.json()) == {"marked": 2, "total": 2, "unread": 0}
    assert cli("alice-inbox", "count", "--json").json()["unread"] == 0


def test_files_are_rechecked_on_every_read(served, home, cli):
    entry, ws = home["entry"], home["ws"]
    r = served.get(f"/api/inbox/{entry}/files/0")
    assert r.status == 200 and r.body == png_bytes()
    assert r.header("Content-Type") == "image/png"
    assert r.header("Content-Disposition").startswith("inline;")
    assert r.header("X-Content-Type-Options") == "nosniff"
    assert r.header("Content-Security-Policy").startswith("sandbox")
    assert r.header("X-OpenAlice-Revision") == "match"

    r = served.get(f"/api/inbox/{entry}/files/1")
    assert r.status == 200 and r.body == b"<script>alert(1)</script>"
    assert r.header("Content-Type") == "application/octet-stream"
    assert r.header("Content-Disposition") == 'attachment; filename="page.html"; filename*=UTF-8\'\'page.html'

    # changed since publication: served, marked; refused when the revision is required
    (ws / "charts" / "a.png").write_bytes(png_bytes(5, 5))
    r = served.get(f"/api/inbox/{entry}/files/0")
    assert r.status == 200 and r.header("X-OpenAlice-Revision") == "changed"
    r = served.get(f"/api/inbox/{entry}/files/0?require=revision")
    assert r.status == 400 and r.json()["error"]["code"] == "revision_mismatch"

    # swapped for a symlink leading outside the workspace: refused (exit 4 → 403)
    outside = ws.parent / "secret.txt"
    outside.write_text("top secret")
    (ws / "page.html").unlink()
    os.symlink(outside, ws / "page.html")
    r = served.get(f"/api/inbox/{entry}/files/1")
    assert r.status == 403 and r.json()["error"]["code"] == "path_escape"
    assert b"top secret" not in r.body

    # the workspace is gone from the registry: unavailable (exit 3 → 503)
    assert cli("alice", "workspace", "remove", "notes", "--json").returncode == 0
    r = served.get(f"/api/inbox/{entry}/files/0")
    assert r.status == 503 and r.json()["error"]["code"] == "workspace_unavailable"


def test_a_file_over_the_size_cap_is_a_clear_error(served, home, cli):
    ws = home["ws"]
    with open(ws / "big.png", "wb") as fh:
        fh.write(b"\x89PNG\r\n\x1a\n")
        fh.truncate(16 * 1024 * 1024 + 1)
    entry = cli("alice-inbox", "push", "--body", "[[big.png]]", "--json", cwd=ws).json()["id"]
    r = served.get(f"/api/inbox/{entry}/files/0")
    assert r.status == 400
    err = r.json()["error"]
    assert err["code"] == "too_large" and "16 MiB" in err["message"]


def test_adapter_actions_round_trip_and_a_secret_never_leaks(served, home, cli, tmp_path):
    r = served.post("/api/adapters/good", {"action": "enable"})
    assert r.status == 200 and conforms("adapter-descriptor", r.json())["enabled"] is True
    shown = cli("harness-adapter", "show", "good", "--json", env=home["env"]).json()
    assert shown["enabled"] is True
    r = served.post("/api/adapters/good", {"action": "set-models", "models": ["m-2"]})
    assert r.status == 200 and r.json()["models"] == ["m-2"]
    r = served.post("/api/adapters/good", {"action": "set-models", "models": ["not-in-catalog"]})
    assert r.status == 400 and conforms("error", r.json())
    r = served.post("/api/adapters/good", {"action": "config", "config": {"region": "eu"}})
    assert r.status == 200 and r.json()["config"] == {"region": "eu"}
    r = served.post("/api/adapters/good", {"action": "config", "config": {"api_key": "x"}})
    assert r.status == 400

    r = served.post("/api/adapters/good", {"action": "set-secret", "key": "GOOD_API_KEY",
                                           "value": CANARY})
    assert r.status == 200, r
    assert r.json()["secrets"] == {"GOOD_API_KEY": "set"}
    r2 = served.post("/api/adapters/good", {"action": "set-secret", "key": "GOOD_API_KEY",
                                            "value": CANARY + "2"})
    assert r2.status == 400  # already set: replacing needs force
    r3 = served.post("/api/adapters/good", {"action": "set-secret", "key": "GOOD_API_KEY",
                                            "value": CANARY, "force": True})
    assert r3.status == 200
    env_file = home["repo"] / "secrets" / "GOOD.env"
    assert CANARY in env_file.read_text() and (env_file.stat().st_mode & 0o777) == 0o600
    for reply in (r, r2, r3):
        assert CANARY not in reply.body.decode()
    assert CANARY not in served.log
    served.post("/api/adapters/good", {"action": "disable"})
    assert cli("harness-adapter", "show", "good", "--json", env=home["env"]).json()["enabled"] is False


def test_a_secret_never_reaches_a_childs_argv(home, cli):
    """The in-process gateway with the real runner: record every child's argv."""
    import io

    from openalice.gateway import Gateway
    from openalice.gateway.runner import CliRunner
    from tests.helpers.gateway import Client

    seen: list[tuple] = []
    old = dict(os.environ)
    os.environ.update(home["env"])
    try:
        runner = CliRunner(on_spawn=lambda tool, args: seen.append((tool, *args)))
        log = io.StringIO()
        with Gateway(port=0, runner=runner, log=log) as gw:
            client = Client("127.0.0.1", gw.port, gw.token)
            r = client.post("/api/adapters/good", {"action": "set-secret", "key": "GOOD_API_KEY",
                                                   "value": CANARY})
            assert r.status == 200, r
            assert runner.env.get("HARNESS_CATALOG") == str(home["catalog"])
    finally:
        os.environ.clear()
        os.environ.update(old)
    assert seen == [("harness-adapter", "set-secret", "good", "GOOD_API_KEY", "-", "--json")]
    assert CANARY not in repr(seen) and CANARY not in log.getvalue()


def test_children_get_no_secret_looking_variables(home):
    from openalice.gateway.runner import child_environment

    env = child_environment({"PATH": "/bin", "OPENALICE_HOME": "rel/home", "ANTHROPIC_API_KEY": "x",
                             "GITHUB_TOKEN": "y", "DB_PASSWORD": "z", "ALICE_NOW": "2026-01-01T00:00:00Z"})
    assert set(env) == {"PATH", "OPENALICE_HOME", "ALICE_NOW"}
    assert os.path.isabs(env["OPENALICE_HOME"])


def test_issue_create_update_and_run_now_from_outside_every_workspace(served, home, cli):
    """The gateway runs its children in / — outside every workspace — and names
    the workspace: the caller rule lets such a process write it (DESIGN §4)."""
    r = served.post("/api/issues", {"workspace": "notes", "title": "From the page", "id": "web-1",
                                    "every": "1h", "priority": "high", "body": "Do the thing\n"})
    assert r.status == 200, r
    doc = conforms("issue-change", r.json())
    assert doc["action"] == "created" and doc["issue"]["priority"] == "high"
    path = home["ws"] / ".alice" / "issues" / "web-1.md"
    assert path.exists() and "Do the thing" in path.read_text()
    r = served.request("PATCH", "/api/issues/notes/web-1", {"status": "in_progress"})
    assert r.status == 200 and conforms("issue-change", r.json())["issue"]["status"] == "in_progress"
    r = served.post("/api/issues", {"workspace": "notes", "title": "Again", "id": "web-1"})
    assert r.status == 400 and conforms("error", r.json())
    r = served.post("/api/issues/notes/daily/run-now")
    assert r.status == 200, r
    task = r.json()["task"]["taskId"]
    runs = served.get("/api/runs").json()["runs"]
    assert task in [run["taskId"] for run in runs]
    r = served.get(f"/api/runs/{task}")
    assert r.status == 200 and conforms("schedule-run", r.json())["task"]["taskId"] == task


def test_the_journal_streams_new_facts(served, home, cli):
    last = served.get("/api/agent-runtime?limit=1").json()["lastSeq"]

    def push_later():
        time.sleep(0.8)
        cli("alice-inbox", "push", "--body", "live one", "--workspace", "notes")

    import threading

    pusher = threading.Thread(target=push_later)
    pusher.start()
    events = served.events(f"/api/agent-runtime/stream?afterSeq={last}",
                           until=lambda evs: any(e == "fact" for e, _ in evs))
    pusher.join()
    facts = [json.loads(d) for e, d in events if e == "fact"]
    assert facts and facts[0]["type"] == "inbox.received" and facts[0]["seq"] == last + 1
    conforms("journal-record", facts[0])
    assert facts[0]["payload"]["summary"] == "live one"
    # Replay from an older cursor, family-filtered.
    events = served.events("/api/agent-runtime/stream?afterSeq=0&family=inbox",
                           until=lambda evs: len([e for e, _ in evs if e == "fact"]) >= 2)
    assert [json.loads(d)["type"] for e, d in events if e == "fact"][:2] == ["inbox.received"] * 2
    time.sleep(0.3)
    assert '"GET /api/agent-runtime/stream" 200' in served.log


def _children_of(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_gateway_and_its_followers_cleanly(home, sig):
    served = Served(tool_path("alice"), home["env"])
    import threading

    reader = threading.Thread(target=lambda: served.events("/api/agent-runtime/stream",
                                                           until=lambda e: False, timeout=30))
    reader.start()
    deadline = time.monotonic() + 10
    while not _children_of(served.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    followers = _children_of(served.proc.pid)
    assert followers, "the SSE request started no follower"
    assert served.stop(sig) == 0
    reader.join(timeout=10)
    assert not reader.is_alive()
    for pid in followers:
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    assert "shutting down" in served.log and "Traceback" not in served.log
    served.close()


@pytest.mark.process  # alice serve: a server, run as a process
def test_non_loopback_needs_an_explicit_flag(cli):
    r = cli("alice", "serve", "--host", "0.0.0.0", "--port", "0", "--json")
    assert r.returncode == 2
    assert conforms("error", r.json())["error"]["code"] == "not_loopback"


def test_remote_bind_warns_and_json_first_line(home):
    with Served(tool_path("alice"), home["env"], args=["--host", "0.0.0.0", "--allow-remote"]) as s:
        assert s.get("/api/inbox/unread-count").status == 200
        assert "not a loopback address" in s.log
    proc = subprocess.Popen([tool_path("alice"), "serve", "--port", "0", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=home["env"])
    try:
        doc = conforms("serve-start", json.loads(proc.stdout.readline()))
        assert doc["url"].startswith(f"http://127.0.0.1:{doc['port']}/?token=")
        assert doc["pid"] == proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        proc.stdout.close()


@pytest.mark.process  # alice serve: a server, run as a process
def test_a_busy_port_is_exit_3(home, cli):
    with Served(tool_path("alice"), home["env"]) as s:
        r = cli("alice", "serve", "--port", str(s.port), "--json")
        assert r.returncode == 3
        assert conforms("error", r.json())["error"]["code"] == "port_in_use"


def test_serve_help_imports_no_gateway_module(cli):
    code = ("import sys, io, contextlib\n"
            "from openalice.cli import alice\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    alice.main(['serve', '--help'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('openalice.gateway')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli.env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
    r = cli("alice", "serve", "--help")
    assert r.returncode == 0 and "examples:" in r.stdout and "--allow-remote" in r.stdout


def test_open_hands_the_url_to_the_browser(home, tmp_path):
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {opened}\n')
    browser.chmod(0o755)
    env = {**home["env"], "BROWSER": str(browser)}
    with Served(tool_path("alice"), env, args=["--open"]) as served:
        deadline = time.monotonic() + 10
        while not (opened.exists() and opened.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        # The one-time code, never the token (tests/e2e/test_serve_open.py samples /proc).
        url = opened.read_text()
        assert url.startswith(served.base + "/?code=") and served.token not in url


def test_a_comment_posted_through_the_api_shows_in_the_thread(served, home):
    r = served.post("/api/issues/notes/daily/comments", {"body": "From the page\n--json"})
    assert r.status == 200, r
    posted = conforms("issue-comment", r.json())
    assert posted["comment"]["via"] == "web" and posted["comment"]["markdown"] == "From the page\n--json"
    assert posted["delivery"] == "none"  # @new-then-resume before its first run: no session yet
    thread = served.get("/api/issues/notes/daily/thread")
    assert thread.status == 200, thread
    doc = conforms("issue-thread", thread.json())
    assert [c["id"] for c in doc["comments"]] == [posted["comment"]["id"]]
    bad = served.post("/api/issues/notes/daily/comments", {"body": "x", "replyTo": "comment-nope"})
    assert bad.status == 400 and conforms("error", bad.json())["error"]["code"] == "invalid_comment"
