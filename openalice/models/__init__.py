"""Model semantics: an offline table of limits and reasoning per vendor and
exact model id (``default/model-semantics.json``).  Unknown ids are valid and
simply have no semantics.

The vocabulary (:mod:`.ladder`: ``EFFORTS``, ``MODES``) is imported at once;
the rest of the public face comes from :mod:`.semantics` on first use, since
that module costs milliseconds (its record classes) and the issue reader,
which checks an issue's ``effort`` on every ``alice issue list``, needs only
the ladder.
"""

from .ladder import EFFORTS, MODES

__all__ = [
    "EFFORTS", "MODES", "ModelSemantics", "Reasoning", "check_effort",
    "context_label", "default_model", "describe", "effective", "list_models", "merge", "resolve",
    "supports_reasoning", "table", "vendor_info", "vendors",
]

_FROM_SEMANTICS = frozenset(__all__) - {"EFFORTS", "MODES"}


def __getattr__(name: str):
    if name in _FROM_SEMANTICS:
        from . import semantics  # lazy: see the module docstring

        return getattr(semantics, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
