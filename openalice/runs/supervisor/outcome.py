"""The status rule and the output summary of a finished run."""

from __future__ import annotations

from openalice.core import clock
from openalice.runs.streams.values import clip_text

PREVIEW_CHARS = 1000                 # output.assistantPreview
JOURNAL_TEXT_BYTES = 4 * 1024        # runtime.stopped assistantText


def status_for(*, exit_code: int | None, killed: bool, interrupted: bool, engine_failed: bool,
               error_after_text: bool) -> str:
    """The terminal status of a run whose process started.

    Interrupted (the supervisor was told to stop) wins; then the watchdog or
    a non-zero/absent exit code means ``failed``; then the engine's own verdict
    in its stream (pi and claude report API errors that way), or an error block
    after the last text; else ``done``.
    """
    if interrupted:
        return "interrupted"
    if killed or exit_code != 0:
        return "failed"
    if engine_failed or error_after_text:
        return "failed"
    return "done"


def output_summary(structured: dict) -> dict:
    """The task record's ``output``: a small digest of the structured output."""
    text = structured.get("assistantText")
    metrics = structured.get("metrics") or {}
    return {
        "hasAssistantReply": bool(text),
        "assistantPreview": (text or "")[:PREVIEW_CHARS],
        "blockCount": len(structured.get("blocks") or ()),
        "toolCalls": int(metrics.get("toolCalls", 0)),
        "toolFailures": int(metrics.get("toolFailures", 0)),
        "truncated": bool(structured.get("truncated")),
    }


def clip_utf8(text: str, limit: int) -> str:
    return clip_text(text, limit)[0]


def iso(dt) -> str:
    return clock.to_iso(dt)


