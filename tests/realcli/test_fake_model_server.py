"""The fake model server on its own (no agent CLI needed; runs in every suite)."""

from __future__ import annotations

import gzip
import hashlib
import http.client
import json
import os

import pytest

from .fake_model_server import FakeModelServer, error_message, reply_text
from .netns import LoopbackNetns

KEY = "sk-test-secret-value-42"


def post(server, path, body, *, headers=None, raw=None, chunked=False):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    data = raw if raw is not None else json.dumps(body).encode()
    hdrs = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}", **(headers or {})}
    if chunked:
        conn.putrequest("POST", path)
        for k, v in {**hdrs, "Transfer-Encoding": "chunked"}.items():
            conn.putheader(k, v)
        conn.endheaders()
        half = len(data) // 2
        for piece in (data[:half], data[half:]):
            conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
        conn.send(b"0\r\n\r\n")
    else:
        conn.request("POST", path, body=data, headers=hdrs)
    resp = conn.getresponse()
    payload = resp.read()
    conn.close()
    return resp.status, resp.getheader("Content-Type"), payload


def sse(payload: bytes) -> list:
    """Events of an SSE body: dicts, or the string "[DONE]"."""
    events = []
    for block in payload.decode().split("\n\n"):
        data = [line[6:] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            events.append("[DONE]" if data[0] == "[DONE]" else json.loads("".join(data)))
    return events


def anthropic_body(text="hello", **extra):
    return {"model": "claude-x", "stream": True, "max_tokens": 100,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "<system-reminder>x"},
                                                      {"type": "text", "text": text}]}], **extra}


def responses_body(text="hello", **extra):
    return {"model": "gpt-x", "stream": True, "input": [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}], **extra}


def chat_body(text="hello", **extra):
    return {"model": "chat-x", "stream": True, "messages": [
        {"role": "system", "content": "rules"}, {"role": "user", "content": text}], **extra}


@pytest.fixture
def server(tmp_path):
    with FakeModelServer(log_path=tmp_path / "requests.jsonl") as srv:
        yield srv


def test_anthropic_stream_echoes_model_and_effort(server):
    status, ctype, payload = post(server, "/v1/messages?beta=true",
                                  anthropic_body(output_config={"effort": "high"},
                                                 thinking={"type": "adaptive"}))
    assert status == 200 and ctype.startswith("text/event-stream")
    events = sse(payload)
    assert [e["type"] for e in events] == ["message_start", "content_block_start", "ping",
                                           "content_block_delta", "content_block_stop",
                                           "message_delta", "message_stop"]
    text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert text == reply_text(1, "claude-x", "high") == "FAKE-REPLY[1] model=claude-x effort=high"
    assert events[-2]["delta"]["stop_reason"] == "end_turn"
    [record] = server.requests
    assert record["api"] == "anthropic-messages" and record["last_user_text"] == "hello"


def test_anthropic_effort_falls_back_to_the_thinking_setting(server):
    post(server, "/v1/messages", anthropic_body(thinking={"type": "enabled", "budget_tokens": 31999}))
    post(server, "/v1/messages", anthropic_body())
    assert [r["effort"] for r in server.model_requests] == ["thinking:enabled:31999", None]
    assert server.model_requests[1]["reply"] == "FAKE-REPLY[2] model=claude-x effort=unset"


def test_head_and_count_tokens_are_recorded_but_not_counted_as_turns(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("HEAD", "/")
    assert conn.getresponse().status == 200
    conn.close()
    status, _, payload = post(server, "/v1/messages/count_tokens", anthropic_body())
    assert status == 200 and json.loads(payload) == {"input_tokens": 11}
    post(server, "/v1/messages", anthropic_body())
    assert [r["method"] for r in server.requests] == ["HEAD", "POST", "POST"]
    assert [r["n"] for r in server.model_requests] == [1]


def test_responses_stream(server):
    status, _, payload = post(server, "/v1/responses", responses_body(reasoning={"effort": "low"}))
    assert status == 200
    events = sse(payload)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert text == reply_text(1, "gpt-x", "low")
    done = events[-1]["response"]
    assert done["status"] == "completed" and done["output"][0]["content"][0]["text"] == text
    assert done["usage"]["total_tokens"] == 18
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    [record] = server.model_requests
    assert record["history"] == [{"role": "developer", "text": "rules"}, {"role": "user", "text": "hello"}]


def test_chat_completions_stream(server):
    status, _, payload = post(server, "/v1/chat/completions", chat_body(reasoning_effort="medium"))
    assert status == 200
    events = sse(payload)
    assert events[-1] == "[DONE]"
    chunks = [e for e in events[:-1] if e["choices"]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == reply_text(1, "chat-x", "medium")
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert events[-2]["usage"]["prompt_tokens"] == 11


@pytest.mark.parametrize("path,body,read", [
    ("/v1/messages", anthropic_body, lambda d: d["content"][0]["text"]),
    ("/v1/responses", responses_body, lambda d: d["output"][0]["content"][0]["text"]),
    ("/v1/chat/completions", chat_body, lambda d: d["choices"][0]["message"]["content"]),
])
def test_non_streaming_replies(server, path, body, read):
    status, ctype, payload = post(server, path, {**body(), "stream": False})
    assert status == 200 and ctype == "application/json"
    assert read(json.loads(payload)).startswith("FAKE-REPLY[1] model=")


def test_error_status_answers_every_model_request(server):
    server.error_status = 400
    status, _, payload = post(server, "/v1/messages", anthropic_body())
    assert status == 400
    assert json.loads(payload) == {"type": "error", "error": {"type": "invalid_request_error",
                                                              "message": error_message(400)}}
    status, _, payload = post(server, "/v1/responses", responses_body())
    assert status == 400 and json.loads(payload)["error"]["message"] == error_message(400)
    assert [(r["n"], r["status"], r["reply"]) for r in server.model_requests] == [(1, 400, None),
                                                                                  (2, 400, None)]
    server.error_status = None
    assert post(server, "/v1/responses", responses_body())[0] == 200


def test_error_message_does_not_look_retryable():
    # opencode retries any error whose text matches "server error", "overloaded", 5xx codes...
    text = error_message(400).lower()
    for word in ("server error", "overloaded", "rate limit", "timeout", "500", "429"):
        assert word not in text


def test_prompt_trigger_answers_an_http_error(server):
    status, _, payload = post(server, "/v1/chat/completions", chat_body("FAKE_HTTP_ERROR:429 please"))
    assert status == 429 and json.loads(payload)["error"]["code"] == "rate_limit_exceeded"
    status, _, payload = post(server, "/v1/messages", anthropic_body("FAKE_HTTP_ERROR:401"))
    assert status == 401 and json.loads(payload)["error"]["type"] == "authentication_error"


SHELLS = {
    "/v1/messages": {"name": "Bash", "input_schema": {
        "type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
        "required": ["command"]}},
    "/v1/responses": {"type": "function", "name": "exec_command", "parameters": {
        "type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}},
    "/v1/chat/completions": {"type": "function", "function": {"name": "bash", "parameters": {
        "type": "object", "properties": {"command": {"type": "string"},
                                         "description": {"type": "string"}},
        "required": ["command", "description"]}}},
}


def test_tool_trigger_calls_the_shell_tool_then_replies_after_the_result(server):
    prompt = "FAKE_TOOL: echo hi > f.txt"
    # Anthropic: a tool_use block, then the tool_result message.
    events = sse(post(server, "/v1/messages", anthropic_body(prompt, tools=[SHELLS["/v1/messages"]]))[2])
    assert events[1]["content_block"] == {"type": "tool_use", "id": "toolu_fake_1", "name": "Bash", "input": {}}
    assert json.loads(events[3]["delta"]["partial_json"]) == {"command": "echo hi > f.txt"}
    assert events[5]["delta"]["stop_reason"] == "tool_use"
    follow = anthropic_body(prompt, tools=[SHELLS["/v1/messages"]])
    follow["messages"] += [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_fake_1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_fake_1", "content": "OK"}]}]
    events = sse(post(server, "/v1/messages", follow)[2])
    assert events[3]["delta"]["text"] == reply_text(2, "claude-x", None)
    assert server.model_requests[1]["tool_output"] == "OK"

    # Responses: a function_call item with the schema's "cmd" argument.
    events = sse(post(server, "/v1/responses", responses_body(prompt, tools=[SHELLS["/v1/responses"]]))[2])
    item = events[-1]["response"]["output"][0]
    assert item["type"] == "function_call" and item["name"] == "exec_command"
    assert json.loads(item["arguments"]) == {"cmd": "echo hi > f.txt"}
    follow = responses_body(prompt, tools=[SHELLS["/v1/responses"]])
    follow["input"] += [{"type": "function_call", "call_id": item["call_id"], "name": "exec_command",
                         "arguments": item["arguments"]},
                        {"type": "function_call_output", "call_id": item["call_id"], "output": "done"}]
    events = sse(post(server, "/v1/responses", follow)[2])
    assert events[-1]["response"]["output"][0]["type"] == "message"

    # Chat: tool_calls deltas, finish_reason tool_calls, description added when required.
    events = sse(post(server, "/v1/chat/completions", chat_body(prompt, tools=[SHELLS["/v1/chat/completions"]]))[2])
    first = events[0]["choices"][0]["delta"]["tool_calls"][0]
    args = events[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
    assert first["function"]["name"] == "bash"
    assert json.loads(args) == {"command": "echo hi > f.txt", "description": "fake tool call"}
    assert events[2]["choices"][0]["finish_reason"] == "tool_calls"
    assert [r.get("tool_call", {}).get("name") for r in server.model_requests] == [
        "Bash", None, "exec_command", None, "bash"]


def test_tool_trigger_without_a_shell_tool_replies_with_text(server):
    events = sse(post(server, "/v1/chat/completions", chat_body("FAKE_TOOL: ls"))[2])
    assert events[1]["choices"][0]["delta"]["content"].startswith("FAKE-REPLY[1]")


def test_secrets_are_redacted_everywhere_and_fingerprinted(server, tmp_path):
    post(server, "/v1/messages", anthropic_body(), headers={"x-api-key": KEY, "X-Session-Token": KEY})
    post(server, "/v1/responses", responses_body())
    log = (tmp_path / "requests.jsonl").read_text()
    assert KEY not in log and KEY not in repr(server.requests[0]["headers"])
    first, second = server.requests
    assert first["headers"]["x-api-key"] == f"<redacted len={len(KEY)} prefix='sk-t'>"
    assert second["headers"]["Authorization"].startswith("Bearer <redacted len=")
    assert first["credential_sha256"] == second["credential_sha256"] == hashlib.sha256(KEY.encode()).hexdigest()


def test_jsonl_log_has_one_line_per_request_without_bodies(server, tmp_path):
    post(server, "/v1/responses", responses_body("x" * 5000))
    post(server, "/v1/nowhere", {})
    lines = [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert [(r["seq"], r["path"], r["status"]) for r in lines] == [(1, "/v1/responses", 200),
                                                                  (2, "/v1/nowhere", 404)]
    assert "body" not in lines[0] and "body" in server.requests[0]
    assert len(lines[0]["history"][1]["text"]) < 1000


def test_chunked_and_gzip_request_bodies(server):
    body = json.dumps(chat_body("chunky")).encode()
    assert post(server, "/v1/chat/completions", None, raw=body, chunked=True)[0] == 200
    assert post(server, "/v1/chat/completions", None, raw=gzip.compress(body),
                headers={"Content-Encoding": "gzip"})[0] == 200
    assert [r["last_user_text"] for r in server.model_requests] == ["chunky", "chunky"]
    status, _, _ = post(server, "/v1/chat/completions", None, raw=b"{not json")
    assert status == 400


def test_url_port_and_close():
    with FakeModelServer() as srv:
        assert srv.url == f"http://127.0.0.1:{srv.port}"
    with pytest.raises(RuntimeError):
        srv.port


@pytest.mark.skipif(os.geteuid() != 0, reason="a network namespace needs root")
def test_server_in_a_namespace_is_unreachable_from_outside():
    ns, why = LoopbackNetns.create()
    assert ns is not None, why
    try:
        with FakeModelServer(netns=ns) as srv:
            with pytest.raises(OSError):
                post(srv, "/v1/responses", responses_body())
            out = ns.call(lambda: post(srv, "/v1/responses", responses_body()))
            assert out[0] == 200 and len(srv.model_requests) == 1
    finally:
        ns.close()
