"""JSON Schema (draft 2020-12, complete) validation, standard library only.

    validator = Validator(schema, source="spec/issue.schema.json")
    validator.is_valid(document)            # fast yes/no
    validator.errors(document)              # every Violation, in a stable order
    validator.validate(document, file=path) # raises InvalidInput(code="schema_violation")
    Validator(schema, registry=Registry(), format_assertion=True)  # other documents; formats

A schema is compiled once into closures: one boolean checker per schema
location (dispatching on the instance's Python type, so ``type`` costs a dict
lookup) and one error collector used only when a message is needed.
References resolve at construction time, within the document or in the
:class:`Registry` (never the network); a reference that resolves nowhere, a
keyword no vocabulary defines, a bad pattern or a ``$ref`` cycle that never
descends into the instance raises :class:`SchemaError` then, not during
validation.  ``unevaluated*`` annotations and the ``$dynamicRef`` scope exist
only for schemas that use them.

Instances are JSON values as ``json.load`` returns them (dict, list, str,
int, float, bool, None; subclasses and tuples are accepted).  ``bool`` is
never a number, ``1.0`` is an integer, and ``enum``/``const``/``uniqueItems``
compare by JSON type (``1 != true``, ``{"a": 1} == {"a": 1.0}``).
``pattern`` follows ECMA-262 where Python's ``re`` differs; see
``docs/schema.md``.

One job per module:

- ``validator``: :class:`Validator`, the public entry point;
- ``report``: :class:`SchemaError`, :class:`Violation` and the hints in messages;
- ``instances``: JSON types, JSON equality and short renderings of instance values;
- ``refs``: ``$id`` / ``$anchor`` / ``$dynamicAnchor`` indexing and ``$ref`` resolution;
- ``registry``: :class:`Registry`, documents by URI (files, directories, the shipped metaschemas);
- ``vocabularies``: the vocabularies and the dialect a ``$schema`` names;
- ``nodes``: the compiled forms (a schema location, a keyword) and how checks combine;
- ``compiler``: the compiler (keyword dispatch under the dialect, type tables,
  ``$ref`` cycle refusal, keyword value checks), composed of the keyword
  families in ``applicators`` (any instance), ``limits`` (the min/max keywords
  and ``multipleOf``), ``strings`` (``pattern``), ``arrays`` and ``objects``,
  with ``annotations`` (``unevaluated*``), ``dynamic`` (``$dynamicRef``),
  ``formats`` and ``idna`` loaded on first use;
- ``files``: files validated against a schema file, with line numbers (the CLI verb).
"""

from __future__ import annotations

from .report import SchemaError, Violation
from .validator import Validator

__all__ = ["Registry", "SchemaError", "Violation", "Validator"]


def __getattr__(name: str):
    if name == "Registry":  # lazy: validators of one self-contained document never need it
        from .registry import Registry
        return Registry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
