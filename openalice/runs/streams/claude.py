"""Claude Code: ``claude -p --output-format stream-json --verbose``.

Events: ``system`` (``init`` carries ``session_id``, as does every line),
``assistant`` (one complete message, or one content block of it), ``user``
(``tool_result`` items answering ``tool_use`` ids), ``result`` (the verdict,
usage and cost) and, with ``--include-partial-messages``, ``stream_event``
(raw API deltas that the ``assistant`` line repeats in full).
"""

from __future__ import annotations

from .base import StreamNormalizer

__all__ = ["ClaudeNormalizer"]

_TOOL_USE = ("tool_use", "server_tool_use", "mcp_tool_use")


class ClaudeNormalizer(StreamNormalizer):
    format_name = "claude-stream-json"

    def __init__(self) -> None:
        super().__init__()
        # Streamed text of the message being generated, by content index; used
        # only if its complete "assistant" line never arrives (run killed).
        self._partial_id: str | None = None
        self._partial: dict[int, list[str]] = {}
        self._partial_size = 0
        self._partial_done = False

    def _on_event(self, event: dict) -> None:
        self._set_session(event.get("session_id"))
        kind = event.get("type")
        if kind == "assistant":
            self._assistant(event)
        elif kind == "user":
            self._user(event)
        elif kind == "result":
            self._result(event)
        elif kind == "stream_event":
            self._stream_event(event.get("event"))

    def _assistant(self, event: dict) -> None:
        message = event.get("message")
        if not isinstance(message, dict):
            return
        if message.get("id") is not None and message.get("id") == self._partial_id:
            self._partial_done = True
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return
        # An API failure arrives as a synthetic assistant message whose text is
        # the error ("API Error: 400 ..."), flagged on the line itself.
        api_error = bool(event.get("error") or event.get("isApiErrorMessage"))
        # Lines of a sub-agent (Task tool) carry the parent's tool id; their
        # text is not the answer, their tool calls are real work.
        sidechain = event.get("parent_tool_use_id") is not None
        for item in content:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "text":
                if api_error:
                    self._error(item.get("text"))
                elif not sidechain:
                    self._text(item.get("text"))
            elif kind in _TOOL_USE:
                self._tool(item.get("id"), item.get("name"), "running", input=item.get("input"))
            elif isinstance(kind, str) and kind.endswith("_tool_result"):
                self._tool_result(item)

    def _user(self, event: dict) -> None:
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        for item in content:
            if isinstance(item, dict) and item.get("type") == "tool_result":
                self._tool_result(item)

    def _tool_result(self, item: dict) -> None:
        failed = item.get("is_error") is True
        self._tool(item.get("tool_use_id"), None, "failed" if failed else "completed",
                   output=_result_content(item.get("content")))

    def _result(self, event: dict) -> None:
        usage = event.get("usage")
        if isinstance(usage, dict):
            self._add_usage(
                input_tokens=_sum_numbers(usage, "input_tokens", "cache_creation_input_tokens",
                                          "cache_read_input_tokens"),
                output_tokens=usage.get("output_tokens"))
        self._add_usage(cost_usd=event.get("total_cost_usd"))
        subtype = event.get("subtype")
        # is_error is the verdict: an API error keeps subtype "success".
        failed = event.get("is_error") is True or (isinstance(subtype, str) and subtype.startswith("error"))
        self._set_failure(failed)
        text = event.get("result")
        if failed:
            errors = event.get("errors")
            if isinstance(text, str) and text.strip():
                message = text
            elif isinstance(errors, list) and errors:
                message = "; ".join(str(e) for e in errors)
            else:
                message = f"claude reported {subtype or 'an error'}"
            self._error(message)
        elif not self._has_reply():
            # The answer is normally the last assistant line; use the
            # result's copy only when no text followed the last tool call.
            self._text(text)

    def _stream_event(self, inner) -> None:
        if not isinstance(inner, dict):
            return
        kind = inner.get("type")
        if kind == "message_start":
            message = inner.get("message")
            self._partial_id = message.get("id") if isinstance(message, dict) else None
            self._partial = {}
            self._partial_size = 0
            self._partial_done = False
        elif kind == "content_block_delta":
            delta = inner.get("delta")
            index = inner.get("index")
            if (isinstance(delta, dict) and delta.get("type") == "text_delta"
                    and isinstance(delta.get("text"), str) and isinstance(index, int)):
                # Bounded: the block limit would cut anything longer anyway.
                if self._partial_size < 2 * 64 * 1024:
                    self._partial.setdefault(index, []).append(delta["text"])
                    self._partial_size += len(delta["text"])

    def _pending_text(self) -> str | None:
        if self._partial_done or not self._partial:
            return None
        return "\n\n".join("".join(self._partial[i]) for i in sorted(self._partial))


def _result_content(content):
    """A tool_result's content as text when it is text (the usual case)."""
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
                parts.append(item["text"])
            elif isinstance(item, dict) and isinstance(item.get("type"), str):
                parts.append(f"[{item['type']}]")
        return "\n".join(parts)
    return content


def _sum_numbers(mapping: dict, *keys: str):
    values = [mapping.get(k) for k in keys]
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return sum(numbers) if numbers else None
