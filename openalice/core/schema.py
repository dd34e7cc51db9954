"""JSON Schema (draft 2020-12) validation, standard library only.

    validator = Validator(schema, source="spec/issue.schema.json")
    validator.is_valid(document)            # fast yes/no
    validator.errors(document)              # every Violation, in a stable order
    validator.validate(document, file=path) # raises InvalidInput(code="schema_violation")

A schema is compiled once into closures: one boolean checker per schema
location (dispatching on the instance's Python type, so ``type`` costs a dict
lookup) and one error collector used only when a message is needed.  ``$ref``
is resolved within the document at construction time; a reference that
leaves the document, a bad pattern or a ``$ref`` cycle that never descends
into the instance raises :class:`SchemaError` then, not during validation.

Instances are JSON values as ``json.load`` returns them (dict, list, str,
int, float, bool, None; subclasses and tuples are accepted).  ``bool`` is
never a number, ``1.0`` is an integer, and ``enum``/``const``/``uniqueItems``
compare by JSON type (``1 != true``, ``{"a": 1} == {"a": 1.0}``).
``pattern`` follows ECMA-262 where Python's ``re`` differs; see
``docs/schema.md``.
"""

from __future__ import annotations

import operator
import re
from functools import partial

from openalice.core.ecma_regex import compile_pattern
from openalice.core.errors import InvalidInput

__all__ = ["SchemaError", "Violation", "Validator"]


class SchemaError(InvalidInput):
    """The schema itself is unusable: a bad keyword value or regex, a
    ``$ref`` that cannot be resolved inside the document, or a ``$ref`` cycle."""

    default_code = "schema_error"


class Violation(tuple):
    """One reason an instance fails its schema: ``(instance_path, keyword_path,
    message)``.  ``instance_path`` is a JSON pointer into the instance ("" for
    the root), ``keyword_path`` one to the failing keyword in the schema.

    A tuple subclass rather than a dataclass: importing ``dataclasses`` (and
    with it ``inspect``) would cost more than the rest of this module, and the
    validator sits on start-up paths.
    """

    __slots__ = ()

    def __new__(cls, instance_path: str, keyword_path: str, message: str) -> "Violation":
        return tuple.__new__(cls, (instance_path, keyword_path, message))

    instance_path = property(lambda self: self[0])
    keyword_path = property(lambda self: self[1])
    message = property(lambda self: self[2])

    def __repr__(self) -> str:
        return (f"Violation(instance_path={self[0]!r}, keyword_path={self[1]!r}, "
                f"message={self[2]!r})")


class Validator:
    """A schema compiled for repeated validation."""

    __slots__ = ("schema", "source", "_check", "_collect")

    def __init__(self, schema: dict | bool, *, source: str | None = None) -> None:
        self.schema = schema
        self.source = source
        if not isinstance(schema, (dict, bool)):
            raise SchemaError(f"a schema must be a JSON object or a boolean, not {_json_type_name(schema)}",
                              file=source, field="/")
        try:
            root = _Compiler(schema, source).compile()
        except RecursionError:
            raise SchemaError("the schema is nested too deeply to compile", file=source, field="/") from None
        self._check = root.check
        self._collect = root.collect

    def __repr__(self) -> str:
        return f"Validator(source={self.source!r})"

    def is_valid(self, instance) -> bool:
        """True if *instance* satisfies the schema (stops at the first failure)."""
        try:
            return self._check(instance)
        except RecursionError:
            raise _too_deep(instance, None) from None

    def errors(self, instance) -> list[Violation]:
        """Every violation, in schema keyword order (deterministic); [] if valid."""
        found: list[Violation] = []
        try:
            self._collect(instance, (), found)
        except RecursionError:
            raise _too_deep(instance, None) from None
        return found

    def validate(self, instance, *, file=None) -> None:
        """Raise ``InvalidInput(code="schema_violation")`` unless *instance* is valid.

        ``field`` is the instance path of the first violation ("/" for the root);
        ``details["violations"]`` lists all of them.
        """
        try:
            if self._check(instance):
                return
            found: list[Violation] = []
            self._collect(instance, (), found)
        except RecursionError:
            raise _too_deep(instance, file) from None
        if not found:  # the two compiled forms disagree: a bug, but never pass silently
            found = [Violation("", "", "the value does not match the schema")]
        first = found[0]
        raise InvalidInput(
            first.message, code="schema_violation", file=file, field=first.instance_path or "/",
            details={"violations": [{"path": v.instance_path, "keyword": v.keyword_path, "message": v.message}
                                    for v in found]})


# ---------------------------------------------------------------------------
# Instances: JSON types, equality, rendering

_NoneType = type(None)
_JSON_TYPES = frozenset((str, int, float, bool, _NoneType, list, dict))
_NUMBER = (int, float)
_TYPE_NAMES = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "null": (_NoneType,), "array": (list,), "object": (dict,),
}
_MISSING = object()


def _base_type(value) -> type:
    """The JSON Python type a subclass (or a tuple) stands for."""
    if isinstance(value, bool):
        return bool
    for base in (int, float, str, dict, list):
        if isinstance(value, base):
            return base
    if isinstance(value, tuple):
        return list
    raise TypeError(f"cannot validate a {type(value).__name__}: it is not a JSON value")


def _json_type_name(value) -> str:
    try:
        base = type(value) if type(value) in _JSON_TYPES else _base_type(value)
    except TypeError:
        return type(value).__name__
    if base is float and value.is_integer():
        return "integer"
    return {str: "string", int: "integer", float: "number", bool: "boolean", _NoneType: "null",
            list: "array", dict: "object"}[base]


def _freeze(value):
    """A hashable key equal for JSON-equal values and only for them.

    Strings and numbers stand for themselves (1 and 1.0 hash and compare
    equal, as JSON wants); booleans are tagged so that true != 1.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or value is None:
        return value
    if kind is bool:
        return ("b", value)
    if kind is list or kind is tuple:
        return ("l", tuple(map(_freeze, value)))
    if kind is dict:
        return ("o", frozenset((k, _freeze(v)) for k, v in value.items()))
    return _freeze(_base_type(value)(value))


def _show(value, depth: int = 0) -> str:
    """A short rendering of an instance value for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 60 else repr(value[:57]) + "..."
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if depth >= 2:
            return "[...]"
        parts = [_show(item, depth + 1) for item in value[:3]]
        if len(value) > 3:
            parts.append("...")
        return "[" + ", ".join(parts) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        if depth >= 2:
            return "{...}"
        parts = [f"{_show(k, 2)}: {_show(v, depth + 1)}" for k, v in list(value.items())[:3]]
        if len(value) > 3:
            parts.append("...")
        return "{" + ", ".join(parts) + "}"
    return repr(value)


def _escape(token) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def _pointer(path: tuple) -> str:
    return "".join("/" + _escape(token) for token in path)


def _too_deep(instance, file) -> InvalidInput:
    depth, stack = 0, [(instance, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list, tuple)):
            depth = max(depth, level)
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, level + 1) for child in children)
    return InvalidInput(f"the value is nested too deeply to validate ({depth} levels)",
                        code="too_deep", file=file, field="/")


# ---------------------------------------------------------------------------
# URIs and JSON pointers inside one document

_ANCHOR = r"[A-Za-z_][-A-Za-z0-9._]*"


def _has_scheme(ref: str) -> bool:
    scheme, colon, _ = ref.partition(":")
    return bool(colon) and scheme[:1].isalpha() and scheme.isascii() \
        and all(c.isalnum() or c in "+.-" for c in scheme)


def _join(base: str, ref: str) -> str:
    """RFC 3986 resolution; urljoin alone drops a fragment-only ref against a URN base."""
    if ref.startswith("#"):
        return base.partition("#")[0] + ref
    if not base or _has_scheme(ref):
        return ref
    from urllib.parse import urljoin
    return urljoin(base, ref)


# Keywords whose values are subschemas (used to find $id and $anchor).
_ONE_SCHEMA = ("additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
               "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_SCHEMA_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")
_SCHEMA_LIST = ("prefixItems", "allOf", "anyOf", "oneOf")


# ---------------------------------------------------------------------------
# Compilation

def _true(value) -> bool:
    return True


def _false(value) -> bool:
    return False


def _collect_nothing(value, path, out) -> None:
    return None


def _conjoin(checks):
    checks = [c for c in checks if c is not _true]
    if any(c is _false for c in checks):
        return _false
    if not checks:
        return _true
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


class _Node:
    """One compiled schema location; ``check`` is None while it is being compiled."""

    __slots__ = ("pointer", "check", "collect", "inplace")

    def __init__(self, pointer: str) -> None:
        self.pointer = pointer
        self.check = None
        self.collect = None
        self.inplace: list[_Node] = []  # subschemas applied to the same instance (for cycle detection)

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


class _Keyword:
    """A compiled keyword: the instance types it applies to (None: all), how
    expensive it is (cheap checks run first), a checker and an error collector."""

    __slots__ = ("kinds", "cost", "check", "collect")

    def __init__(self, kinds, cost, check, collect) -> None:
        self.kinds = kinds
        self.cost = cost
        self.check = check
        self.collect = collect


_STR, _NUM, _ARR, _OBJ = (str,), (int, float), (list,), (dict,)


class _Compiler:
    """Turns one schema document into _Nodes: index every $id/$anchor first,
    then compile from the root, each location once (keyed by its pointer)."""

    def __init__(self, schema, source) -> None:
        self.schema = schema
        self.source = source
        self.located: dict[str, tuple[object, str]] = {}  # pointer -> (schema, base URI)
        self.resources: dict[str, str] = {}                 # absolute URI -> pointer
        self.anchors: dict[str, str] = {}                   # URI#anchor -> pointer
        self.nodes: dict[str, _Node] = {}
        self._on_path: set[int] = set()

    # -- errors --------------------------------------------------------------

    def fail(self, pointer: str, message: str) -> SchemaError:
        return SchemaError(message, file=self.source, field=pointer or "/")

    # -- indexing: base URIs, $id resources, $anchor names --------------------

    def index(self, schema, pointer: str, base: str) -> None:
        if isinstance(schema, dict):
            if id(schema) in self._on_path:
                raise self.fail(pointer, "the schema contains itself (a cycle of Python objects)")
            self._on_path.add(id(schema))
            schema_id = schema.get("$id")
            if isinstance(schema_id, str):
                uri, _, fragment = _join(base, schema_id).partition("#")
                if fragment:
                    raise self.fail(pointer + "/$id", f"$id {schema_id!r} must not have a fragment; use $anchor")
                if self.resources.get(uri, pointer) != pointer:
                    raise self.fail(pointer + "/$id", f"$id {uri!r} is used twice in the document")
                self.resources[uri] = pointer
                base = uri
            anchor = schema.get("$anchor")
            if isinstance(anchor, str):
                key = base + "#" + anchor
                if self.anchors.get(key, pointer) != pointer:
                    raise self.fail(pointer + "/$anchor",
                                    f"$anchor {anchor!r} is defined twice in {base or 'the document'}")
                self.anchors[key] = pointer
        self.located.setdefault(pointer, (schema, base))
        if not isinstance(schema, dict):
            return
        for keyword in _ONE_SCHEMA:
            if keyword in schema:
                self.index(schema[keyword], f"{pointer}/{_escape(keyword)}", base)
        for keyword in _SCHEMA_MAP:
            members = schema.get(keyword)
            if isinstance(members, dict):
                for name, member in members.items():
                    self.index(member, f"{pointer}/{_escape(keyword)}/{_escape(name)}", base)
        for keyword in _SCHEMA_LIST:
            members = schema.get(keyword)
            if isinstance(members, list):
                for position, member in enumerate(members):
                    self.index(member, f"{pointer}/{keyword}/{position}", base)
        self._on_path.discard(id(schema))

    # -- $ref resolution -------------------------------------------------------

    def resolve(self, ref: str, base: str, where: str) -> str:
        """The document pointer that *ref* (seen at *where*) names."""
        uri = _join(base, ref)
        resource, _, fragment = uri.partition("#")
        start = self.resources.get(resource)
        if start is None:
            raise self.fail(where, f"cannot resolve $ref {ref!r}: {uri!r} is not inside this schema "
                                   "document (remote references are not supported)")
        if not fragment:
            return start
        if not fragment.startswith("/"):
            target = self.anchors.get(resource + "#" + fragment)
            if target is None:
                raise self.fail(where, f"cannot resolve $ref {ref!r}: no $anchor {fragment!r} "
                                       f"in {resource or 'the root schema'}")
            return target
        from urllib.parse import unquote
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in unquote(fragment)[1:].split("/")]
        target = start + "".join("/" + _escape(t) for t in tokens)
        if target in self.located:
            return target
        value, enclosing = self.located[start]
        for token in tokens:
            container_base = enclosing
            if isinstance(value, dict) and token in value:
                value = value[token]
            elif isinstance(value, list) and token.isdigit() and (token == "0" or token[0] != "0") \
                    and int(token) < len(value):
                value = value[int(token)]
            else:
                raise self.fail(where, f"cannot resolve $ref {ref!r}: {token!r} not found in the schema")
            if isinstance(value, dict) and isinstance(value.get("$id"), str):
                enclosing = _join(enclosing, value["$id"]).partition("#")[0]
        self.index(value, target, container_base)
        return target

    # -- compiling -------------------------------------------------------------

    def compile(self) -> _Node:
        self.resources[""] = ""  # the document itself, when it has no $id
        self.index(self.schema, "", "")
        root = self.node("")
        self.reject_cycles()
        return root

    def node(self, pointer: str) -> _Node:
        node = self.nodes.get(pointer)
        if node is None:
            node = self.nodes[pointer] = _Node(pointer)
            schema, base = self.located[pointer]
            self.build(node, schema, base)
        return node

    def child(self, schema, pointer: str, base: str) -> _Node:
        if pointer not in self.located:
            self.index(schema, pointer, base)
        return self.node(pointer)

    def build(self, node: _Node, schema, base: str) -> None:
        pointer = node.pointer
        if schema is True:
            node.check, node.collect = _true, _collect_nothing
            return
        if schema is False:
            def collect_false(value, path, out):
                out.append(Violation(_pointer(path), pointer,
                                     f"{_show(value)} is not allowed here (the schema is false)"))
            node.check, node.collect = _false, collect_false
            return
        if not isinstance(schema, dict):
            raise self.fail(pointer, f"a schema must be an object or a boolean, not {_json_type_name(schema)}")
        if "$id" in schema and not isinstance(schema["$id"], str):
            raise self.fail(pointer + "/$id", "$id must be a string")
        anchor = schema.get("$anchor")
        if anchor is not None and not (isinstance(anchor, str) and re.fullmatch(_ANCHOR, anchor)):
            raise self.fail(pointer + "/$anchor", f"$anchor must be a plain name, not {_show(anchor)}")

        keywords: list[_Keyword] = []
        allowed = None
        for keyword in schema:
            method = _KEYWORDS.get(keyword)
            if method is None:
                continue  # annotations and unknown keywords
            compiled = method(self, node, schema, base, f"{pointer}/{_escape(keyword)}")
            if compiled is None:
                continue
            if keyword == "type":
                allowed = compiled.kinds
                compiled.kinds = None
            keywords.append(compiled)
        if "$defs" in schema:  # compiled even when unused, so that their errors surface now
            self.subschema_map(node, schema, "$defs", f"{pointer}/$defs", base)

        node.check = self.assemble_check(keywords, allowed)
        node.collect = self.assemble_collect(keywords)

    @staticmethod
    def assemble_check(keywords, allowed):
        ordered = sorted(keywords, key=lambda k: k.cost)
        integer_floats = allowed is not None and int in allowed and float not in allowed
        table = {}
        for kind in (str, int, float, bool, _NoneType, list, dict):
            checks = [k.check for k in ordered if k.kinds is None or kind in k.kinds]
            if allowed is not None and kind not in allowed:
                if kind is float and integer_floats:
                    checks.insert(0, float.is_integer)
                else:
                    checks = [_false]
            table[kind] = _conjoin(checks)
        first = table[str]
        if all(check is first for check in table.values()):
            return first  # no type-specific keywords: skip the dispatch
        lookup = table.get

        def fallback(value):
            return table[_base_type(value)](value)

        def check(value):
            return lookup(type(value), fallback)(value)
        return check

    @staticmethod
    def assemble_collect(keywords):
        steps = tuple((k.kinds, k.collect) for k in keywords if k.collect is not _collect_nothing)
        if not steps:
            return _collect_nothing

        def collect(value, path, out):
            kind = type(value)
            if kind not in _JSON_TYPES:
                kind = _base_type(value)
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
            raise self.fail(where, f"{keyword} must be a non-negative integer, not {_show(value)}")
        return value

    def number(self, schema, keyword, where):
        value = schema[keyword]
        if type(value) not in _NUMBER:
            raise self.fail(where, f"{keyword} must be a number, not {_show(value)}")
        return value

    def subschema(self, node, schema, keyword, where, base, *, inplace=False) -> _Node:
        value = schema[keyword]
        if not isinstance(value, (dict, bool)):
            raise self.fail(where, f"{keyword} must be a schema (an object or a boolean), not {_show(value)}")
        sub = self.child(value, where, base)
        if inplace:
            node.inplace.append(sub)
        return sub

    def subschema_list(self, node, schema, keyword, where, base, *, inplace=False) -> list[_Node]:
        value = schema[keyword]
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"{keyword} must be a non-empty array of schemas")
        subs = []
        for position, member in enumerate(value):
            if not isinstance(member, (dict, bool)):
                raise self.fail(f"{where}/{position}", f"{keyword} entries must be schemas, not {_show(member)}")
            subs.append(self.child(member, f"{where}/{position}", base))
        if inplace:
            node.inplace.extend(subs)
        return subs

    def subschema_map(self, node, schema, keyword, where, base, *, inplace=False) -> dict[str, _Node]:
        value = schema[keyword]
        if not isinstance(value, dict):
            raise self.fail(where, f"{keyword} must be an object whose values are schemas")
        subs = {}
        for name, member in value.items():
            if not isinstance(member, (dict, bool)):
                raise self.fail(f"{where}/{_escape(name)}", f"{keyword} values must be schemas, not {_show(member)}")
            subs[name] = self.child(member, f"{where}/{_escape(name)}", base)
        if inplace:
            node.inplace.extend(subs.values())
        return subs

    def pattern(self, source: str, where: str) -> re.Pattern:
        try:
            return compile_pattern(source)
        except re.error as err:
            unicode_property = "\\p" in source or "\\P" in source
            hint = " (Unicode property escapes like \\p{...} are not supported)" if unicode_property else ""
            raise self.fail(where, f"pattern '{source}' cannot be compiled: {err}{hint}") from None
        except RecursionError:
            raise self.fail(where, f"pattern '{source}' is too complex to compile") from None

    # -- keywords: any instance ------------------------------------------------

    def kw_type(self, node, schema, base, where):
        declared = schema["type"]
        names = [declared] if isinstance(declared, str) else declared
        if (not isinstance(names, list) or not names or len(set(map(str, names))) != len(names)
                or any(not isinstance(n, str) or n not in _TYPE_NAMES for n in names)):
            raise self.fail(where, f"type must be one of {', '.join(_TYPE_NAMES)} or a list of them, "
                                   f"not {_show(declared)}")
        kinds = tuple({k: None for n in names for k in _TYPE_NAMES[n]})
        integer_floats = "integer" in names and "number" not in names
        wanted = ", ".join(repr(n) for n in names)

        def ok(value):
            kind = type(value)
            if kind not in _JSON_TYPES:
                kind = _base_type(value)
            return kind in kinds or (integer_floats and kind is float and value.is_integer())

        def collect(value, path, out):
            if not ok(value):
                out.append(Violation(_pointer(path), where, f"{_show(value)} is not of type {wanted}"))
        # The check itself is folded into the node's type dispatch table.
        return _Keyword(kinds, -1, _true, collect)

    def kw_enum(self, node, schema, base, where):
        options = schema["enum"]
        if not isinstance(options, list):
            raise self.fail(where, f"enum must be an array, not {_show(options)}")
        check = self.equality(options)
        shown = "[" + ", ".join(_show(o, 1) for o in options[:12]) + (", ...]" if len(options) > 12 else "]")

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(_pointer(path), where, f"{_show(value)} is not one of {shown}"))
        return _Keyword(None, 0, check, collect)

    def kw_const(self, node, schema, base, where):
        expected = schema["const"]
        check = self.equality([expected])

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(_pointer(path), where, f"{_show(expected)} was expected, not {_show(value)}"))
        return _Keyword(None, 0, check, collect)

    @staticmethod
    def equality(options):
        """A check for membership in *options* under JSON equality."""
        strings = frozenset(o for o in options if type(o) is str)
        numbers = frozenset(o for o in options if type(o) in _NUMBER)
        booleans = frozenset(o for o in options if type(o) is bool)
        has_null = any(o is None for o in options)
        others = frozenset(_freeze(o) for o in options if type(o) not in (str, int, float, bool, _NoneType))

        def check(value):
            kind = type(value)
            if kind is str:
                return value in strings
            if kind is int or kind is float:
                return value in numbers
            if kind is bool:
                return value in booleans
            if value is None:
                return has_null
            if kind not in _JSON_TYPES:
                return check(_base_type(value)(value))
            return bool(others) and _freeze(value) in others
        return check

    def kw_ref(self, node, schema, base, where):
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise self.fail(where, f"$ref must be a string, not {_show(ref)}")
        target = self.node(self.resolve(ref, base, where))
        node.inplace.append(target)
        return _Keyword(None, 2, target.checker(), target.collector())

    def kw_allOf(self, node, schema, base, where):
        subs = self.subschema_list(node, schema, "allOf", where, base, inplace=True)
        collectors = tuple(s.collector() for s in subs)

        def collect(value, path, out):
            for step in collectors:
                step(value, path, out)
        return _Keyword(None, 2, _conjoin([s.checker() for s in subs]), collect)

    def kw_anyOf(self, node, schema, base, where):
        subs = self.subschema_list(node, schema, "anyOf", where, base, inplace=True)
        checks = tuple(s.checker() for s in subs)
        collectors = tuple(s.collector() for s in subs)

        def check(value):
            for sub in checks:
                if sub(value):
                    return True
            return False

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(_pointer(path), where, f"{_show(value)} does not match any of the schemas "
                                     f"in anyOf{_closest(collectors, value, path)}"))
        return _Keyword(None, 2, check, collect)

    def kw_oneOf(self, node, schema, base, where):
        subs = self.subschema_list(node, schema, "oneOf", where, base, inplace=True)
        checks = tuple(s.checker() for s in subs)
        collectors = tuple(s.collector() for s in subs)

        def check(value):
            matched = False
            for sub in checks:
                if sub(value):
                    if matched:
                        return False
                    matched = True
            return matched

        def collect(value, path, out):
            matches = [i for i, sub in enumerate(checks) if sub(value)]
            if not matches:
                out.append(Violation(_pointer(path), where, f"{_show(value)} does not match any of the schemas "
                                     f"in oneOf{_closest(collectors, value, path)}"))
            elif len(matches) > 1:
                out.append(Violation(_pointer(path), where, f"{_show(value)} matches more than one schema in oneOf "
                                     f"(#{matches[0]} and #{matches[1]})"))
        return _Keyword(None, 2, check, collect)

    def kw_not(self, node, schema, base, where):
        sub = self.subschema(node, schema, "not", where, base, inplace=True)
        inner = sub.checker()

        def check(value):
            return not inner(value)

        def collect(value, path, out):
            if inner(value):
                out.append(Violation(_pointer(path), where, f"{_show(value)} must not match the schema in 'not'"))
        return _Keyword(None, 2, check, collect)

    def kw_if(self, node, schema, base, where):
        condition = self.subschema(node, schema, "if", where, base, inplace=True).checker()
        parent = where.rpartition("/")[0]
        branches = []
        for name in ("then", "else"):
            if name in schema:
                sub = self.subschema(node, schema, name, f"{parent}/{name}", base, inplace=True)
                branches.append((sub.checker(), sub.collector()))
            else:
                branches.append((_true, _collect_nothing))
        (then_check, then_collect), (else_check, else_collect) = branches
        if then_check is _true and else_check is _true:
            return None

        def check(value):
            return then_check(value) if condition(value) else else_check(value)

        def collect(value, path, out):
            (then_collect if condition(value) else else_collect)(value, path, out)
        return _Keyword(None, 2, check, collect)

    # -- keywords: strings -------------------------------------------------------

    def kw_minLength(self, node, schema, base, where):
        limit = self.count(schema, "minLength", where)

        def collect(value, path, out):
            if len(value) < limit:
                out.append(Violation(_pointer(path), where, f"{_show(value)} is shorter than {limit} character(s)"))
        return _Keyword(_STR, 0, lambda value: len(value) >= limit, collect)

    def kw_maxLength(self, node, schema, base, where):
        limit = self.count(schema, "maxLength", where)

        def collect(value, path, out):
            if len(value) > limit:
                out.append(Violation(_pointer(path), where, f"{_show(value)} is longer than {limit} character(s)"))
        return _Keyword(_STR, 0, lambda value: len(value) <= limit, collect)

    def kw_pattern(self, node, schema, base, where):
        source = schema["pattern"]
        if not isinstance(source, str):
            raise self.fail(where, f"pattern must be a string, not {_show(source)}")
        search = self.pattern(source, where).search

        def check(value):
            return search(value) is not None

        def collect(value, path, out):
            if search(value) is None:
                out.append(Violation(_pointer(path), where, f"{_show(value)} does not match '{source}'"))
        return _Keyword(_STR, 1, check, collect)

    # -- keywords: numbers -------------------------------------------------------

    def bound(self, schema, keyword, where, limit_holds, relation):
        """*limit_holds* is an operator applied as ``op(limit, value)``; bound with
        functools.partial it runs without a Python frame."""
        limit = self.number(schema, keyword, where)
        check = partial(limit_holds, limit)

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(_pointer(path), where, f"{_show(value)} is {relation} {_show(limit)}"))
        return _Keyword(_NUM, 0, check, collect)

    def kw_minimum(self, node, schema, base, where):
        return self.bound(schema, "minimum", where, operator.le, "less than the minimum of")

    def kw_maximum(self, node, schema, base, where):
        return self.bound(schema, "maximum", where, operator.ge, "greater than the maximum of")

    def kw_exclusiveMinimum(self, node, schema, base, where):
        return self.bound(schema, "exclusiveMinimum", where, operator.lt,
                          "less than or equal to the exclusive minimum of")

    def kw_exclusiveMaximum(self, node, schema, base, where):
        return self.bound(schema, "exclusiveMaximum", where, operator.gt,
                          "greater than or equal to the exclusive maximum of")

    def kw_multipleOf(self, node, schema, base, where):
        divisor = self.number(schema, "multipleOf", where)
        if divisor <= 0:
            raise self.fail(where, f"multipleOf must be greater than 0, not {_show(divisor)}")
        if isinstance(divisor, float) and divisor.is_integer() and abs(divisor) < 2 ** 63:
            divisor = int(divisor)
        exact = _decimal_fraction(divisor)

        def check(value):
            if type(value) is int and type(divisor) is int:
                return value % divisor == 0
            return _is_multiple(value, exact)

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(_pointer(path), where, f"{_show(value)} is not a multiple of {_show(divisor)}"))
        return _Keyword(_NUM, 0, check, collect)

    # -- keywords: arrays --------------------------------------------------------

    def kw_minItems(self, node, schema, base, where):
        limit = self.count(schema, "minItems", where)

        def collect(value, path, out):
            if len(value) < limit:
                out.append(Violation(_pointer(path), where,
                                     f"array has {len(value)} item(s), fewer than the minimum of {limit}"))
        return _Keyword(_ARR, 0, lambda value: len(value) >= limit, collect)

    def kw_maxItems(self, node, schema, base, where):
        limit = self.count(schema, "maxItems", where)

        def collect(value, path, out):
            if len(value) > limit:
                out.append(Violation(_pointer(path), where,
                                     f"array has {len(value)} item(s), more than the maximum of {limit}"))
        return _Keyword(_ARR, 0, lambda value: len(value) <= limit, collect)

    def kw_uniqueItems(self, node, schema, base, where):
        flag = schema["uniqueItems"]
        if not isinstance(flag, bool):
            raise self.fail(where, f"uniqueItems must be a boolean, not {_show(flag)}")
        if not flag:
            return None

        def check(value):
            return len(value) < 2 or len(set(map(_freeze, value))) == len(value)

        def collect(value, path, out):
            seen: dict = {}
            for position, item in enumerate(value):
                key = _freeze(item)
                if key in seen:
                    out.append(Violation(_pointer(path), where,
                                         f"array items {seen[key]} and {position} are equal (items must be unique)"))
                    return
                seen[key] = position
        return _Keyword(_ARR, 1, check, collect)

    def kw_prefixItems(self, node, schema, base, where):
        subs = self.subschema_list(node, schema, "prefixItems", where, base)
        checks = tuple(s.checker() for s in subs)
        collectors = tuple(s.collector() for s in subs)

        def check(value):
            for sub, item in zip(checks, value):
                if not sub(item):
                    return False
            return True

        def collect(value, path, out):
            for position, (step, item) in enumerate(zip(collectors, value)):
                step(item, path + (position,), out)
        return _Keyword(_ARR, 2, check, collect)

    def kw_items(self, node, schema, base, where):
        if isinstance(schema["items"], list):
            raise self.fail(where, "items must be a schema in draft 2020-12; use prefixItems for a tuple")
        sub = self.subschema(node, schema, "items", where, base)
        prefix = schema.get("prefixItems")
        skip = len(prefix) if isinstance(prefix, list) else 0
        inner = sub.checker()
        if inner is _true:
            return None
        if inner is _false:
            def collect_extra(value, path, out):
                for position in range(skip, len(value)):
                    out.append(Violation(_pointer(path + (position,)), where,
                                         f"unexpected item at index {position} (at most {skip} item(s) allowed)"))
            return _Keyword(_ARR, 0, lambda value: len(value) <= skip, collect_extra)
        step = sub.collector()
        if skip:
            def check(value):
                for position in range(skip, len(value)):
                    if not inner(value[position]):
                        return False
                return True
        else:
            def check(value):
                for item in value:
                    if not inner(item):
                        return False
                return True

        def collect(value, path, out):
            for position in range(skip, len(value)):
                step(value[position], path + (position,), out)
        return _Keyword(_ARR, 2, check, collect)

    def kw_contains(self, node, schema, base, where):
        inner = self.subschema(node, schema, "contains", where, base).checker()
        parent = where.rpartition("/")[0]
        low = self.count(schema, "minContains", parent + "/minContains") if "minContains" in schema else 1
        high = self.count(schema, "maxContains", parent + "/maxContains") if "maxContains" in schema else None
        if high is None:
            if low == 0:
                return None

            def check(value):
                found = 0
                for item in value:
                    if inner(item):
                        found += 1
                        if found >= low:
                            return True
                return False
        else:
            def check(value):
                found = 0
                for item in value:
                    if inner(item):
                        found += 1
                        if found > high:
                            return False
                return found >= low

        def collect(value, path, out):
            found = sum(1 for item in value if inner(item))
            if found < low:
                if "minContains" in schema:
                    out.append(Violation(_pointer(path), parent + "/minContains",
                                         f"array has {found} item(s) matching 'contains', "
                                         f"fewer than minContains {low}"))
                else:
                    out.append(Violation(_pointer(path), where, f"{_show(value)} has no item matching 'contains'"))
            elif high is not None and found > high:
                out.append(Violation(_pointer(path), parent + "/maxContains",
                                     f"array has {found} item(s) matching 'contains', more than maxContains {high}"))
        return _Keyword(_ARR, 2, check, collect)

    # -- keywords: objects -------------------------------------------------------

    def kw_required(self, node, schema, base, where):
        names = schema["required"]
        if not isinstance(names, list) or any(not isinstance(n, str) for n in names):
            raise self.fail(where, f"required must be an array of strings, not {_show(names)}")
        if not names:
            return None
        wanted = frozenset(names)
        ordered = tuple(dict.fromkeys(names))

        def check(value):
            return value.keys() >= wanted

        def collect(value, path, out):
            for name in ordered:
                if name not in value:
                    out.append(Violation(_pointer(path), where, f"{_show(name)} is a required property"))
        return _Keyword(_OBJ, 0, check, collect)

    def kw_properties(self, node, schema, base, where):
        """properties, patternProperties and additionalProperties, evaluated together."""
        parent = where.rpartition("/")[0]
        props = self.subschema_map(node, schema, "properties", f"{parent}/properties", base) \
            if "properties" in schema else {}
        patterns = []
        if "patternProperties" in schema:
            for source, sub in self.subschema_map(node, schema, "patternProperties", f"{parent}/patternProperties",
                                                  base).items():
                rx = self.pattern(source, f"{parent}/patternProperties/{_escape(source)}")
                patterns.append((rx.search, sub.checker(), sub.collector()))
        additional = extra_where = None
        if "additionalProperties" in schema:
            extra_where = f"{parent}/additionalProperties"
            additional = self.subschema(node, schema, "additionalProperties", extra_where, base)
        checks = {name: sub.checker() for name, sub in props.items()}
        collectors = {name: sub.collector() for name, sub in props.items()}
        pattern_checks = tuple((search, check) for search, check, _ in patterns)
        pattern_collectors = tuple((search, step) for search, _, step in patterns)
        extra = None if additional is None else additional.checker()
        extra_collect = None if additional is None else additional.collector()
        lookup = checks.get
        if extra is _true and not pattern_checks:
            extra = None  # additionalProperties: true changes nothing
        if not checks and not pattern_checks and extra is None:
            return None
        if not pattern_checks and extra is None:
            pairs = tuple(checks.items())
            size = len(pairs)

            def check(value):
                if len(value) < size:
                    for name, item in value.items():
                        sub = lookup(name)
                        if sub is not None and not sub(item):
                            return False
                    return True
                for name, sub in pairs:
                    item = value.get(name, _MISSING)
                    if item is not _MISSING and not sub(item):
                        return False
                return True
        elif not pattern_checks and extra is _false:
            def check(value):
                for name, item in value.items():
                    sub = lookup(name)
                    if sub is None or not sub(item):
                        return False
                return True
        elif not pattern_checks:
            def check(value):
                for name, item in value.items():
                    sub = lookup(name, extra)
                    if not sub(item):
                        return False
                return True
        else:
            def check(value):
                for name, item in value.items():
                    sub = lookup(name)
                    matched = sub is not None
                    if matched and not sub(item):
                        return False
                    for search, pattern_check in pattern_checks:
                        if search(name) is not None:
                            matched = True
                            if not pattern_check(item):
                                return False
                    if not matched and extra is not None and not extra(item):
                        return False
                return True

        extra_is_false = extra is _false

        def collect(value, path, out):
            for name, item in value.items():
                matched = False
                step = collectors.get(name)
                if step is not None:
                    matched = True
                    step(item, path + (name,), out)
                for search, pattern_step in pattern_collectors:
                    if search(name) is not None:
                        matched = True
                        pattern_step(item, path + (name,), out)
                if not matched and extra_collect is not None:
                    if extra_is_false:
                        out.append(Violation(_pointer(path + (name,)), extra_where,
                                             f"unexpected property {_show(name)}"))
                    else:
                        extra_collect(item, path + (name,), out)
        return _Keyword(_OBJ, 2, check, collect)

    def kw_propertyNames(self, node, schema, base, where):
        sub = self.subschema(node, schema, "propertyNames", where, base)
        inner, step = sub.checker(), sub.collector()
        if inner is _true:
            return None

        def check(value):
            for name in value:
                if not inner(name):
                    return False
            return True

        def collect(value, path, out):
            here = _pointer(path)
            for name in value:
                found: list[Violation] = []
                step(name, (), found)
                for violation in found:
                    out.append(Violation(here, violation.keyword_path, f"property name {violation.message}"))
        return _Keyword(_OBJ, 2, check, collect)

    def kw_minProperties(self, node, schema, base, where):
        limit = self.count(schema, "minProperties", where)

        def collect(value, path, out):
            if len(value) < limit:
                out.append(Violation(_pointer(path), where,
                                     f"object has {len(value)} propert(ies), fewer than the minimum of {limit}"))
        return _Keyword(_OBJ, 0, lambda value: len(value) >= limit, collect)

    def kw_maxProperties(self, node, schema, base, where):
        limit = self.count(schema, "maxProperties", where)

        def collect(value, path, out):
            if len(value) > limit:
                out.append(Violation(_pointer(path), where,
                                     f"object has {len(value)} propert(ies), more than the maximum of {limit}"))
        return _Keyword(_OBJ, 0, lambda value: len(value) <= limit, collect)

    def kw_dependentRequired(self, node, schema, base, where):
        rules = schema["dependentRequired"]
        if not isinstance(rules, dict) or any(
                not isinstance(names, list) or any(not isinstance(n, str) for n in names) for names in rules.values()):
            raise self.fail(where, "dependentRequired must map property names to arrays of strings")
        pairs = tuple((name, frozenset(needs), tuple(needs)) for name, needs in rules.items() if needs)
        if not pairs:
            return None

        def check(value):
            for name, needs, _ in pairs:
                if name in value and not value.keys() >= needs:
                    return False
            return True

        def collect(value, path, out):
            for name, _, needs in pairs:
                if name in value:
                    for need in needs:
                        if need not in value:
                            out.append(Violation(_pointer(path), f"{where}/{_escape(name)}",
                                                 f"{_show(need)} is required when {_show(name)} is present"))
        return _Keyword(_OBJ, 0, check, collect)

    def kw_dependentSchemas(self, node, schema, base, where):
        subs = self.subschema_map(node, schema, "dependentSchemas", where, base, inplace=True)
        pairs = tuple((name, sub.checker(), sub.collector()) for name, sub in subs.items())

        def check(value):
            for name, sub, _ in pairs:
                if name in value and not sub(value):
                    return False
            return True

        def collect(value, path, out):
            for name, _, step in pairs:
                if name in value:
                    step(value, path, out)
        return _Keyword(_OBJ, 2, check, collect)


def _grouped(keyword, leader):
    """Compile a keyword evaluated with others only once per schema, at the
    position of whichever of them comes first."""
    def method(self, node, schema, base, where):
        if next(k for k in schema if k in keyword) != where.rpartition("/")[2]:
            return None
        return leader(self, node, schema, base, where)
    return method


def _closest(collectors, value, path) -> str:
    """A hint naming the first problem of the most plausible alternative: one
    whose ``type`` fits the value, then the one with the fewest problems."""
    here = _pointer(path)
    best = best_rank = None
    for step in collectors:
        found: list[Violation] = []
        step(value, path, found)
        if not found:
            continue
        wrong_type = any(v.instance_path == here and v.keyword_path.endswith("/type") for v in found)
        rank = (wrong_type, len(found))
        if best_rank is None or rank < best_rank:
            best, best_rank = found, rank
    if not best:
        return ""
    where = best[0].instance_path or "/"
    return f" (closest: {where}: {best[0].message})"


def _decimal_fraction(number):
    """The exact rational value of a number as written in decimal (floats via repr)."""
    from fractions import Fraction
    if isinstance(number, int):
        return Fraction(number)
    return Fraction(repr(number))


def _is_multiple(value, divisor) -> bool:
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return False
    return (_decimal_fraction(value) / divisor).denominator == 1


_KEYWORDS = {name[3:]: getattr(_Compiler, name) for name in dir(_Compiler) if name.startswith("kw_")}
_KEYWORDS["$ref"] = _KEYWORDS.pop("ref")
_PROPERTY_GROUP = ("properties", "patternProperties", "additionalProperties")
_KEYWORDS.update({name: _grouped(_PROPERTY_GROUP, _Compiler.kw_properties) for name in _PROPERTY_GROUP})
