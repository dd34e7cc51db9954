"""The ``[[path]]`` grammar of Inbox bodies.

A body is scanned once, left to right.  These stretches are literal text and
never hold references:

1. fenced code blocks: a line opening with 3+ backticks or tildes (up to three
   spaces of indent) runs to the closing fence line (same character, at least
   as long) or to the end of the body;
2. code spans: a run of N backticks to the next run of exactly N backticks
   (an unmatched run is itself literal and scanning goes on after it);
3. ``\\[[`` (an escaped bracket pair).

Anything else of the form ``[[text]]`` (no ``]`` or newline inside) is a
candidate; ``text`` is trimmed.  ``[[no-reply]]`` marks the entry silent.  A
candidate is a **file reference** when it

* is not absolute (no leading ``/``, ``~`` or ``\\``),
* has no ``..`` segment,
* contains none of ``: | # ? \\`` NUL, CR, LF, ``[`` or ``]`` (so no URL scheme),
* and contains a ``/`` or ends in an extension (``.md``, ``.pdf``: 1-16 letters
  or digits).

So ``[[NVDA]]``, ``[[https://x/a.pdf]]``, ``[[../x.md]]`` and ``[[/a.pdf]]``
stay text, while ``[[./README]]`` and ``[[reports/close.pdf]]`` are
references.  References are listed once each, in first-seen order, exactly as
written (after trimming).  This module is pure: whether a reference resolves
is decided by :mod:`openalice.inbox.files`.
"""

from __future__ import annotations

import bisect
import re

from openalice.core import patterns
from openalice.core.records import record_class

__all__ = ["References", "Ignored", "parse", "classify", "NO_REPLY"]

NO_REPLY = "no-reply"

_FENCE_OPEN = patterns.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_BACKTICK_RUN = patterns.compile(r"`+")
_INTERESTING = patterns.compile(r"[`\\\[\n]")
_CANDIDATE_STOP = patterns.compile(r"[\]\n]")
_FORBIDDEN = patterns.compile(r"[:|#?\\\x00\r\n\[\]]")
_EXTENSION = patterns.compile(r"\.[A-Za-z0-9]{1,16}\Z")


@record_class(frozen=True)
class Ignored:
    """A ``[[...]]`` candidate that is not a file reference, and why."""

    text: str
    reason: str  # "absolute", "dotdot", "forbidden_character", "not_a_path", "empty"

    @property
    def looks_like_a_path(self) -> bool:
        """True when the author probably meant a file (worth a warning)."""
        return self.reason in ("absolute", "dotdot", "forbidden_character") and (
            "/" in self.text or "." in self.text)


@record_class(frozen=True)
class References:
    paths: tuple[str, ...]
    silent: bool
    ignored: tuple[Ignored, ...]


def classify(text: str) -> str | None:
    """``None`` if ``text`` (already trimmed) is a file reference, else the reason it is not."""
    if not text:
        return "empty"
    if text[0] in "/~\\":
        return "absolute"
    if _FORBIDDEN.search(text):
        return "forbidden_character"
    if any(part == ".." for part in text.split("/")):
        return "dotdot"
    if "/" not in text and not _EXTENSION.search(text):
        return "not_a_path"
    return None


class _Runs:
    """Backtick runs by length, to find a span's closing run in O(log n)."""

    def __init__(self, body: str) -> None:
        self.by_length: dict[int, list[int]] = {}
        for m in _BACKTICK_RUN.finditer(body):
            self.by_length.setdefault(m.end() - m.start(), []).append(m.start())

    def next_after(self, length: int, pos: int) -> int | None:
        starts = self.by_length.get(length)
        if not starts:
            return None
        i = bisect.bisect_left(starts, pos)
        return starts[i] if i < len(starts) else None


def _skip_fence(body: str, line_start: int) -> int | None:
    """If a fence opens at ``line_start``, the offset just past its closing line."""
    m = _FENCE_OPEN.match(body, line_start)
    if not m:
        return None
    fence = m.group(1)
    char, length = fence[0], len(fence)
    if char == "`" and "`" in body[m.end():_line_end(body, m.end())]:
        return None  # a backtick fence's info string may not hold backticks
    close = re.compile(r"[ ]{0,3}" + re.escape(char) + "{" + str(length) + r",}[ \t]*(?:\n|\Z)")
    pos = _line_end(body, m.end()) + 1
    while pos <= len(body):
        found = close.match(body, pos)
        if found:
            return found.end()
        nl = body.find("\n", pos)
        if nl < 0:
            break
        pos = nl + 1
    return len(body)


def _line_end(body: str, pos: int) -> int:
    nl = body.find("\n", pos)
    return len(body) if nl < 0 else nl


def parse(body: str) -> References:
    """The file references of ``body``, whether it is silent, and the ignored candidates."""
    paths: list[str] = []
    seen: set[str] = set()
    ignored: list[Ignored] = []
    silent = False
    runs: _Runs | None = None
    stop = -1  # the next "]" or newline at or after some position; only moves forward
    n = len(body)
    i = 0
    at_line_start = True
    while i < n:
        if at_line_start:
            after = _skip_fence(body, i)
            if after is not None:
                i = after
                at_line_start = True
                continue
        m = _INTERESTING.search(body, i)
        if m is None:
            break
        j = m.start()
        ch = body[j]
        if ch == "\n":
            i = j + 1
            at_line_start = True
            continue
        at_line_start = False
        if ch == "`":
            if runs is None:
                runs = _Runs(body)
            run_end = j
            while run_end < n and body[run_end] == "`":
                run_end += 1
            close = runs.next_after(run_end - j, run_end)
            i = close + (run_end - j) if close is not None else run_end
            if close is not None and "\n" in body[j:i]:
                at_line_start = body.rfind("\n", j, i) == i - 1
            continue
        if ch == "\\":
            i = j + 3 if body.startswith("\\[[", j) else j + 1
            continue
        # ch == "["
        if not body.startswith("[[", j):
            i = j + 1
            continue
        if stop < j + 2:
            found = _CANDIDATE_STOP.search(body, j + 2)
            stop = found.start() if found else n
        k = stop
        if k + 1 < n and body[k] == "]" and body[k + 1] == "]":
            text = body[j + 2:k].strip()
            i = k + 2
            if text.lower() == NO_REPLY:
                silent = True
                continue
            reason = classify(text)
            if reason is None:
                if text not in seen:
                    seen.add(text)
                    paths.append(text)
            else:
                ignored.append(Ignored(text, reason))
            continue
        i = j + 1
    return References(tuple(paths), silent, tuple(ignored))
