"""A person's comment answered by the real CLIs, in the resumed native session.

A session is born by a scheduled run (``alice-schedule scan``, as in
``test_scheduled_turn.py``); then ``alice issue comment ID --body ... --wait``
(inside the loopback-only network namespace when there is one, so the
detached comment turn and the CLI it starts are too) delivers the comment as
a turn of that session.  The fake model server must see the comment's text in
the resumed conversation (the scheduled turn's reply in its history), and the
turn's final text must land as the reply comment.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .clis import cli_path
from .fake_model_server import reply_text
from .test_scheduled_turn import CASES, CREATED, T0, T1, WAIT, run_of, stderr_of, tools  # noqa: F401

pytestmark = pytest.mark.realcli

COMMENT = "COMMENT-7f3a: why is Monday's number off?"


@pytest.mark.parametrize("engine", list(CASES))
def test_a_session_born_by_a_schedule_answers_a_comment(engine, tools, fake_server, tmp_path):
    vendor_flags, key, model, effort, _api = CASES[engine]
    exe = cli_path(engine)
    tools.env["PATH"] = os.pathsep.join([str(Path(exe).parent), tools.env["PATH"]])
    workspace = tmp_path / "ws"
    tools("alice", "workspace", "init", str(workspace), "--label", "Real")
    tools("alice", "credential", "add", "fake", "-", *vendor_flags(fake_server.url), input=key)
    tools("alice", "issue", "create", "--title", "Say hi", "--id", "hi", "--every", "1h", "--agent", engine,
          "--credential", "fake", "--model", model, "--effort", effort, "--body", "say hi",
          cwd=workspace, now=CREATED)
    [fired] = tools.json("alice-schedule", "scan", now=T0, in_netns=True)["fired"]
    first = run_of(tools, fired["taskId"])
    assert first["task"]["status"] == "done", (first, stderr_of(first))
    resume_id = first["task"]["resumeId"]
    before = len(fake_server.model_requests)

    out = tools.json("alice", "issue", "comment", "hi", "--body", COMMENT, "--wait", "--timeout",
                     str(WAIT), cwd=workspace, now=T1, in_netns=True, timeout=WAIT + 60)

    assert out["delivery"] == "replied", out
    requests = [r for r in fake_server.model_requests[before:] if COMMENT in (r.get("last_user_text") or "")]
    assert requests, fake_server.model_requests[before:]
    turn = requests[-1]
    # the resumed conversation: the scheduled turn's answer is in its history
    assert any(h["role"] == "assistant" and reply_text(1, model, effort) in (h["text"] or "")
               for h in turn["history"]), turn["history"]
    reply = out["reply"]
    assert reply["markdown"] == reply_text(turn["n"], model, effort)
    assert reply["author"] == f"@{resume_id}" and reply["replyTo"] == out["comment"]["id"]
    run = run_of(tools, out["comment"]["delivery"]["taskId"])
    assert run["task"]["kind"] == "comment"
    assert run["task"]["agentSessionId"] == first["task"]["agentSessionId"]
    thread = tools.json("alice", "issue", "thread", "hi", cwd=workspace)
    assert [c["id"] for c in thread["comments"]] == [out["comment"]["id"], reply["id"]]
    assert thread["comments"][0]["delivery"]["state"] == "replied"
