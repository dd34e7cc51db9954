"""Markdown frontmatter: split a file, read the YAML subset it uses, write it back.

A file is ``---`` / YAML / ``---`` / body.  The YAML is read with YAML 1.2
core-schema semantics (the rules of the npm ``yaml`` package the original
TypeScript reader used): ``2026-11-30`` stays a string, ``yes`` stays a
string, ``title: 2026`` is the int 2026.  Everything the subset does not
cover (anchors, aliases, tags, directives, complex keys, merge keys,
duplicate keys, tab indentation, nesting deeper than :data:`MAX_DEPTH`)
raises :class:`FrontmatterError` with the line number; nothing is guessed.

The writer keeps what a person wrote: :func:`render` re-serializes only the
keys it is asked to change and copies every other top-level entry, comments
included, byte for byte.  See ``docs/frontmatter.md``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from .errors import InvalidInput
from .records import field, record_class

__all__ = [
    "FrontmatterError", "MAX_BYTES", "MAX_DEPTH", "Entry", "Document",
    "parse", "loads", "dumps", "render", "compose",
]

MAX_BYTES = 64 * 1024
MAX_DEPTH = 64

# Python refuses to turn longer decimal strings into ints (sys.int_info).
_MAX_INT_DIGITS = 4300


class FrontmatterError(InvalidInput):
    """The file or its YAML is malformed; ``details["line"]`` says where."""

    default_code = "frontmatter"

    @property
    def line(self) -> int | None:
        return self.details.get("line")


@record_class
class Entry:
    """One top-level key as written in the source.

    ``raw`` is the exact text of lines ``start``..``end`` (1-based file line
    numbers, inclusive, LF line endings): the blank and comment lines above
    the key since the previous entry, the key line and its value's lines.
    ``comment_line`` is the first of the comment lines directly above the key
    (equal to ``key_line`` when there are none).
    """

    key: str
    start: int
    end: int
    key_line: int
    comment_line: int
    raw: str


@record_class
class Document:
    """A parsed file: the mapping, the raw body and the source of each entry.

    ``trailer`` holds blank and comment lines after the last entry.  ``bom``
    and ``newline`` record how the file was written (a leading BOM; ``"\\r\\n"``
    when every line ended so): the text here is always LF without a BOM, and
    :func:`render` writes the file back the way it came.
    """

    data: dict
    body: str
    entries: list[Entry] = field(default_factory=list)
    trailer: str = ""
    bom: bool = False
    newline: str = "\n"

    def __getattr__(self, name: str):
        # parse() leaves entries and trailer to be cut on first use: readers
        # that only want the data (most of them) never pay for them.
        if name in ("entries", "trailer"):
            pending = self.__dict__.pop("_pending", None)
            if pending is not None:
                self.entries, self.trailer = _entries(*pending)
                return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


# --------------------------------------------------------------------------
# Reading

def parse(source: bytes | str, *, max_bytes: int | None = MAX_BYTES,
          path: str | None = None) -> Document:
    """Split ``source`` into frontmatter and body and parse the frontmatter.

    ``source`` may be bytes (must be UTF-8) or str.  The size cap is checked
    before anything is decoded.  The body is everything after the closing
    ``---`` line, with CRLF turned into LF; it is not trimmed.
    """
    text = _decode(source, max_bytes, path)
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    crlf = False
    if "\r" in text:
        crlf = text.count("\r\n") == text.count("\n")
        text = text.replace("\r\n", "\n")
    nl = text.find("\n")
    first = text if nl < 0 else text[:nl]
    if first.strip() != "---":
        raise _error(1, "missing YAML frontmatter (expected a leading `---` block)", path)
    if nl < 0:
        raise _error(1, "unclosed frontmatter (no closing `---` line)", path)
    start = nl + 1
    pos = start
    while True:
        k = text.find("---", pos)
        if k < 0:
            raise _error(1, "unclosed frontmatter (no closing `---` line)", path)
        line_start = text.rfind("\n", 0, k) + 1
        line_end = text.find("\n", k)
        if line_end < 0:
            line_end = len(text)
        if text[line_start:line_end].strip() == "---":
            break
        pos = line_end
    body = text[line_end + 1:]
    yaml_text = text[start:line_start]
    _check_characters(yaml_text, 2, path)
    lines = yaml_text.split("\n")
    lines.pop()  # the empty string after the last newline
    parser = _Parser(lines, 2, True, path)
    record: list = []
    data = parser.document(record)
    if not isinstance(data, dict):
        # Point at the first line of content, or at the opening fence if there is none.
        line = next((i + 2 for i, k in enumerate(parser.ind) if k != -1), 1)
        raise _error(line, "frontmatter is not a mapping", path)
    if not record:      # a top-level flow mapping: nothing line-shaped to keep
        return Document(data, body, [], "", bom, "\r\n" if crlf else "\n")
    doc = object.__new__(Document)
    doc.data = data
    doc.body = body
    if bom:
        doc.bom = True
    if crlf:
        doc.newline = "\r\n"
    doc._pending = (lines, parser.ind, record)     # see Document.__getattr__
    return doc


def loads(text: str) -> object:
    """Parse a bare YAML-subset document (no ``---`` fences) into a value.

    Empty input (or only comments) is ``None``.  Line numbers in errors count
    from 1 at the start of ``text``.
    """
    if not isinstance(text, str):
        raise TypeError(f"loads() wants str, not {type(text).__name__}")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    _check_characters(text, 1, None)
    lines = text.split("\n")
    final_newline = lines[-1] == ""
    if final_newline:
        lines.pop()
    return _Parser(lines, 1, final_newline, None).document(None)


def _decode(source: bytes | str, max_bytes: int | None, path: str | None) -> str:
    if isinstance(source, str):
        if max_bytes is not None and len(source) * 4 > max_bytes:
            size = len(source) if source.isascii() else len(source.encode("utf-8", "surrogatepass"))
            _check_size(size, max_bytes, path)
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if max_bytes is not None:
            _check_size(len(data), max_bytes, path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise _error(line, f"file is not valid UTF-8 (byte 0x{data[exc.start]:02x} "
                               f"at offset {exc.start})", path) from None
    raise TypeError(f"parse() wants bytes or str, not {type(source).__name__}")


def _check_size(size: int, max_bytes: int, path: str | None) -> None:
    if size > max_bytes:
        raise FrontmatterError(f"file too large ({size} bytes; limit {max_bytes})",
                               file=path, details={"bytes": size, "limit": max_bytes})


def _error(line: int, message: str, path: str | None) -> FrontmatterError:
    return FrontmatterError(f"line {line}: {message}", file=path, details={"line": line})


# C0/C1 controls, DEL, lone surrogates, non-characters, a CR without LF, and
# the Unicode line separators that YAML 1.1 readers treat as line breaks.
_BAD_CHARACTER = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def _check_characters(text: str, base: int, path: str | None) -> None:
    m = _BAD_CHARACTER.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + base
        ch = m.group()
        what = "carriage return without line feed" if ch == "\r" else f"character U+{ord(ch):04X}"
        raise _error(line, f"{what} is not allowed in YAML "
                           f"(write it as an escape in a double-quoted string)", path)


def _entries(lines: list[str], ind: list[int], record: list) -> tuple[list[Entry], str]:
    """Cut the frontmatter lines into one raw slice per top-level key."""
    entries = []
    prev = 0
    count = len(lines)
    last = len(record) - 1
    for n, (key, key_i, end) in enumerate(record):
        # Indented comment lines right after a value describe that value.
        if end < count and ind[end] == -1:
            indent = ind[key_i]
            stop = record[n + 1][1] if n < last else count
            while end < stop and ind[end] == -1 and lines[end][:indent + 1].isspace() \
                    and lines[end].strip(" \t"):
                end += 1
        comment_i = key_i
        while comment_i > prev and ind[comment_i - 1] == -1 and lines[comment_i - 1].strip(" \t"):
            comment_i -= 1
        entries.append(Entry(key, prev + 2, end + 1, key_i + 2, comment_i + 2,
                             "\n".join(lines[prev:end]) + "\n"))
        prev = end
    trailer = "\n".join(lines[prev:]) + "\n" if prev < count else ""
    return entries, trailer


# --------------------------------------------------------------------------
# Scalars

_MISSING = object()
_SPECIAL_SCALARS = {
    "null": None, "Null": None, "NULL": None, "~": None,
    "true": True, "True": True, "TRUE": True,
    "false": False, "False": False, "FALSE": False,
    ".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
    "+.inf": float("inf"), "+.Inf": float("inf"), "+.INF": float("inf"),
    "-.inf": float("-inf"), "-.Inf": float("-inf"), "-.INF": float("-inf"),
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")


def _number(text: str) -> object:
    """The int or float ``text`` spells under the core schema, else _MISSING."""
    if _INT.fullmatch(text):
        if len(text) > _MAX_INT_DIGITS:
            raise ValueError("integer has too many digits")
        return int(text)
    if text[0] == "0" and len(text) > 2:
        if _OCT.fullmatch(text):
            return int(text[2:], 8)
        if _HEX.fullmatch(text):
            return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    return _MISSING


_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
    "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPE_SIZE = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")
_DOUBLE_RUN = re.compile(r'[^"\\]*')

# Flow-context plain scalar (YAML 1.2 ns-plain-multi-line, one line of it).
_FLOW_PLAIN = re.compile(
    r"""(?:[^ \t\[\]{},#&*!|>'"%@`?:-]|[?:-](?=[^ \t\[\]{},]))"""
    r"""(?:[^ \t\[\]{},:]|:(?=[^ \t\[\]{},])|[ \t]+(?=[^ \t\[\]{},#:]|:[^ \t\[\]{},]))*""")
_FLOW_PLAIN_MORE = re.compile(
    r"""(?:[^ \t\[\]{},:#]|:(?=[^ \t\[\]{},]))"""
    r"""(?:[^ \t\[\]{},:]|:(?=[^ \t\[\]{},])|[ \t]+(?=[^ \t\[\]{},#:]|:[^ \t\[\]{},]))*""")
_FAST_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +|$)")
# One `key: value` item of a simple one-line flow mapping, and what follows it.
_FAST_FLOW_ITEM = re.compile(
    r"""[ ]*([A-Za-z_][A-Za-z0-9_-]*): +(?:(")([^"\\]*)"|"""
    r"""([^ \t,\[\]{}#:"'&*!|>%@`?-](?:[^\t,\[\]{}#:"']*[^ \t,\[\]{}#:"'])?))[ ]*([,}])""")
# The common line: a simple key, then a double-quoted value without escapes or
# a one-line plain value without `#` or `:`, then perhaps a comment.
_FAST_PAIR = re.compile(
    r"""([A-Za-z_][A-Za-z0-9_-]*): +(?:"([^"\\]*)"[ ]*|"""
    r"""([^ \t#"'\[\]{}|>&*!%@`,?:-][^#:\t]*))(?:(?<=[ ])#.*)?""")
_PROPERTY = re.compile(r"[&*!][^\s,\[\]{}]*")

# First characters that keep a value from being a plain scalar (or need a look).
_VALUE_SPECIAL = frozenset("\"'[{|>&*!%@`,]}-?:#")
_KEY_SPECIAL = frozenset("-?:,[]{}#&*!|>'\"%@`")


def _comment_at(text: str) -> int:
    """Index of the whitespace that starts a comment in ``text``, or -1."""
    h = text.find("#")
    while h > 0:
        if text[h - 1] in " \t":
            return h - 1
        h = text.find("#", h + 1)
    return -1


# --------------------------------------------------------------------------
# The parser.  Block structure is read line by line (indentation decides);
# flow collections are read with an explicit stack, so no input can recurse
# deeper than MAX_DEPTH block levels.

_MAP, _SEQ, _NODE = 0, 1, 2


class _Parser:
    __slots__ = ("lines", "ind", "base", "final_newline", "path")

    def __init__(self, lines: list[str], base: int, final_newline: bool,
                 path: str | None) -> None:
        self.lines = list(lines)   # compact "- key: v" items are rewritten in place
        self.base = base
        self.final_newline = final_newline
        self.path = path
        # ind[i]: indentation of a content line; -1 blank or comment; -2 tab in indentation.
        ind = []
        append = ind.append
        for i, line in enumerate(lines):
            if not line:
                append(-1)
                continue
            c = line[0]
            if c == " ":
                rest = line.lstrip(" ")
                if not rest or rest[0] == "#":
                    append(-1)
                elif rest[0] == "\t":
                    append(-1 if rest.lstrip(" \t")[:1] in ("", "#") else -2)
                else:
                    append(len(line) - len(rest))
            elif c == "#":
                append(-1)
            elif c == "\t":
                append(-1 if line.lstrip(" \t")[:1] in ("", "#") else -2)
            else:
                if (c == "-" or c == ".") and line[:3] in ("---", "...") \
                        and line[3:4] in ("", " ", "\t"):
                    self.fail(i, "document markers (`---`, `...`) are not supported")
                append(0)
        self.ind = ind

    def fail(self, i: int, message: str):
        line = i + self.base
        raise FrontmatterError(f"line {line}: {message}", file=self.path,
                               details={"line": line})

    def document(self, record: list | None) -> object:
        ind = self.ind
        i = 0
        count = len(ind)
        while i < count and ind[i] == -1:
            i += 1
        if i == count:
            return None
        k = ind[i]
        if k == -2:
            self.fail(i, "tab character used for indentation (use spaces)")
        if record is not None and (_FAST_KEY.match(self.lines[i], k) or self._try_key(i, k)):
            value, end = self._mapping(i, k, 1, record)
        else:
            value, end = self._node(i, k, -1, 0)
        while end < count and ind[end] == -1:
            end += 1
        if end < count:
            if ind[end] == -2:
                self.fail(end, "tab character used for indentation (use spaces)")
            self.fail(end, "bad indentation (this line is outside the top-level node)")
        return value

    # -- block structure ---------------------------------------------------

    def _node(self, i: int, k: int, n: int, depth: int):
        """The node whose first line is ``i``, starting at column ``k`` (> n)."""
        line = self.lines[i]
        c = line[k]
        if c == "-" and (len(line) == k + 1 or line[k + 1] in " \t"):
            return self._sequence(i, k, depth + 1)
        if _FAST_KEY.match(line, k) or self._try_key(i, k) is not None:
            return self._mapping(i, k, depth + 1)
        return self._value(i, k, n, depth, _NODE)

    def _mapping(self, i: int, n: int, depth: int, record: list | None = None):
        if depth > MAX_DEPTH:
            self.fail(i, f"nesting deeper than {MAX_DEPTH} levels")
        lines, ind = self.lines, self.ind
        count = len(lines)
        out: dict = {}
        first_seen: dict = {}
        fast = _FAST_KEY.match
        pair = _FAST_PAIR.fullmatch
        special = _SPECIAL_SCALARS.get
        end = i
        while i < count:
            k = ind[i]
            if k == n:
                line = lines[i]
                m = pair(line, n)
                if m:
                    j = i + 1
                    if j == count or 0 <= ind[j] <= n or (
                            ind[j] == -1 and lines[j].strip(" \t")):
                        key, value, text = m.groups()
                        if key in out:
                            self.fail(i, f"duplicate key {key!r} (first defined on line "
                                         f"{first_seen[key] + self.base})")
                        first_seen[key] = i
                        if text is not None:
                            text = text.rstrip(" ")
                            if text[0] in "0123456789+.":
                                value = self._resolve(text, i)
                            else:
                                value = special(text, text)
                        out[key] = value
                        if record is not None:
                            record.append((key, i, j))
                        i = end = j
                        continue
                m = fast(line, n)
                if m:
                    key = m.group(1)
                    col = m.end()
                else:
                    key, col = self._key(i, n)
                if key in out:
                    self.fail(i, f"duplicate key {key!r} (first defined on line "
                                 f"{first_seen[key] + self.base})")
                first_seen[key] = i
                value, end = self._value(i, col, n, depth, _MAP)
                out[key] = value
                if record is not None:
                    record.append((key, i, end))
                i = end
            elif k == -1:
                i += 1
            elif k == -2:
                self.fail(i, "tab character used for indentation (use spaces)")
            elif k < n:
                break
            else:
                self.fail(i, f"bad indentation (indented {k} spaces; expected {n})")
        return out, end

    def _sequence(self, i: int, n: int, depth: int):
        if depth > MAX_DEPTH:
            self.fail(i, f"nesting deeper than {MAX_DEPTH} levels")
        lines, ind = self.lines, self.ind
        count = len(lines)
        out: list = []
        end = i
        while i < count:
            k = ind[i]
            if k == n:
                line = lines[i]
                size = len(line)
                if line[n] != "-" or (size > n + 1 and line[n + 1] not in " \t"):
                    break
                col = n + 1
                while col < size and line[col] == " ":
                    col += 1
                if col < size and line[col] == "\t":
                    self.fail(i, "tab character after `-` (use spaces)")
                if col >= size or line[col] == "#":
                    j = i + 1
                    while j < count and ind[j] == -1:
                        j += 1
                    if j < count and ind[j] == -2:
                        self.fail(j, "tab character used for indentation (use spaces)")
                    if j < count and ind[j] > n:
                        value, end = self._node(j, ind[j], n, depth)
                    else:
                        value, end = None, i + 1
                else:
                    c = line[col]
                    if c == "-" and (col + 1 == size or line[col + 1] in " \t"):
                        lines[i] = " " * col + line[col:]
                        ind[i] = col
                        value, end = self._sequence(i, col, depth + 1)
                    elif _FAST_KEY.match(line, col) or self._try_key(i, col) is not None:
                        lines[i] = " " * col + line[col:]
                        ind[i] = col
                        value, end = self._mapping(i, col, depth + 1)
                    else:
                        value, end = self._value(i, col, n, depth, _SEQ)
                out.append(value)
                i = end
            elif k == -1:
                i += 1
            elif k == -2:
                self.fail(i, "tab character used for indentation (use spaces)")
            elif k < n:
                break
            else:
                self.fail(i, f"bad indentation (indented {k} spaces; expected {n})")
        return out, end

    # -- keys --------------------------------------------------------------

    def _try_key(self, i: int, k: int):
        """``(key, column after the colon)`` if line ``i`` holds ``key:`` at ``k``."""
        line = self.lines[i]
        size = len(line)
        c = line[k]
        if c == '"' or c == "'":
            if c == '"':
                close = line.find('"', k + 1)
                while close > 0 and _escaped(line, close):
                    close = line.find('"', close + 1)
            else:
                close = k
                while True:
                    close = line.find("'", close + 1)
                    if close < 0 or close + 1 >= size or line[close + 1] != "'":
                        break
                    close += 1
            if close < 0:
                return None
            p = close + 1
            while p < size and line[p] in " \t":
                p += 1
            if p < size and line[p] == ":" and (p + 1 == size or line[p + 1] in " \t"):
                key = (self._double if c == '"' else self._single)(i, k, -1)[0]
                return key, p + 1
            return None
        if c in _KEY_SPECIAL and not (c in "-?:" and k + 1 < size and line[k + 1] not in " \t"):
            return None
        j = k + 1
        while True:
            j = line.find(":", j)
            if j < 0:
                return None
            if j + 1 == size or line[j + 1] in " \t":
                break
            j += 1
        text = line[k:j]
        if "#" in text and _comment_at(text) >= 0:
            return None
        key = text.rstrip(" \t")
        if key == "<<":
            self.fail(i, "merge keys (`<<`) are not supported")
        return key, j + 1

    def _key(self, i: int, k: int):
        found = self._try_key(i, k)
        if found is not None:
            return found
        line = self.lines[i]
        c = line[k]
        after = line[k + 1:k + 2]
        if c == "-" and after in ("", " ", "\t"):
            self.fail(i, "expected `key: value`, found a list item (`- `)")
        if c in "&*!%@`" or (c == "?" and after in ("", " ", "\t")):
            self._indicator(i, k)
        if c in "\"'":
            self.fail(i, "expected `:` after the quoted key")
        if c in "[{":
            self.fail(i, "expected `key: value` (mapping keys must be plain or quoted scalars)")
        rest = line[k:]
        cut = _comment_at(rest)
        if cut >= 0:
            rest = rest[:cut]
        if ":" in rest:
            self.fail(i, "expected `key: value` (put a space after the `:`)")
        self.fail(i, "expected `key: value`")

    def _indicator(self, i: int, k: int):
        """Fail for a node that starts with an unsupported YAML indicator."""
        line = self.lines[i]
        c = line[k]
        token = _PROPERTY.match(line, k).group() if c in "&*!" else c
        if c == "&":
            self.fail(i, f"anchors are not supported (`{token}`)")
        if c == "*":
            self.fail(i, f"aliases are not supported (`{token}`)")
        if c == "!":
            self.fail(i, f"tags are not supported (`{token}`)")
        if c == "?":
            self.fail(i, "complex keys (`? `) are not supported")
        if c == "%" and k == 0:
            word = line.split(None, 1)[0]
            self.fail(i, f"directives are not supported (`{word}`)")
        self.fail(i, f"a plain value cannot start with `{c}` (quote it)")

    # -- values ------------------------------------------------------------

    def _value(self, i: int, col: int, n: int, depth: int, ctx: int):
        """The value starting at column ``col`` of line ``i``; parent indent ``n``.

        Returns ``(value, index of the first line after the value)``.
        """
        lines = self.lines
        line = lines[i]
        size = len(line)
        while col < size and line[col] in " \t":
            col += 1
        if col >= size or line[col] == "#":
            ind = self.ind
            count = len(ind)
            j = i + 1
            while j < count and ind[j] == -1:
                j += 1
            if j < count:
                k = ind[j]
                if k == -2:
                    self.fail(j, "tab character used for indentation (use spaces)")
                if k > n:
                    return self._node(j, k, n, depth)
                if k == n and ctx == _MAP:
                    nxt = lines[j]
                    if nxt[n] == "-" and (len(nxt) == n + 1 or nxt[n + 1] in " \t"):
                        return self._sequence(j, n, depth + 1)
            return None, i + 1
        c = line[col]
        if c in _VALUE_SPECIAL:
            if c == '"' or c == "'":
                value, j, p = (self._double if c == '"' else self._single)(i, col, n)
                self._rest_of_line(j, p)
                return value, j + 1
            if c == "{" and depth < MAX_DEPTH:
                found = self._simple_flow_mapping(i, col)
                if found is not None:
                    self._rest_of_line(i, found[1])
                    return found[0], i + 1
            if c == "[" or c == "{":
                value, j, p = self._flow(i, col, n, depth)
                self._rest_of_line(j, p)
                return value, j + 1
            if c == "|" or c == ">":
                return self._block_scalar(i, col, n)
            after = line[col + 1:col + 2]
            if c == "-" and after in ("", " ", "\t"):
                self.fail(i, "a list cannot start on the same line as its key "
                             "(move `- ` to the next line)")
            if c == ":" and after in ("", " ", "\t"):
                self.fail(i, "unexpected `:`")
            if c in ",]}":
                self.fail(i, f"unexpected `{c}`")
            if c not in "-?:":
                self._indicator(i, col)
            if c == "?" and after in ("", " ", "\t"):
                self._indicator(i, col)
        # A plain scalar.
        text = line[col:]
        commented = False
        if "#" in text:
            cut = _comment_at(text)
            if cut >= 0:
                text = text[:cut]
                commented = True
        text = text.rstrip(" \t")
        if ":" in text and (": " in text or ":\t" in text or text[-1] == ":"):
            self.fail(i, "unexpected `: ` in a plain value (quote the value, or "
                         "put a nested mapping on its own lines)")
        end = i + 1
        if not commented and end < len(lines):
            k = self.ind[end]
            if k > n or (k == -1 and not lines[end].strip(" \t")):
                text, end = self._plain_more(i, n, text)
        return self._resolve(text, i), end

    def _simple_flow_mapping(self, i: int, col: int):
        """``({...}, column after)`` for a one-line mapping of simple pairs, else None."""
        line = self.lines[i]
        item = _FAST_FLOW_ITEM.match
        out: dict = {}
        m = item(line, col + 1)
        while m:
            key, quote, quoted, plain, sep = m.groups()
            if key in out:
                return None     # the full parser reports it
            out[key] = quoted if quote else self._resolve(plain, i)
            if sep == "}":
                return out, m.end()
            m = item(line, m.end())
        return None

    def _resolve(self, text: str, i: int) -> object:
        c = text[0]
        if c in "0123456789+-.":
            try:
                value = _number(text)
            except ValueError as exc:
                self.fail(i, str(exc))
            if value is not _MISSING:
                return value
        value = _SPECIAL_SCALARS.get(text, _MISSING)
        return text if value is _MISSING else value

    def _plain_more(self, i: int, n: int, text: str):
        """Fold the continuation lines of a multi-line plain scalar."""
        lines, ind = self.lines, self.ind
        count = len(lines)
        parts = [text]
        end = i + 1
        j = i + 1
        blanks = 0
        while j < count:
            k = ind[j]
            if k == -1:
                if lines[j].strip(" \t"):
                    break
                blanks += 1
                j += 1
                continue
            if k == -2:
                self.fail(j, "tab character used for indentation (use spaces)")
            if k <= n:
                break
            seg = lines[j][k:]
            cut = _comment_at(seg)
            if cut >= 0:
                seg = seg[:cut]
            seg = seg.rstrip(" \t")
            if ": " in seg or ":\t" in seg or seg[-1] == ":":
                self.fail(j, "unexpected `: ` in a plain value (quote the value, or "
                             "indent nested keys under a key of their own)")
            parts.append("\n" * blanks if blanks else " ")
            parts.append(seg)
            blanks = 0
            j += 1
            end = j
            if cut >= 0:
                break
        return "".join(parts), end

    def _rest_of_line(self, i: int, p: int) -> None:
        """After a quoted scalar or a flow collection only a comment may follow."""
        line = self.lines[i]
        size = len(line)
        q = p
        while q < size and line[q] in " \t":
            q += 1
        if q == size or (line[q] == "#" and q > p):
            return
        if line[q] == ":":
            self.fail(i, "unexpected `:` after the value (mapping keys must be plain or "
                         "quoted scalars on one line)")
        self.fail(i, "unexpected text after the value")

    def _double(self, i: int, pos: int, n: int):
        """A double-quoted scalar opening at ``pos``: ``(text, last line, column after)``."""
        line = self.lines[i]
        close = line.find('"', pos + 1)
        if close > 0:
            text = line[pos + 1:close]
            if "\\" not in text:
                return text, i, close + 1
        opened = i
        chunks = []
        p = pos + 1
        run = _DOUBLE_RUN.match
        while True:
            m = run(line, p)
            seg = m.group()
            p = m.end()
            if p < len(line):
                chunks.append(seg)
                if line[p] == '"':
                    return "".join(chunks), i, p + 1
                if p + 1 == len(line):      # escaped line break: join without a space
                    i, line, p, breaks = self._quoted_next_line(i, n, opened, "double")
                    if breaks:
                        chunks.append("\n" * breaks)
                    continue
                e = line[p + 1]
                plain = _ESCAPES.get(e)
                if plain is not None:
                    chunks.append(plain)
                    p += 2
                    continue
                size = _HEX_ESCAPE_SIZE.get(e)
                if size is None:
                    self.fail(i, f"unknown escape `\\{e}` in a double-quoted string")
                digits = line[p + 2:p + 2 + size]
                if len(digits) != size or not _HEX_DIGITS.fullmatch(digits):
                    self.fail(i, f"escape `\\{e}` needs {size} hex digits")
                code = int(digits, 16)
                p += 2 + size
                if 0xD800 <= code <= 0xDBFF and line[p:p + 2] == "\\u":
                    low = line[p + 2:p + 6]
                    if _HEX_DIGITS.fullmatch(low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
                        code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                        p += 6
                if 0xD800 <= code <= 0xDFFF:
                    self.fail(i, f"escape `\\{e}{digits}` is a lone surrogate")
                if code > 0x10FFFF:
                    self.fail(i, f"escape `\\{e}{digits}` is not a Unicode code point")
                chunks.append(chr(code))
            else:                             # line break inside the string: fold
                chunks.append(seg.rstrip(" \t"))
                i, line, p, breaks = self._quoted_next_line(i, n, opened, "double")
                chunks.append("\n" * breaks if breaks else " ")

    def _single(self, i: int, pos: int, n: int):
        """A single-quoted scalar opening at ``pos``: ``(text, last line, column after)``."""
        line = self.lines[i]
        close = line.find("'", pos + 1)
        if close > 0 and line[close + 1:close + 2] != "'":
            return line[pos + 1:close], i, close + 1
        opened = i
        chunks = []
        p = pos + 1
        while True:
            q = line.find("'", p)
            if q < 0:
                chunks.append(line[p:].rstrip(" \t"))
                i, line, p, breaks = self._quoted_next_line(i, n, opened, "single")
                chunks.append("\n" * breaks if breaks else " ")
                continue
            chunks.append(line[p:q])
            if line[q + 1:q + 2] == "'":
                chunks.append("'")
                p = q + 2
                continue
            return "".join(chunks), i, q + 1

    def _quoted_next_line(self, i: int, n: int, opened: int, kind: str):
        """Move to the next non-blank line of a multi-line quoted scalar."""
        lines = self.lines
        breaks = 0
        while True:
            i += 1
            if i >= len(lines):
                self.fail(opened, f"unterminated {kind}-quoted string")
            line = lines[i]
            rest = line.lstrip(" \t")
            if rest:
                break
            breaks += 1
        if len(line) - len(line.lstrip(" ")) <= n:
            self.fail(opened, f"unterminated {kind}-quoted string (a string that continues "
                              f"on the next lines must be indented more than its key)")
        return i, line, len(line) - len(rest), breaks

    def _block_scalar(self, i: int, col: int, n: int):
        """A ``|`` or ``>`` block scalar whose header is at ``col`` of line ``i``."""
        lines = self.lines
        line = lines[i]
        folded = line[col] == ">"
        chomp = ""
        explicit = 0
        p = col + 1
        for _ in range(2):
            ch = line[p:p + 1]
            if ch and ch in "+-" and not chomp:
                chomp = ch
                p += 1
            elif ch and ch in "123456789" and not explicit:
                explicit = int(ch)
                p += 1
        rest = line[p:]
        if rest and (rest[0] not in " \t" or rest.lstrip(" \t")[:1] not in ("", "#")):
            self.fail(i, "invalid block scalar header (expected `|` or `>`, optionally "
                         "followed by `-`, `+` or an indentation digit 1-9)")
        count = len(lines)
        lowest = n + 1 if n >= 0 else 1
        if explicit:
            indent = max(n, 0) + explicit
        else:
            widest_blank = 0
            j = i + 1
            while j < count:
                text = lines[j]
                if text.strip(" \t"):
                    break
                widest_blank = max(widest_blank, len(text) - len(text.lstrip(" ")))
                j += 1
            if j < count:
                first = len(text) - len(text.lstrip(" "))
                if first >= lowest and widest_blank > first:
                    self.fail(i + 1, "a leading blank line of the block scalar is indented "
                                     "more than its first line of text")
                indent = max(lowest, first)
            else:
                indent = max(lowest, widest_blank)
        parts: list[str] = []
        breaks = 0
        previous = None
        last = -1
        j = i + 1
        # A blank last line with no newline after it breaks no line.
        unterminated = count - 1 if not self.final_newline else -1
        while j < count:
            text = lines[j]
            spaces = len(text) - len(text.lstrip(" "))
            if spaces == len(text) and spaces <= indent:
                breaks += j != unterminated
                j += 1
                continue
            if spaces < indent:
                if text.strip(" \t") == "":
                    breaks += j != unterminated
                    j += 1
                    continue
                break
            content = text[indent:]
            if previous is None:
                parts.append("\n" * breaks)
            elif folded and previous[0] not in " \t" and content[0] not in " \t":
                parts.append("\n" * breaks if breaks else " ")
            else:
                parts.append("\n" * (breaks + 1))
            parts.append(content)
            previous = content
            breaks = 0
            last = j
            j += 1
        if previous is None:
            value = "\n" * breaks if chomp == "+" else ""
            return value, (i + 1 + breaks if chomp == "+" else i + 1)
        if chomp != "-":
            if last + 1 < count or self.final_newline:
                parts.append("\n")
            if chomp == "+":
                parts.append("\n" * breaks)
        end = last + 1 + (breaks if chomp == "+" else 0)
        return "".join(parts), end

    def _flow(self, i: int, pos: int, n: int, depth: int):
        """A flow collection opening at ``pos``: ``(value, last line, column after)``."""
        lines, ind = self.lines, self.ind
        count = len(lines)
        line = lines[i]
        # A frame is [container, is_mapping, state, pending key, opening line,
        # {key: line} seen so far, line of the pending key].
        # Sequence states: 0 wants an item, 1 wants `,` or `]`.
        # Mapping states: 0 wants a key, 1 has a key, 2 has `:`, 3 has the value.
        stack: list[list] = []
        quoted_key_end = -1
        while True:
            size = len(line)
            start = pos
            while pos < size and line[pos] in " \t":
                pos += 1
            if pos >= size or (line[pos] == "#" and (pos > start or pos == 0)):
                i += 1
                while i < count and ind[i] == -1:
                    i += 1
                if i >= count or (ind[i] <= n and ind[i] != -2):
                    self._unterminated(stack, i < count)
                if ind[i] == -2:
                    self.fail(i, "tab character used for indentation (use spaces)")
                line = lines[i]
                pos = ind[i]
                quoted_key_end = -1
                continue
            c = line[pos]
            if c == "[" or c == "{":
                if stack:
                    frame = stack[-1]
                    if frame[1] and frame[2] == 0:
                        self.fail(i, "mapping keys must be plain or quoted scalars")
                    if frame[2] == (3 if frame[1] else 1):
                        self._expected(i, frame)
                if depth + len(stack) + 1 > MAX_DEPTH:
                    self.fail(i, f"nesting deeper than {MAX_DEPTH} levels")
                stack.append([{} if c == "{" else [], c == "{", 0, None, i, {}, -1])
                pos += 1
                continue
            if c == "]" or c == "}":
                frame = stack[-1]
                if frame[1] != (c == "}"):
                    self.fail(i, f"unexpected `{c}` (expected `{'}' if frame[1] else ']'}`)")
                if frame[1] and frame[2] in (1, 2):
                    frame[0][frame[3]] = None
                stack.pop()
                pos += 1
                value = frame[0]
                if not stack:
                    return value, i, pos
                self._deliver(stack[-1], value, False, i)
                continue
            if c == ",":
                frame = stack[-1]
                state = frame[2]
                if frame[1]:
                    if state == 0:
                        self.fail(i, "unexpected `,`")
                    if state in (1, 2):
                        frame[0][frame[3]] = None
                elif state == 0:
                    self.fail(i, "unexpected `,`")
                frame[2] = 0
                pos += 1
                continue
            after = line[pos + 1:pos + 2]
            if c == ":" and (after == "" or after in " \t,[]{}" or pos == quoted_key_end):
                frame = stack[-1]
                if not frame[1]:
                    self.fail(i, "`key: value` pairs inside a flow sequence are not "
                                 "supported (write `{key: value}`)")
                if frame[2] == 3:
                    self.fail(i, "unexpected `:` (a `,` may be missing before the key)")
                if frame[2] != 1:
                    self.fail(i, "unexpected `:` (a flow mapping key is missing)")
                if frame[6] != i:
                    self.fail(i, "the `:` after a flow mapping key must be on the key's line")
                frame[2] = 2
                pos += 1
                continue
            frame = stack[-1]
            is_key = frame[1] and frame[2] == 0
            if c == '"' or c == "'":
                text, i, pos = (self._double if c == '"' else self._single)(i, pos, n)
                line = lines[i]
                if is_key:
                    quoted_key_end = pos
                self._deliver(frame, text, True, i)
                continue
            if c == "#":
                self.fail(i, "a comment needs a space before `#`")
            if c in "|>":
                self.fail(i, "block scalars (`|`, `>`) cannot appear inside a flow collection")
            if c in "&*!%@`" or (c == "?" and after in ("", " ", "\t")):
                self._indicator(i, pos)
            if c in "?:":   # YAML 1.1 readers take these for indicators here
                self.fail(i, f"a plain value inside a flow collection cannot start with "
                             f"`{c}` (quote it)")
            m = _FLOW_PLAIN.match(line, pos)
            if not m:
                self.fail(i, f"unexpected `{c}` in a flow collection")
            text = m.group()
            pos = m.end()
            if not is_key:
                text, i, pos = self._flow_plain_more(text, i, pos, n)
                line = lines[i]
                self._deliver(frame, self._resolve(text, i), False, i)
            else:
                self._deliver(frame, text, True, i)

    def _flow_plain_more(self, text: str, i: int, pos: int, n: int):
        """Fold a plain scalar inside a flow collection that continues on later lines."""
        lines, ind = self.lines, self.ind
        while not lines[i][pos:].strip(" \t"):
            j = i + 1
            blanks = 0
            while j < len(lines) and not lines[j].strip(" \t"):
                blanks += 1
                j += 1
            if j >= len(lines) or ind[j] < 0 or ind[j] <= n:
                break
            m = _FLOW_PLAIN_MORE.match(lines[j], ind[j])
            if not m:
                break
            text += ("\n" * blanks if blanks else " ") + m.group()
            i, pos = j, m.end()
        return text, i, pos

    def _deliver(self, frame: list, value: object, scalar: bool, i: int) -> None:
        state = frame[2]
        if not frame[1]:
            if state != 0:
                self._expected(i, frame)
            frame[0].append(value)
            frame[2] = 1
        elif state == 0:
            if not scalar:
                self.fail(i, "mapping keys must be plain or quoted scalars")
            seen = frame[5]
            if value in seen:
                self.fail(i, f"duplicate key {value!r} (first defined on line "
                             f"{seen[value] + self.base})")
            seen[value] = i
            frame[3] = value
            frame[2] = 1
            frame[6] = i
        elif state == 2:
            frame[0][frame[3]] = value
            frame[2] = 3
        else:
            self._expected(i, frame)

    def _expected(self, i: int, frame: list):
        if frame[1]:
            want = "`:`, `,` or `}`" if frame[2] == 1 else "`,` or `}`"
        else:
            want = "`,` or `]`"
        self.fail(i, f"expected {want} in a flow collection")

    def _unterminated(self, stack: list, dedent: bool):
        frame = stack[0]
        kind, close = ("mapping", "}") if frame[1] else ("sequence", "]")
        hint = ("; lines inside a flow collection must be indented more than its key"
                if dedent else "")
        self.fail(frame[4], f"unterminated flow {kind} (missing `{close}`{hint})")


def _escaped(line: str, q: int) -> bool:
    """Whether the quote at ``q`` is escaped by an odd run of backslashes."""
    slashes = 0
    q -= 1
    while q >= 0 and line[q] == "\\":
        slashes += 1
        q -= 1
    return slashes % 2 == 1


# --------------------------------------------------------------------------
# Writing

_UNSAFE = "\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff"


@functools.cache
def _writer_patterns() -> tuple[re.Pattern, ...]:
    """Patterns only the writer needs, compiled on first use to keep imports cheap."""
    # Strings a YAML 1.2 core-schema reader or a YAML 1.1 reader (PyYAML and
    # its kin) would turn into something else when written plain.
    not_a_string = re.compile("|".join([
        r"~|null|Null|NULL|true|True|TRUE|false|False|FALSE",
        r"yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N|=|<<",
        r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?",
        r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+",
        r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?",
        r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?",
        r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+).*)?",
    ]))
    plain_safe = re.compile(
        "[^\\s\\-?:,\\[\\]{}#&*!|>'\"%@`" + _UNSAFE + "]"
        "(?:[^\t\n" + _UNSAFE + "]*[^\\s:" + _UNSAFE + "])?")
    needs_escape = re.compile('["\\\\' + _UNSAFE + "]")
    # Tabs, CRs and escapes; trailing spaces on a line; two final newlines;
    # a first line that starts with a space; nothing but newlines.
    block_unsafe = re.compile("[\t\r" + _UNSAFE.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f") + "]"
                              "|[ ]\n|[ ]\\Z|\n\n\\Z|\\A\n*(?:[ ]|\\Z)")
    surrogate = re.compile("[\ud800-\udfff]")
    return not_a_string, plain_safe, needs_escape, block_unsafe, surrogate


_SHORT_ESCAPES = {
    "\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v",
    "\f": "\\f", "\r": "\\r", "\x1b": "\\e", '"': '\\"', "\\": "\\\\",
    "\x85": "\\N", "\u2028": "\\L", "\u2029": "\\P",
}


def dumps(data: dict) -> str:
    """Serialize a mapping to the subset; ``loads(dumps(d)) == d``.

    Values may be str, int, float, bool, None, list and dict (str keys).
    Nested collections use block style, empty ones ``[]`` and ``{}``; a
    string is quoted whenever a YAML 1.2 or YAML 1.1 reader would read the
    plain text as something else.  Raises TypeError for other types and
    ValueError for nesting deeper than :data:`MAX_DEPTH` (cycles included).
    """
    if not isinstance(data, dict):
        raise TypeError(f"dumps() wants a dict, not {type(data).__name__}")
    if not data:
        return "{}\n"
    out: list[str] = []
    _emit_mapping(data, 0, out, 1, True)
    return "".join(out)


def compose(data: dict, body: str) -> str:
    """A new file: ``---``, ``dumps(data)``, ``---``, a blank line and ``body``.

    Leading and trailing newlines of ``body`` are dropped and one final
    newline is added; an empty body leaves the file ending at the fence.
    """
    body = body.replace("\r\n", "\n").strip("\n")
    head = "---\n" + dumps(data) + "---\n"
    return head + "\n" + body + "\n" if body else head


def render(doc: Document, updates: dict, *, remove: Iterable[str] = ()) -> str:
    """The whole file with ``updates`` applied and the keys in ``remove`` gone.

    Untouched entries keep their raw text, comments included, and their
    order; an updated key is re-serialized in place under the comments above
    it (kept as is when the new value equals the old one); a removed key
    goes with the comment lines directly above it; new keys are appended in
    the order given.  The body is kept exactly, and so are the file's BOM and
    CRLF line ends (``doc.bom``, ``doc.newline``).

    The result is re-parsed before it is returned.  When the kept text and
    the new text interact (a ``|`` block followed by an indented comment, a
    ``|+`` block followed by blank lines), simpler forms are tried in turn:
    double-quoted strings, then dropping blank lines between entries, and
    last a fresh serialization of the whole mapping without comments.
    """
    updates = dict(updates)
    removed = set(remove)
    for key in list(updates) + list(removed):
        if not isinstance(key, str):
            raise TypeError(f"frontmatter keys must be strings, not {type(key).__name__}")
    clash = removed.intersection(updates)
    if clash:
        raise ValueError(f"keys both updated and removed: {sorted(clash)}")
    expected = {k: v for k, v in doc.data.items() if k not in removed}
    expected.update(updates)
    return _as_written(doc, _render_lf(doc, updates, removed, expected))


def _as_written(doc: Document, text: str) -> str:
    """``text`` (LF, no BOM) with the BOM and line ends of the file ``doc`` came from."""
    if doc.newline != "\n":
        text = text.replace("\n", doc.newline)
    return "\ufeff" + text if doc.bom else text


def _render_lf(doc: Document, updates: dict, removed: set, expected: dict) -> str:
    fresh = "---\n" + dumps(expected) + "---\n" + doc.body
    if not doc.entries:
        return fresh
    for block, tight in ((True, False), (False, False), (False, True)):
        text = _render_entries(doc, updates, removed, block, tight)
        try:
            check = parse(text, max_bytes=None)
        except FrontmatterError:
            continue
        if _same(check.data, expected) and check.body == doc.body:
            return text
    return fresh


def _render_entries(doc: Document, updates: dict, removed: set, block: bool,
                    tight: bool) -> str:
    pieces = []
    indent = 0
    for entry in doc.entries:
        key = entry.key
        lines = entry.raw.split("\n")[:-1]
        key_at = entry.key_line - entry.start
        indent = len(lines[key_at]) - len(lines[key_at].lstrip(" "))
        if key in removed:
            detached = lines[:entry.comment_line - entry.start]
            if any(line.strip(" \t") for line in detached):
                pieces.append("".join(line + "\n" for line in detached))
        elif key in updates and not _same(doc.data.get(key, _MISSING), updates[key]):
            pieces.append("".join(line + "\n" for line in lines[:key_at])
                          + _dump_pair(key, updates[key], indent, block))
        else:
            pieces.append(entry.raw)
    pieces.append(doc.trailer)
    known = doc.data.keys()
    for key, value in updates.items():
        if key not in known:
            pieces.append(_dump_pair(key, value, indent, block))
    if tight:   # blank lines carry no data, except after a `|+` block
        pieces = [_drop_leading_blank_lines(piece) for piece in pieces]
    return "---\n" + "".join(pieces) + "---\n" + doc.body


def _drop_leading_blank_lines(text: str) -> str:
    while text and text.split("\n", 1)[0].strip(" \t") == "":
        text = text.split("\n", 1)[1] if "\n" in text else ""
    return text


def _dump_pair(key: str, value: object, indent: int, block: bool) -> str:
    out: list[str] = []
    _emit_mapping({key: value}, 0, out, 1, block)
    text = "".join(out)
    if indent:
        pad = " " * indent
        text = "\n".join(pad + line if line else line for line in text.split("\n"))
    return text


def _emit_mapping(data: dict, indent: int, out: list, depth: int, block: bool) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"cannot serialize nesting deeper than {MAX_DEPTH} levels")
    pad = " " * indent
    for key, value in data.items():
        if not isinstance(key, str):
            raise TypeError(f"frontmatter keys must be strings, not {type(key).__name__}")
        head = pad + _string(key, 0, False) + ":"
        if isinstance(value, dict) and value:
            out.append(head + "\n")
            _emit_mapping(value, indent + 2, out, depth + 1, block)
        elif isinstance(value, (list, tuple)) and value:
            out.append(head + "\n")
            _emit_sequence(value, indent + 2, out, depth + 1, block)
        else:
            out.append(head + " " + _scalar(value, indent + 2, block) + "\n")


def _emit_sequence(items, indent: int, out: list, depth: int, block: bool) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"cannot serialize nesting deeper than {MAX_DEPTH} levels")
    pad = " " * indent
    for value in items:
        if isinstance(value, (dict, list, tuple)) and value:
            first = len(out)
            if isinstance(value, dict):
                _emit_mapping(value, indent + 2, out, depth + 1, block)
            else:
                _emit_sequence(value, indent + 2, out, depth + 1, block)
            out[first] = pad + "- " + out[first][indent + 2:]
        else:
            out.append(pad + "- " + _scalar(value, indent + 2, block) + "\n")


def _scalar(value: object, indent: int, block: bool) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value, indent, block)
    if isinstance(value, int):
        if value.bit_length() > _MAX_INT_DIGITS * 3:
            raise ValueError("cannot serialize an int with that many digits")
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = float.__repr__(value)
        if "e" in text and "." not in text:     # YAML 1.1 floats need the dot
            text = text.replace("e", ".0e")
        return text
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, (list, tuple)):
        return "[]"
    raise TypeError(f"cannot serialize {type(value).__name__} to frontmatter")


def _string(text: str, indent: int, block: bool) -> str:
    not_a_string, plain_safe, needs_escape, block_unsafe, surrogate = _writer_patterns()
    if (plain_safe.fullmatch(text) and ": " not in text and " #" not in text
            and not text.startswith("...") and not not_a_string.fullmatch(text)):
        return text
    if surrogate.search(text):
        raise ValueError("cannot serialize a string with a lone surrogate")
    if block and "\n" in text and not block_unsafe.search(text) and (
            # A line that trims to `---` would close the frontmatter.
            "---" not in text or all(line.strip() != "---" for line in text.split("\n"))):
        pad = " " * indent
        if text.endswith("\n"):
            head, text = "|", text[:-1]
        else:
            head = "|-"
        return head + "".join("\n" + pad + line if line else "\n" for line in text.split("\n"))
    return '"' + needs_escape.sub(_escape, text) + '"'


def _escape(m: re.Match) -> str:
    ch = m.group()
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}"


_KINDS = ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"),
          (dict, "dict"), (list, "list"), (tuple, "list"))


def _kind(value: object) -> str:
    if value is None:
        return "none"
    for cls, kind in _KINDS:
        if isinstance(value, cls):
            return kind
    return type(value).__name__


def _same(a: object, b: object) -> bool:
    """Equality that tells True from 1 and 1 from 1.0, and lets NaN equal NaN."""
    kind = _kind(a)
    if kind != _kind(b):
        return False
    if kind == "dict":
        return len(a) == len(b) and all(k in b and _same(v, b[k]) for k, v in a.items())
    if kind == "list":
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if kind == "float" and a != a:
        return b != b
    return a == b
