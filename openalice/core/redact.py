"""Scrub credentials out of text another program printed before anyone sees it.

Provider error text is a known leak path (a health payload echoing the key
it was given), so every reason that comes from an adapter wrapper passes
through :func:`summarize`: known secret values are replaced first, then
anything that looks like a credential, then the text is cut to a short single
line.  :func:`redact` is the same scrub without the cut (Studio logs use it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from openalice.core import patterns

__all__ = ["REDACTED", "DETAIL_LIMIT", "redact", "summarize"]

REDACTED = "[REDACTED]"
DETAIL_LIMIT = 300

# key=value / key: value / "key": "value" where the key names a credential.  The
# key is matched from the start of a word with no alternation inside, and the
# credential words are looked for in the key afterwards, so the scan is linear.
_KEY_SEP_RE = patterns.compile(r"""(?<![A-Za-z0-9_.-])["']?([A-Za-z0-9_.-]+)["']?\s*[:=]\s*""")
_SECRET_KEY_RE = patterns.compile(r"(?i)token|api[_-]?key|secret|password|passwd|authorization|auth"
                            r"|credential|cookie|private[_-]?key")
_VALUE_RE = patterns.compile(r"""(?i)"[^"\n]*"|'[^'\n]*'|(?:bearer|basic|token)\s+\S+|[^\s,;&]+""")
_BEARER_RE = patterns.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}")
_KEY_SHAPES_RE = patterns.compile(
    r"\bsk-[A-Za-z0-9_-]{6,}|\bgh[pousr]_[A-Za-z0-9]{10,}|\bgithub_pat_[A-Za-z0-9_]{10,}"
    r"|\bxox[abprs]-[A-Za-z0-9-]{6,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{20,}"
    r"|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"  # JWT
    r"|://[^/\s:@]+:[^/\s@]+@")
# Long opaque tokens (mixed letters and digits): better a redacted hash than a
# leaked key.  Matched from the start of a run only, so the scan stays linear.
_RUN_RE = patterns.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}")
_DIGIT_RE = patterns.compile(r"\d")
_LETTER_RE = patterns.compile(r"[A-Za-z]")
# Regex redaction looks at this much text at most (a detail shows 300 characters).
_SCAN_LIMIT = 4096


def _reads_as_prose(value: str) -> bool:
    """After a ``:`` a short plain word is prose ("credentials: missing"), not a
    credential; quoted values, anything with digits or symbols, and long
    words are still redacted.  ``key=value`` is always redacted."""
    return value.isalpha() and len(value) < 12


def _redact_assignments(text: str) -> str:
    out: list[str] = []
    pos = 0
    for match in _KEY_SEP_RE.finditer(text):
        if match.start() < pos or not _SECRET_KEY_RE.search(match.group(1)):
            continue
        value = _VALUE_RE.match(text, match.end())
        if value is None or (":" in match.group(0) and _reads_as_prose(value.group(0))):
            continue
        out.append(text[pos:match.end()])
        out.append(REDACTED)
        pos = value.end()
    out.append(text[pos:])
    return "".join(out)


def _scrub_run(match: re.Match) -> str:
    run = match.group(0)
    return REDACTED if _DIGIT_RE.search(run) and _LETTER_RE.search(run) else run


def _replace_known(text: str, secrets: Iterable[str]) -> str:
    for value in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    return text


def _redact_shapes(text: str) -> str:
    text = _redact_assignments(text)
    text = _BEARER_RE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _KEY_SHAPES_RE.sub(lambda m: "://" + REDACTED + "@" if m.group(0).startswith("://")
                              else REDACTED, text)
    return _RUN_RE.sub(_scrub_run, text)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with known ``secrets`` and credential-shaped substrings replaced."""
    return _redact_shapes(_replace_known(text, secrets))


def summarize(text: str, secrets: Iterable[str] = (), limit: int = DETAIL_LIMIT) -> str:
    """Redacted, whitespace-collapsed, at most ``limit`` characters.

    Known values go first over the whole text; the pattern pass then sees a
    bounded prefix cut at a word boundary (so no half token is left to slip
    past a pattern), and truncation comes last.
    """
    flat = " ".join(_replace_known(text, secrets).split())
    if len(flat) > _SCAN_LIMIT:
        flat = flat[:_SCAN_LIMIT]
        if " " in flat:
            flat = flat.rsplit(" ", 1)[0]
    flat = _redact_shapes(flat)
    if len(flat) > limit:
        flat = flat[: limit - 3].rstrip() + "..."
    return flat
