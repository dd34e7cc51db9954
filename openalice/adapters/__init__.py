"""Engine adapters: the catalog, per-machine state, health, model lists, presets.

    from openalice.adapters import catalog, state
    entry = catalog.find("codex")            # AdapterEntry | None
    descriptor("codex")                      # the effective descriptor (a dict)

Modules: :mod:`.catalog` (``adapters/v1``), :mod:`.state` (``adapters-state/v1``),
:mod:`.effective` (the merge), :mod:`.health` (``--health`` probes),
:mod:`.models` (``--list-models`` and its cache), :mod:`.envfile` (write-only
secrets), :mod:`.validate` (presets and run-configs against the catalog).
"""

from __future__ import annotations

import os
from datetime import datetime

__all__ = ["descriptor", "describe"]


def describe(ids: list[str] | None = None, *, catalog_path: os.PathLike | str | None = None,
             probe: bool = False, timeout: float | None = None, now: datetime | None = None,
             warnings: list[str] | None = None) -> list[dict]:
    """Effective descriptors for ``ids`` (default: every catalog adapter, in
    catalog order).  With ``probe`` each declared wrapper's ``--health`` runs."""
    # lazy: agents.registry imports openalice.adapters.catalog for every catalog
    # lookup, so the package face itself imports nothing
    from . import catalog as catalog_mod
    from . import envfile, models
    from . import state as state_mod
    from .effective import build
    from .invoke import DEFAULT_TIMEOUT

    cat = catalog_mod.load_catalog(catalog_path)
    states = state_mod.load_state()
    entries = [cat.require(i) for i in ids] if ids is not None else list(cat)
    if now is None:
        from openalice.core.clock import now as clock_now  # lazy: see above

        now = clock_now()
    results = {}
    if probe:
        from .health import probe_many  # lazy: only --health probes

        for result in probe_many(entries, now=now, timeout=timeout or DEFAULT_TIMEOUT):
            results[result.id] = result
    cache, warning = models.read_cache()
    if warning and warnings is not None:
        warnings.append(warning)
    out = []
    for entry in entries:
        if not entry.listModels:
            available = list(entry.models)
        else:
            record = cache.get(entry.id)
            available = (list(record["models"]) if record and record.get("wrapper") == str(entry.wrapper)
                         else None)
        out.append(build(entry, states.get(entry.id), health=results.get(entry.id),
                         available=available, secrets=envfile.secret_status(entry)))
    return out


def descriptor(adapter_id: str, *, catalog_path: os.PathLike | str | None = None,
               probe: bool = False, timeout: float | None = None,
               now: datetime | None = None) -> dict:
    """The effective descriptor of one adapter (NotFound, exit 2, if unknown)."""
    return describe([adapter_id], catalog_path=catalog_path, probe=probe, timeout=timeout, now=now)[0]
