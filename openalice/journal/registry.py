"""Families and types of activity-journal facts.

A fact's ``type`` must be registered before anything records it: the journal
is a vocabulary shared by producers (agent runtime, inbox, news) and readers
(the CLI, the web UI), so an unknown type is a programming error, not data.
"""

from __future__ import annotations

__all__ = ["FAMILIES", "family_of", "types_of", "register_family", "all_types"]

# family -> its types, in the order they are documented.
FAMILIES: dict[str, tuple[str, ...]] = {}
_TYPE_FAMILY: dict[str, str] = {}


def register_family(family: str, types: tuple[str, ...] | list[str]) -> None:
    """Register ``family`` with ``types``; a type already owned elsewhere is refused.

    Registering the same family again adds new types to it (idempotent for the
    ones it already has), so a producer may declare its vocabulary at import.
    """
    if not family or not isinstance(family, str):
        raise ValueError("a journal family needs a name")
    for type_name in types:
        owner = _TYPE_FAMILY.get(type_name)
        if owner is not None and owner != family:
            raise ValueError(f"journal type {type_name!r} already belongs to family {owner!r}")
    known = list(FAMILIES.get(family, ()))
    for type_name in types:
        if type_name not in known:
            known.append(type_name)
        _TYPE_FAMILY[type_name] = family
    FAMILIES[family] = tuple(known)


def family_of(type_name: str) -> str | None:
    return _TYPE_FAMILY.get(type_name)


def types_of(family: str) -> tuple[str, ...]:
    return FAMILIES.get(family, ())


def all_types() -> list[str]:
    return [t for types in FAMILIES.values() for t in types]


register_family("agent", (
    "session.born", "session.opened", "session.closed", "runtime.started", "runtime.stopped", "runtime.spawn_failed",
    "runtime.rejected", "runtime.turn.text", "runtime.turn.tool", "runtime.turn.error",
))
register_family("inbox", ("inbox.received",))
register_family("news", ("news.ingested",))
register_family("conversations", ("comment.added", "comment.delivered", "comment.replied",
                                  "comment.failed"))
register_family("harness", ("harness.upgraded", "harness.recovered", "harness.config.changed",
                             "harness.source.upgraded"))
register_family("stickers", ("stickers.imported", "stickers.applied", "stickers.recovered"))
register_family("connectors", ("connector.sent", "connector.failed", "connector.received"))
