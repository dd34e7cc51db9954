"""Scrub credentials out of text a wrapper printed before anyone sees it.

Provider error text is a known leak path (a health payload echoing the key
it was given), so every reason that comes from a wrapper passes through
:func:`summarize`: known secret values are replaced first, then anything that
looks like a credential, then the text is cut to a short single line.
"""

from __future__ import annotations

import re
from typing import Iterable

__all__ = ["REDACTED", "DETAIL_LIMIT", "redact", "summarize"]

REDACTED = "[REDACTED]"
DETAIL_LIMIT = 300

# key=value / key: value / "key": "value" where the key names a credential.
_ASSIGNMENT_RE = re.compile(
    r"""(?ix)
    (?P<key>["']?[A-Za-z0-9_.-]*(?:token|api[_-]?key|apikey|secret|password|passwd|
        authorization|auth|credential|cookie|private[_-]?key)[A-Za-z0-9_.-]*["']?)
    (?P<sep>\s*[:=]\s*)
    (?P<value>"[^"]*"|'[^']*'|(?:bearer|basic|token)\s+\S+|[^\s,;&]+)
    """)
_BEARER_RE = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}")
_KEY_SHAPES_RE = re.compile(
    r"\bsk-[A-Za-z0-9_-]{6,}|\bgh[pousr]_[A-Za-z0-9]{10,}|\bgithub_pat_[A-Za-z0-9_]{10,}"
    r"|\bxox[abprs]-[A-Za-z0-9-]{6,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{20,}"
    r"|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"  # JWT
    r"|://[^/\s:@]+:[^/\s@]+@")
# Long opaque tokens (mixed letters and digits): better a redacted hash than a leaked key.
_OPAQUE_RE = re.compile(r"\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}\b")


def _scrub_assignment(match: re.Match) -> str:
    return f"{match.group('key')}{match.group('sep')}{REDACTED}"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with known ``secrets`` and credential-shaped substrings replaced."""
    for value in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    text = _ASSIGNMENT_RE.sub(_scrub_assignment, text)
    text = _BEARER_RE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _KEY_SHAPES_RE.sub(lambda m: "://" + REDACTED + "@" if m.group(0).startswith("://")
                              else REDACTED, text)
    return _OPAQUE_RE.sub(REDACTED, text)


def summarize(text: str, secrets: Iterable[str] = (), limit: int = DETAIL_LIMIT) -> str:
    """Redacted, whitespace-collapsed, at most ``limit`` characters.

    Redaction runs before truncation so a cut never leaves half a secret
    unrecognised.
    """
    flat = " ".join(redact(text, secrets).split())
    if len(flat) > limit:
        flat = flat[: limit - 3].rstrip() + "..."
    return flat
