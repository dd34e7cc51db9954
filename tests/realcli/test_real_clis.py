"""End to end: the real agent CLIs, headless, against the loopback fake model server.

Each assertion on ``FAKE-REPLY[n] model=<m> effort=<e>`` proves three things at
once: the argv/env reached the wire (the server echoes what it received), the
CLI's stream carries the reply in the expected event, and ``n`` counts the
model requests of this test (so no hidden extra calls happened).
"""

from __future__ import annotations

import hashlib

import pytest

from .agents import FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY
from .fake_model_server import error_message, reply_text

pytestmark = pytest.mark.realcli


def fingerprint(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def expected_key(agent) -> str:
    return FAKE_ANTHROPIC_KEY if agent.driver.api == "anthropic-messages" else FAKE_OPENAI_KEY


def last_text(agent, turn) -> str:
    texts = agent.driver.texts(turn)
    assert texts, f"no assistant text in the stream\n{turn!r}"
    return texts[-1]


def test_fresh_turn(agent):
    model, effort = agent.driver.model, agent.driver.efforts[0]

    turn = agent.turn("say hi")

    assert turn.returncode == 0, turn
    assert last_text(agent, turn) == reply_text(1, model, effort), turn
    assert agent.driver.session_id(turn), turn
    assert agent.driver.error(turn) is None, turn
    [request] = agent.server.model_requests
    assert request["api"] == agent.driver.api
    assert request["model"] == model
    assert request["effort"] == effort
    assert request["stream"] is True
    assert request["last_user_text"].strip() == "say hi"
    assert request["credential_sha256"] == fingerprint(expected_key(agent))


def test_resumed_turn_continues_the_conversation(agent):
    model = agent.driver.model
    first_effort, second_effort = agent.driver.efforts
    first = agent.turn("first question", effort=first_effort)
    assert first.returncode == 0, first
    session = agent.driver.session_id(first)
    assert session, first

    second = agent.turn("second question", effort=second_effort, resume=session)

    assert second.returncode == 0, second
    assert last_text(agent, second) == reply_text(2, model, second_effort), second
    assert agent.driver.session_id(second) == session, second
    requests = agent.server.model_requests
    assert [r["n"] for r in requests] == [1, 2]
    assert requests[1]["effort"] == second_effort
    history = requests[1]["history"]
    assert any(h["role"] == "user" and "first question" in (h["text"] or "") for h in history), history
    assert any(h["role"] == "assistant" and reply_text(1, model, first_effort) in (h["text"] or "")
               for h in history), history
    assert requests[1]["last_user_text"].strip() == "second question"


def test_api_error_is_reported(agent):
    agent.server.error_status = 400

    turn = agent.turn("this request fails", timeout=60)

    assert turn.returncode == agent.driver.error_exit, turn
    error = agent.driver.error(turn)
    assert error and error_message(400) in error, turn
    assert not any("FAKE-REPLY" in (t or "") for t in agent.driver.texts(turn)), turn
    # One request: a 4xx is not retried (pi only with retry disabled in its settings).
    [request] = agent.server.model_requests
    assert request["status"] == 400


def test_tool_call_runs_the_shell_and_returns_the_result(agent):
    model, effort = agent.driver.model, agent.driver.efforts[0]

    turn = agent.turn("FAKE_TOOL: echo tool-ran > marker.txt && echo MARKER_OK")

    assert turn.returncode == 0, turn
    assert (agent.workdir / "marker.txt").read_text().strip() == "tool-ran"
    runs = agent.driver.tool_runs(turn)
    assert len(runs) == 1 and "MARKER_OK" in runs[0]["output"], turn
    assert "echo tool-ran" in (runs[0]["command"] or ""), runs
    assert last_text(agent, turn) == reply_text(2, model, effort), turn
    call, answer = agent.server.model_requests
    assert call["tool_call"]["arguments"]
    assert "MARKER_OK" in answer["tool_output"]
