"""``alice connector run`` (foreground, SIGTERM-clean) and its service definition."""

from __future__ import annotations

import json
import signal
import subprocess
import time

from tests.conftest import tool_path
from tests.helpers.schemas import conforms

from .conftest import TOKEN


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_run_delivers_soon_and_stops_cleanly_on_sigterm(cli, receiver, workspace):
    receiver.secret = None
    cli("alice", "connector", "add", "webhook", "hook", "--url", receiver.url)
    proc = subprocess.Popen([tool_path("alice"), "connector", "run", "--poll", "2", "--json"],
                            env=cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        cli("alice", "inbox", "push", "--workspace", str(workspace), "--body", "live")
        assert wait_for(lambda: receiver.requests), "the running sender delivered nothing"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    doc = conforms("connector-run", json.loads(out))
    assert doc["stopped"] == "signal" and doc["sent"] == 1
    assert "hook: ok: sent 1" in err
    assert [json.loads(r["body"])["entry"]["body"] for r in receiver.requests] == ["live"]


def test_run_long_polls_telegram_and_stops_during_the_poll(cli, telegram, workspace):
    (workspace / ".alice" / "issues" / "chat.md").write_text(
        "---\ntitle: Chat\ntelegramConnector: true\n---\n")
    cli("alice", "connector", "add", "telegram", "phone", "--chat-id", "111", "--workspace",
        str(workspace), "--api-base", telegram.api_base, input=TOKEN)
    proc = subprocess.Popen([tool_path("alice"), "connector", "run", "phone", "--poll", "20",
                             "--json"], env=cli.env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: any(c["method"] == "getUpdates" and c["params"].get("timeout") == 20
                                    for c in telegram.calls))
        telegram.updates = [{"update_id": 3, "message": {"message_id": 30, "chat": {"id": 111},
                                                         "text": "ping"}}]
        comments = workspace / ".alice" / "issues" / "chat.comments.json"
        assert wait_for(comments.exists)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert conforms("connector-run", json.loads(out))["received"] == 1
    assert TOKEN not in out + err


def test_install_timer_connectors_adds_the_service(cli):
    r = cli("alice-schedule", "install-timer", "--systemd", "--connectors", "--json")
    assert r.returncode == 0, r
    doc = conforms("schedule-install-timer", r.json())
    [service] = [f for f in doc["files"] if f["path"].endswith("openalice-connectors.service")]
    assert " connector run" in service["content"] and "Restart=on-failure" in service["content"]
    assert ["systemctl", "--user", "enable", "--now", "openalice-connectors.service"] in doc["enable"]
    r = cli("alice-schedule", "install-timer", "--launchd", "--connectors", "--json")
    paths = [f["path"] for f in r.json()["files"]]
    assert any(p.endswith("dev.openalice.connectors.plist") for p in paths)
    r = cli("alice-schedule", "install-timer", "--cron", "--connectors", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "usage"
