"""The min/max keywords and ``multipleOf``.  A part of the compiler.

Six keywords bound a size (``minLength``/``maxLength`` of a string,
``minItems``/``maxItems`` of an array, ``minProperties``/``maxProperties`` of
an object) and four bound a number (``minimum``, ``maximum`` and their
exclusive forms); each family is made by one builder.
"""

from __future__ import annotations

import operator
from functools import partial

from .instances import json_pointer, show
from .nodes import ARRAYS, NUMBERS, OBJECTS, STRINGS, Keyword
from .report import Violation


def _size_limit(keyword: str, kinds: tuple, at_least: bool, describe):
    """The compiler method for a keyword that bounds ``len(value)`` from below
    (``at_least``) or above; ``describe(value, size, limit)`` is the message."""
    def method(self, node, schema, base, where):
        limit = self.count(schema, keyword, where)
        if at_least:
            def check(value):
                return len(value) >= limit
        else:
            def check(value):
                return len(value) <= limit

        def collect(value, path, out):
            size = len(value)
            if (size < limit) if at_least else (size > limit):
                out.append(Violation(json_pointer(path), where, describe(value, size, limit)))
        return Keyword(kinds, 0, check, collect)
    method.__name__ = method.__qualname__ = f"kw_{keyword}"
    return method


def _bound(keyword: str, limit_holds, relation: str):
    """The compiler method for a keyword that bounds a number.  *limit_holds* is
    an operator applied as ``op(limit, value)``; bound with functools.partial it
    runs without a Python frame."""
    def method(self, node, schema, base, where):
        limit = self.number(schema, keyword, where)
        check = partial(limit_holds, limit)

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(json_pointer(path), where, f"{show(value)} is {relation} {show(limit)}"))
        return Keyword(NUMBERS, 0, check, collect)
    method.__name__ = method.__qualname__ = f"kw_{keyword}"
    return method


class LimitKeywords:
    __slots__ = ()

    kw_minLength = _size_limit("minLength", STRINGS, True, lambda value, size, limit:
                               f"{show(value)} is shorter than {limit} character(s)")
    kw_maxLength = _size_limit("maxLength", STRINGS, False, lambda value, size, limit:
                               f"{show(value)} is longer than {limit} character(s)")
    kw_minItems = _size_limit("minItems", ARRAYS, True, lambda value, size, limit:
                              f"array has {size} item(s), fewer than the minimum of {limit}")
    kw_maxItems = _size_limit("maxItems", ARRAYS, False, lambda value, size, limit:
                              f"array has {size} item(s), more than the maximum of {limit}")
    kw_minProperties = _size_limit("minProperties", OBJECTS, True, lambda value, size, limit:
                                   f"object has {size} propert(ies), fewer than the minimum of {limit}")
    kw_maxProperties = _size_limit("maxProperties", OBJECTS, False, lambda value, size, limit:
                                   f"object has {size} propert(ies), more than the maximum of {limit}")

    kw_minimum = _bound("minimum", operator.le, "less than the minimum of")
    kw_maximum = _bound("maximum", operator.ge, "greater than the maximum of")
    kw_exclusiveMinimum = _bound("exclusiveMinimum", operator.lt, "less than or equal to the exclusive minimum of")
    kw_exclusiveMaximum = _bound("exclusiveMaximum", operator.gt,
                                 "greater than or equal to the exclusive maximum of")

    def kw_multipleOf(self, node, schema, base, where):
        divisor = self.number(schema, "multipleOf", where)
        if divisor <= 0:
            raise self.fail(where, f"multipleOf must be greater than 0, not {show(divisor)}")
        if isinstance(divisor, float) and divisor.is_integer() and abs(divisor) < 2 ** 63:
            divisor = int(divisor)
        exact = _decimal_fraction(divisor)

        def check(value):
            if type(value) is int and type(divisor) is int:
                return value % divisor == 0
            return _is_multiple(value, exact)

        def collect(value, path, out):
            if not check(value):
                out.append(Violation(json_pointer(path), where, f"{show(value)} is not a multiple of {show(divisor)}"))
        return Keyword(NUMBERS, 0, check, collect)


def _decimal_fraction(number):
    """The exact rational value of a number as written in decimal (floats via repr)."""
    from fractions import Fraction  # lazy: 2 ms at start-up; only schemas using multipleOf need it
    if isinstance(number, int):
        return Fraction(number)
    return Fraction(repr(number))


def _is_multiple(value, divisor) -> bool:
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return False
    return (_decimal_fraction(value) / divisor).denominator == 1
