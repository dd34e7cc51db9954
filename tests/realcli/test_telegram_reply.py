"""A real agent answers a Telegram message, and its reply reaches the chat.

The real Claude Code runs a scheduled turn of the workspace's
``telegramConnector: true`` issue (the session is born and claims the issue);
a message from the allowed chat, fetched from the fake Telegram Bot API by
``alice connector deliver``, becomes a comment ``via: telegram``; the scan
delivers it to the session as a turn of the real CLI (inside the loopback-only
network namespace, against the fake model server); the next delivery sends the
session's reply back to the chat as a reply to the person's message.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.connectors.conftest import TOKEN
from tests.connectors.fakes import FakeTelegram

from .clis import cli_path
from .fake_model_server import reply_text
from .test_scheduled_turn import CASES, CREATED, T0, T1, WAIT, run_of, stderr_of, tools  # noqa: F401

pytestmark = pytest.mark.realcli

MESSAGE = "TG-5c2e: is the report ready?"


@pytest.fixture
def telegram():
    fake = FakeTelegram(TOKEN).start()
    yield fake
    fake.stop()


def test_a_real_agent_replies_to_a_telegram_message(tools, fake_server, telegram, tmp_path):
    vendor_flags, key, model, effort, _api = CASES["claude"]
    exe = cli_path("claude")
    tools.env["PATH"] = os.pathsep.join([str(Path(exe).parent), tools.env["PATH"]])
    workspace = tmp_path / "ws"
    tools("alice", "workspace", "init", str(workspace), "--label", "Real")
    tools("alice", "credential", "add", "fake", "-", *vendor_flags(fake_server.url), input=key)
    tools("alice", "issue", "create", "--title", "Chat", "--id", "chat", "--every", "1h", "--agent", "claude",
          "--credential", "fake", "--model", model, "--effort", effort, "--assignee", "@new-then-resume",
          "--body", "say hi", cwd=workspace, now=CREATED)
    issue = workspace / ".alice" / "issues" / "chat.md"
    issue.write_text(issue.read_text().replace("---\n", "---\ntelegramConnector: true\n", 1))
    tools("alice", "connector", "add", "telegram", "phone", "--chat-id", "111", "--workspace", str(workspace),
          "--api-base", telegram.api_base, input=TOKEN)
    # The scans below run inside the loopback-only namespace, where the fake Bot API is not
    # reachable: the connector is off while they run, so its deliveries happen only on request.
    tools("alice", "connector", "disable", "phone")

    [fired] = tools.json("alice-schedule", "scan", now=T0, in_netns=True)["fired"]
    first = run_of(tools, fired["taskId"])
    assert first["task"]["status"] == "done", (first, stderr_of(first))
    resume_id = first["task"]["resumeId"]
    assert f"assignee: '@{resume_id}'" in issue.read_text() or f"@{resume_id}" in issue.read_text()

    telegram.updates = [{"update_id": 5, "message": {"message_id": 50, "chat": {"id": 111}, "text": MESSAGE}}]
    tools("alice", "connector", "enable", "phone")
    received = tools.json("alice", "connector", "deliver", now=T1)
    assert received["connectors"][0]["received"] == 1, received
    [comment] = json.loads((workspace / ".alice" / "issues" / "chat.comments.json").read_text())["comments"]
    assert comment["via"] == "telegram" and comment["delivery"]["state"] == "pending", comment
    tools("alice", "connector", "disable", "phone")

    before = len(fake_server.model_requests)
    scan = tools.json("alice-schedule", "scan", now=T1, in_netns=True)
    assert scan.get("comments", {}).get("delivered"), scan
    deadline = time.monotonic() + WAIT
    thread = []
    while time.monotonic() < deadline:
        thread = tools.json("alice", "issue", "thread", "chat", cwd=workspace)["comments"]
        if thread[0]["delivery"]["state"] != "pending":
            break
        time.sleep(1)
    assert thread[0]["delivery"]["state"] == "replied", thread
    [turn] = [r for r in fake_server.model_requests[before:] if MESSAGE in json.dumps(r.get("body"))][-1:]
    reply = thread[1]
    assert reply["replyTo"] == comment["id"] and reply["author"] == f"@{resume_id}"
    assert reply["markdown"] == reply_text(turn["n"], model, effort)

    tools("alice", "connector", "enable", "phone")
    tools.json("alice", "connector", "deliver", now=T1)
    [sent] = [c for c in telegram.sent() if c["method"] == "sendMessage"]
    assert sent["params"]["chat_id"] == "111" and sent["params"]["reply_to_message_id"] == 50, sent
    assert sent["params"]["text"] == reply["markdown"]
