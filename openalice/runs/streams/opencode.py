"""opencode: ``opencode run --format json``.

Every line carries ``sessionID``.  Events: ``step_start``, ``text`` (a
finished text part), ``reasoning``, ``tool_use`` (a tool part with its
``state``), ``step_finish`` (tokens and cost of one model call) and ``error``
(the session failed; opencode then exits 1).
"""

from __future__ import annotations

from .base import StreamNormalizer

__all__ = ["OpencodeNormalizer"]

_TOOL_STATUS = {"completed": "completed", "error": "failed", "pending": "running", "running": "running"}


class OpencodeNormalizer(StreamNormalizer):
    format_name = "opencode-json"

    def _on_event(self, event: dict) -> None:
        part = event.get("part")
        part = part if isinstance(part, dict) else {}
        self._set_session(event.get("sessionID") or part.get("sessionID"))
        kind = event.get("type")
        if kind == "text":
            # Synthetic parts are injected by opencode itself, not said by the model.
            if not part.get("synthetic"):
                self._text(part.get("text"))
        elif kind == "tool_use":
            self._tool_part(part)
        elif kind == "step_finish":
            self._step_finish(part)
        elif kind == "error":
            self._error(_error_message(event.get("error")))
            self._set_failure(True)

    def _tool_part(self, part: dict) -> None:
        state = part.get("state")
        state = state if isinstance(state, dict) else {}
        status = state.get("status")
        status = _TOOL_STATUS.get(status, "running") if isinstance(status, str) else "running"
        extra = {}
        if status == "completed" and "output" in state:
            extra["output"] = state.get("output")
        elif status == "failed" and state.get("error") is not None:
            extra["output"] = state.get("error")
        if "input" in state:
            extra["input"] = state.get("input")
        self._tool(part.get("callID") or part.get("id"), part.get("tool"), status, **extra)

    def _step_finish(self, part: dict) -> None:
        tokens = part.get("tokens")
        if isinstance(tokens, dict):
            cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
            numbers = [v for v in (tokens.get("input"), cache.get("read"), cache.get("write"))
                       if isinstance(v, (int, float)) and not isinstance(v, bool)]
            self._add_usage(input_tokens=sum(numbers) if numbers else None,
                            output_tokens=tokens.get("output"))
        self._add_usage(cost_usd=part.get("cost"))


def _error_message(error) -> str:
    """``{"name": "APIError", "data": {"message", "statusCode"}}`` as one line."""
    if not isinstance(error, dict):
        return error if isinstance(error, str) else "opencode reported an error"
    data = error.get("data") if isinstance(error.get("data"), dict) else {}
    message = data.get("message") or error.get("message")
    name = error.get("name")
    text = str(message) if message else "opencode reported an error"
    if isinstance(name, str) and name and name not in text:
        text = f"{name}: {text}"
    status = data.get("statusCode")
    if isinstance(status, int) and not isinstance(status, bool):
        text += f" (HTTP {status})"
    return text
