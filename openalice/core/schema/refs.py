"""References: base URIs, ``$id`` resources, ``$anchor`` and ``$dynamicAnchor``
names and the JSON pointers that ``$ref`` resolves to.  A reference that
leaves the document is looked up in the :class:`~.registry.Registry` and its
document indexed beside the first (its locations are keyed ``URI#pointer``);
one the registry does not hold is refused when the schema is compiled."""

from __future__ import annotations

from .instances import escape_token

ANCHOR_PATTERN = r"[A-Za-z_][-A-Za-z0-9._]*"


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
            outer = base
            schema_id = schema.get("$id")
            if isinstance(schema_id, str):
                uri, _, fragment = _join(base, schema_id).partition("#")
                if fragment:
                    raise self.fail(pointer + "/$id", f"$id {schema_id!r} must not have a fragment; use $anchor")
                if self.resources.get(uri, pointer) != pointer:
                    raise self.fail(pointer + "/$id", f"$id {uri!r} is used twice in the document")
                self.resources[uri] = pointer
                base = uri
            if pointer == self.resources.get(base):  # a resource root: its $schema, else its parent's dialect
                declared = schema.get("$schema")
                if declared is not None:
                    if not isinstance(declared, str):
                        raise self.fail(pointer + "/$schema", "$schema must be a URI string")
                    self.dialects[base] = self.dialect(declared, pointer + "/$schema")
                else:
                    self.dialects[base] = self.dialects.get(outer, self.default_dialect) if outer != base \
                        else self.default_dialect
            for keyword in ("$anchor", "$dynamicAnchor"):
                anchor = schema.get(keyword)
                if isinstance(anchor, str):
                    key = base + "#" + anchor
                    if self.anchors.get(key, pointer) != pointer:
                        raise self.fail(pointer + "/" + keyword,
                                        f"{keyword} {anchor!r} is defined twice in {base or 'the document'}")
                    self.anchors[key] = pointer
                    if keyword == "$dynamicAnchor":
                        self.dynamic_anchors.setdefault(anchor, {})[base] = pointer
            for keyword in ("$ref", "$dynamicRef"):
                if isinstance(schema.get(keyword), str):
                    self.references.append((schema[keyword], base))
            if "$dynamicRef" in schema:
                self.dynamic = True
        self.located.setdefault(pointer, (schema, base))
        if not isinstance(schema, dict):
            return
        for keyword in _ONE_SCHEMA:
            if keyword in schema:
                self.index(schema[keyword], f"{pointer}/{escape_token(keyword)}", base)
        for keyword in _SCHEMA_MAP:
            members = schema.get(keyword)
            if isinstance(members, dict):
                for name, member in members.items():
                    self.index(member, f"{pointer}/{escape_token(keyword)}/{escape_token(name)}", base)
        for keyword in _SCHEMA_LIST:
            members = schema.get(keyword)
            if isinstance(members, list):
                for position, member in enumerate(members):
                    self.index(member, f"{pointer}/{keyword}/{position}", base)
        self._on_path.discard(id(schema))

    # -- other documents ---------------------------------------------------------

    def load(self, uri: str):
        """Index the registry's document for *uri*; its root pointer, or None."""
        document = self.lookup(uri) if uri else None
        if document is None:
            return None
        if not isinstance(document, (dict, bool)):
            raise self.fail(uri, f"the registry document {uri!r} is not a schema")
        prefix = uri + "#"
        self.resources[uri] = prefix
        self.index(document, prefix, uri)
        return prefix

    def load_referenced(self) -> None:
        """Index every registry document the indexed ones reference, transitively,
        so that the compiler knows before compiling whether ``$dynamicRef`` is in play."""
        done = 0
        while done < len(self.references):
            ref, base = self.references[done]
            done += 1
            resource = _join(base, ref).partition("#")[0]
            if resource not in self.resources:
                self.load(resource)

    # -- $ref resolution -------------------------------------------------------

    def resolve(self, ref: str, base: str, where: str) -> str:
        """The document pointer that *ref* (seen at *where*) names."""
        uri = _join(base, ref)
        resource, _, fragment = uri.partition("#")
        start = self.resources.get(resource)
        if start is None:
            start = self.load(resource)
        if start is None:
            raise self.fail(where, f"cannot resolve $ref {ref!r}: {uri!r} is neither inside this schema "
                                   "document nor in the registry (nothing is fetched from the network)")
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
        target = start + "".join("/" + escape_token(t) for t in tokens)
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
