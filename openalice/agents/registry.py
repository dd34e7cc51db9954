"""Finding an adapter by agent name: the four built-in engines, else an
engine from the harness-adapter catalog run through its wrapper."""

from __future__ import annotations

from typing import Any

from openalice.core.errors import AliceError, InvalidInput, NotFound

from .base import Adapter

__all__ = ["BUILTIN", "builtin_names", "get_adapter", "known_agents", "is_known"]

BUILTIN = {
    "claude": "openalice.agents.claude:ClaudeAdapter",
    "codex": "openalice.agents.codex:CodexAdapter",
    "opencode": "openalice.agents.opencode:OpencodeAdapter",
    "pi": "openalice.agents.pi:PiAdapter",
}


def builtin_names() -> list[str]:
    return list(BUILTIN)


def _builtin(name: str) -> Adapter:
    import importlib

    module_name, _, cls_name = BUILTIN[name].partition(":")
    return getattr(importlib.import_module(module_name), cls_name)()


def _field(entry: Any, *names: str) -> Any:
    for name in names:
        if isinstance(entry, dict) and name in entry:
            return entry[name]
        if not isinstance(entry, dict) and hasattr(entry, name):
            return getattr(entry, name)
    return None


def _catalog_module():
    try:
        from openalice.adapters import catalog
    except ImportError:
        return None
    return catalog


def _catalog_entry(name: str) -> Any:
    """The catalog entry for ``name`` (None when there is no catalog or no entry)."""
    catalog = _catalog_module()
    if catalog is None:
        return None
    for fn_name in ("get", "find", "get_entry", "entry"):
        fn = getattr(catalog, fn_name, None)
        if callable(fn):
            try:
                return fn(name)
            except (NotFound, KeyError, LookupError):
                return None
    for fn_name in ("entries", "load", "load_catalog", "list_entries"):
        fn = getattr(catalog, fn_name, None)
        if callable(fn):
            result = fn()
            items = result.get("adapters", result) if isinstance(result, dict) else result
            for entry in items or ():
                if _field(entry, "id", "name") == name:
                    return entry
            return None
    return None


def _wrapper_adapter(name: str, entry: Any) -> Adapter:
    from .wrapper import WrapperAdapter

    wrapper = _field(entry, "wrapper_path", "wrapperPath", "wrapper")
    if not wrapper:
        raise InvalidInput(f"catalog entry {name!r} has no wrapper", field="agent", code="bad_wrapper")
    efforts = _field(entry, "efforts")
    models = _field(entry, "models") or ()
    return WrapperAdapter(name, wrapper, efforts=tuple(efforts) if efforts else None,
                          models=tuple(m for m in models if isinstance(m, str)),
                          health=bool(_field(entry, "health")), list_models=bool(_field(entry, "listModels")),
                          # the catalog's `stream` extension: a wrapper may pass its engine's native stream
                          stream=_field(entry, "stream") or "wrapper-jsonl")


def get_adapter(name: str) -> Adapter:
    """The adapter for agent ``name``; an unknown name is refused (exit 2)."""
    if name in BUILTIN:
        return _builtin(name)
    entry = None
    if isinstance(name, str) and name:
        try:
            entry = _catalog_entry(name)
        except AliceError:
            raise
        except Exception as exc:  # another capability's bug must not look like ours
            raise InvalidInput(f"cannot read the adapter catalog: {exc}", field="agent",
                               code="catalog_unreadable") from None
    if entry is None:
        hint = ("built-in agents: " + ", ".join(BUILTIN)
                + ("" if _catalog_module() is not None else "; the adapter catalog is not available"))
        raise NotFound(f"unknown agent {name!r}", field="agent", code="unknown_agent", details={"hint": hint})
    return _wrapper_adapter(name, entry)


def is_known(name: str) -> bool:
    try:
        get_adapter(name)
    except AliceError:
        return False
    return True


def known_agents() -> list[dict]:
    """Built-ins, plus catalog engines when the catalog is available."""
    out = [_builtin(n).describe() for n in BUILTIN]
    catalog = _catalog_module()
    if catalog is not None:
        for fn_name in ("entries", "load", "load_catalog", "list_entries"):
            fn = getattr(catalog, fn_name, None)
            if callable(fn):
                try:
                    result = fn()
                    items = result.get("adapters", result) if isinstance(result, dict) else result
                    for entry in items or ():
                        ident = _field(entry, "id", "name")
                        if isinstance(ident, str) and ident not in BUILTIN:
                            out.append(_wrapper_adapter(ident, entry).describe())
                except Exception:  # listing is informational
                    pass
                break
    return out
