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

* :mod:`.pack` — ``pack.json``, magic bytes, limits, the generated skill, the revision;
* :mod:`.archive` — a pack from a zip, every check before anything is decompressed;
* :mod:`.library` — built-in packs (``default/stickers/``) and imported ones;
* :mod:`.ownership` — what the projection owns (``.alice/stickers.json``), checked;
* :mod:`.projection` — a pack in a workspace, through :mod:`openalice.managed`;
* :mod:`.report` — ``status``: drift, personal files, updates.

See ``docs/stickers.md``.

The names load lazily: ``list``, ``show`` and ``cat`` (the web page asks for a
pack's every thumbnail, one process each) need the library and the pack format,
not the projection, the managed-file engine or the journal.
"""

from __future__ import annotations

from openalice.core import lazy

_EXPORTS = {
    "DEFAULT_PACK": ("library", "DEFAULT_PACK"), "builtin_ids": ("library", "builtin_ids"),
    "import_pack": ("library", "import_pack"), "list_packs": ("library", "list_packs"),
    "get_pack": ("library", "get"),
    "Pack": ("pack", "Pack"), "Sticker": ("pack", "Sticker"), "read_pack_dir": ("pack", "read_dir"),
    "Preview": ("projection", "Preview"), "apply": ("projection", "apply"),
    "preview": ("projection", "preview"), "project_new_workspace": ("projection", "project_new_workspace"),
    "read_state": ("projection", "read_state"), "recover_workspace": ("projection", "recover_workspace"),
    "status": ("report", "status"),
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy.exports(__name__, globals(), _EXPORTS)
