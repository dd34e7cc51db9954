"""``pattern``: an ECMA-262 regular expression a string must match.  A part of the compiler."""

from __future__ import annotations

from .instances import json_pointer, show
from .nodes import STRINGS, Keyword
from .report import Violation


class StringKeywords:
    __slots__ = ()

    def kw_pattern(self, node, schema, base, where):
        source = schema["pattern"]
        if not isinstance(source, str):
            raise self.fail(where, f"pattern must be a string, not {show(source)}")
        search = self.pattern(source, where).search

        def check(value):
            return search(value) is not None

        def collect(value, path, out):
            if search(value) is None:
                out.append(Violation(json_pointer(path), where, f"{show(value)} does not match '{source}'"))
        return Keyword(STRINGS, 1, check, collect)
