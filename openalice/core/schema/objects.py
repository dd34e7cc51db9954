"""Object keywords: ``required``, ``properties`` with ``patternProperties``
and ``additionalProperties``, ``propertyNames``, ``dependentRequired`` and
``dependentSchemas``.  A part of the compiler."""

from __future__ import annotations

from .instances import MISSING, escape_token, json_pointer, show
from .nodes import OBJECTS, Keyword, always_valid, collect_nothing, never_valid
from .report import Violation


class ObjectKeywords:
    __slots__ = ()


    def kw_required(self, node, schema, base, where):
        names = schema["required"]
        if not isinstance(names, list) or any(not isinstance(n, str) for n in names):
            raise self.fail(where, f"required must be an array of strings, not {show(names)}")
        if not names:
            return None
        wanted = frozenset(names)
        ordered = tuple(dict.fromkeys(names))

        def check(value):
            return value.keys() >= wanted

        def collect(value, path, out):
            for name in ordered:
                if name not in value:
                    out.append(Violation(json_pointer(path), where, f"{show(name)} is a required property"))
        return Keyword(OBJECTS, 0, check, collect)

    def kw_properties(self, node, schema, base, where):
        """properties, patternProperties and additionalProperties, evaluated together."""
        parent = where.rpartition("/")[0]
        props = self.subschema_map(node, schema, "properties", f"{parent}/properties", base) \
            if "properties" in schema else {}
        patterns = []
        if "patternProperties" in schema:
            for source, sub in self.subschema_map(node, schema, "patternProperties", f"{parent}/patternProperties",
                                                  base).items():
                rx = self.pattern(source, f"{parent}/patternProperties/{escape_token(source)}")
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
        searches = tuple(search for search, _ in pattern_checks)

        def annotate(value, props, items):
            if not isinstance(value, dict):
                return
            if additional is not None:
                props.update(value)
                return
            for name in value:
                if name in checks or any(search(name) is not None for search in searches):
                    props.add(name)
        if extra is always_valid and not pattern_checks:
            extra = None  # additionalProperties: true changes nothing (but evaluates every property)
        if not checks and not pattern_checks and extra is None:
            return Keyword(OBJECTS, 2, always_valid, collect_nothing, annotate)  # annotations only
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
                    item = value.get(name, MISSING)
                    if item is not MISSING and not sub(item):
                        return False
                return True
        elif not pattern_checks and extra is never_valid:
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

        extra_is_false = extra is never_valid

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
                        out.append(Violation(json_pointer(path + (name,)), extra_where,
                                             f"unexpected property {show(name)}"))
                    else:
                        extra_collect(item, path + (name,), out)
        return Keyword(OBJECTS, 2, check, collect, annotate)

    def kw_propertyNames(self, node, schema, base, where):
        sub = self.subschema(node, schema, "propertyNames", where, base)
        inner, step = sub.checker(), sub.collector()
        if inner is always_valid:
            return None

        def check(value):
            for name in value:
                if not inner(name):
                    return False
            return True

        def collect(value, path, out):
            here = json_pointer(path)
            for name in value:
                found: list[Violation] = []
                step(name, (), found)
                for violation in found:
                    out.append(Violation(here, violation.keyword_path, f"property name {violation.message}"))
        return Keyword(OBJECTS, 2, check, collect)

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
                            out.append(Violation(json_pointer(path), f"{where}/{escape_token(name)}",
                                                 f"{show(need)} is required when {show(name)} is present"))
        return Keyword(OBJECTS, 0, check, collect)

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
        annotators = tuple((name, sub.annotate) for name, sub in subs.items())

        def annotate(value, props, items):
            if isinstance(value, dict):
                for name, sub in annotators:
                    if name in value:
                        sub(value, props, items)
        return Keyword(OBJECTS, 2, check, collect, annotate)
