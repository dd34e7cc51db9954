"""Double- and single-quoted scalars, on one line or folded over several.
A part of :class:`~.parser.Parser`."""

from __future__ import annotations

from .scalars import DOUBLE_RUN, ESCAPES, HEX_DIGITS, HEX_ESCAPE_SIZE


class QuotedReader:
    """Reads a quoted scalar (uses the parser's ``lines`` and ``fail``)."""

    __slots__ = ()

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
        run = DOUBLE_RUN.match
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
                plain = ESCAPES.get(e)
                if plain is not None:
                    chunks.append(plain)
                    p += 2
                    continue
                size = HEX_ESCAPE_SIZE.get(e)
                if size is None:
                    self.fail(i, f"unknown escape `\\{e}` in a double-quoted string")
                digits = line[p + 2:p + 2 + size]
                if len(digits) != size or not HEX_DIGITS.fullmatch(digits):
                    self.fail(i, f"escape `\\{e}` needs {size} hex digits")
                code = int(digits, 16)
                p += 2 + size
                if 0xD800 <= code <= 0xDBFF and line[p:p + 2] == "\\u":
                    low = line[p + 2:p + 6]
                    if HEX_DIGITS.fullmatch(low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
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
