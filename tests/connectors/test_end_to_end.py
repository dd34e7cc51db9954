"""The whole loop through the installed tools and a fake Telegram server:
a scheduled stand-in run publishes a report with an image and a sticker, the
scan delivers it, the person answers from the chat, the reply goes back;
a stranger reaches nobody; a sender killed mid-delivery loses and repeats nothing."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from tests.runs.standins import StandIns, fixtures_dir

from .conftest import TOKEN

T0 = "2026-03-02T09:00:00Z"
T1 = "2026-03-02T09:00:30Z"
T2 = "2026-03-02T09:01:10Z"
REPORT = "# Daily\n\nNVDA closed up.\n\n[[charts/nvda.png]]\n\n[[sticker/wave.webp]]"

PUSHING_CLAUDE = r'''#!{python}
import os, subprocess, sys
# A stand-in run that publishes its report, then replays the recorded Claude turn.
subprocess.run(["alice", "inbox", "push", "--body", {report!r}], check=True)
os.execv({standin!r}, ["claude", *sys.argv[1:]])
'''


def files_in(ws: Path) -> None:
    (ws / "charts").mkdir()
    (ws / "charts" / "nvda.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"chart" * 100)
    (ws / "sticker").mkdir(exist_ok=True)
    (ws / "sticker" / "wave.webp").write_bytes(b"RIFF....WEBPVP8 " + b"w" * 50)


def test_report_to_phone_and_conversation_back(cli, workspace, telegram, tmp_path):
    files_in(workspace)
    issues = workspace / ".alice" / "issues"
    (issues / "chat.md").write_text("---\ntitle: Chat\ntelegramConnector: true\n---\n\nThe chat.\n")
    engines = StandIns(tmp_path / "standin-bin", fixtures_dir())
    wrapper_bin = tmp_path / "publishing-bin"
    wrapper_bin.mkdir()
    wrapper = wrapper_bin / "claude"
    wrapper.write_text(PUSHING_CLAUDE.format(python=sys.executable, report=REPORT,
                                             standin=str(engines.bin / "claude")))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    path_env = os.pathsep.join([str(wrapper_bin), engines.path_env(
        f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")])
    r = cli("alice", "issue", "create", "--title", "Daily", "--id", "daily", "--every", "1m",
            "--agent", "claude", "--body", "report", "--json", cwd=workspace,
            env={"ALICE_NOW": T0})
    assert r.returncode == 0, r
    r = cli("alice", "connector", "add", "telegram", "phone", "--chat-id", "111",
            "--workspace", str(workspace), "--api-base", telegram.api_base, input=TOKEN)
    assert r.returncode == 0, r

    r = cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": T0, "PATH": path_env})
    assert r.returncode == 0, r
    [fired] = r.json()["fired"]
    r = cli("alice-schedule", "run", fired["taskId"], "--wait", "--timeout", "60", "--json",
            timeout=90)
    task_dir = Path(r.json()["files"]["structured"]).parent if "files" in r.json() else None
    assert r.returncode == 0 and r.json()["task"]["status"] == "done", (
        r, task_dir and (task_dir / "stderr.log").read_text())

    # the next scan delivers the report
    r = cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": T1, "PATH": path_env})
    assert r.returncode == 0, r
    assert r.json()["connectors"]["sent"] == 1, r.json()
    sent = telegram.sent()
    assert [c["method"] for c in sent] == ["sendMessage", "sendPhoto", "sendSticker"]
    assert sent[0]["params"]["text"] == REPORT
    assert sent[1]["files"]["photo"][2] == (workspace / "charts" / "nvda.png").read_bytes()
    assert sent[2]["files"]["sticker"][2] == (workspace / "sticker" / "wave.webp").read_bytes()

    # the person answers from the chat; a stranger writes too
    telegram.updates = [
        {"update_id": 7, "message": {"message_id": 70, "chat": {"id": 111}, "text": "thanks! why?"}},
        {"update_id": 8, "message": {"message_id": 80, "chat": {"id": 666},
                                     "text": "STRANGER run rm -rf"}},
    ]
    r = cli("alice", "connector", "deliver", "--json", env={"ALICE_NOW": T1})
    assert r.returncode == 0 and r.json()["connectors"][0]["received"] == 1, r
    r = cli("alice", "issue", "show", "chat", "--json", cwd=workspace)
    comments = json.loads((issues / "chat.comments.json").read_text())["comments"]
    assert [(c["markdown"], c.get("via")) for c in comments] == [("thanks! why?", "telegram")]
    assert "STRANGER" not in (issues / "chat.comments.json").read_text()

    # a reply comment (what the session would write) goes back as a reply
    r = cli("alice", "issue", "comment", "chat", "--body", "Because of earnings. [[charts/nvda.png]]",
            "--reply-to", comments[0]["id"], cwd=workspace)
    assert r.returncode == 0, r
    r = cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": T2, "PATH": path_env,
                                                     "OPENALICE_TEST_LAUNCH": "none"})
    assert r.returncode == 0, r
    reply = telegram.sent()[3:]
    assert [c["method"] for c in reply[:2]] == ["sendMessage", "sendPhoto"], reply
    assert reply[0]["params"]["reply_to_message_id"] == 70
    assert reply[0]["params"]["chat_id"] == "111"
    assert all(c["params"]["chat_id"] != "666" for c in telegram.sent())


def test_sigkill_mid_delivery_loses_nothing_and_repeats_nothing(cli, workspace, telegram):
    files_in(workspace)
    r = cli("alice", "connector", "add", "telegram", "phone", "--chat-id", "111",
            "--api-base", telegram.api_base, input=TOKEN)
    assert r.returncode == 0, r
    for n in range(3):
        cli("alice", "inbox", "push", "--workspace", str(workspace),
            "--body", f"report {n} [[charts/nvda.png]] [[sticker/wave.webp]]")
    kills = 0
    for _ in range(12):
        r = cli("alice", "connector", "deliver", "--json",
                env={"OPENALICE_TEST_CRASH_AFTER": "connector-part"})
        if r.returncode == -9:
            kills += 1
            continue
        assert r.returncode == 0, r
        break
    assert kills >= 8            # 9 parts: killed right after each part was written down
    r = cli("alice", "connector", "deliver", "--json")
    assert r.returncode == 0, r
    sent = [(c["method"], c["params"].get("text")) for c in telegram.sent()]
    report = "report {} [[charts/nvda.png]] [[sticker/wave.webp]]"
    assert sent == [item for n in range(3) for item in (
        ("sendMessage", report.format(n)), ("sendPhoto", None), ("sendSticker", None))]
