"""ECMA-262 regular expressions (JSON Schema's ``pattern``) on Python's ``re``.

The two dialects agree on most syntax but not on meaning: ECMA's ``$`` never
matches before a final newline, ``\\d`` ``\\w`` ``\\b`` are ASCII, ``\\s`` and ``.``
follow ECMA's own whitespace and line terminators, ``[]`` and ``[^]`` are
valid, and named groups are spelled ``(?<n>...)``.  :func:`translate` rewrites
those constructs; the result is compiled with ``re.ASCII``.  Unicode property
escapes ``\\p{...}``/``\\P{...}`` of a General_Category (``\\p{L}``,
``\\p{Letter}``, ``\\p{gc=Nd}``, ``\\p{digit}``) and ``Any``/``ASCII``/
``Assigned`` become explicit code point classes built from :mod:`unicodedata`
(one scan of the code space, on first use); any other property (a Script)
is left alone, so ``re.compile`` fails and the schema validator reports a
schema error.
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
    if esc in "pP" and pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 3)
        ranges = _property_ranges(pattern[i + 3:end]) if end > 0 else None
        if ranges is not None and esc == "P":
            ranges = _complement(ranges)
        if ranges:  # (an empty class cannot be written; \P{Any} stays a compile error)
            body = _class_body(ranges)
            return (body if in_class else f"[{body}]"), end + 1
    if esc == "k" and not in_class and pattern.startswith("<", i + 2):
        end = pattern.find(">", i + 3)
        if end > 0:
            return f"(?P={pattern[i + 3:end]})", end + 1
    return pattern[i:i + 2], i + 2


# General_Category values (PropertyValueAliases.txt): short name -> (long name, other aliases).
_CATEGORIES = {
    "L": ("Letter",), "LC": ("Cased_Letter", "L&"), "Lu": ("Uppercase_Letter",), "Ll": ("Lowercase_Letter",),
    "Lt": ("Titlecase_Letter",), "Lm": ("Modifier_Letter",), "Lo": ("Other_Letter",),
    "M": ("Mark", "Combining_Mark"), "Mn": ("Nonspacing_Mark",), "Mc": ("Spacing_Mark",), "Me": ("Enclosing_Mark",),
    "N": ("Number",), "Nd": ("Decimal_Number", "digit"), "Nl": ("Letter_Number",), "No": ("Other_Number",),
    "P": ("Punctuation", "punct"), "Pc": ("Connector_Punctuation",), "Pd": ("Dash_Punctuation",),
    "Ps": ("Open_Punctuation",), "Pe": ("Close_Punctuation",), "Pi": ("Initial_Punctuation",),
    "Pf": ("Final_Punctuation",), "Po": ("Other_Punctuation",),
    "S": ("Symbol",), "Sm": ("Math_Symbol",), "Sc": ("Currency_Symbol",), "Sk": ("Modifier_Symbol",),
    "So": ("Other_Symbol",), "Z": ("Separator",), "Zs": ("Space_Separator",), "Zl": ("Line_Separator",),
    "Zp": ("Paragraph_Separator",), "C": ("Other",), "Cc": ("Control", "cntrl"), "Cf": ("Format",),
    "Cs": ("Surrogate",), "Co": ("Private_Use",), "Cn": ("Unassigned",),
}
_CATEGORY_NAMES = {alias: short for short, aliases in _CATEGORIES.items() for alias in (short,) + aliases}
_BY_CATEGORY: dict[str, list[tuple[int, int]]] | None = None


def _category_ranges() -> dict[str, list[tuple[int, int]]]:
    """Code point ranges per two-letter General_Category (one scan, cached;
    published whole, so a thread never sees a half-filled table)."""
    global _BY_CATEGORY
    if _BY_CATEGORY is None:
        from unicodedata import category  # lazy: only \p{...} patterns need the tables

        table: dict[str, list[tuple[int, int]]] = {}
        # Planes 4 to 13 are unassigned (Cn) in every Unicode version Python ships: skip them.
        for first, last in ((0, 0x3FFFF), (0xE0000, 0x10FFFF)):
            current, start = None, first
            for code in range(first, last + 1):
                name = category(chr(code))
                if name != current:
                    if current is not None:
                        table.setdefault(current, []).append((start, code - 1))
                    current, start = name, code
            table.setdefault(current, []).append((start, last))
        table["Cn"].append((0x40000, 0xDFFFF))
        table["Cn"].sort()
        _BY_CATEGORY = table
    return _BY_CATEGORY


def _property_ranges(name: str):
    """Sorted code point ranges of a property escape's name, or None if unsupported."""
    key, equals, value = name.partition("=")
    if equals:
        if key not in ("General_Category", "gc"):
            return None
        name = value
    if name == "Any":
        return [(0, 0x10FFFF)]
    if name == "ASCII":
        return [(0, 0x7F)]
    if name == "Assigned":
        return _complement(_category_ranges().get("Cn", []))
    short = _CATEGORY_NAMES.get(name)
    if short is None:
        return None
    table = _category_ranges()
    if short == "LC":
        wanted = ("Lu", "Ll", "Lt")
    else:
        wanted = [c for c in table if c == short or (len(short) == 1 and c[0] == short)]
    return sorted(r for c in wanted for r in table.get(c, []))


def _complement(ranges):
    out, nxt = [], 0
    for start, end in sorted(ranges):
        if start > nxt:
            out.append((nxt, start - 1))
        nxt = max(nxt, end + 1)
    if nxt <= 0x10FFFF:
        out.append((nxt, 0x10FFFF))
    return out


def _class_body(ranges) -> str:
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


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
