"""Vocabularies and dialects: which keywords a schema's ``$schema`` turns on.

A dialect is the set of vocabularies its metaschema lists in ``$vocabulary``.
A keyword of a known vocabulary that the dialect leaves out is ignored (an
annotation, as the specification says).  A keyword that no vocabulary defines
(a misspelt ``maxLenght``) is a :class:`SchemaError`, unless the dialect lists
a vocabulary this validator does not know as optional (``false``): its keywords
cannot be told from typos, so unknown keywords are then ignored.  A vocabulary
this validator does not know listed as required (``true``) is a SchemaError,
as the specification requires.  ``format`` asserts when the dialect lists the
format-assertion vocabulary (or the Validator is asked to assert formats).
"""

from __future__ import annotations

_V = "https://json-schema.org/draft/2020-12/vocab/"
STANDARD = "https://json-schema.org/draft/2020-12/schema"
CORE, APPLICATOR, UNEVALUATED, VALIDATION = _V + "core", _V + "applicator", _V + "unevaluated", _V + "validation"
META_DATA, FORMAT_ANNOTATION, FORMAT_ASSERTION, CONTENT = (
    _V + "meta-data", _V + "format-annotation", _V + "format-assertion", _V + "content")

VOCABULARIES = {
    CORE: ("$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment",
           "$defs"),
    APPLICATOR: ("prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
                 "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not"),
    UNEVALUATED: ("unevaluatedItems", "unevaluatedProperties"),
    VALIDATION: ("type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
                 "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
                 "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired"),
    META_DATA: ("title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"),
    FORMAT_ANNOTATION: ("format",),
    FORMAT_ASSERTION: ("format",),
    CONTENT: ("contentEncoding", "contentMediaType", "contentSchema"),
}
KNOWN = frozenset(k for keywords in VOCABULARIES.values() for k in keywords)


class Dialect:
    """The keywords a schema resource evaluates.  ``active``: keywords that
    apply; ``open``: unknown keywords are ignored rather than refused;
    ``formats``: ``format`` asserts."""

    __slots__ = ("uri", "active", "open", "formats")

    def __init__(self, uri: str, vocabularies, *, open: bool = False, formats: bool = False) -> None:
        self.uri = uri
        self.active = frozenset(k for v in vocabularies for k in VOCABULARIES[v]) | frozenset(VOCABULARIES[CORE])
        self.open = open
        self.formats = formats or FORMAT_ASSERTION in vocabularies

    def refuses(self, keyword: str) -> bool:
        """True when *keyword* is unknown to every vocabulary and may be a typo."""
        return keyword not in KNOWN and not self.open


def standard(*, formats: bool = False, unknown: str = "error") -> Dialect:
    return Dialect(STANDARD, [v for v in VOCABULARIES if v != FORMAT_ASSERTION], formats=formats,
                   open=unknown == "ignore")


def dialect_of(uri: str, lookup, fail, *, formats: bool, unknown: str, seen=()) -> Dialect:
    """The dialect a ``$schema`` URI names.  *lookup(uri)* returns a registered
    document or None; *fail(message)* makes the SchemaError."""
    written = uri
    uri = uri.partition("#")[0] if uri.endswith("#") else uri
    if uri == STANDARD:
        return standard(formats=formats, unknown=unknown)
    metaschema = lookup(uri)
    if not isinstance(metaschema, dict):
        raise fail(f"unknown $schema {written!r}: only draft 2020-12 ({STANDARD}) and metaschemas in the "
                   "registry are supported")
    listed = metaschema.get("$vocabulary")
    if listed is None:  # no $vocabulary: the metaschema's own dialect
        parent = metaschema.get("$schema")
        if not isinstance(parent, str) or parent == uri or uri in seen:
            raise fail(f"the metaschema {uri!r} has no $vocabulary and no other $schema to take one from")
        return dialect_of(parent, lookup, fail, formats=formats, unknown=unknown, seen=seen + (uri,))
    if not isinstance(listed, dict) or any(not isinstance(v, bool) for v in listed.values()):
        raise fail(f"$vocabulary of the metaschema {uri!r} must map vocabulary URIs to booleans")
    unknown_required = [v for v, required in listed.items() if required and v not in VOCABULARIES]
    if unknown_required:
        raise fail(f"the metaschema {uri!r} requires the vocabulary {unknown_required[0]!r}, "
                   "which this validator does not support")
    known = [v for v in listed if v in VOCABULARIES]
    has_unknown = len(known) != len(listed)
    return Dialect(uri, known, open=has_unknown or unknown == "ignore", formats=formats)


def did_you_mean(keyword: str) -> str:
    """A hint naming the known keyword closest to a misspelt one (or "")."""
    from difflib import get_close_matches  # lazy: only a refused schema needs it

    close = get_close_matches(keyword, sorted(KNOWN), n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""
