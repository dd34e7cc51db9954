"""Real agent CLIs, driven only through our projection, against a loopback fake model server.

Runs when the pinned CLIs are installed (``scripts/setup-agent-clis`` puts them in
``.agent-clis/``; or set ``AGENT_CLIS_DIR``): for each engine a fresh headless turn and a resumed
one, with a vault key that must reach the server through the child environment and appear in no
argv or output.  Skips loudly otherwise; the scheduling capability runs them end to end.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from openalice import agents, credentials, sessions

from .conftest import NOW

pytestmark = pytest.mark.realcli
KEY = "sk-canary-must-not-leak-real-cli"
REPO = Path(__file__).resolve().parents[2]


def _bin_dir() -> Path | None:
    roots = [Path(os.environ["AGENT_CLIS_DIR"])] if os.environ.get("AGENT_CLIS_DIR") else []
    roots.append(REPO / ".agent-clis")
    for root in roots:
        if (root / "node_modules" / ".bin").is_dir():
            return root / "node_modules" / ".bin"
    return None


BIN = _bin_dir()


class FakeModels(BaseHTTPRequestHandler):
    """Anthropic Messages, OpenAI Chat Completions and Responses, streamed; records what it saw."""

    protocol_version = "HTTP/1.1"
    seen: list = []

    def do_HEAD(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        auth = self.headers.get("Authorization", "") + " " + self.headers.get("x-api-key", "")
        text = json.dumps(body)
        self.seen.append({"path": self.path, "key_ok": KEY in auth, "model": body.get("model"),
                          "effort": body.get("reasoning_effort") or (body.get("reasoning") or {}).get("effort"),
                          "prompts": [p for p in ("first turn", "second turn") if p in text]})
        reply = f"FAKE-REPLY model={body.get('model')}"
        if self.path.startswith("/v1/messages"):
            events = [("message_start", {"type": "message_start", "message": {
                          "id": "m1", "type": "message", "role": "assistant", "model": body.get("model"), "content": [],
                          "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
                      ("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}}),
                      ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": reply}}),
                      ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                      ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                            "stop_sequence": None},
                                         "usage": {"output_tokens": 1}}),
                      ("message_stop", {"type": "message_stop"})]
            data = b"".join(f"event: {n}\ndata: {json.dumps(d)}\n\n".encode() for n, d in events)
        elif self.path.startswith("/v1/responses"):
            item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": reply, "annotations": []}]}
            resp = {"id": "resp_1", "object": "response", "status": "completed", "model": body.get("model"),
                    "output": [item], "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                                                "input_tokens_details": {"cached_tokens": 0},
                                                "output_tokens_details": {"reasoning_tokens": 0}}}
            events = [{"type": "response.created", "response": {**resp, "status": "in_progress", "output": []}},
                      {"type": "response.output_item.added", "output_index": 0,
                       "item": {**item, "status": "in_progress", "content": []}},
                      {"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
                       "item_id": "msg_1", "delta": reply},
                      {"type": "response.output_item.done", "output_index": 0, "item": item},
                      {"type": "response.completed", "response": resp}]
            data = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
        else:
            chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": reply},
                                    "finish_reason": None}]},
                      {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}]
            data = b"".join(f"data: {json.dumps({**c, 'id': 'x', 'object': 'chat.completion.chunk', 'created': 0, 'model': body.get('model')})}\n\n".encode()
                            for c in chunks) + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), FakeModels)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def _native_id(agent: str, stdout: str) -> str | None:
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        value = {"claude": event.get("session_id"), "codex": event.get("thread_id"),
                 "opencode": event.get("sessionID"),
                 "pi": event.get("id") if event.get("type") == "session" else None}[agent]
        if value:
            return value
    return None


WIRES = {"claude": "anthropic=http://{}", "codex": "openai-responses=http://{}/v1",
         "opencode": "openai-chat=http://{}/v1", "pi": "openai-chat=http://{}/v1"}
EFFORT = {"claude": "high", "codex": "high", "opencode": "high", "pi": "high"}


@pytest.mark.skipif(BIN is None, reason="REAL AGENT CLIS NOT INSTALLED: run scripts/setup-agent-clis or set "
                                        "AGENT_CLIS_DIR (the directory holding node_modules/.bin)")
@pytest.mark.parametrize("agent", ["claude", "codex", "opencode", "pi"])
def test_fresh_and_resumed_turn_through_the_projection(agent, server, ws, tmp_path):
    if not (BIN / agent).exists():
        pytest.skip(f"{agent} is not installed in {BIN}")
    FakeModels.seen.clear()
    credentials.add(f"fake-{agent}", vendor="custom", secret=KEY, wire_specs=[WIRES[agent].format(server)], now=NOW)
    binding = sessions.create_session(ws, agent=agent, credential={"source": "vault",
                                                                   "credentialSlug": f"fake-{agent}"},
                                      model="fake-model", effort=EFFORT[agent], now=NOW)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    base_env = {"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(home),
                "CODEX_HOME": str(home / ".codex"), "LANG": "C.UTF-8"}
    run_env = {"ALICE_RUN_ID": "run-AAAAAAAA", "ALICE_RESUME_ID": binding.resume_id, "ALICE_WORKSPACE_ID": ws.id,
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1"}
    native = None
    for turn, prompt in enumerate(("first turn", "second turn")):
        run_dir = tmp_path / f"run{turn}"
        run_dir.mkdir(mode=0o700)
        p = agents.get_adapter(agent).project(binding, prompt=prompt, native_session_id=native,
                                              workspace=ws.root, run_env=run_env, base_env=base_env,
                                              run_dir=run_dir)
        assert not any(KEY in a for a in p.argv)
        proc = subprocess.run(p.argv, env=p.env, cwd=ws.root, input=p.stdin if p.stdin is not None else b"",
                              capture_output=True, timeout=180)
        out, err = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
        assert proc.returncode == 0, (p.argv, out[-2000:], err[-2000:])
        assert "FAKE-REPLY" in out and KEY not in out + err
        found = _native_id(agent, out)
        assert found, out[:2000]
        if native is not None:
            assert found == native  # the resumed turn continued the same engine session
        native = found
        sessions.record_native_session(ws, binding.resume_id, native, NOW)
    turns = [s for s in FakeModels.seen if s["prompts"]]
    assert turns and all(s["key_ok"] and s["model"] == "fake-model" for s in turns)
    assert any("second turn" in s["prompts"] and "first turn" in s["prompts"] for s in turns)  # history kept
    if agent != "claude":
        assert all(s["effort"] == "high" for s in turns)
