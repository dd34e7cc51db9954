"""Array keywords: ``uniqueItems``, ``prefixItems``, ``items`` and
``contains`` with ``minContains``/``maxContains``.  A part of the compiler."""

from __future__ import annotations

from .instances import freeze, json_pointer, show
from .nodes import ARRAYS, Keyword, always_valid, collect_nothing, never_valid
from .report import Violation


class ArrayKeywords:
    __slots__ = ()

    def kw_uniqueItems(self, node, schema, base, where):
        flag = schema["uniqueItems"]
        if not isinstance(flag, bool):
            raise self.fail(where, f"uniqueItems must be a boolean, not {show(flag)}")
        if not flag:
            return None

        def check(value):
            return len(value) < 2 or len(set(map(freeze, value))) == len(value)

        def collect(value, path, out):
            seen: dict = {}
            for position, item in enumerate(value):
                key = freeze(item)
                if key in seen:
                    out.append(Violation(json_pointer(path), where,
                                         f"array items {seen[key]} and {position} are equal (items must be unique)"))
                    return
                seen[key] = position
        return Keyword(ARRAYS, 1, check, collect)

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

        size = len(subs)

        def annotate(value, props, items):
            if isinstance(value, (list, tuple)):
                items.update(range(min(size, len(value))))
        return Keyword(ARRAYS, 2, check, collect, annotate)

    def kw_items(self, node, schema, base, where):
        if isinstance(schema["items"], list):
            raise self.fail(where, "items must be a schema in draft 2020-12; use prefixItems for a tuple")
        sub = self.subschema(node, schema, "items", where, base)
        prefix = schema.get("prefixItems")
        skip = len(prefix) if isinstance(prefix, list) else 0
        inner = sub.checker()

        def annotate(value, props, items):
            if isinstance(value, (list, tuple)):
                items.update(range(len(value)))
        if inner is always_valid:
            return Keyword(ARRAYS, 0, always_valid, collect_nothing, annotate)  # annotations only
        if inner is never_valid:
            def collect_extra(value, path, out):
                for position in range(skip, len(value)):
                    out.append(Violation(json_pointer(path + (position,)), where,
                                         f"unexpected item at index {position} (at most {skip} item(s) allowed)"))
            return Keyword(ARRAYS, 0, lambda value: len(value) <= skip, collect_extra, annotate)
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
        return Keyword(ARRAYS, 2, check, collect, annotate)

    def kw_contains(self, node, schema, base, where):
        inner = self.subschema(node, schema, "contains", where, base).checker()
        parent = where.rpartition("/")[0]
        low = self.count(schema, "minContains", parent + "/minContains") if "minContains" in schema else 1
        high = self.count(schema, "maxContains", parent + "/maxContains") if "maxContains" in schema else None

        def annotate(value, props, items):
            if isinstance(value, (list, tuple)):
                items.update(position for position, item in enumerate(value) if inner(item))
        if high is None:
            if low == 0:
                return Keyword(ARRAYS, 2, always_valid, collect_nothing, annotate)  # annotations only

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
                    out.append(Violation(json_pointer(path), parent + "/minContains",
                                         f"array has {found} item(s) matching 'contains', "
                                         f"fewer than minContains {low}"))
                else:
                    out.append(Violation(json_pointer(path), where, f"{show(value)} has no item matching 'contains'"))
            elif high is not None and found > high:
                out.append(Violation(json_pointer(path), parent + "/maxContains",
                                     f"array has {found} item(s) matching 'contains', more than maxContains {high}"))
        return Keyword(ARRAYS, 2, check, collect, annotate)
