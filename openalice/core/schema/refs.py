"""References inside one schema document: base URIs, ``$id`` resources,
``$anchor`` names and the JSON pointers that ``$ref`` resolves to.  Remote
references are refused when the schema is compiled."""

from __future__ import annotations

from .instances import _escape


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
    from urllib.parse import urljoin  # lazy: 2 ms at start-up; only relative $id/$ref need it
    return urljoin(base, ref)


# Keywords whose values are subschemas (used to find $id and $anchor).
_ONE_SCHEMA = ("additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
               "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_SCHEMA_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")
_SCHEMA_LIST = ("prefixItems", "allOf", "anyOf", "oneOf")


class ReferenceIndex:
    """The compiler's index of its document (``located``, ``resources``,
    ``anchors``, filled by :meth:`index`) and :meth:`resolve`."""

    __slots__ = ()


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
        from urllib.parse import unquote  # lazy: 2 ms at start-up; only pointer $refs need it
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
