"""Stream normalizers against the recorded agent CLI streams, limits and garbage."""

from __future__ import annotations

import copy
import json

import pytest

from openalice.runs.streams import (
    FORMATS,
    MAX_BLOCKS,
    TEXT_LIMIT,
    VALUE_LIMIT,
    StreamNormalizer,
    TurnEvent,
    normalizer_for,
)
from tests.testdata import AGENT_STREAMS

ENGINE_FORMATS = {"claude": "claude-stream-json", "codex": "codex-json",
                  "opencode": "opencode-json", "pi": "pi-json"}


STREAMS = AGENT_STREAMS


@pytest.fixture(scope="module")
def validator():
    from openalice.core.resources import schema
    from openalice.core.schema import Validator

    return Validator(schema("structured-output"), source="spec/structured-output.schema.json")


def run_lines(fmt: str, lines, *, strict: bool = True) -> tuple[StreamNormalizer, dict, list[TurnEvent]]:
    normalizer = normalizer_for(fmt)
    normalizer.strict = strict
    events: list[TurnEvent] = []
    for line in lines:
        events.extend(normalizer.feed(line))
    events.extend(normalizer.flush())
    return normalizer, normalizer.finish(), events


def run_fixture(name: str, *, limit: int | None = None):
    path = STREAMS / name
    lines = path.read_bytes().splitlines(keepends=True)
    return run_lines(ENGINE_FORMATS[name.split("-")[0]], lines[:limit])


def shape(snapshot: dict) -> list[tuple]:
    out = []
    for block in snapshot["blocks"]:
        if block["type"] == "tool":
            out.append(("tool", block["name"], block["status"]))
        else:
            out.append((block["type"],))
    return out


def assert_valid(validator, snapshot: dict) -> None:
    assert validator.errors(snapshot) == []
    json.dumps(snapshot, ensure_ascii=False, allow_nan=False).encode("utf-8")  # always writable, strict JSON


# -- every recorded stream --------------------------------------------------

CLAUDE_SESSION = "9c598c72-ce94-4839-896f-86b8f9bff002"
METADATA_WARNING = ("error",)  # codex's non-fatal "Model metadata ... not found" item

EXPECTED = {
    # name: (session id, assistantText, block shape, engine_reported_failure, error_after_last_text)
    "claude-stream.jsonl": (
        CLAUDE_SESSION, "FAKE-REPLY[2] model=claude-sonnet-4-5 effort=thinking:enabled:31999",
        [("text",)], False, False),
    "claude-resume-stream.jsonl": (
        CLAUDE_SESSION, "FAKE-REPLY[2] model=claude-opus-4-8 effort=xhigh", [("text",)], False, False),
    "claude-partial-stream.jsonl": (
        "28413c41-55c0-4f99-9a4a-162d19a56642",
        "FAKE-REPLY[2] model=claude-sonnet-4-5 effort=thinking:enabled:31999", [("text",)], False, False),
    "claude-tool-stream.jsonl": (
        "41af03fd-3fe3-4aa2-a093-728ecb8e67a1",
        "FAKE-REPLY[3] model=claude-sonnet-4-5 effort=thinking:enabled:31999 tool-result-seen: MARKER_OK",
        [("tool", "Bash", "completed"), ("text",)], False, False),
    "claude-error-stream.jsonl": (
        "e340b1a4-82bf-4d3f-8436-24381e390b55", None, [("error",)], True, True),
    "codex-stream.jsonl": (
        "01a22ba2-bc2a-70c0-9e4f-8625e34b0118", "FAKE-REPLY[1] model=fake-model effort=high",
        [METADATA_WARNING, ("text",)], False, False),
    "codex-resume-stream.jsonl": (
        "01a22b9e-f427-7a32-9679-3095ca76f12d", "FAKE-REPLY[1] model=fake-model effort=low",
        [METADATA_WARNING, ("text",)], False, False),
    "codex-tool-stream.jsonl": (
        "01a22ba1-2594-7482-b59c-0dec8c83ef43",
        "FAKE-REPLY[2] model=fake-model effort=medium tool-result-seen: Chunk ID: 302e64 Wall time: "
        "0.0000 seconds Process exited with code 0 Original token count: 3 Output: MARKER_OK",
        [METADATA_WARNING, ("tool", "command_execution", "completed"), ("text",)], False, False),
    "codex-error-stream.jsonl": (
        "01a22ba1-7085-7eb0-82f9-04e9b0e3329f", None, [METADATA_WARNING, ("error",)], True, True),
    "opencode-stream.jsonl": (
        "ses_dd45d21a5ffeiIB2MPEVLomjDc", "FAKE-REPLY[1] model=fake-model effort=high", [("text",)],
        False, False),
    "opencode-resume-stream.jsonl": (
        "ses_dd4603ce2ffeJY7bhCgQ66yOr3", "FAKE-REPLY[1] model=fake-model effort=high", [("text",)],
        False, False),
    "opencode-tool-stream.jsonl": (
        "ses_dd45ed34dffelinQl8KRWifPqb", "FAKE-REPLY[2] model=fake-model effort=None tool-result-seen: MARKER_OK",
        [("tool", "bash", "completed"), ("text",)], False, False),
    "opencode-error-stream.jsonl": (
        "ses_dd45e8850ffeWhtP4tVE91LmmL", None, [("error",)], True, True),
    "opencode-anthropic-provider-stream.jsonl": (
        "ses_dd45bee4affeXCnOa2tfk7UERY",
        "FAKE-REPLY[1] model=claude-sonnet-4-5 effort=thinking:enabled:16000", [("text",)], False, False),
    "opencode-openai-provider-stream.jsonl": (
        "ses_dd45bd7b3ffeqTFHqxuUyaomVv", "FAKE-REPLY[1] model=gpt-5 effort=low", [("text",)], False, False),
    "pi-stream.jsonl": (
        "01a22ba2-e9d0-77b1-8c31-b85fffdc31f3", "FAKE-REPLY[1] model=fake-model effort=high", [("text",)],
        False, False),
    "pi-resume-stream.jsonl": (
        "01a22ba0-402c-7431-96c3-de54c9f9ee5d",
        "FAKE-REPLY[1] model=claude-sonnet-4-5 effort=thinking:enabled:2048", [("text",)], False, False),
    "pi-tool-stream.jsonl": (
        "01a22ba1-2b74-7043-bd0b-cfc4a43620ce",
        "FAKE-REPLY[2] model=fake-model effort=medium tool-result-seen: MARKER_OK",
        [("tool", "bash", "completed"), ("text",)], False, False),
    "pi-error-stream.jsonl": (
        "01a22ba1-76b5-768c-b074-90cc12cd1110", None, [("error",)], True, True),
}


def test_every_recorded_stream_is_covered():
    assert sorted(p.name for p in STREAMS.glob("*-stream.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_stream(name, validator):
    session, text, blocks, engine_failure, error_last = EXPECTED[name]
    normalizer, snapshot, events = run_fixture(name)
    assert normalizer.native_session_id == session
    assert snapshot["assistantText"] == text
    assert shape(snapshot) == blocks
    assert normalizer.engine_reported_failure() is engine_failure
    assert normalizer.error_after_last_text() is error_last
    assert snapshot["truncated"] is False
    assert normalizer.ignored_lines == 0
    metrics = snapshot["metrics"]
    assert metrics["textBlocks"] == sum(1 for b in blocks if b == ("text",))
    assert metrics["toolCalls"] == sum(1 for b in blocks if b[0] == "tool")
    assert metrics["toolFailures"] == 0
    # The journal sees every block once, tools at each status.
    assert [e.kind for e in events if e.kind != "tool"] == [b[0] for b in blocks if b[0] != "tool"]
    assert_valid(validator, snapshot)


def test_fake_reply_is_the_exact_text_block():
    for name, (_, text, *_rest) in EXPECTED.items():
        if text is None:
            continue
        _, snapshot, events = run_fixture(name)
        texts = [b["text"] for b in snapshot["blocks"] if b["type"] == "text"]
        assert texts == [text], name
        assert [e.text for e in events if e.kind == "text"] == [text], name


@pytest.mark.parametrize("name, tool_id, name_, input_, output", [
    ("claude-tool-stream.jsonl", "toolu_fake_2", "Bash",
     {"command": "echo tool-ran-claude > marker.txt && echo MARKER_OK", "description": "fake tool call"},
     "MARKER_OK"),
    ("codex-tool-stream.jsonl", "item_1", "command_execution",
     {"command": "/bin/bash -lc 'echo tool-ran-codex > marker.txt && echo MARKER_OK'"}, "MARKER_OK\n"),
    ("opencode-tool-stream.jsonl", "call_fake_1", "bash",
     {"command": "echo tool-ran-opencode > marker.txt && echo MARKER_OK"}, "MARKER_OK\n"),
    ("pi-tool-stream.jsonl", "call_fake_1|fc_fake_1", "bash",
     {"command": "echo tool-ran-pi > marker.txt && echo MARKER_OK"}, "MARKER_OK\n"),
])
def test_tool_blocks_carry_io_and_events_do_not(name, tool_id, name_, input_, output):
    _, snapshot, events = run_fixture(name)
    tool = next(b for b in snapshot["blocks"] if b["type"] == "tool")
    assert tool == {"type": "tool", "id": tool_id, "name": name_, "status": "completed",
                    "input": input_, "output": output}
    tool_events = [e for e in events if e.kind == "tool"]
    assert tool_events[-1] == TurnEvent("tool", tool_id=tool_id, tool_name=name_, tool_status="completed")
    assert tool_events[-1].payload() == {"toolId": tool_id, "toolName": name_, "toolStatus": "completed"}
    assert tool_events[-1].journal_type == "runtime.turn.tool"
    # opencode reports a tool only once it has finished; the others announce it running first.
    expected = ["completed"] if name.startswith("opencode") else ["running", "completed"]
    assert [e.tool_status for e in tool_events] == expected


@pytest.mark.parametrize("name, message", [
    ("claude-error-stream.jsonl", "API Error: 400 fake server error 400"),
    ("codex-error-stream.jsonl", "invalid_request_error: fake server error 400"),
    ("opencode-error-stream.jsonl", "APIError: fake server error 400 (HTTP 400)"),
    ("pi-error-stream.jsonl", "400 fake server error 400"),
])
def test_error_streams_end_in_one_readable_error(name, message):
    normalizer, snapshot, events = run_fixture(name)
    assert snapshot["blocks"][-1] == {"type": "error", "message": message}
    # claude repeats it in result, codex in turn.failed, pi four times plus auto_retry_end: collapsed.
    assert sum(1 for b in snapshot["blocks"] if b.get("message") == message) == 1
    assert events[-1].payload() == {"message": message}


def test_pi_exit_zero_error_is_caught_only_by_the_stream():
    """pi exits 0 after an API error; the stream alone must say failed."""
    lines = (STREAMS / "pi-error-stream.jsonl").read_bytes().splitlines()
    # Up to the first failed attempt, before any retry bookkeeping.
    first = next(i for i, line in enumerate(lines) if b'"auto_retry_start"' in line)
    normalizer, _, _ = run_lines("pi-json", lines[:first])
    assert normalizer.engine_reported_failure() and normalizer.error_after_last_text()
    # The retry verdict alone is enough too.
    only_end = [lines[0], lines[-1]]
    normalizer, snapshot, _ = run_lines("pi-json", only_end)
    assert normalizer.engine_reported_failure()
    assert shape(snapshot) == [("error",)]


def test_pi_successful_retry_clears_the_failure():
    error = {"type": "message_end", "message": {"role": "assistant", "content": [], "stopReason": "error",
                                               "errorMessage": "429 slow down"}}
    ok = {"type": "message_end", "message": {"role": "assistant", "stopReason": "stop",
                                            "content": [{"type": "text", "text": "done"}]}}
    lines = [json.dumps(e) for e in (error, {"type": "auto_retry_start", "attempt": 1}, ok,
                                    {"type": "auto_retry_end", "success": True})]
    normalizer, snapshot, _ = run_lines("pi-json", lines)
    assert not normalizer.engine_reported_failure()
    assert not normalizer.error_after_last_text()
    assert shape(snapshot) == [("error",), ("text",)] and snapshot["assistantText"] == "done"


def test_claude_result_is_error_with_subtype_success_is_a_failure():
    lines = [json.dumps({"type": "assistant", "session_id": "s1",
                         "message": {"id": "m", "content": [{"type": "text", "text": "partial answer"}]}}),
             json.dumps({"type": "result", "subtype": "success", "is_error": True, "result": "boom",
                         "session_id": "s1"})]
    normalizer, snapshot, _ = run_lines("claude-stream-json", lines)
    assert normalizer.engine_reported_failure()
    assert normalizer.error_after_last_text()
    assert snapshot["assistantText"] == "partial answer"  # the last thing said, errors skipped
    assert shape(snapshot) == [("text",), ("error",)]


def test_claude_result_text_is_used_only_when_no_reply_was_seen():
    result = json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "final"})
    _, snapshot, _ = run_lines("claude-stream-json", [result])
    assert snapshot["assistantText"] == "final"
    said = json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": "final"}]}})
    _, snapshot, _ = run_lines("claude-stream-json", [said, result])
    assert shape(snapshot) == [("text",)]


def test_resume_streams_report_their_session():
    # claude keeps its session id on --resume; the recorded resume turn continues claude-stream's session.
    assert run_fixture("claude-resume-stream.jsonl")[0].native_session_id == \
        run_fixture("claude-stream.jsonl")[0].native_session_id
    for name in ("codex-resume-stream.jsonl", "opencode-resume-stream.jsonl", "pi-resume-stream.jsonl"):
        assert run_fixture(name)[0].native_session_id == EXPECTED[name][0]


def test_usage_metrics():
    expected = {
        "claude-tool-stream.jsonl": {"inputTokens": 22, "outputTokens": 14, "costUsd": 0.000276},
        "codex-tool-stream.jsonl": {"inputTokens": 22, "outputTokens": 14},
        "opencode-openai-provider-stream.jsonl": {"inputTokens": 11, "outputTokens": 7, "costUsd": 0.00008375},
        "pi-resume-stream.jsonl": {"inputTokens": 11, "outputTokens": 7, "costUsd": 0.000138},
        "pi-tool-stream.jsonl": {"inputTokens": 22, "outputTokens": 14, "costUsd": 0},
    }
    for name, usage in expected.items():
        metrics = run_fixture(name)[1]["metrics"]
        assert {k: metrics[k] for k in usage} == pytest.approx(usage), name
    assert "inputTokens" not in run_fixture("codex-error-stream.jsonl")[1]["metrics"]


# -- partial messages ---------------------------------------------------------

def test_claude_partial_deltas_do_not_duplicate_the_final_text():
    normalizer, snapshot, events = run_fixture("claude-partial-stream.jsonl")
    assert [e.kind for e in events] == ["text"]
    assert len(snapshot["blocks"]) == 1


def test_claude_killed_mid_message_keeps_the_streamed_text():
    lines = (STREAMS / "claude-partial-stream.jsonl").read_bytes().splitlines()
    cut = next(i for i, line in enumerate(lines) if b'"type":"assistant"' in line)
    normalizer = normalizer_for("claude-stream-json")
    normalizer.strict = True
    for line in lines[:cut]:
        assert normalizer.feed(line) == []   # deltas are not blocks
    assert normalizer.snapshot()["blocks"] == []
    closing = normalizer.flush()
    reply = "FAKE-REPLY[2] model=claude-sonnet-4-5 effort=thinking:enabled:31999"
    assert [e.text for e in closing] == [reply]
    assert normalizer.finish()["assistantText"] == reply


def test_pi_deltas_do_not_duplicate_and_killed_stream_keeps_partial():
    _, snapshot, events = run_fixture("pi-stream.jsonl")
    assert [e.kind for e in events] == ["text"] and len(snapshot["blocks"]) == 1
    lines = (STREAMS / "pi-stream.jsonl").read_bytes().splitlines()
    cut = next(i for i, line in enumerate(lines) if b'"type":"message_end"' in line and b'"assistant"' in line)
    _, snapshot, _ = run_lines("pi-json", lines[:cut])
    assert snapshot["assistantText"] == "FAKE-REPLY[1] model=fake-model effort=high"


# -- tools never finished -----------------------------------------------------

@pytest.mark.parametrize("name, marker", [
    ("claude-tool-stream.jsonl", b'"type":"user"'),
    ("codex-tool-stream.jsonl", b'"status":"completed"'),
    ("pi-tool-stream.jsonl", b'"type":"tool_execution_end"'),
])
def test_running_tools_fail_at_finish(name, marker, validator):
    lines = (STREAMS / name).read_bytes().splitlines()
    cut = next(i for i, line in enumerate(lines) if marker in line)
    normalizer = normalizer_for(ENGINE_FORMATS[name.split("-")[0]])
    for line in lines[:cut]:
        normalizer.feed(line)
    live = normalizer.snapshot()
    assert [b["status"] for b in live["blocks"] if b["type"] == "tool"] == ["running"]
    closing = normalizer.flush()
    assert [(e.kind, e.tool_status) for e in closing] == [("tool", "failed")]
    final = normalizer.finish()
    assert [b["status"] for b in final["blocks"] if b["type"] == "tool"] == ["failed"]
    assert final["metrics"]["toolFailures"] == 1
    assert final["assistantText"] is None
    assert normalizer.finish() == final          # idempotent
    assert normalizer.feed(lines[cut]) == []     # nothing after finish
    assert_valid(validator, final)


# -- limits -------------------------------------------------------------------

def wrapper_lines(*events: dict) -> list[str]:
    return [json.dumps(e) for e in events]


def test_block_cap_keeps_the_newest_300(validator):
    events = [{"type": "text", "text": f"note {i}"} for i in range(MAX_BLOCKS + 100)]
    events.insert(5, {"type": "tool", "id": "early", "name": "bash", "status": "running"})
    events.append({"type": "tool", "id": "early", "status": "completed"})  # update of a dropped block
    normalizer, snapshot, _ = run_lines("wrapper-jsonl", wrapper_lines(*events))
    blocks = snapshot["blocks"]
    assert len(blocks) == MAX_BLOCKS
    assert blocks[-1] == {"type": "text", "text": f"note {MAX_BLOCKS + 99}"}
    assert snapshot["truncated"] is True
    assert snapshot["metrics"]["textBlocks"] == MAX_BLOCKS + 100
    assert snapshot["metrics"]["toolCalls"] == 1
    assert snapshot["metrics"]["droppedBlocks"] == 101
    assert all(b["type"] == "text" for b in blocks)   # the dropped tool did not come back
    assert snapshot["assistantText"].endswith(f"note {MAX_BLOCKS + 99}")
    assert_valid(validator, snapshot)


def test_text_block_limit_and_marker(validator):
    exact = "a" * TEXT_LIMIT
    _, snapshot, _ = run_lines("wrapper-jsonl", wrapper_lines({"type": "text", "text": exact}))
    assert snapshot["blocks"][0]["text"] == exact and snapshot["truncated"] is False
    big = "é" * TEXT_LIMIT   # two bytes each: the cut must not split one
    _, snapshot, events = run_lines("wrapper-jsonl", wrapper_lines({"type": "text", "text": big}))
    text = snapshot["blocks"][0]["text"]
    assert len(text.encode("utf-8")) <= TEXT_LIMIT
    assert text.startswith("éé") and "truncated" in text.splitlines()[-1]
    assert snapshot["truncated"] is True
    assert snapshot["assistantText"] == text
    assert len(events[0].payload()["text"].encode("utf-8")) <= 4096
    assert_valid(validator, snapshot)


def test_tool_values_and_errors_are_cut_at_8_kib(validator):
    big_input = {"command": "x" * (2 * VALUE_LIMIT)}
    lines = wrapper_lines(
        {"type": "tool", "id": "t1", "name": "bash", "status": "completed",
         "input": big_input, "output": "y" * (3 * VALUE_LIMIT)},
        {"type": "tool", "id": "t2", "name": "read", "status": "completed",
         "input": {"path": "small"}, "output": "z" * VALUE_LIMIT},
        {"type": "error", "message": "e" * (5 * VALUE_LIMIT)},
    )
    _, snapshot, _ = run_lines("wrapper-jsonl", lines)
    first, second, error = snapshot["blocks"]
    assert isinstance(first["input"], str) and first["input"].startswith('{"command":"xxx')
    for value in (first["input"], first["output"], error["message"]):
        assert len(value.encode("utf-8")) <= VALUE_LIMIT and "…[truncated" in value
    assert second["input"] == {"path": "small"} and second["output"] == "z" * VALUE_LIMIT
    assert snapshot["truncated"] is True
    assert_valid(validator, snapshot)


def test_consecutive_duplicates_collapse():
    lines = wrapper_lines(
        {"type": "text", "text": "same"}, {"type": "text", "text": "same"},
        {"type": "error", "message": "oops"}, {"type": "error", "message": "oops"},
        {"type": "text", "text": "same"},
        {"type": "tool", "id": "t", "name": "bash", "status": "completed"},
        {"type": "text", "text": "same"},
        {"type": "error", "message": "oops"},
    )
    normalizer, snapshot, events = run_lines("wrapper-jsonl", lines)
    assert shape(snapshot) == [("text",), ("error",), ("text",), ("tool", "bash", "completed"),
                               ("text",), ("error",)]
    assert [e.kind for e in events] == ["text", "error", "text", "tool", "text", "error"]
    assert snapshot["truncated"] is False
    assert normalizer.error_after_last_text()


def test_assistant_text_is_the_last_run_of_text():
    lines = wrapper_lines(
        {"type": "text", "text": "looking"},
        {"type": "tool", "id": "t", "name": "bash", "status": "completed"},
        {"type": "text", "text": "part one"},
        {"type": "error", "message": "transient"},
        {"type": "text", "text": "part two"},
    )
    normalizer, snapshot, _ = run_lines("wrapper-jsonl", lines)
    assert snapshot["assistantText"] == "part one\n\npart two"
    assert not normalizer.error_after_last_text()
    _, snapshot, _ = run_lines("wrapper-jsonl", lines[:2])
    assert snapshot["assistantText"] is None   # nothing said after the last tool call


# -- garbage never raises -----------------------------------------------------

GARBAGE = [
    b"\x00\xff\xfe\x80binary\x00", b"", b"   ", b"\n", b"{", b"{not json}", b"[1, 2]", b"42", b"null",
    b'"a string"', b"{}", b'{"type": 5}', b'{"type": null}', b'{"type": "unknown-event"}',
    b"[" * 200_000, b'{"a":' * 200_000, b'{"type":"text","text":"\\ud800 lone surrogate"}',
    b'{"type":"assistant","message":{"content":[{"type":"text","text":"\\udfff"}]}}',
    "naïve ünïcode ✓".encode(), b"\r\n", b"\x1b[31mred\x1b[0m",
    b'{"type":"tool","id":"t","name":"n","status":"running","input":{"x":NaN},"output":Infinity}',
    b'{"type":"item.completed","item":{"id":"i","type":"command_execution","exit_code":NaN}}',
    b"x" * (10 * 1024 * 1024),
    b'{"type":"text","text":"' + b"y" * (10 * 1024 * 1024) + b'"}',
]


@pytest.mark.parametrize("fmt", FORMATS)
def test_garbage_lines_never_raise(fmt, validator):
    normalizer, snapshot, _ = run_lines(fmt, GARBAGE)
    assert_valid(validator, snapshot)
    for block in snapshot["blocks"]:
        if block["type"] == "text":
            assert len(block["text"].encode("utf-8")) <= TEXT_LIMIT


def _mutations(value):
    """Every way to replace one value in ``value`` with a wrong type."""
    wrong = (None, 7, "s", [], {}, True, [None], {"type": None})
    if isinstance(value, dict):
        for key in value:
            for bad in wrong:
                copy_ = dict(value)
                copy_[key] = bad
                yield copy_
            for inner in _mutations(value[key]):
                copy_ = dict(value)
                copy_[key] = inner
                yield copy_
    elif isinstance(value, list):
        for i, item in enumerate(value[:3]):
            for inner in _mutations(item):
                copy_ = list(value)
                copy_[i] = inner
                yield copy_


@pytest.mark.parametrize("engine", sorted(ENGINE_FORMATS))
def test_wrong_types_in_real_events_are_handled_without_the_safety_net(engine, validator):
    """strict=True: a handler that trips over a wrong type raises here instead of being counted."""
    seen = set()
    for path in sorted(STREAMS.glob(f"{engine}-*stream.jsonl")):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event.get("type") in seen and engine != "pi":
                continue
            seen.add(event.get("type"))
            for mutated in _mutations(_shrink(event)):
                normalizer = normalizer_for(ENGINE_FORMATS[engine])
                normalizer.strict = True
                normalizer.feed(json.dumps(mutated))
                snapshot = normalizer.finish()
                assert validator.is_valid(snapshot), (mutated, validator.errors(snapshot))


def _shrink(event):
    """Drop the big lists claude's init line carries (they are not read)."""
    return {k: v for k, v in copy.deepcopy(event).items()
            if k not in ("tools", "slash_commands", "skills", "agents", "mcp_servers", "plugins")}


def test_a_chunk_with_several_lines_is_split():
    chunk = "\n".join(wrapper_lines({"type": "session", "id": "w-1"}, {"type": "text", "text": "hi"})) + "\n"
    normalizer = normalizer_for("wrapper-jsonl")
    events = normalizer.feed(chunk.encode())
    assert normalizer.native_session_id == "w-1" and [e.text for e in events] == ["hi"]


@pytest.mark.parametrize("bad", ["--resume-me", "has space", "tab\there", "x" * 300, "", "nl\n"])
def test_implausible_session_ids_are_refused(bad):
    normalizer = normalizer_for("wrapper-jsonl")
    normalizer.feed(json.dumps({"type": "session", "id": bad}))
    assert normalizer.native_session_id is None


# -- wrapper and plain text ---------------------------------------------------

def test_wrapper_jsonl(validator):
    lines = [
        json.dumps({"type": "session", "id": "wrap-1"}),
        "starting up (not JSON)",
        "second plain line",
        json.dumps({"type": "tool", "id": "t1", "name": "grep", "status": "running", "input": {"q": "x"}}),
        json.dumps({"type": "tool", "id": "t1", "name": "grep", "status": "failed", "output": "no match"}),
        json.dumps({"type": "session", "id": "wrap-2"}),
        json.dumps({"type": "text", "text": "Done."}),
        json.dumps({"type": "usage", "tokens": 3}),   # unknown: ignored
    ]
    normalizer, snapshot, events = run_lines("wrapper-jsonl", lines)
    assert normalizer.native_session_id == "wrap-2"   # a wrapper's later statement wins
    assert snapshot["blocks"] == [
        {"type": "text", "text": "starting up (not JSON)\nsecond plain line"},
        {"type": "tool", "id": "t1", "name": "grep", "status": "failed", "input": {"q": "x"},
         "output": "no match"},
        {"type": "text", "text": "Done."},
    ]
    assert [(e.kind, e.tool_status) for e in events] == [
        ("text", None), ("tool", "running"), ("tool", "failed"), ("text", None)]
    assert snapshot["metrics"] == {"textBlocks": 2, "toolCalls": 1, "toolFailures": 1}
    assert snapshot["assistantText"] == "Done."
    assert not normalizer.engine_reported_failure()
    assert normalizer.ignored_lines == 1
    assert_valid(validator, snapshot)


def test_plain_text(validator):
    lines = [b"Hello\n", b"\n", b"  indented world\r\n", b"\n", b"\n"]
    normalizer = normalizer_for("text")
    assert all(normalizer.feed(line) == [] for line in lines)   # one block, closed at the end
    live = normalizer.snapshot()
    assert live["blocks"] == [{"type": "text", "text": "Hello\n\n  indented world"}]
    assert not normalizer.error_after_last_text()
    assert [e.text for e in normalizer.flush()] == ["Hello\n\n  indented world"]
    final = normalizer.finish()
    assert final["assistantText"] == "Hello\n\n  indented world"
    assert final["metrics"] == {"textBlocks": 1, "toolCalls": 0, "toolFailures": 0}
    assert normalizer.native_session_id is None
    assert_valid(validator, final)


def test_plain_text_json_lines_are_text_too():
    _, snapshot, _ = run_lines("text", ['{"type":"error","message":"x"}'])
    assert shape(snapshot) == [("text",)]


def test_plain_text_over_the_limit_keeps_the_head(validator):
    lines = [f"line {i:06d} " + "z" * 90 for i in range(2000)]   # ~200 KB
    _, snapshot, _ = run_lines("text", lines)
    text = snapshot["blocks"][0]["text"]
    assert text.startswith("line 000000") and len(text.encode("utf-8")) <= TEXT_LIMIT
    assert text.splitlines()[-1].startswith("…[truncated")
    assert snapshot["truncated"] is True
    assert_valid(validator, snapshot)


def test_empty_stream():
    for fmt in FORMATS:
        normalizer, snapshot, events = run_lines(fmt, [])
        assert snapshot == {"schemaVersion": 1, "assistantText": None, "blocks": [],
                            "metrics": {"textBlocks": 0, "toolCalls": 0, "toolFailures": 0},
                            "truncated": False}
        assert events == [] and not normalizer.error_after_last_text()


def test_normalizer_for():
    assert set(FORMATS) == {"claude-stream-json", "codex-json", "opencode-json", "pi-json",
                            "wrapper-jsonl", "text"}
    for fmt in FORMATS:
        normalizer = normalizer_for(fmt)
        assert isinstance(normalizer, StreamNormalizer) and normalizer.format_name == fmt
        assert normalizer_for(fmt) is not normalizer
    for bad in ("claude", "", None, "TEXT"):
        with pytest.raises(ValueError, match="unknown stream format"):
            normalizer_for(bad)


def test_open_plain_text_counts_within_the_cap():
    lines = wrapper_lines(*({"type": "text", "text": f"t{i}"} for i in range(MAX_BLOCKS))) + ["raw tail"]
    normalizer = normalizer_for("wrapper-jsonl")
    for line in lines:
        normalizer.feed(line)
    live = normalizer.snapshot()
    assert len(live["blocks"]) == MAX_BLOCKS and live["blocks"][-1]["text"] == "raw tail"
    assert live["blocks"][0]["text"] == "t1" and live["truncated"] is True
    assert live["assistantText"] == "\n\n".join(f"t{i}" for i in range(MAX_BLOCKS)) + "\n\nraw tail"
    final = normalizer.finish()
    assert final["blocks"] == live["blocks"] and final["metrics"]["droppedBlocks"] == 1


def test_the_schema_rejects_what_the_normalizer_never_writes(validator):
    good = {"schemaVersion": 1, "assistantText": None, "blocks": [],
            "metrics": {"textBlocks": 0, "toolCalls": 0, "toolFailures": 0}, "truncated": False}
    assert validator.errors(good) == []
    bad = [
        {**good, "blocks": [{"type": "text", "text": "x"}] * (MAX_BLOCKS + 1)},
        {**good, "blocks": [{"type": "tool", "id": "t", "name": "n", "status": "done"}]},
        {**good, "blocks": [{"type": "thinking", "text": "x"}]},
        {**good, "blocks": [{"type": "error", "message": "e" * (VALUE_LIMIT + 1)}]},
        {**good, "metrics": {"textBlocks": 0, "toolCalls": 0}},
        {**good, "schemaVersion": 2},
        {k: v for k, v in good.items() if k != "truncated"},
    ]
    for doc in bad:
        assert validator.errors(doc) != [], doc


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "-5", "1e400", '"12"'])
def test_nonsense_usage_is_not_reported(bad, validator):
    line = '{"type":"result","subtype":"success","is_error":false,"total_cost_usd":%s,' \
           '"usage":{"input_tokens":%s,"output_tokens":3}}' % (bad, bad)
    _, snapshot, _ = run_lines("claude-stream-json", [line])
    assert "costUsd" not in snapshot["metrics"] and "inputTokens" not in snapshot["metrics"]
    assert snapshot["metrics"]["outputTokens"] == 3
    assert_valid(validator, snapshot)
