"""The compiled forms: a schema location (:class:`Node`), a keyword
(:class:`Keyword`) and how boolean checks combine."""

from __future__ import annotations


def always_valid(value) -> bool:
    return True


def never_valid(value) -> bool:
    return False


def collect_nothing(value, path, out) -> None:
    return None


def conjoin(checks):
    checks = [c for c in checks if c is not always_valid]
    if any(c is never_valid for c in checks):
        return never_valid
    if not checks:
        return always_valid
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)
    if len(checks) == 3:
        first, second, third = checks
        return lambda value: first(value) and second(value) and third(value)
    checks = tuple(checks)

    def conjunction(value):
        for check in checks:
            if not check(value):
                return False
        return True
    return conjunction


class Node:
    """One compiled schema location; ``check`` is None while it is being compiled.

    ``keywords`` are its compiled keywords; ``annotate`` (built on first use,
    only for schemas with ``unevaluated*``) adds the property names and item
    indexes it evaluates to two sets.  ``scope`` is the URI of the schema
    resource it starts when ``$dynamicRef`` is in play (else None)."""

    __slots__ = ("pointer", "check", "collect", "inplace", "keywords", "scope", "_annotate")

    def __init__(self, pointer: str) -> None:
        self.pointer = pointer
        self.check = None
        self.collect = None
        self.inplace: list[Node] = []  # subschemas applied to the same instance (for cycle detection)
        self.keywords: tuple = ()
        self.scope = None
        self._annotate = None

    def checker(self):
        """This node's check, or a late-bound stand-in while it is still compiling."""
        if self.check is not None:
            return self.check
        node = self
        return lambda value: node.check(value)

    def collector(self):
        if self.collect is not None:
            return self.collect
        node = self
        return lambda value, path, out: node.collect(value, path, out)

    def annotate(self, value, props: set, items: set) -> bool:
        """Validate *value*; when valid, add what this location evaluated of it
        (property names to *props*, item indexes to *items*)."""
        annotate = self._annotate
        if annotate is None:
            from .annotations import annotator  # lazy: only unevaluated* needs annotations
            annotate = self._annotate = annotator(self)
        return annotate(value, props, items)


class Keyword:
    """A compiled keyword: the instance types it applies to (None: all), how
    expensive it is (cheap checks run first), a checker and an error collector."""

    __slots__ = ("kinds", "cost", "check", "collect", "annotate")

    def __init__(self, kinds, cost, check, collect, annotate=None) -> None:
        self.kinds = kinds
        self.cost = cost
        self.check = check
        self.collect = collect
        self.annotate = annotate  # (value, props, items) -> None, for a valid value; None: no annotations


STRINGS, NUMBERS, ARRAYS, OBJECTS = (str,), (int, float), (list,), (dict,)
