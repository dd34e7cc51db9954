"""Model semantics: an offline table of limits and reasoning per vendor and
exact model id (``default/model-semantics.json``).  Unknown ids are valid and
simply have no semantics."""

from .semantics import (  # noqa: F401
    EFFORTS, MODES, WIRE_SHAPES, ModelSemantics, Reasoning, check_effort, context_label,
    default_model, describe, effective, list_models, merge, resolve, supports_reasoning, table,
    vendor_info, vendors,
)

__all__ = [
    "EFFORTS", "MODES", "WIRE_SHAPES", "ModelSemantics", "Reasoning", "check_effort",
    "context_label", "default_model", "describe", "effective", "list_models", "merge", "resolve",
    "supports_reasoning", "table", "vendor_info", "vendors",
]
