"""Colour for states and errors: on a terminal only, never with ``NO_COLOR``.

A verb's human text marks what should be coloured (:func:`state` for a state
word, :func:`paint` for a named colour); :func:`openalice.core.output.emit`
turns the marks into escape sequences when its stream is a terminal, or drops
them otherwise.  A mark is two NULs around a per-process random nonce, so a
title, a run's text or a file's content can never forge one: what comes from
outside still passes through :func:`openalice.core.output.printable`, which
escapes everything around the marks.  With colour off (not a terminal,
``NO_COLOR`` set and not empty, ``--no-color``, ``TERM=dumb``) the mark
functions return the text unchanged, so nothing of this reaches a pipe, a
file, a test or a ``--json`` document.

The colours follow the state's meaning, one table for every tool (``STATES``):
green for well, red for failed or needing attention, yellow for in progress
or waiting, dim for inactive.
"""

from __future__ import annotations

import os
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import TextIO

__all__ = ["CODES", "STATES", "enabled", "paint", "state", "apply", "plain", "width",
           "split_marks", "paint_mark"]

CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34",
         "cyan": "36", "bold-red": "1;31"}

#: A state word (any tool's vocabulary) → its colour.  Unknown words stay plain.
STATES = {
    # well
    "ok": "green", "[ok]": "green", "healthy": "green", "done": "green", "succeeded": "green",
    "ready": "green", "enabled": "green", "up": "green", "all well": "green", "yes": "green",
    # failed, needs attention
    "failed": "red", "interrupted": "red", "blocked": "red", "unreadable": "red",
    "invalid": "red", "down": "red", "error": "red", "attention": "red", "[!!]": "red",
    "needs attention": "red", "missing": "red",
    # in progress, waiting
    "running": "yellow", "due": "yellow", "in_progress": "yellow", "todo": "yellow",
    "queued": "yellow", "busy": "yellow", "stale": "yellow", "warning": "yellow",
    "not_started": "yellow", "update-available": "yellow",
    # inactive
    "backlog": "dim", "canceled": "dim", "inactive": "dim", "info": "dim", "[--]": "dim",
    "disabled": "dim", "unknown": "dim", "no": "dim",
}

_NONCE = "\x00" + os.urandom(6).hex()
_END = "\x02"
_marks_re = None


def _marks():
    global _marks_re
    if _marks_re is None:  # compiled on first use, not at import
        _marks_re = re.compile(re.escape(_NONCE) + r"(?:([0-9;]+)\x01|\x02)")
    return _marks_re


def enabled(stream: TextIO | None = None) -> bool:
    """Colour on ``stream`` (default stdout): a terminal, ``NO_COLOR`` unset
    or empty (no-color.org), ``TERM`` not ``dumb``."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):  # a closed stream
        return False


def paint(text: str, colour: str, stream: TextIO | None = None) -> str:
    """``text`` marked with ``colour`` (a key of :data:`CODES`), or unchanged
    when ``stream`` (default stdout) gets no colour."""
    if not text or not enabled(stream):
        return text
    return f"{_NONCE}{CODES[colour]}\x01{text}{_NONCE}{_END}"


def state(text: str, stream: TextIO | None = None, *, word: str | None = None) -> str:
    """``text`` in the colour of its state (``word`` when the text says more,
    e.g. ``state("[ok]", word="ok")``); unchanged for a word not in :data:`STATES`."""
    colour = STATES.get((word if word is not None else text).strip().lower())
    return text if colour is None else paint(text, colour, stream)


def split_marks(text: str) -> list[tuple[str, str | None]]:
    """``text`` as ``(segment, kind)`` pieces: kind None for text, else a mark
    (its escape codes, or ``""`` for the end of a colour)."""
    if _NONCE not in text:
        return [(text, None)]
    pieces: list[tuple[str, str | None]] = []
    position = 0
    for match in _marks().finditer(text):
        if match.start() > position:
            pieces.append((text[position:match.start()], None))
        pieces.append(("", match.group(1) or ""))
        position = match.end()
    if position < len(text):
        pieces.append((text[position:], None))
    return pieces


def paint_mark(kind: str) -> str:
    """The mark :func:`split_marks` read as ``kind``, written again."""
    return f"{_NONCE}{kind}\x01" if kind else f"{_NONCE}{_END}"


def apply(text: str, stream: TextIO | None = None) -> str:
    """The marks of ``text`` as escape sequences for ``stream``, or dropped
    when it gets no colour (a mark made for stdout never reaches a pipe raw)."""
    if _NONCE not in text:
        return text
    on = enabled(stream)
    out = []
    for segment, kind in split_marks(text):
        if kind is None:
            out.append(segment)
        elif on:
            out.append(f"\033[{kind}m" if kind else "\033[0m")
    return "".join(out)


def plain(text: str) -> str:
    """``text`` without its marks."""
    return _marks().sub("", text) if _NONCE in text else text


def width(text: str) -> int:
    """How many columns ``text`` takes once shown (marks take none)."""
    return len(plain(text))
