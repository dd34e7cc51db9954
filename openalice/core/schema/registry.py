"""A local registry of schema documents for references that leave a document.

    registry = Registry()                         # the draft 2020-12 metaschemas only
    registry.add_directory("schemas/")            # every *.json below, by its $id (and file URI)
    registry.add_directory("remotes/", base_uri="http://localhost:1234/")  # by retrieval URI too
    Validator(schema, registry=registry)

A ``$ref`` whose absolute URI names no resource of the schema's own document is
looked up here.  Nothing is ever fetched from the network: a URI the registry
does not hold is a :class:`SchemaError` when the schema is compiled.  The draft
2020-12 metaschemas (``https://json-schema.org/draft/2020-12/schema`` and its
vocabulary metaschemas) are shipped as data in ``metaschemas/`` and are always
present.
"""

from __future__ import annotations

import json
from pathlib import Path

from .report import SchemaError

_METASCHEMAS = Path(__file__).resolve().parent / "metaschemas"
_OFFICIAL = "https://json-schema.org/draft/2020-12/"


class Registry:
    """Schema documents by absolute URI (no fragment)."""

    __slots__ = ("_documents", "_sources")

    def __init__(self, documents: dict | None = None) -> None:
        self._documents: dict[str, object] = {}
        self._sources: dict[str, str] = {}
        for uri, document in (documents or {}).items():
            self.add(document, uri=uri)

    def __contains__(self, uri: str) -> bool:
        return self.get(uri) is not None

    def __len__(self) -> int:
        return len(self._documents)

    def add(self, document, *, uri: str | None = None, source: str | None = None) -> list[str]:
        """Register *document* under *uri* (its retrieval URI) and under its own
        absolute ``$id``; returns the URIs it is known by."""
        names = []
        if uri is not None:
            names.append(uri.partition("#")[0])
        own = document.get("$id") if isinstance(document, dict) else None
        if isinstance(own, str) and _absolute(own) and own.partition("#")[0] not in names:
            names.append(own.partition("#")[0])
        if not names:
            raise SchemaError("a registry document needs an absolute $id (or a retrieval URI)",
                              file=source, field="/$id")
        for name in names:
            held = self._documents.get(name)
            if held is not None and held != document:
                raise SchemaError(f"two registry documents claim the URI {name!r}: "
                                  f"{self._sources.get(name) or 'one added in code'} and {source or 'one added in code'}",
                                  file=source, field="/$id")
            self._documents[name] = document
            if source is not None:
                self._sources[name] = source
        return names

    def add_file(self, path, *, uri: str | None = None) -> list[str]:
        """Register one JSON file by its ``$id``, its ``file://`` URI and *uri* if given."""
        path = Path(path)
        document = load_document(path)
        names = self.add(document, uri=path.resolve().as_uri(), source=str(path))
        if uri is not None:
            names += self.add(document, uri=uri, source=str(path))
        return names

    def add_directory(self, directory, *, base_uri: str | None = None) -> int:
        """Register every ``*.json`` file below *directory* (searched recursively,
        in sorted order); with *base_uri*, also as ``base_uri + relative path``
        (how the official test suite serves its ``remotes/``).  Returns the count."""
        directory = Path(directory)
        if not directory.is_dir():
            raise SchemaError("the registry is not a directory", file=str(directory))
        count = 0
        for path in sorted(directory.rglob("*.json")):
            if path.is_file():
                relative = path.relative_to(directory).as_posix()
                self.add_file(path, uri=None if base_uri is None else base_uri.rstrip("/") + "/" + relative)
                count += 1
        return count

    def get(self, uri: str):
        """The document registered under *uri*, or None (the shipped metaschemas
        are read on first use)."""
        document = self._documents.get(uri)
        if document is None and uri.startswith(_OFFICIAL):
            document = _metaschemas().get(uri)
        return document

    def source(self, uri: str) -> str | None:
        """Where a registered document was read from (a path), if known."""
        return self._sources.get(uri)


def _absolute(uri: str) -> bool:
    scheme, colon, _ = uri.partition(":")
    return bool(colon) and scheme[:1].isalpha() and all(c.isalnum() or c in "+.-" for c in scheme)


def load_document(path: Path):
    """A JSON document from *path*; unreadable or malformed is a SchemaError naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemaError(f"cannot read the schema: {exc}", file=str(path)) from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise SchemaError(f"the schema is not valid JSON: {exc}", file=str(path)) from None


_SHIPPED: dict[str, object] | None = None


def _metaschemas() -> dict:
    """The shipped draft 2020-12 metaschemas by ``$id`` (read once; published
    whole, so a thread never sees a half-filled table)."""
    global _SHIPPED
    if _SHIPPED is None:
        shipped = {}
        for path in sorted(_METASCHEMAS.glob("*.json")):
            document = json.loads(path.read_text(encoding="utf-8"))
            shipped[document["$id"]] = document
        _SHIPPED = shipped
    return _SHIPPED


def shipped_metaschema(uri: str):
    """One shipped metaschema by URI (None if there is no such one)."""
    return _metaschemas().get(uri) if uri.startswith(_OFFICIAL) else None
