"""Engine wrappers (Wrapper contract v1) and plain text.

A wrapper writes JSON Lines: ``{"type":"session","id"}``, ``{"type":"text",
"text"}``, ``{"type":"tool","id","name","status","input"?,"output"?}`` and
``{"type":"error","message"}``; any line that is not a JSON object is
assistant text.  Each ``text`` event is one block; consecutive plain lines
form one block.  A wrapper reports failure by its exit code, so
``engine_reported_failure()`` stays False.

Plain text (format ``text``): every line is assistant text, one block per run.
"""

from __future__ import annotations

from .base import StreamNormalizer

__all__ = ["WrapperNormalizer", "PlainTextNormalizer"]


class WrapperNormalizer(StreamNormalizer):
    format_name = "wrapper-jsonl"
    raw_text_lines = True

    def _on_event(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "session":
            # A wrapper states its session explicitly; a later statement wins.
            self._set_session(event.get("id"), replace=True)
        elif kind == "text":
            self._text(event.get("text"))
        elif kind == "tool":
            extra = {key: event[key] for key in ("input", "output") if key in event}
            self._tool(event.get("id"), event.get("name"), event.get("status"), **extra)
        elif kind == "error":
            self._error(event.get("message"))
        else:
            self.ignored_lines += 1


class PlainTextNormalizer(StreamNormalizer):
    format_name = "text"
    raw_text_lines = True

    def _feed_line(self, text: str) -> None:
        self._raw_line(text)
