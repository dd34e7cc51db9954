"""Flow collections (``[a, b]``, ``{k: v}``), read with an explicit stack of
:class:`_Frame` rather than by recursion.  A part of :class:`~.parser.Parser`."""

from __future__ import annotations

from .model import MAX_DEPTH
from .scalars import FLOW_PLAIN, FLOW_PLAIN_MORE

# What an open collection waits for.  A sequence: an item (_WANTS_ENTRY), then
# `,` or `]` (_HAS_ITEM).  A mapping: a key (_WANTS_ENTRY), then `:` or `,` or
# `}` (_HAS_KEY), then a value (_HAS_COLON), then `,` or `}` (_HAS_VALUE).
_WANTS_ENTRY = 0
_HAS_ITEM = _HAS_KEY = 1
_HAS_COLON = 2
_HAS_VALUE = 3


class _Frame:
    """One open flow collection on the stack."""

    __slots__ = ("container", "is_mapping", "state", "key", "opened", "seen", "key_line")

    def __init__(self, is_mapping: bool, opened: int) -> None:
        self.container: dict | list = {} if is_mapping else []
        self.is_mapping = is_mapping
        self.state = _WANTS_ENTRY
        self.key = None             # the pending key of a mapping
        self.opened = opened        # the line of the opening bracket
        self.seen: dict = {}        # {key: line} of the keys seen so far
        self.key_line = -1          # the line of the pending key


class FlowReader:
    """Reads a flow collection (uses the parser's ``lines``, ``ind``, ``fail``
    and its scalar readers)."""

    __slots__ = ()

    def _flow(self, i: int, pos: int, n: int, depth: int):
        """A flow collection opening at ``pos``: ``(value, last line, column after)``."""
        lines, ind = self.lines, self.ind
        count = len(lines)
        line = lines[i]
        stack: list[_Frame] = []
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
                    if frame.is_mapping and frame.state == _WANTS_ENTRY:
                        self.fail(i, "mapping keys must be plain or quoted scalars")
                    if frame.state == (_HAS_VALUE if frame.is_mapping else _HAS_ITEM):
                        self._expected(i, frame)
                if depth + len(stack) + 1 > MAX_DEPTH:
                    self.fail(i, f"nesting deeper than {MAX_DEPTH} levels")
                stack.append(_Frame(c == "{", i))
                pos += 1
                continue
            if c == "]" or c == "}":
                frame = stack[-1]
                if frame.is_mapping != (c == "}"):
                    self.fail(i, f"unexpected `{c}` (expected `{'}' if frame.is_mapping else ']'}`)")
                if frame.is_mapping and frame.state in (_HAS_KEY, _HAS_COLON):
                    frame.container[frame.key] = None
                stack.pop()
                pos += 1
                value = frame.container
                if not stack:
                    return value, i, pos
                self._deliver(stack[-1], value, False, i)
                continue
            if c == ",":
                frame = stack[-1]
                state = frame.state
                if frame.is_mapping:
                    if state == _WANTS_ENTRY:
                        self.fail(i, "unexpected `,`")
                    if state in (_HAS_KEY, _HAS_COLON):
                        frame.container[frame.key] = None
                elif state == _WANTS_ENTRY:
                    self.fail(i, "unexpected `,`")
                frame.state = _WANTS_ENTRY
                pos += 1
                continue
            after = line[pos + 1:pos + 2]
            if c == ":" and (after == "" or after in " \t,[]{}" or pos == quoted_key_end):
                frame = stack[-1]
                if not frame.is_mapping:
                    self.fail(i, "`key: value` pairs inside a flow sequence are not "
                                 "supported (write `{key: value}`)")
                if frame.state == _HAS_VALUE:
                    self.fail(i, "unexpected `:` (a `,` may be missing before the key)")
                if frame.state != _HAS_KEY:
                    self.fail(i, "unexpected `:` (a flow mapping key is missing)")
                if frame.key_line != i:
                    self.fail(i, "the `:` after a flow mapping key must be on the key's line")
                frame.state = _HAS_COLON
                pos += 1
                continue
            frame = stack[-1]
            is_key = frame.is_mapping and frame.state == _WANTS_ENTRY
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
            m = FLOW_PLAIN.match(line, pos)
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
            m = FLOW_PLAIN_MORE.match(lines[j], ind[j])
            if not m:
                break
            text += ("\n" * blanks if blanks else " ") + m.group()
            i, pos = j, m.end()
        return text, i, pos

    def _deliver(self, frame: _Frame, value: object, scalar: bool, i: int) -> None:
        state = frame.state
        if not frame.is_mapping:
            if state != _WANTS_ENTRY:
                self._expected(i, frame)
            frame.container.append(value)
            frame.state = _HAS_ITEM
        elif state == _WANTS_ENTRY:
            if not scalar:
                self.fail(i, "mapping keys must be plain or quoted scalars")
            seen = frame.seen
            if value in seen:
                self.fail(i, f"duplicate key {value!r} (first defined on line "
                             f"{seen[value] + self.base})")
            seen[value] = i
            frame.key = value
            frame.state = _HAS_KEY
            frame.key_line = i
        elif state == _HAS_COLON:
            frame.container[frame.key] = value
            frame.state = _HAS_VALUE
        else:
            self._expected(i, frame)

    def _expected(self, i: int, frame: _Frame):
        if frame.is_mapping:
            want = "`:`, `,` or `}`" if frame.state == _HAS_KEY else "`,` or `}`"
        else:
            want = "`,` or `]`"
        self.fail(i, f"expected {want} in a flow collection")

    def _unterminated(self, stack: list[_Frame], dedent: bool):
        frame = stack[0]
        kind, close = ("mapping", "}") if frame.is_mapping else ("sequence", "]")
        hint = ("; lines inside a flow collection must be indented more than its key"
                if dedent else "")
        self.fail(frame.opened, f"unterminated flow {kind} (missing `{close}`{hint})")
