"""Values in block context: what follows a key or a ``- ``, plain scalars
(one line or folded over several), one-line simple flow mappings (a fast
path) and ``|`` / ``>`` block scalars.  A part of :class:`~.parser.Parser`."""

from __future__ import annotations

from .model import MAX_DEPTH
from .scalars import FAST_FLOW_ITEM, MISSING, SPECIAL_SCALARS, VALUE_SPECIAL, comment_at, core_number

# Where a value sits, which decides whether a `- ` list may follow at the parent's indent.
CTX_MAP, CTX_SEQ, CTX_NODE = 0, 1, 2


class ValueReader:
    """Reads the value at a column of a line (uses the parser's ``lines``, ``ind``, ``fail``)."""

    __slots__ = ()

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
                if k == n and ctx == CTX_MAP:
                    nxt = lines[j]
                    if nxt[n] == "-" and (len(nxt) == n + 1 or nxt[n + 1] in " \t"):
                        return self._sequence(j, n, depth + 1)
            return None, i + 1
        c = line[col]
        if c in VALUE_SPECIAL:
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
            cut = comment_at(text)
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
        item = FAST_FLOW_ITEM.match
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
                value = core_number(text)
            except ValueError as exc:
                self.fail(i, str(exc))
            if value is not MISSING:
                return value
        value = SPECIAL_SCALARS.get(text, MISSING)
        return text if value is MISSING else value

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
            cut = comment_at(seg)
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
                    if "\t" in text:  # YAML: only spaces indent; a tab here is neither empty line nor content
                        self.fail(j, "tab character in the indentation of a block scalar line (use spaces)")
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
