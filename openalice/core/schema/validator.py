"""The validator: a schema compiled once, then applied to many instances."""

from __future__ import annotations

from ..errors import InvalidInput
from .compiler import Compiler
from .instances import json_type_name
from .report import SchemaError, Violation, too_deep_error


class Validator:
    """A schema compiled for repeated validation."""

    __slots__ = ("schema", "source", "_check", "_collect")

    def __init__(self, schema: dict | bool, *, source: str | None = None, registry=None, uri: str = "",
                 format_assertion: bool = False, unknown_keywords: str = "error") -> None:
        """Compile *schema*.  *registry* (a :class:`~.registry.Registry`) holds the
        documents that references leaving this one resolve to; *uri* is the
        schema's retrieval URI (the base of relative references when it has no
        ``$id``).  *format_assertion* makes ``format`` a check rather than an
        annotation.  *unknown_keywords* is ``"error"`` (a keyword no vocabulary
        defines is a SchemaError) or ``"ignore"`` (it is an annotation, the
        specification's default)."""
        self.schema = schema
        self.source = source
        if not isinstance(schema, (dict, bool)):
            raise SchemaError(f"a schema must be a JSON object or a boolean, not {json_type_name(schema)}",
                              file=source, field="/")
        try:
            root = Compiler(schema, source, registry=registry, uri=uri, formats=format_assertion,
                             unknown=unknown_keywords).compile()
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
            raise too_deep_error(instance, None) from None

    def errors(self, instance) -> list[Violation]:
        """Every violation, in schema keyword order (deterministic); [] if valid."""
        found: list[Violation] = []
        try:
            self._collect(instance, (), found)
        except RecursionError:
            raise too_deep_error(instance, None) from None
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
            raise too_deep_error(instance, file) from None
        if not found:  # the two compiled forms disagree: a bug, but never pass silently
            found = [Violation("", "", "the value does not match the schema")]
        first = found[0]
        raise InvalidInput(
            first.message, code="schema_violation", file=file, field=first.instance_path or "/",
            details={"violations": [{"path": v.instance_path, "keyword": v.keyword_path, "message": v.message}
                                    for v in found]})
