"""ECMA-262 regular expressions (JSON Schema's ``pattern``) on Python's ``re``.

The two dialects agree on most syntax but not on meaning: ECMA's ``$`` never
matches before a final newline, ``\\d`` ``\\w`` ``\\b`` are ASCII, ``\\s`` and ``.``
follow ECMA's own whitespace and line terminators, ``[]`` and ``[^]`` are
valid, and named groups are spelled ``(?<n>...)``.  :func:`translate` rewrites
those constructs; the result is compiled with ``re.ASCII``.  A pattern Python
cannot express (``\\p{...}``) still fails in ``re.compile``, which the schema
validator reports as a schema error.
"""

from __future__ import annotations

import re

__all__ = ["translate", "compile_pattern"]


# ECMA-262 \s: WhiteSpace and LineTerminator (Unicode, not just ASCII).
_ECMA_SPACE = r"\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_ECMA_DOT = r"[^\n\r\u2028\u2029]"  # ECMA '.' excludes every line terminator
_PATTERNS: dict[str, re.Pattern] = {}


def translate(pattern: str) -> str:
    """Rewrite the ECMA-262 constructs whose meaning differs in Python's re.

    The result is compiled with re.ASCII, which gives \\d \\w \\b their ECMA
    (ASCII) meaning; \\s, '.', '$' and a few escapes are rewritten here.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            piece, i = _translate_escape(pattern, i, in_class=False)
            out.append(piece)
        elif char == "[":
            piece, i = _translate_class(pattern, i)
            out.append(piece)
        elif char == ".":
            out.append(_ECMA_DOT)
            i += 1
        elif char == "$":
            out.append(r"\Z")  # Python's $ also matches before a final "\n"
            i += 1
        elif pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
            out.append("(?P<")  # ECMA named group
            i += 3
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _translate_escape(pattern: str, i: int, *, in_class: bool) -> tuple[str, int]:
    n = len(pattern)
    if i + 1 >= n:
        return "\\", i + 1  # re reports the dangling backslash
    esc = pattern[i + 1]
    if esc == "s":
        return (_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]"), i + 2
    if esc == "S" and not in_class:
        return f"[^{_ECMA_SPACE}]", i + 2
    if esc == "c" and i + 2 < n and pattern[i + 2].isascii() and pattern[i + 2].isalpha():
        return f"\\x{ord(pattern[i + 2]) % 32:02x}", i + 3
    if esc == "u":
        if pattern.startswith("{", i + 2):
            end = pattern.find("}", i + 3)
            digits = pattern[i + 3:end] if end > 0 else ""
            if digits and all(c in "0123456789abcdefABCDEF" for c in digits) and int(digits, 16) <= 0x10FFFF:
                return f"\\U{int(digits, 16):08x}", end + 1
        high = pattern[i + 2:i + 6]
        low = pattern[i + 6:i + 12]
        if (len(high) == 4 and _is_hex(high) and 0xD800 <= int(high, 16) <= 0xDBFF
                and low[:2] == "\\u" and _is_hex(low[2:]) and len(low) == 6
                and 0xDC00 <= int(low[2:], 16) <= 0xDFFF):
            code = 0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low[2:], 16) - 0xDC00)
            return f"\\U{code:08x}", i + 12  # a UTF-16 surrogate pair is one code point
    if esc == "k" and not in_class and pattern.startswith("<", i + 2):
        end = pattern.find(">", i + 3)
        if end > 0:
            return f"(?P={pattern[i + 3:end]})", end + 1
    return pattern[i:i + 2], i + 2


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdefABCDEF" for c in text)


def _translate_class(pattern: str, i: int) -> tuple[str, int]:
    n = len(pattern)
    j = i + 1
    negated = j < n and pattern[j] == "^"
    if negated:
        j += 1
    if j < n and pattern[j] == "]":  # ECMA: [] matches nothing, [^] matches anything
        return (r"[\s\S]" if negated else "(?!)"), j + 1
    items: list[str] = []
    not_space = False
    while j < n and pattern[j] != "]":
        char = pattern[j]
        if char == "\\":
            if pattern.startswith("\\S", j):
                not_space = True
                j += 2
            else:
                piece, j = _translate_escape(pattern, j, in_class=True)
                items.append(piece)
            if pattern[j - 1] in "dDwWsS" and pattern.startswith("-", j) and not pattern.startswith("-]", j):
                items.append(r"\-")  # ECMA: a class escape cannot start a range, the '-' is literal
                j += 1
        elif char in "[&~|":
            items.append("\\" + char)  # literal in ECMA; escaped so Python sees no set operation
            j += 1
        else:
            items.append(char)
            j += 1
    if j >= n:
        return pattern[i:], n  # unterminated: let re say so
    body = "".join(items)
    if not not_space:
        return "[" + ("^" if negated else "") + body + "]", j + 1
    # \S inside a class: re.ASCII's \S would admit Unicode spaces, so spell it out.
    if not negated:
        alternatives = ([f"[{body}]"] if body else []) + [f"[^{_ECMA_SPACE}]"]
        return "(?:" + "|".join(alternatives) + ")", j + 1
    if body:
        return f"(?:(?![{body}])[{_ECMA_SPACE}])", j + 1
    return f"[{_ECMA_SPACE}]", j + 1


def compile_pattern(pattern: str) -> re.Pattern:
    """Compile an ECMA-262 pattern (as JSON Schema's ``pattern`` means it), cached."""
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        compiled = re.compile(translate(pattern), re.ASCII)
        _PATTERNS[pattern] = compiled
    return compiled
