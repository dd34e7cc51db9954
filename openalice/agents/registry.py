"""Finding an adapter by agent name: the four built-in engines, else an
engine from the harness-adapter catalog run through its wrapper."""

from __future__ import annotations

import importlib

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
    module_name, _, cls_name = BUILTIN[name].partition(":")
    return getattr(importlib.import_module(module_name), cls_name)()


def _catalog_entry(name: str):
    """The harness-adapter catalog entry for ``name`` (None when absent)."""
    from openalice.adapters import catalog  # lazy: a built-in name never reads the catalog

    return catalog.find(name)


def _wrapper_adapter(entry) -> Adapter:
    from .wrapper import WrapperAdapter  # lazy: only a catalog engine needs it

    return WrapperAdapter(entry.id, entry.wrapper, models=tuple(entry.models), health=entry.health,
                          list_models=entry.listModels, stream=entry.stream, env_file=entry.envFile,
                          interactive=entry.interactive)


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
        hint = "built-in agents: " + ", ".join(BUILTIN)
        raise NotFound(f"unknown agent {name!r}", field="agent", code="unknown_agent", details={"hint": hint})
    return _wrapper_adapter(entry)


def is_known(name: str) -> bool:
    try:
        get_adapter(name)
    except AliceError:
        return False
    return True


def known_agents() -> list[dict]:
    """Built-ins, plus the catalog's engines (a catalog that cannot be read adds none)."""
    from openalice.adapters import catalog  # lazy: see _catalog_entry

    out = [_builtin(n).describe() for n in BUILTIN]
    try:
        entries = catalog.load_catalog().entries
    except AliceError:  # listing is informational; `harness-adapter validate` reports it
        entries = ()
    out.extend(_wrapper_adapter(e).describe() for e in entries if e.id not in BUILTIN)
    return out
