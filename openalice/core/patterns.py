"""Regular expressions compiled when first used.

Why: compiling a pattern costs about 0.2 ms, and the modules a verb loads
declare dozens it never uses (33 for ``alice-schedule health``: 7 ms, two
thirds of a bare interpreter's start).  :func:`compile` returns a stand-in
that compiles on first use and then keeps the compiled pattern's own bound
methods in its ``__dict__``, so a hot loop pays one attribute lookup, as it
does with the real pattern.

A stand-in is not an ``re.Pattern``: hand ``re`` functions ``.compiled()``.
"""

from __future__ import annotations

__all__ = ["LazyPattern", "compile"]

_HANDED_OUT = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer",
               "pattern", "flags", "groups", "groupindex")


class LazyPattern:
    """``re.compile(pattern, flags)``, done at the first attribute asked for."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def compiled(self):
        """The compiled ``re.Pattern``."""
        done = self.__dict__.get("_compiled")
        if done is None:
            import re  # lazy: the point of this module

            done = re.compile(*self._source)
            self.__dict__.update({name: getattr(done, name) for name in _HANDED_OUT}, _compiled=done)
        return done

    def __getattr__(self, name: str):
        # Called only for names not in __dict__: the first use of each method.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r})"


def compile(pattern: str, flags: int = 0) -> LazyPattern:
    """A pattern compiled at its first use (see the module doc)."""
    return LazyPattern(pattern, flags)
