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
"""

from .library import DEFAULT_PACK, builtin_ids, import_pack, list_packs
from .library import get as get_pack
from .pack import Pack, Sticker
from .pack import read_dir as read_pack_dir
from .projection import (
    Preview,
    apply,
    preview,
    project_new_workspace,
    read_state,
    recover_workspace,
)
from .report import status

__all__ = ["DEFAULT_PACK", "builtin_ids", "get_pack", "import_pack", "list_packs", "Pack", "Sticker",
           "read_pack_dir", "Preview", "apply", "preview", "project_new_workspace", "read_state",
           "recover_workspace", "status"]
