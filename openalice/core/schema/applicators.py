"""Keywords that apply to any instance: ``type``, ``enum``, ``const``,
``$ref`` and the in-place applicators ``allOf``, ``anyOf``, ``oneOf``,
``not`` and ``if``/``then``/``else``.  A part of the compiler."""

from __future__ import annotations

from .instances import JSON_TYPES, NUMBER_TYPES, TYPES_BY_NAME, NoneType, base_type, freeze, json_pointer, show
from .nodes import Keyword, always_valid, collect_nothing, conjoin
from .report import Violation, closest_alternative


class ApplicatorKeywords:
    __slots__ = ()


    def kw_type(self, node, schema, base, where):
        declared = schema["type"]
        names = [declared] if isinstance(declared, str) else declared
        if (not isinstance(names, list) or not names or len(set(map(str, names))) != len(names)
                or any(not isinstance(n, str) or n not in TYPES_BY_NAME for n in names)):
            raise self.fail(where, f"type must be one of {', '.join(TYPES_BY_NAME)} or a list of them, "
                                   f"not {show(declared)}")
        kinds = tuple({k: None for n in names for k in TYPES_BY_NAME[n]})
        integer_floats = "integer" in names and "number" not in names
        wanted = ", ".join(repr(n) for n in names)

        def ok(value):
            kind = type(value)
            if kind not in JSON_TYPES:
                kind = base_type(value)
            return kind in kinds or (integer_floats and kind is float and value.is_integer())

        def collect(value, path, out):
            if not ok(value):
                out.append(Violation(json_pointer(path), where, f"{show(value)} is not of type {wanted}"))
        # The check itself is folded into the node's type dispatch table.
        return Keyword(kinds, -1, always_valid, collect)

    def kw_enum(self, node, schema, base, where):
        options = schema["enum"]
        if not isinstance(options, list):
            raise self.fail(where, f"enum must be an array, not {show(options)}")
        check = self.equality(options)
        shown = "[" + ", ".join(show(o, 1) for o in options[:12]) + (", ...]" if len(options) > 12 else "]")

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(json_pointer(path), where, f"{show(value)} is not one of {shown}"))
        return Keyword(None, 0, check, collect)

    def kw_const(self, node, schema, base, where):
        expected = schema["const"]
        check = self.equality([expected])

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(json_pointer(path), where, f"{show(expected)} was expected, not {show(value)}"))
        return Keyword(None, 0, check, collect)

    @staticmethod
    def equality(options):
        """A check for membership in *options* under JSON equality."""
        strings = frozenset(o for o in options if type(o) is str)
        numbers = frozenset(o for o in options if type(o) in NUMBER_TYPES)
        booleans = frozenset(o for o in options if type(o) is bool)
        has_null = any(o is None for o in options)
        others = frozenset(freeze(o) for o in options if type(o) not in (str, int, float, bool, NoneType))

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
            if kind not in JSON_TYPES:
                return check(base_type(value)(value))
            return bool(others) and freeze(value) in others
        return check

    def kw_ref(self, node, schema, base, where):
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise self.fail(where, f"$ref must be a string, not {show(ref)}")
        target = self.node(self.resolve(ref, base, where))
        node.inplace.append(target)
        check, collect, annotate = self.enter(target, base)
        return Keyword(None, 2, check, collect, lambda value, props, items: annotate(value, props, items))

    def kw_allOf(self, node, schema, base, where):
        subs = self.subschema_list(node, schema, "allOf", where, base, inplace=True)
        collectors = tuple(s.collector() for s in subs)

        def collect(value, path, out):
            for step in collectors:
                step(value, path, out)
        return Keyword(None, 2, conjoin([s.checker() for s in subs]), collect, _annotate_each(subs))

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
                out.append(Violation(json_pointer(path), where, f"{show(value)} does not match any of the schemas "
                                     f"in anyOf{closest_alternative(collectors, value, path)}"))
        return Keyword(None, 2, check, collect, _annotate_each(subs))

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
                out.append(Violation(json_pointer(path), where, f"{show(value)} does not match any of the schemas "
                                     f"in oneOf{closest_alternative(collectors, value, path)}"))
            elif len(matches) > 1:
                out.append(Violation(json_pointer(path), where, f"{show(value)} matches more than one schema in oneOf "
                                     f"(#{matches[0]} and #{matches[1]})"))
        return Keyword(None, 2, check, collect, _annotate_each(subs))

    def kw_not(self, node, schema, base, where):
        sub = self.subschema(node, schema, "not", where, base, inplace=True)
        inner = sub.checker()

        def check(value):
            return not inner(value)

        def collect(value, path, out):
            if inner(value):
                out.append(Violation(json_pointer(path), where, f"{show(value)} must not match the schema in 'not'"))
        return Keyword(None, 2, check, collect)

    def kw_if(self, node, schema, base, where):
        test = self.subschema(node, schema, "if", where, base, inplace=True)
        condition = test.checker()
        parent = where.rpartition("/")[0]
        branches = []
        for name in ("then", "else"):
            if name in schema:
                sub = self.subschema(node, schema, name, f"{parent}/{name}", base, inplace=True)
                branches.append((sub.checker(), sub.collector(), sub.annotate))
            else:
                branches.append((always_valid, collect_nothing, _no_annotations))
        (then_check, then_collect, then_annotate), (else_check, else_collect, else_annotate) = branches

        def annotate(value, props, items):
            if test.annotate(value, props, items):
                then_annotate(value, props, items)
            else:
                else_annotate(value, props, items)
        if then_check is always_valid and else_check is always_valid:
            return Keyword(None, 2, always_valid, collect_nothing, annotate)  # annotations only

        def check(value):
            return then_check(value) if condition(value) else else_check(value)

        def collect(value, path, out):
            (then_collect if condition(value) else else_collect)(value, path, out)
        return Keyword(None, 2, check, collect, annotate)


def _no_annotations(value, props, items) -> bool:
    return True


def _annotate_each(subs):
    """Annotations of every subschema that *value* is valid against."""
    annotators = tuple(sub.annotate for sub in subs)

    def annotate(value, props, items):
        for sub in annotators:
            sub(value, props, items)
    return annotate
