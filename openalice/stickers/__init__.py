"""Sticker packs: the pack format, the library of built-in and imported
packs, and their projection into workspaces.

    from openalice import stickers

    stickers.list_packs()                                   # (summaries, problems)
    stickers.get_pack("alice-ink")                          # validated Pack (images, skill, revision)
    stickers.import_pack("~/packs/mine.zip", now=now)       # into $OPENALICE_HOME/data/stickers/packs/
    stickers.preview(ws, action="enable", pack_id="mine", now=now)   # plan + digest
    stickers.apply(ws, action="enable", pack_id="mine", digest=d, now=now)
    stickers.apply(ws, action="disable", now=now)           # the skill goes, the images stay
    stickers.status(ws, now=now)

See ``docs/stickers.md``.  The names load lazily, so importing the package
costs nothing until one is used.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Pack": ("pack", "Pack"), "Sticker": ("pack", "Sticker"), "read_pack_dir": ("pack", "read_dir"),
    "DEFAULT_PACK": ("library", "DEFAULT_PACK"), "get_pack": ("library", "get"),
    "list_packs": ("library", "list_packs"), "import_pack": ("library", "import_pack"),
    "builtin_ids": ("library", "builtin_ids"),
    "Preview": ("projection", "Preview"), "preview": ("projection", "preview"), "apply": ("projection", "apply"),
    "status": ("projection", "status"), "recover_workspace": ("projection", "recover_workspace"),
    "read_state": ("projection", "read_state"), "project_new_workspace": ("projection", "project_new_workspace"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'openalice.stickers' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{module}", __name__), attr)
    globals()[name] = value
    return value
