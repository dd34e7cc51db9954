"""The engine-independent half of stream normalization.

An engine module subclasses :class:`StreamNormalizer` and implements
``_on_event(event: dict)`` (one parsed JSON object per stdout line) and, when
the engine streams partial text, ``_pending_text()``.  The helpers ``_text``,
``_error``, ``_tool``, ``_raw_line`` and ``_add_usage`` build the structured
output and enforce every limit, so an engine module only maps events.

Block policy (see docs/runs.md, "Normalized output"):

- at most ``MAX_BLOCKS`` blocks are kept; when more arrive the OLDEST are
  dropped, because the end of a run (the answer, the failure) matters most;
- text blocks are clipped to ``TEXT_LIMIT`` bytes, tool input/output values and
  error messages to ``VALUE_LIMIT`` bytes, with a visible marker;
- a text or error block identical to the block just before it is not added;
- ``assistantText`` is the assistant's last message: the text blocks after
  the last tool block, joined by a blank line (error blocks are skipped, not
  separators); None when no text followed the last tool call.
"""

from __future__ import annotations

import json
from collections import deque

from .values import (
    HUGE,
    JOURNAL_TEXT_LIMIT,
    MAX_BLOCKS,
    MISSING,
    NAME_LIMIT,
    SCHEMA_VERSION,
    SESSION_ID_LIMIT,
    TEXT_LIMIT,
    TOOL_STATUSES,
    VALUE_LIMIT,
    TurnEvent,
    clip_text,
    clip_value,
    compact_json,
    decode_line,
    head_bytes,
    short_name,
)

__all__ = [
    "MAX_BLOCKS", "TEXT_LIMIT", "VALUE_LIMIT", "NAME_LIMIT", "JOURNAL_TEXT_LIMIT", "SCHEMA_VERSION",
    "TurnEvent", "StreamNormalizer", "clip_text",
]


class StreamNormalizer:
    """Turns one engine's stdout, line by line, into the structured output.

    Feed every stdout line with :meth:`feed` (it returns the new
    :class:`TurnEvent` objects, never raises on bad input); read
    :meth:`snapshot` whenever the output file is rewritten; at end of stream
    call :meth:`flush` (the closing events: open plain text, tools that never
    finished turning ``failed``) and then :meth:`finish` (the final snapshot).
    """

    format_name = ""
    #: False for the JSON engines: a line that is not a JSON object is noise.
    raw_text_lines = False
    #: Tests set this to let a mapping bug raise instead of being counted.
    strict = False

    def __init__(self) -> None:
        self.native_session_id: str | None = None
        #: lines that were not understood (not JSON, or a shape the engine
        #: module could not map); the raw stdout log keeps them.
        self.ignored_lines = 0
        self._blocks: deque[dict] = deque()
        self._tools: dict[str, dict] = {}
        self._seq = 0                      # blocks ever added, kept or dropped
        self._dropped = 0
        self._last_text_seq = 0
        self._last_error_seq = 0
        self._last_key: tuple | None = None  # identity of the newest block, for collapsing
        self._reply: list[str] = []        # texts since the last tool block
        self._reply_bytes = 0
        self._reply_clipped = False
        self._text_blocks = 0
        self._tool_calls = 0
        self._tool_failures = 0
        self._usage: dict[str, float] = {}
        self._truncated = False
        self._failure = False
        self._raw_parts: list[str] | None = None  # open plain-text block
        self._raw_bytes = 0
        self._raw_clipped = 0
        self._raw_pending_blank = 0
        self._events: list[TurnEvent] = []
        self._next_tool = 0
        self._finished = False

    # -- public API --------------------------------------------------------

    def feed(self, line: bytes | str) -> list[TurnEvent]:
        """Parse one stdout line; return the turn events it produced.

        A chunk holding several lines is split; bytes are decoded as UTF-8
        with replacement.  Never raises on bad input.
        """
        if self._finished:
            return []
        text = decode_line(line)
        for part in text.split("\n") if "\n" in text else (text,):
            self._feed_line(part.rstrip("\r"))
        return self._take_events()

    def _feed_line(self, text: str) -> None:
        event = None
        stripped = text.strip()
        if stripped[:1] == "{":
            try:
                event = json.loads(stripped)
            except (ValueError, RecursionError):
                event = None
        try:
            if isinstance(event, dict):
                self._on_event(event)
            elif self.raw_text_lines:
                self._raw_line(text)
            elif stripped:
                self.ignored_lines += 1
        except Exception:
            if self.strict:
                raise
            self.ignored_lines += 1

    def snapshot(self) -> dict:
        """The structured output so far (a fresh document each call)."""
        blocks = [dict(block) for block in self._blocks]
        reply = list(self._reply)
        truncated = self._truncated
        if self._raw_parts is not None:
            raw_text, raw_cut = self._raw_text()
            blocks.append({"type": "text", "text": raw_text})
            if len(blocks) > MAX_BLOCKS:
                blocks = blocks[len(blocks) - MAX_BLOCKS:]
                truncated = True
            truncated = truncated or raw_cut
            reply.append(raw_text)
        metrics = {
            "textBlocks": self._text_blocks + (1 if self._raw_parts is not None else 0),
            "toolCalls": self._tool_calls,
            "toolFailures": self._tool_failures,
        }
        for key in ("inputTokens", "outputTokens"):
            if key in self._usage:
                metrics[key] = int(self._usage[key])
        if "costUsd" in self._usage:
            metrics["costUsd"] = round(self._usage["costUsd"], 8)
        if self._dropped:
            metrics["droppedBlocks"] = self._dropped
        assistant_text = None
        if reply:
            assistant_text, cut = clip_text("\n\n".join(reply), TEXT_LIMIT)
            truncated = truncated or cut or self._reply_clipped
        return {
            "schemaVersion": SCHEMA_VERSION,
            "assistantText": assistant_text,
            "blocks": blocks,
            "metrics": metrics,
            "truncated": truncated,
        }

    def flush(self) -> list[TurnEvent]:
        """Close the stream: return the events that closing produces."""
        if self._finished:
            return []
        self._close_raw()
        pending = self._pending_text()
        if pending:
            self._text(pending)
        for tool in list(self._tools.values()):
            if tool["status"] == "running":
                self._set_tool_status(tool, "failed")
        return self._take_events()

    def finish(self) -> dict:
        """The final structured output; tools still running become failed.

        Idempotent.  Call :meth:`flush` first to get the closing events.
        """
        self.flush()
        self._finished = True
        return self.snapshot()

    def engine_reported_failure(self) -> bool:
        """The engine said, in its stream, that the run failed (even on exit 0)."""
        return self._failure

    def error_after_last_text(self) -> bool:
        """An error block came after the last text block (or errors and no text)."""
        if self._raw_parts is not None:
            return False
        return self._last_error_seq > self._last_text_seq

    # -- for engine modules ------------------------------------------------

    def _on_event(self, event: dict) -> None:
        """Map one JSON object from the stream.  Engines override."""
        self.ignored_lines += 1

    def _pending_text(self) -> str | None:
        """Streamed text whose final message never arrived (killed mid-message)."""
        return None

    def _set_session(self, value, *, replace: bool = False) -> None:
        # The id is later passed back to the engine on argv (--resume ID):
        # accept only a plausible token, never whitespace, control characters
        # or a leading "-" that could read as an option.
        if (isinstance(value, str) and 0 < len(value) <= SESSION_ID_LIMIT and value[0] != "-"
                and value.isprintable() and not any(ch.isspace() for ch in value)
                and (replace or self.native_session_id is None)):
            self.native_session_id = value

    def _has_reply(self) -> bool:
        """Text has come since the last tool block (assistantText is set)."""
        return bool(self._reply) or self._raw_parts is not None

    def _set_failure(self, failed: bool) -> None:
        self._failure = failed

    def _add_usage(self, *, input_tokens=None, output_tokens=None, cost_usd=None) -> None:
        for key, value in (("inputTokens", input_tokens), ("outputTokens", output_tokens),
                           ("costUsd", cost_usd)):
            # json.loads accepts NaN and Infinity; neither (nor a negative count) is usage.
            if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < HUGE:
                self._usage[key] = self._usage.get(key, 0) + value

    def _text(self, text) -> None:
        """Add an assistant text block (blank text is ignored)."""
        if not isinstance(text, str) or not text.strip():
            return
        self._close_raw()
        self._add_text_block(text)

    def _error(self, message) -> None:
        """Add an error block."""
        if not isinstance(message, str):
            message = "" if message is None else compact_json(message)
        message = message.strip() or "unknown error"
        self._close_raw()
        key = ("error", message)
        if key == self._last_key:
            return
        stored, cut = clip_text(message, VALUE_LIMIT)
        self._truncated = self._truncated or cut
        self._append({"type": "error", "message": stored}, key)
        self._last_error_seq = self._seq
        self._events.append(TurnEvent("error", message=stored))

    def _tool(self, tool_id, name, status: str, *, input=MISSING, output=MISSING) -> None:
        """Add a tool block, or update the one with this id."""
        if status not in TOOL_STATUSES:
            status = "running"
        tool_id = short_name(tool_id)
        name = short_name(name)
        tool = self._tools.get(tool_id) if tool_id is not None else None
        if tool is None:
            self._close_raw()
            if tool_id is None:
                self._next_tool += 1
                tool_id = f"tool-{self._next_tool}"
            tool = {"type": "tool", "id": tool_id, "name": name or "unknown", "status": status}
            self._store_io(tool, input, output)
            self._tools[tool_id] = tool
            self._append(tool, ("tool", tool_id))
            self._tool_calls += 1
            if status == "failed":
                self._tool_failures += 1
            self._reply, self._reply_bytes, self._reply_clipped = [], 0, False
            self._events.append(TurnEvent("tool", tool_id=tool_id, tool_name=tool["name"], tool_status=status))
            return
        if name and tool["name"] == "unknown":
            tool["name"] = name
        if tool.get("_dropped"):
            input = output = MISSING  # its block is gone; keep only its status
        self._store_io(tool, input, output)
        if status != tool["status"] and not (status == "running" and tool["status"] != "running"):
            self._set_tool_status(tool, status)

    def _raw_line(self, line: str) -> None:
        """A line of plain assistant text: consecutive lines form one block."""
        if self._raw_parts is None:
            if not line.strip():
                return
            self._raw_parts = []
            self._raw_bytes = 0
            self._raw_clipped = 0
            self._raw_pending_blank = 0
        if not line.strip():
            # Blank lines are kept only between text, never at the end of a block.
            self._raw_pending_blank += 1
            return
        pieces = [""] * self._raw_pending_blank + [line]
        self._raw_pending_blank = 0
        for piece in pieces:
            data = piece.encode("utf-8", "replace") + b"\n"
            room = TEXT_LIMIT - self._raw_bytes
            if len(data) <= room:
                self._raw_parts.append(piece if len(data) == len(piece) + 1 else data[:-1].decode("utf-8"))
                self._raw_bytes += len(data)
                continue
            # Keep the head of what still fits; only count the rest (a 10 MB
            # line must not be held in memory).
            head = head_bytes(data, room)
            if head:
                self._raw_parts.append(head)
                self._raw_bytes = TEXT_LIMIT
            self._raw_clipped += len(data) - len(head.encode("utf-8"))

    # -- internals ---------------------------------------------------------

    def _take_events(self) -> list[TurnEvent]:
        events, self._events = self._events, []
        return events

    def _append(self, block: dict, key: tuple) -> None:
        self._seq += 1
        self._last_key = key
        self._blocks.append(block)
        if len(self._blocks) > MAX_BLOCKS:
            dropped = self._blocks.popleft()
            self._dropped += 1
            self._truncated = True
            if dropped["type"] == "tool":
                # The block left the output; keep a bare status record so later updates stay updates.
                dropped.pop("input", None)
                dropped.pop("output", None)
                dropped["_dropped"] = True

    def _add_text_block(self, text: str) -> None:
        key = ("text", text)
        if key == self._last_key:
            return
        stored, cut = clip_text(text, TEXT_LIMIT)
        self._truncated = self._truncated or cut
        self._append({"type": "text", "text": stored}, key)
        self._text_blocks += 1
        self._last_text_seq = self._seq
        if self._reply_bytes <= TEXT_LIMIT:
            self._reply.append(stored)
            self._reply_bytes += len(stored)
        else:
            self._reply_clipped = True
        self._events.append(TurnEvent("text", text=stored))

    def _store_io(self, tool: dict, input, output) -> None:
        for key, value in (("input", input), ("output", output)):
            if value is MISSING or value is None:
                continue
            clipped, cut = clip_value(value)
            tool[key] = clipped
            self._truncated = self._truncated or cut

    def _set_tool_status(self, tool: dict, status: str) -> None:
        if tool["status"] == "failed":
            self._tool_failures -= 1
        if status == "failed":
            self._tool_failures += 1
        tool["status"] = status
        self._events.append(TurnEvent("tool", tool_id=tool["id"], tool_name=tool["name"], tool_status=status))

    def _raw_text(self) -> tuple[str, bool]:
        text = "\n".join(self._raw_parts or ())
        if not self._raw_clipped:
            return text, False
        marker = f"\n…[truncated {self._raw_clipped} more bytes]"
        data = text.encode("utf-8")
        return head_bytes(data, TEXT_LIMIT - len(marker.encode("utf-8"))) + marker, True

    def _close_raw(self) -> None:
        if self._raw_parts is None:
            return
        text, cut = self._raw_text()
        self._raw_parts = None
        self._raw_pending_blank = 0
        if cut:
            self._truncated = True
        if text.strip():
            self._add_text_block(text)
