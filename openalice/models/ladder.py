"""The reasoning vocabulary every capability shares: the effort ladder and the
reasoning modes.  A leaf (no imports), so the issue reader can check an
issue's ``effort`` without loading the semantics table's module."""

__all__ = ["EFFORTS", "ISSUE_EFFORTS", "MODES"]

#: The ordered effort ladder; ``ultra`` exists only in Codex-subscription variants.
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra")
#: What an issue's ``effort`` may name (the issue contract, spec/issue.schema.json):
#: the ladder up to ``max``.  ``ultra`` exists only in Codex-subscription variants,
#: and the issue contract has never admitted it.
ISSUE_EFFORTS = tuple(e for e in EFFORTS if e != "ultra")
#: How a model reasons: not at all, on request, on its own, always.
MODES = ("none", "optional", "adaptive", "required")
