"""``unevaluatedProperties`` and ``unevaluatedItems``, and the annotations they read.
A part of the compiler.

A location *evaluates* a property name or an item index when one of its
keywords applied a subschema to it: ``properties``/``patternProperties``/
``additionalProperties``, ``prefixItems``/``items``/``contains``, a nested
``unevaluated*``, and, through the in-place applicators (``allOf``, ``anyOf``,
``oneOf``, ``if``/``then``/``else``, ``dependentSchemas``, ``$ref``,
``$dynamicRef``; never ``not``), whatever their subschemas evaluated, counted
only for the subschemas the instance is valid against.

Each compiled keyword may carry an ``annotate(value, props, items)`` that adds
those names and indexes to two sets; :meth:`~.nodes.Node.annotate` builds a
location's on first use.  Only an ``unevaluated*`` keyword ever asks, so a
schema without one never runs any of this: its checks are the same closures
as before.
"""

from __future__ import annotations

from .instances import json_pointer, show
from .nodes import ARRAYS, OBJECTS, Keyword, never_valid
from .report import Violation


def annotator(node):
    """``annotate(value, props, items) -> bool`` for a compiled location."""
    check = node.check
    steps = tuple(k.annotate for k in node.keywords if k.annotate is not None)
    if not steps:
        return lambda value, props, items: check(value)

    def annotate(value, props, items):
        if not check(value):
            return False
        for step in steps:
            step(value, props, items)
        return True
    if node.scope is not None:
        from .dynamic import scoped  # lazy: only with $dynamicRef in play
        uri, stack = node.scope
        annotate = scoped(uri, stack, check, None, annotate)[2]
    return annotate


def _siblings(node, me):
    """What the other keywords of *node* evaluate of a value (built on first use,
    once the node's keywords are all compiled)."""
    steps = None

    def evaluated(value):
        nonlocal steps
        if steps is None:
            steps = tuple(k.annotate for k in node.keywords if k.annotate is not None and k is not me[0])
        props: set = set()
        items: set = set()
        for step in steps:
            step(value, props, items)
        return props, items
    return evaluated


def unevaluated_properties(self, node, schema, base, where):
    sub = self.subschema(node, schema, "unevaluatedProperties", where, base)
    inner, step = sub.checker(), sub.collector()
    me: list = []
    evaluated = _siblings(node, me)

    def check(value):
        seen = evaluated(value)[0]
        for name, item in value.items():
            if name not in seen and not inner(item):
                return False
        return True

    def collect(value, path, out):
        seen = evaluated(value)[0]
        for name, item in value.items():
            if name in seen:
                continue
            if inner is never_valid:
                out.append(Violation(json_pointer(path + (name,)), where, f"unevaluated property {show(name)}"))
            else:
                step(item, path + (name,), out)

    def annotate(value, props, items):
        if isinstance(value, dict):
            props.update(value)
    keyword = Keyword(OBJECTS, 3, check, collect, annotate)
    me.append(keyword)
    return keyword


def unevaluated_items(self, node, schema, base, where):
    sub = self.subschema(node, schema, "unevaluatedItems", where, base)
    inner, step = sub.checker(), sub.collector()
    me: list = []
    evaluated = _siblings(node, me)

    def check(value):
        seen = evaluated(value)[1]
        for position, item in enumerate(value):
            if position not in seen and not inner(item):
                return False
        return True

    def collect(value, path, out):
        seen = evaluated(value)[1]
        for position, item in enumerate(value):
            if position in seen:
                continue
            if inner is never_valid:
                out.append(Violation(json_pointer(path + (position,)), where, f"unevaluated item at index {position}"))
            else:
                step(item, path + (position,), out)

    def annotate(value, props, items):
        if isinstance(value, (list, tuple)):
            items.update(range(len(value)))
    keyword = Keyword(ARRAYS, 3, check, collect, annotate)
    me.append(keyword)
    return keyword
