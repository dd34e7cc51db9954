"""The structured output's limits, the clipping that enforces them, and the
turn event a normalizer hands on for the journal.

Text is cut to whole UTF-8 characters with a visible marker; tool values
are kept as JSON when they fit ``VALUE_LIMIT`` and become a cut string when
they do not.
"""

from __future__ import annotations

import json

from openalice.core.records import record_class

__all__ = [
    "SCHEMA_VERSION", "MAX_BLOCKS", "TEXT_LIMIT", "VALUE_LIMIT", "NAME_LIMIT", "SESSION_ID_LIMIT",
    "JOURNAL_TEXT_LIMIT", "TOOL_STATUSES", "TurnEvent", "clip_text",
]

SCHEMA_VERSION = 1
MAX_BLOCKS = 300
TEXT_LIMIT = 64 * 1024
VALUE_LIMIT = 8 * 1024
NAME_LIMIT = 512          # tool ids and names
SESSION_ID_LIMIT = 256
JOURNAL_TEXT_LIMIT = 4 * 1024  # text in a runtime.turn.text payload, like runtime.stopped's assistantText

TOOL_STATUSES = ("running", "completed", "failed")
HUGE = 1e18
MISSING = object()


@record_class(frozen=True)
class TurnEvent:
    """One new piece of a turn, for the activity journal (no tool I/O).

    ``kind`` is ``"text"`` (``text``), ``"tool"`` (``tool_id``, ``tool_name``,
    ``tool_status``) or ``"error"`` (``message``).  A tool yields one event when
    first seen and one per later status change.
    """

    kind: str
    text: str | None = None
    message: str | None = None
    tool_id: str | None = None
    tool_name: str | None = None
    tool_status: str | None = None

    @property
    def journal_type(self) -> str:
        return f"runtime.turn.{self.kind}"

    def payload(self) -> dict:
        """The journal payload of ``runtime.turn.<kind>`` (text cut to 4 KiB)."""
        if self.kind == "tool":
            return {"toolId": self.tool_id, "toolName": self.tool_name, "toolStatus": self.tool_status}
        if self.kind == "error":
            return {"message": self.message}
        return {"text": clip_text(self.text or "", JOURNAL_TEXT_LIMIT)[0]}


def clip_text(text: str, limit: int) -> tuple[str, bool]:
    """``text`` as valid UTF-8, cut to at most ``limit`` bytes, marker included.

    Returns ``(text, was_cut)``.  The cut never splits a character.  Lone
    surrogates (JSON allows ``"\\ud800"``) become ``?`` so the output can
    always be written as UTF-8.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "replace")
        text = data.decode("utf-8")
    if len(data) <= limit:
        return text, False
    marker = f"\n…[truncated {len(data)} bytes to {limit}]"
    return head_bytes(data, limit - len(marker.encode("utf-8"))) + marker, True


def head_bytes(data: bytes, size: int) -> str:
    return data[:max(0, size)].decode("utf-8", "ignore")


def clip_value(value) -> tuple[object, bool]:
    """A tool input/output value within ``VALUE_LIMIT`` (a string when cut)."""
    if isinstance(value, str):
        return clip_text(value, VALUE_LIMIT)
    if value is None or isinstance(value, (bool, int)):
        return value, False
    if isinstance(value, float):
        # NaN and infinities are not JSON.
        return (value, False) if value == value and value not in (float("inf"), float("-inf")) else (None, True)
    try:
        encoded = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return "[value not representable as JSON]", True
    try:
        size = len(encoded.encode("utf-8"))
    except UnicodeEncodeError:
        encoded = encoded.encode("utf-8", "replace").decode("utf-8")
        size = len(encoded.encode("utf-8"))
        if size <= VALUE_LIMIT:
            return json.loads(encoded), False
    if size <= VALUE_LIMIT:
        return value, False
    return clip_text(encoded, VALUE_LIMIT)


def short_name(value, limit: int = NAME_LIMIT) -> str | None:
    """An id or name: a non-empty string, valid UTF-8, at most ``limit`` bytes."""
    if not isinstance(value, str) or not value:
        return None
    return clip_text(value, limit)[0]


def decode_line(line: bytes | str) -> str:
    if isinstance(line, (bytes, bytearray, memoryview)):
        line = bytes(line).decode("utf-8", "replace")
    elif not isinstance(line, str):
        return ""
    return line.rstrip("\r\n")


def compact_json(value) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:VALUE_LIMIT]
