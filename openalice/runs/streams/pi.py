"""pi: ``pi -p --mode json``.

The first line is ``{"type": "session", "id": ...}``.  Then ``agent_*`` and
``turn_*`` brackets, ``message_start|update|end`` (``message_update`` repeats
the partial message with each delta; ``message_end`` holds it complete),
``tool_execution_start|update|end`` and, when a request fails,
``auto_retry_start`` / ``auto_retry_end``.  pi exits 0 after an API error: the
failure is only in the stream (``stopReason: "error"``, ``errorMessage``,
``auto_retry_end.success: false``).
"""

from __future__ import annotations

from .base import StreamNormalizer

__all__ = ["PiNormalizer"]

_FAILED_STOPS = ("error", "aborted")


class PiNormalizer(StreamNormalizer):
    format_name = "pi-json"

    def __init__(self) -> None:
        super().__init__()
        self._partial: str | None = None  # text of an assistant message still streaming

    def _on_event(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "session":
            self._set_session(event.get("id"))
        elif kind == "message_update":
            message = event.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant":
                self._partial = _text_of(message.get("content"), "\n\n")
        elif kind == "message_end":
            message = event.get("message")
            if isinstance(message, dict):
                self._message(message)
        elif kind == "tool_execution_start":
            self._tool(event.get("toolCallId"), event.get("toolName"), "running", input=event.get("args"))
        elif kind == "tool_execution_end":
            result = event.get("result")
            output = _text_of(result.get("content")) if isinstance(result, dict) else result
            self._tool(event.get("toolCallId"), event.get("toolName"),
                       "failed" if event.get("isError") is True else "completed", output=output)
        elif kind == "auto_retry_end":
            if event.get("success") is False:
                self._error(event.get("finalError") or "pi gave up retrying")
                self._set_failure(True)
            elif event.get("success") is True:
                self._set_failure(False)

    def _message(self, message: dict) -> None:
        role = message.get("role")
        if role == "assistant":
            self._partial = None
            content = message.get("content")
            for item in content if isinstance(content, list) else ():
                if not isinstance(item, dict):
                    continue
                if item.get("type") == "text":
                    self._text(item.get("text"))
                elif item.get("type") == "toolCall":
                    self._tool(item.get("id"), item.get("name"), "running", input=item.get("arguments"))
            usage = message.get("usage")
            if isinstance(usage, dict):
                numbers = [usage.get(k) for k in ("input", "cacheRead", "cacheWrite")]
                numbers = [n for n in numbers if isinstance(n, (int, float)) and not isinstance(n, bool)]
                cost = usage.get("cost")
                self._add_usage(input_tokens=sum(numbers) if numbers else None,
                                output_tokens=usage.get("output"),
                                cost_usd=cost.get("total") if isinstance(cost, dict) else None)
            stop = message.get("stopReason")
            if stop in _FAILED_STOPS:
                self._error(message.get("errorMessage") or f"pi request {stop}")
                self._set_failure(True)
            elif isinstance(stop, str):
                # A later successful request (after an automatic retry) clears it.
                self._set_failure(False)
        elif role == "toolResult":
            # tool_execution_end normally came first; this only fills gaps.
            self._tool(message.get("toolCallId"), message.get("toolName"),
                       "failed" if message.get("isError") is True else "completed",
                       output=_text_of(message.get("content")))

    def _pending_text(self) -> str | None:
        return self._partial


def _text_of(content, separator: str = "\n"):
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [item.get("text") for item in content
             if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str)]
    return separator.join(parts) if parts else None
