"""Codex: ``codex exec --json``.

Events: ``thread.started`` (``thread_id`` = the session id for ``codex exec
resume``), ``turn.started``, ``item.started|updated|completed`` (``item.type``
``agent_message``, ``reasoning``, ``command_execution``, ``file_change``,
``mcp_tool_call``, ``web_search``, ``todo_list``, ``error``),
``turn.completed`` (usage) and ``turn.failed`` (the verdict), and top-level
``error`` (a stream error; codex may retry after one).
"""

from __future__ import annotations

import json

from .base import StreamNormalizer

__all__ = ["CodexNormalizer", "readable_api_error"]


class CodexNormalizer(StreamNormalizer):
    format_name = "codex-json"

    def _on_event(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "thread.started":
            self._set_session(event.get("thread_id"))
        elif kind in ("item.started", "item.updated", "item.completed"):
            item = event.get("item")
            if isinstance(item, dict):
                self._item(item, done=kind == "item.completed")
        elif kind == "turn.completed":
            usage = event.get("usage")
            if isinstance(usage, dict):
                # input_tokens already includes cached_input_tokens (OpenAI usage).
                self._add_usage(input_tokens=usage.get("input_tokens"),
                                output_tokens=usage.get("output_tokens"))
            self._set_failure(False)
        elif kind == "turn.failed":
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            self._error(readable_api_error(message) or "codex turn failed")
            self._set_failure(True)
        elif kind == "error":
            self._error(readable_api_error(event.get("message")))

    def _item(self, item: dict, *, done: bool) -> None:
        kind = item.get("type")
        if kind == "agent_message":
            if done:
                self._text(item.get("text"))
        elif kind == "error":
            if done:
                self._error(readable_api_error(item.get("message")))
        elif kind == "command_execution":
            failed = item.get("status") in ("failed", "declined") or item.get("exit_code") not in (None, 0)
            self._tool(item.get("id"), "command_execution", _status(item, done, failed),
                       input={"command": item.get("command")},
                       **({"output": item["aggregated_output"]} if item.get("aggregated_output") else {}))
        elif kind == "file_change":
            failed = item.get("status") == "failed"
            self._tool(item.get("id"), "file_change", _status(item, done, failed),
                       input={"changes": item.get("changes")})
        elif kind == "mcp_tool_call":
            server, tool = item.get("server"), item.get("tool")
            name = f"{server}.{tool}" if server and tool else tool or "mcp_tool_call"
            error = item.get("error")
            failed = item.get("status") == "failed" or bool(error)
            extra = {}
            if error:
                extra["output"] = error.get("message") if isinstance(error, dict) else error
            elif item.get("result") is not None:
                extra["output"] = item.get("result")
            self._tool(item.get("id"), name, _status(item, done, failed),
                       input=item.get("arguments"), **extra)
        elif kind == "web_search":
            self._tool(item.get("id"), "web_search", "completed" if done else "running",
                       input={"query": item.get("query")})


def _status(item: dict, done: bool, failed: bool) -> str:
    if failed:
        return "failed"
    if done or item.get("status") == "completed":
        return "completed"
    return "running"


def readable_api_error(message):
    """``{"error": {"type": T, "message": M}}`` (an API body) as ``"T: M"``."""
    if not isinstance(message, str) or not message.lstrip().startswith("{"):
        return message
    try:
        body = json.loads(message)
    except (ValueError, RecursionError):
        return message
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        kind = error.get("type") or error.get("code")
        return f"{kind}: {error['message']}" if isinstance(kind, str) and kind else error["message"]
    return message
