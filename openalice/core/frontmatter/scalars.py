"""What the reader and the writer share about scalars: the YAML 1.2
core-schema words and numbers, the escapes of double-quoted strings, the
patterns of the fast paths, and where a comment starts."""

from __future__ import annotations

from openalice.core import patterns

from .model import MAX_INT_DIGITS

MISSING = object()
SPECIAL_SCALARS = {
    "null": None, "Null": None, "NULL": None, "~": None,
    "true": True, "True": True, "TRUE": True,
    "false": False, "False": False, "FALSE": False,
    ".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
    "+.inf": float("inf"), "+.Inf": float("inf"), "+.INF": float("inf"),
    "-.inf": float("-inf"), "-.Inf": float("-inf"), "-.INF": float("-inf"),
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
_INT = patterns.compile(r"[-+]?[0-9]+")
_OCT = patterns.compile(r"0o[0-7]+")
_HEX = patterns.compile(r"0x[0-9a-fA-F]+")
_FLOAT = patterns.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")


def core_number(text: str) -> object:
    """The int or float ``text`` spells under the core schema, else MISSING."""
    if _INT.fullmatch(text):
        if len(text) > MAX_INT_DIGITS:
            raise ValueError("integer has too many digits")
        return int(text)
    if text[0] == "0" and len(text) > 2:
        if _OCT.fullmatch(text):
            return int(text[2:], 8)
        if _HEX.fullmatch(text):
            return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    return MISSING


ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
    "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
HEX_ESCAPE_SIZE = {"x": 2, "u": 4, "U": 8}
HEX_DIGITS = patterns.compile(r"[0-9a-fA-F]+")
DOUBLE_RUN = patterns.compile(r'[^"\\]*')

# Flow-context plain scalar (YAML 1.2 ns-plain-multi-line, one line of it).
FLOW_PLAIN = patterns.compile(
    r"""(?:[^ \t\[\]{},#&*!|>'"%@`?:-]|[?:-](?=[^ \t\[\]{},]))"""
    r"""(?:[^ \t\[\]{},:]|:(?=[^ \t\[\]{},])|[ \t]+(?=[^ \t\[\]{},#:]|:[^ \t\[\]{},]))*""")
FLOW_PLAIN_MORE = patterns.compile(
    r"""(?:[^ \t\[\]{},:#]|:(?=[^ \t\[\]{},]))"""
    r"""(?:[^ \t\[\]{},:]|:(?=[^ \t\[\]{},])|[ \t]+(?=[^ \t\[\]{},#:]|:[^ \t\[\]{},]))*""")
FAST_KEY = patterns.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +|$)")
# One `key: value` item of a simple one-line flow mapping, and what follows it.
FAST_FLOW_ITEM = patterns.compile(
    r"""[ ]*([A-Za-z_][A-Za-z0-9_-]*): +(?:(["'])((?<=")[^"\\]*(?=")|(?<=')[^'\n]*(?='))\2|"""
    r"""([^ \t,\[\]{}#:"'&*!|>%@`?-](?:[^\t,\[\]{}#:"']*[^ \t,\[\]{}#:"'])?))[ ]*([,}])""")
# The common line: a simple key, then a double-quoted value without escapes, a
# single-quoted one without '' (cron: '0 3 * * *'), or a one-line plain value
# without `#` or `:`, then perhaps a comment.
FAST_PAIR = patterns.compile(
    r"""([A-Za-z_][A-Za-z0-9_-]*): +(?:"([^"\\]*)"[ ]*|'([^'\n]*)'[ ]*|"""
    r"""([^ \t#"'\[\]{}|>&*!%@`,?:-][^#:\t]*))(?:(?<=[ ])#.*)?""")
PROPERTY = patterns.compile(r"[&*!][^\s,\[\]{}]*")

# First characters that keep a value from being a plain scalar (or need a look).
VALUE_SPECIAL = frozenset("\"'[{|>&*!%@`,]}-?:#")
KEY_SPECIAL = frozenset("-?:,[]{}#&*!|>'\"%@`")


def comment_at(text: str) -> int:
    """Index of the whitespace that starts a comment in ``text``, or -1."""
    h = text.find("#")
    while h > 0:
        if text[h - 1] in " \t":
            return h - 1
        h = text.find("#", h + 1)
    return -1


def is_escaped(line: str, q: int) -> bool:
    """Whether the quote at ``q`` is escaped by an odd run of backslashes."""
    slashes = 0
    q -= 1
    while q >= 0 and line[q] == "\\":
        slashes += 1
        q -= 1
    return slashes % 2 == 1
