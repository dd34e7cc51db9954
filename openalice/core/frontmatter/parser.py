"""The YAML-subset parser: block structure and keys.

Block structure is read line by line (indentation decides); flow collections
are read with an explicit stack of frames (:mod:`.flow`), so no input can
recurse deeper than :data:`~.model.MAX_DEPTH` block levels.  :class:`Parser`
is one object composed of four parts, each in its own module: this one
(documents, mappings, sequences, keys), :class:`~.values.ValueReader` (plain
and block scalars), :class:`~.quoted.QuotedReader` (quoted scalars) and
:class:`~.flow.FlowReader` (flow collections).
"""

from __future__ import annotations

from .flow import FlowReader
from .model import MAX_DEPTH, FrontmatterError
from .quoted import QuotedReader
from .scalars import FAST_KEY, FAST_PAIR, KEY_SPECIAL, PROPERTY, SPECIAL_SCALARS, comment_at, is_escaped
from .values import CTX_MAP, CTX_NODE, CTX_SEQ, ValueReader


class Parser(ValueReader, QuotedReader, FlowReader):
    """Parses ``lines`` (one document, LF already split off); line numbers in
    errors are ``base`` plus the index."""

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
        if record is not None and (FAST_KEY.match(self.lines[i], k) or self._try_key(i, k)):
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
        if FAST_KEY.match(line, k) or self._try_key(i, k) is not None:
            return self._mapping(i, k, depth + 1)
        return self._value(i, k, n, depth, CTX_NODE)

    def _mapping(self, i: int, n: int, depth: int, record: list | None = None):
        if depth > MAX_DEPTH:
            self.fail(i, f"nesting deeper than {MAX_DEPTH} levels")
        lines, ind = self.lines, self.ind
        count = len(lines)
        out: dict = {}
        first_seen: dict = {}
        fast = FAST_KEY.match
        pair = FAST_PAIR.fullmatch
        special = SPECIAL_SCALARS.get
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
                        key, value, quoted, text = m.groups()
                        if quoted is not None:
                            value = quoted
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
                value, end = self._value(i, col, n, depth, CTX_MAP)
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
                    elif FAST_KEY.match(line, col) or self._try_key(i, col) is not None:
                        lines[i] = " " * col + line[col:]
                        ind[i] = col
                        value, end = self._mapping(i, col, depth + 1)
                    else:
                        value, end = self._value(i, col, n, depth, CTX_SEQ)
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
                while close > 0 and is_escaped(line, close):
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
        if c in KEY_SPECIAL and not (c in "-?:" and k + 1 < size and line[k + 1] not in " \t"):
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
        if "#" in text and comment_at(text) >= 0:
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
        cut = comment_at(rest)
        if cut >= 0:
            rest = rest[:cut]
        if ":" in rest:
            self.fail(i, "expected `key: value` (put a space after the `:`)")
        self.fail(i, "expected `key: value`")

    def _indicator(self, i: int, k: int):
        """Fail for a node that starts with an unsupported YAML indicator."""
        line = self.lines[i]
        c = line[k]
        token = PROPERTY.match(line, k).group() if c in "&*!" else c
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
