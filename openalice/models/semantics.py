"""Offline model semantics: limits and reasoning per vendor and exact model id.

The table ships as ``default/model-semantics.json`` (schema
``spec/model-semantics.schema.json``).  Lookup is exact: the id is trimmed,
then ``[vendor][id]``; there are no aliases and no prefix matches, so an
unknown or free-typed id resolves to ``None`` (valid, with no semantics).
Every field is optional and a missing field means *unknown*, never false.
"""

from __future__ import annotations

from collections.abc import Mapping

from openalice.core.errors import InvalidInput, NotFound
from openalice.core.records import record_class

from .ladder import EFFORTS, MODES

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = [
    "EFFORTS", "MODES", "Reasoning", "ModelSemantics", "table", "vendors",
    "vendor_info", "default_model", "resolve", "list_models", "supports_reasoning", "describe",
    "merge", "effective", "check_effort", "context_label",
]

_TABLE_FILE = "model-semantics.json"


@record_class(frozen=True)
class Reasoning:
    mode: str | None = None
    supported: bool | None = None
    efforts: tuple[str, ...] | None = None
    default_effort: str | None = None
    default_enabled: bool | None = None
    interleaved: bool | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Reasoning":
        efforts = data.get("efforts")
        return cls(mode=data.get("mode"), supported=data.get("supported"),
                   efforts=None if efforts is None else tuple(efforts),
                   default_effort=data.get("defaultEffort"),
                   default_enabled=data.get("defaultEnabled"),
                   interleaved=data.get("interleaved"))

    def to_dict(self) -> dict:
        out: dict[str, Any] = {}
        for key, value in (("mode", self.mode), ("supported", self.supported),
                           ("efforts", None if self.efforts is None else list(self.efforts)),
                           ("defaultEffort", self.default_effort),
                           ("defaultEnabled", self.default_enabled),
                           ("interleaved", self.interleaved)):
            if value is not None:
                out[key] = value
        return out


@record_class(frozen=True)
class ModelSemantics:
    vendor: str
    model: str
    context_window: int | None = None
    max_output_tokens: int | None = None
    reasoning: Reasoning | None = None
    same_as: str | None = None  # "vendor/model" whose facts an aggregator slug copies

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"vendor": self.vendor, "model": self.model}
        if self.context_window is not None:
            out["contextWindow"] = self.context_window
        if self.max_output_tokens is not None:
            out["maxOutputTokens"] = self.max_output_tokens
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning.to_dict()
        if self.same_as is not None:
            out["sameAs"] = self.same_as
        return out


_cache: dict[str, Any] = {}


def table() -> dict:
    """The shipped table (loaded once per process)."""
    doc = _cache.get("table")
    if doc is None:
        from openalice.core import resources  # lazy: importlib.resources, once per process

        doc = resources.load_json("default", _TABLE_FILE)
        if not isinstance(doc, dict) or doc.get("version") != 1 or not isinstance(doc.get("vendors"), dict):
            raise InvalidInput("unsupported model table", file=resources.data_path("default", _TABLE_FILE),
                               code="bad_model_table")
        _cache["table"] = doc
    return doc


def vendors() -> list[str]:
    return list(table()["vendors"])


def vendor_info(vendor: str) -> dict:
    info = table()["vendors"].get(vendor)
    if info is None:
        raise NotFound(f"unknown vendor {vendor!r} (known: {', '.join(vendors())})",
                       field="vendor", code="unknown_vendor")
    return info


def default_model(vendor: str) -> str | None:
    info = table()["vendors"].get(vendor)
    return None if info is None else info.get("defaultModel")


def _build(vendor: str, model: str, entry: Mapping[str, Any], same_as: str | None = None) -> ModelSemantics:
    reasoning = entry.get("reasoning")
    return ModelSemantics(vendor=vendor, model=model, context_window=entry.get("contextWindow"),
                          max_output_tokens=entry.get("maxOutputTokens"),
                          reasoning=None if reasoning is None else Reasoning.from_dict(reasoning),
                          same_as=same_as)


def _raw_entry(vendor: str, model: str, auth_type: str | None) -> tuple[dict, str | None] | None:
    info = table()["vendors"].get(vendor)
    if info is None:
        return None
    entry = info.get("models", {}).get(model)
    if entry is None:
        return None
    same_as = entry.get("sameAs")
    if same_as:
        origin_vendor, _, origin_model = same_as.partition("/")
        origin = table()["vendors"].get(origin_vendor, {}).get("models", {}).get(origin_model)
        if origin is None or origin.get("sameAs"):
            return None
        entry = origin
    if auth_type:
        variant = info.get("authVariants", {}).get(auth_type, {}).get(model)
        if variant:
            merged = {**entry, **variant}
            if "reasoning" in variant:
                merged["reasoning"] = variant["reasoning"]
            entry = merged
    return entry, same_as


def resolve(vendor: str | None, model: str | None, *, auth_type: str | None = None) -> ModelSemantics | None:
    """Semantics of ``model`` at ``vendor``, or None when unknown.

    ``auth_type="subscription"`` applies the vendor's subscription variant
    (Codex-subscription presets narrow context and effort tiers).
    """
    if not vendor or not isinstance(model, str):
        return None
    model = model.strip()
    if not model:
        return None
    found = _raw_entry(vendor, model, auth_type)
    if found is None:
        return None
    entry, same_as = found
    return _build(vendor, model, entry, same_as)


def list_models(vendor: str | None = None) -> list[ModelSemantics]:
    names = [vendor] if vendor else vendors()
    out = []
    for name in names:
        vendor_info(name)
        for model in table()["vendors"][name].get("models", {}):
            sem = resolve(name, model)
            if sem is not None:
                out.append(sem)
    return out


def supports_reasoning(sem: ModelSemantics | None) -> bool | None:
    """True/False when the table knows; None when it does not."""
    if sem is None or sem.reasoning is None:
        return None
    if sem.reasoning.mode is None:
        return sem.reasoning.supported
    return sem.reasoning.mode != "none"


def context_label(tokens: int) -> str:
    if tokens >= 1_000_000:
        text = f"{tokens / 1_000_000:.2f}".rstrip("0").rstrip(".")
        return f"{text}M"
    if tokens >= 1000:
        return f"{round(tokens / 1000)}K"
    return str(tokens)


_MODE_LABELS = {"none": "No reasoning", "optional": "Reasoning optional",
                "adaptive": "Adaptive reasoning", "required": "Reasoning always on"}


def describe(sem: ModelSemantics | None) -> str:
    """One line: mode, default effort or thinking switch, interleaving, context."""
    if sem is None:
        return "unknown model (no semantics; the engine decides)"
    parts = []
    r = sem.reasoning
    if r is not None:
        if r.mode:
            parts.append(_MODE_LABELS[r.mode])
        elif r.supported is not None:
            parts.append("Reasoning supported" if r.supported else "No reasoning")
        if r.default_effort:
            parts.append(f"default effort {r.default_effort}")
        elif r.default_enabled is not None:
            parts.append(f"thinking default {'on' if r.default_enabled else 'off'}")
        if r.interleaved:
            parts.append("interleaved thinking")
    if sem.context_window:
        parts.append(f"{context_label(sem.context_window)} context")
    return " · ".join(parts) if parts else "no facts recorded"


def merge(fallback: ModelSemantics | None, live: ModelSemantics | None) -> ModelSemantics | None:
    """Live (discovered) facts over the offline table: live fields win even when
    false or empty; a live "no reasoning" clears the efforts; a default effort
    that is not among the efforts is dropped."""
    if live is None:
        return fallback
    if fallback is None:
        base = live
    else:
        base = ModelSemantics(
            vendor=live.vendor, model=live.model,
            context_window=live.context_window if live.context_window is not None else fallback.context_window,
            max_output_tokens=(live.max_output_tokens if live.max_output_tokens is not None
                               else fallback.max_output_tokens),
            reasoning=_merge_reasoning(fallback.reasoning, live.reasoning),
            same_as=fallback.same_as)
    r = base.reasoning
    if r is None:
        return base
    if (live.reasoning is not None and (live.reasoning.supported is False or live.reasoning.mode == "none")):
        r = Reasoning(mode="none", supported=False, efforts=(), interleaved=r.interleaved)
    elif r.default_effort is not None and r.efforts is not None and r.default_effort not in r.efforts:
        r = Reasoning(mode=r.mode, supported=r.supported, efforts=r.efforts, default_effort=None,
                      default_enabled=r.default_enabled, interleaved=r.interleaved)
    return ModelSemantics(base.vendor, base.model, base.context_window, base.max_output_tokens, r,
                          base.same_as)


def _merge_reasoning(fallback: Reasoning | None, live: Reasoning | None) -> Reasoning | None:
    if live is None:
        return fallback
    if fallback is None:
        return live
    pick = lambda a, b: a if a is not None else b
    return Reasoning(mode=pick(live.mode, fallback.mode), supported=pick(live.supported, fallback.supported),
                     efforts=pick(live.efforts, fallback.efforts),
                     default_effort=pick(live.default_effort, fallback.default_effort),
                     default_enabled=pick(live.default_enabled, fallback.default_enabled),
                     interleaved=pick(live.interleaved, fallback.interleaved))


def effective(vendor: str | None, model: str, override: Mapping[str, Any] | None = None, *,
              auth_type: str | None = None) -> dict:
    """What a model-registering runtime (opencode, pi) is told about ``model``.

    ``override`` is ``{"model": ID, "contextWindow"?: N, "reasoning"?: bool}``
    and applies only when ``override["model"]`` is exactly ``model``.  For a
    known model the table's reasoning bit wins over the override, and the
    context is the smaller of the configured and the registered one.  For an
    unknown model the override passes through as given; without one the keys
    are omitted so the runtime falls back to its own defaults.
    """
    if override is not None and override.get("model") != model:
        override = None
    configured_ctx = None if override is None else override.get("contextWindow")
    configured_reasoning = None if override is None else override.get("reasoning")
    out: dict[str, Any] = {}
    sem = resolve(vendor, model, auth_type=auth_type)
    if sem is None:
        if configured_ctx is not None:
            out["contextWindow"] = configured_ctx
        if configured_reasoning is not None:
            out["reasoning"] = configured_reasoning
        return out
    registered_reasoning = supports_reasoning(sem)
    if registered_reasoning is not None:
        out["reasoning"] = registered_reasoning
    elif configured_reasoning is not None:
        out["reasoning"] = configured_reasoning
    registered_ctx = sem.context_window
    if registered_ctx is not None and configured_ctx is not None:
        out["contextWindow"] = min(registered_ctx, configured_ctx)
    elif registered_ctx is not None:
        out["contextWindow"] = registered_ctx
    elif configured_ctx is not None:
        out["contextWindow"] = configured_ctx
    if sem.max_output_tokens is not None:
        out["maxOutputTokens"] = sem.max_output_tokens
    return out


def check_effort(effort: str | None, *, field: str = "effort") -> str | None:
    """Validate an effort name against the global ladder (None passes)."""
    if effort is None:
        return None
    if effort not in EFFORTS:
        raise InvalidInput(f"unknown effort {effort!r} (one of: {', '.join(EFFORTS)})", field=field,
                           code="bad_effort")
    return effort
