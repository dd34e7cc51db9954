"""The effective descriptor: catalog ⊕ machine state ⊕ (on demand) health.

This merged shape is the contract the Web UI, the validator and scripts read
(``spec/adapter-descriptor.schema.json``); none of them parse the files.
``models`` is the catalog's list narrowed by the machine's ``modelAllow``
(intersected, so a model the catalog dropped since is never offered).
Secrets appear only as presence.
"""

from __future__ import annotations

from collections.abc import Mapping

from .catalog import AdapterEntry
from .state import AdapterState

__all__ = ["build", "effective_models"]


def effective_models(entry: AdapterEntry, state: AdapterState | None) -> list[str]:
    if state is None or state.modelAllow is None:
        return list(entry.models)
    allowed = set(state.modelAllow)
    return [m for m in entry.models if m in allowed]


def build(entry: AdapterEntry, state: AdapterState | None, *, health=None,
          available: list[str] | None = None, secrets: Mapping[str, str] | None = None) -> dict:
    """One descriptor.  ``health`` is a :class:`~openalice.adapters.health.HealthResult`
    (None: ``unknown``, not probed)."""
    state = state or AdapterState()
    out: dict = {"id": entry.id, "kind": entry.kind}
    if entry.label:
        out["label"] = entry.label
    out["enabled"] = state.enabled
    out["models"] = effective_models(entry, state)
    if available is not None:
        out["availableModels"] = list(available)
    out["config"] = dict(state.config)
    out["health"] = health.health if health is not None else "unknown"
    if health is not None and health.detail:
        out["healthDetail"] = health.detail
    out["catalogModels"] = list(entry.models)
    out["wrapper"] = entry.raw.get("wrapper", str(entry.wrapper))
    out["envFile"] = str(entry.envFile) if entry.envFile is not None else None
    out["secrets"] = dict(secrets or {})
    return out
