"""The compiler: one schema document into :class:`~.nodes.Node` closures.

Every ``$id``/``$anchor`` is indexed first (:mod:`.refs`), then the document
is compiled from the root, each location once (keyed by its pointer).
:class:`Compiler` holds the dispatch, the per-type check tables, the
``$ref`` cycle refusal and the checks of keyword values; the keywords
themselves come from the families it is composed of.
"""

from __future__ import annotations

import re

from ..ecma_regex import compile_pattern
from .applicators import ApplicatorKeywords
from .arrays import ArrayKeywords
from .instances import JSON_TYPES, NUMBER_TYPES, NoneType, base_type, escape_token, json_pointer, json_type_name, show
from .limits import LimitKeywords
from .nodes import Keyword, Node, always_valid, collect_nothing, conjoin, never_valid
from .objects import ObjectKeywords
from .refs import ANCHOR_PATTERN, ReferenceIndex
from .report import SchemaError, Violation
from .strings import StringKeywords
from .vocabularies import dialect_of, did_you_mean, standard


class Compiler(ReferenceIndex, ApplicatorKeywords, LimitKeywords, StringKeywords, ArrayKeywords,
                ObjectKeywords):
    """Turns one schema document into Nodes: index every $id/$anchor first,
    then compile from the root, each location once (keyed by its pointer)."""

    def __init__(self, schema, source, *, registry=None, uri: str = "", formats: bool = False,
                 unknown: str = "error") -> None:
        if unknown not in ("error", "ignore"):
            raise ValueError(f"unknown_keywords must be 'error' or 'ignore', not {unknown!r}")
        self.schema = schema
        self.source = source
        self.uri = uri.partition("#")[0]                    # the document's retrieval URI ("" if none)
        self.registry = registry                            # a Registry, made on first use if None
        self.formats = formats
        self.unknown = unknown
        self.default_dialect = standard(formats=formats, unknown=unknown)
        self.located: dict[str, tuple[object, str]] = {}  # pointer -> (schema, base URI)
        self.resources: dict[str, str] = {}                 # absolute URI -> pointer
        self.anchors: dict[str, str] = {}                   # URI#anchor -> pointer
        self.dynamic_anchors: dict[str, dict[str, str]] = {}  # name -> {resource URI: pointer}
        self.dialects: dict = {}                            # resource URI -> Dialect
        self.references: list[tuple[str, str]] = []         # every ($ref, base) seen, for preloading
        self.dynamic = False                                # is $dynamicRef anywhere?
        self.scope = None                                   # the dynamic scope, if dynamic
        self.nodes: dict[str, Node] = {}
        self._on_path: set[int] = set()

    def dialect(self, uri: str, where: str):
        return dialect_of(uri, self.lookup, lambda message: self.fail(where, message),
                          formats=self.formats, unknown=self.unknown)

    def lookup(self, uri: str):
        """The registry's document for *uri* (or None); the shipped metaschemas are always there."""
        if self.registry is None:
            from .registry import Registry  # lazy: only references that leave the document need it
            self.registry = Registry()
        return self.registry.get(uri)

    # -- the keywords whose machinery only some schemas need -------------------

    def kw_format(self, node, schema, base, where):
        from .formats import format_keyword  # lazy: only asserted formats need the checkers
        return format_keyword(self, node, schema, base, where)

    def kw_dynamicRef(self, node, schema, base, where):
        from .dynamic import dynamic_ref  # lazy: only schemas with $dynamicRef need the dynamic scope
        return dynamic_ref(self, node, schema, base, where)

    def kw_unevaluatedProperties(self, node, schema, base, where):
        from .annotations import unevaluated_properties  # lazy: only unevaluated* needs annotations
        return unevaluated_properties(self, node, schema, base, where)

    def kw_unevaluatedItems(self, node, schema, base, where):
        from .annotations import unevaluated_items  # lazy: only unevaluated* needs annotations
        return unevaluated_items(self, node, schema, base, where)

    def enter(self, target, base):
        """check, collect and annotate of *target* as a reference from a location
        in resource *base* reaches it (entering its resource when $dynamicRef is in play)."""
        check, collect, annotate = target.checker(), target.collector(), target.annotate
        if self.dynamic:
            resource = self.located[target.pointer][1]
            if resource != base:
                from .dynamic import scoped  # lazy: only schemas with $dynamicRef keep a scope
                return scoped(resource, self.scope, check, collect, annotate)
        return check, collect, annotate

    # -- errors --------------------------------------------------------------

    def fail(self, pointer: str, message: str) -> SchemaError:
        if pointer and pointer[0] != "/" and self.registry is not None:  # in a registry document: name its file
            uri, _, fragment = pointer.partition("#")
            source = self.registry.source(uri)
            if source is not None:
                return SchemaError(message, file=source, field=fragment or "/")
        return SchemaError(message, file=self.source, field=pointer or "/")

    # -- compiling -------------------------------------------------------------

    def compile(self) -> Node:
        self.resources[self.uri] = ""  # the document itself, by its retrieval URI ("" if none)
        self.index(self.schema, "", self.uri)
        self.load_referenced()
        if self.dynamic:
            from .dynamic import new_scope  # lazy: only schemas with $dynamicRef keep a scope
            self.scope = new_scope()
        root = self.node("")
        self.reject_cycles()
        return root

    def node(self, pointer: str) -> Node:
        node = self.nodes.get(pointer)
        if node is None:
            node = self.nodes[pointer] = Node(pointer)
            schema, base = self.located[pointer]
            self.build(node, schema, base)
        return node

    def child(self, schema, pointer: str, base: str) -> Node:
        if pointer not in self.located:
            self.index(schema, pointer, base)
        return self.node(pointer)

    def build(self, node: Node, schema, base: str) -> None:
        pointer = node.pointer
        if schema is True:
            node.check, node.collect = always_valid, collect_nothing
            return
        if schema is False:
            def collect_false(value, path, out):
                out.append(Violation(json_pointer(path), pointer,
                                     f"{show(value)} is not allowed here (the schema is false)"))
            node.check, node.collect = never_valid, collect_false
            return
        if not isinstance(schema, dict):
            raise self.fail(pointer, f"a schema must be an object or a boolean, not {json_type_name(schema)}")
        if "$id" in schema and not isinstance(schema["$id"], str):
            raise self.fail(pointer + "/$id", "$id must be a string")
        for name in ("$anchor", "$dynamicAnchor"):
            anchor = schema.get(name)
            if anchor is not None and not (isinstance(anchor, str) and re.fullmatch(ANCHOR_PATTERN, anchor)):
                raise self.fail(f"{pointer}/{name}", f"{name} must be a plain name, not {show(anchor)}")

        dialect = self.dialects.get(base, self.default_dialect)
        active = dialect.active
        keywords: list[Keyword] = []
        allowed = None
        for keyword in schema:
            method = _KEYWORDS.get(keyword)
            if method is None or keyword not in active:
                if dialect.refuses(keyword):
                    raise self.fail(f"{pointer}/{escape_token(keyword)}", f"unknown keyword {keyword!r}: no vocabulary "
                                    f"of the dialect defines it{did_you_mean(keyword)}")
                continue  # annotations, keywords of vocabularies the dialect leaves out
            if keyword == "format" and not dialect.formats:
                continue
            compiled = method(self, node, schema, base, f"{pointer}/{escape_token(keyword)}")
            if compiled is None:
                continue
            if keyword == "type":
                allowed = compiled.kinds
                compiled.kinds = None
            keywords.append(compiled)
        if "$defs" in schema:  # compiled even when unused, so that their errors surface now
            self.subschema_map(node, schema, "$defs", f"{pointer}/$defs", base)

        node.keywords = tuple(keywords)
        node.check = self.assemble_check(keywords, allowed)
        node.collect = self.assemble_collect(keywords)
        if self.dynamic and self.resources.get(base) == pointer:  # a resource root enters the dynamic scope
            from .dynamic import scoped  # lazy: only schemas with $dynamicRef keep a scope
            node.scope = (base, self.scope)
            node.check, node.collect, _ = scoped(base, self.scope, node.check, node.collect, None)

    @staticmethod
    def assemble_check(keywords, allowed):
        ordered = sorted(keywords, key=lambda k: k.cost)
        integer_floats = allowed is not None and int in allowed and float not in allowed
        table = {}
        for kind in (str, int, float, bool, NoneType, list, dict):
            checks = [k.check for k in ordered if k.kinds is None or kind in k.kinds]
            if allowed is not None and kind not in allowed:
                if kind is float and integer_floats:
                    checks.insert(0, float.is_integer)
                else:
                    checks = [never_valid]
            table[kind] = conjoin(checks)
        first = table[str]
        if all(check is first for check in table.values()):
            return first  # no type-specific keywords: skip the dispatch
        lookup = table.get

        def fallback(value):
            return table[base_type(value)](value)

        def check(value):
            return lookup(type(value), fallback)(value)
        return check

    @staticmethod
    def assemble_collect(keywords):
        steps = tuple((k.kinds, k.collect) for k in keywords if k.collect is not collect_nothing)
        if not steps:
            return collect_nothing

        def collect(value, path, out):
            kind = type(value)
            if kind not in JSON_TYPES:
                kind = base_type(value)
            for kinds, step in steps:
                if kinds is None or kind in kinds:
                    step(value, path, out)
        return collect

    # -- cycle detection -------------------------------------------------------

    def reject_cycles(self) -> None:
        """Refuse $ref cycles that re-apply a schema to the same instance forever."""
        state: dict[int, int] = {}  # id(node) -> 1 on the stack, 2 done
        for start in list(self.nodes.values()):
            if id(start) in state:
                continue
            stack = [(start, iter(start.inplace))]
            trail = [start]
            state[id(start)] = 1
            while stack:
                node, children = stack[-1]
                for child in children:
                    mark = state.get(id(child))
                    if mark == 1:
                        loop = trail[trail.index(child):] + [child]
                        chain = " -> ".join("#" + n.pointer for n in loop)
                        raise self.fail(child.pointer, f"$ref cycle that never descends into the instance: {chain}")
                    if mark is None:
                        state[id(child)] = 1
                        stack.append((child, iter(child.inplace)))
                        trail.append(child)
                        break
                else:
                    state[id(node)] = 2
                    stack.pop()
                    trail.pop()

    # -- keyword value checks --------------------------------------------------

    def count(self, schema, keyword, where) -> int:
        value = schema[keyword]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if type(value) is not int or value < 0:
            raise self.fail(where, f"{keyword} must be a non-negative integer, not {show(value)}")
        return value

    def number(self, schema, keyword, where):
        value = schema[keyword]
        if type(value) not in NUMBER_TYPES:
            raise self.fail(where, f"{keyword} must be a number, not {show(value)}")
        return value

    def subschema(self, node, schema, keyword, where, base, *, inplace=False) -> Node:
        value = schema[keyword]
        if not isinstance(value, (dict, bool)):
            raise self.fail(where, f"{keyword} must be a schema (an object or a boolean), not {show(value)}")
        sub = self.child(value, where, base)
        if inplace:
            node.inplace.append(sub)
        return sub

    def subschema_list(self, node, schema, keyword, where, base, *, inplace=False) -> list[Node]:
        value = schema[keyword]
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"{keyword} must be a non-empty array of schemas")
        subs = []
        for position, member in enumerate(value):
            if not isinstance(member, (dict, bool)):
                raise self.fail(f"{where}/{position}", f"{keyword} entries must be schemas, not {show(member)}")
            subs.append(self.child(member, f"{where}/{position}", base))
        if inplace:
            node.inplace.extend(subs)
        return subs

    def subschema_map(self, node, schema, keyword, where, base, *, inplace=False) -> dict[str, Node]:
        value = schema[keyword]
        if not isinstance(value, dict):
            raise self.fail(where, f"{keyword} must be an object whose values are schemas")
        subs = {}
        for name, member in value.items():
            if not isinstance(member, (dict, bool)):
                raise self.fail(f"{where}/{escape_token(name)}", f"{keyword} values must be schemas, not {show(member)}")
            subs[name] = self.child(member, f"{where}/{escape_token(name)}", base)
        if inplace:
            node.inplace.extend(subs.values())
        return subs

    def pattern(self, source: str, where: str) -> re.Pattern:
        try:
            return compile_pattern(source)
        except re.error as err:
            unicode_property = "\\p" in source or "\\P" in source
            hint = (" (of the Unicode property escapes, only General_Category ones such as \\p{L} or "
                    "\\p{Letter} are supported)") if unicode_property else ""
            raise self.fail(where, f"pattern '{source}' cannot be compiled: {err}{hint}") from None
        except RecursionError:
            raise self.fail(where, f"pattern '{source}' is too complex to compile") from None


def _grouped(keyword, leader):
    """Compile a keyword evaluated with others only once per schema, at the
    position of whichever of them comes first."""
    def method(self, node, schema, base, where):
        if next(k for k in schema if k in keyword) != where.rpartition("/")[2]:
            return None
        return leader(self, node, schema, base, where)
    return method


_KEYWORDS = {name[3:]: getattr(Compiler, name) for name in dir(Compiler) if name.startswith("kw_")}
_KEYWORDS["$ref"] = _KEYWORDS.pop("ref")
_KEYWORDS["$dynamicRef"] = _KEYWORDS.pop("dynamicRef")
_PROPERTY_GROUP = ("properties", "patternProperties", "additionalProperties")
_KEYWORDS.update({name: _grouped(_PROPERTY_GROUP, Compiler.kw_properties) for name in _PROPERTY_GROUP})
