"""``$dynamicRef`` / ``$dynamicAnchor`` and the dynamic scope.  A part of the compiler.

A ``$dynamicRef`` first resolves like ``$ref``.  When that target is a
``$dynamicAnchor`` of the same name, the reference instead goes to the
outermost schema resource in the dynamic scope (the resources evaluation has
entered, outermost first) that defines a ``$dynamicAnchor`` of that name.

The scope is kept only when the compiled documents use ``$dynamicRef`` at all
(``self.dynamic``, known before compiling): then each schema resource pushes
its URI while it is evaluated, on a per-thread stack, and a ``$ref`` into
another resource pushes that one's.  Schemas without ``$dynamicRef`` compile
to the same closures as before and pay nothing.
"""

from __future__ import annotations

from .instances import show
from .nodes import Keyword

_SCOPE_CLASS = None


def new_scope():
    """A per-thread dynamic scope: ``.uris``, the resources entered, outermost first."""
    global _SCOPE_CLASS
    if _SCOPE_CLASS is None:
        import threading  # lazy: only schemas with $dynamicRef keep a scope

        class _Scope(threading.local):
            def __init__(self) -> None:
                self.uris: list[str] = []
        _SCOPE_CLASS = _Scope
    return _SCOPE_CLASS()


def scoped(uri: str, stack, check, collect, annotate):
    """The three forms of a location, pushing *uri* on the dynamic scope around each."""
    def scoped_check(value):
        uris = stack.uris
        uris.append(uri)
        try:
            return check(value)
        finally:
            uris.pop()

    def scoped_collect(value, path, out):
        uris = stack.uris
        uris.append(uri)
        try:
            collect(value, path, out)
        finally:
            uris.pop()

    def scoped_annotate(value, props, items):
        uris = stack.uris
        uris.append(uri)
        try:
            return annotate(value, props, items)
        finally:
            uris.pop()
    return scoped_check, scoped_collect, scoped_annotate


def dynamic_ref(self, node, schema, base, where):
    """The compiled ``$dynamicRef`` of *node* (``self`` is the compiler)."""
    ref = schema["$dynamicRef"]
    if not isinstance(ref, str):
        raise self.fail(where, f"$dynamicRef must be a string, not {show(ref)}")
    pointer = self.resolve(ref, base, where)
    target = self.node(pointer)
    node.inplace.append(target)
    name = ref.rpartition("#")[2] if "#" in ref else ""
    anchors = self.dynamic_anchors.get(name, {}) if name and not name.startswith("/") else {}
    if self.located[pointer][1] not in anchors or anchors.get(self.located[pointer][1]) != pointer:
        # not (bookended by) a $dynamicAnchor: exactly a $ref
        check, collect, annotate = self.enter(target, base)
        return Keyword(None, 2, check, collect, lambda value, props, items: annotate(value, props, items))
    candidates = {}
    for resource, anchor_pointer in anchors.items():
        candidate = self.node(anchor_pointer)
        node.inplace.append(candidate)
        candidates[resource] = self.enter(candidate, base)
    fallback = self.enter(target, base)
    stack = self.scope

    def pick():
        for uri in stack.uris:
            chosen = candidates.get(uri)
            if chosen is not None:
                return chosen
        return fallback

    def check(value):
        return pick()[0](value)

    def collect(value, path, out):
        pick()[1](value, path, out)

    def annotate(value, props, items):
        pick()[2](value, props, items)
    return Keyword(None, 2, check, collect, annotate)
