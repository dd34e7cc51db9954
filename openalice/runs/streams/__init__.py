"""Normalizers: an agent engine's headless stdout → the structured output.

    normalizer = normalizer_for("claude-stream-json")
    for line in stdout:
        for event in normalizer.feed(line):       # TurnEvent(kind="text"|"tool"|"error", ...)
            journal(event.journal_type, event.payload())
    closing = normalizer.flush()                  # open text closed, running tools → failed
    structured = normalizer.finish()              # {"schemaVersion": 1, "assistantText", "blocks", ...}
    failed = exit_code != 0 or killed or normalizer.engine_reported_failure() \\
        or normalizer.error_after_last_text()

The document is described by ``spec/structured-output.schema.json`` and the
per-engine mapping by docs/runs.md ("Normalized output").
"""

from __future__ import annotations

from .base import MAX_BLOCKS, SCHEMA_VERSION, TEXT_LIMIT, VALUE_LIMIT, StreamNormalizer, TurnEvent

__all__ = [
    "FORMATS", "MAX_BLOCKS", "SCHEMA_VERSION", "TEXT_LIMIT", "VALUE_LIMIT",
    "StreamNormalizer", "TurnEvent", "normalizer_for",
]

# format name -> (module, class); modules are imported only when asked for.
_REGISTRY = {
    "claude-stream-json": ("claude", "ClaudeNormalizer"),
    "codex-json": ("codex", "CodexNormalizer"),
    "opencode-json": ("opencode", "OpencodeNormalizer"),
    "pi-json": ("pi", "PiNormalizer"),
    "wrapper-jsonl": ("wrapper", "WrapperNormalizer"),
    "text": ("wrapper", "PlainTextNormalizer"),
}

FORMATS = tuple(_REGISTRY)


def normalizer_for(stream_format: str) -> StreamNormalizer:
    """A fresh normalizer for ``stream_format`` (one of :data:`FORMATS`)."""
    try:
        module_name, class_name = _REGISTRY[stream_format]
    except (KeyError, TypeError):
        raise ValueError(f"unknown stream format {stream_format!r}; "
                         f"expected one of {', '.join(FORMATS)}") from None
    from importlib import import_module  # lazy: an engine's module loads only when asked for

    module = import_module(f"{__name__}.{module_name}")
    return getattr(module, class_name)()
