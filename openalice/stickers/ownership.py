"""What the sticker projection owns in a workspace: its paths, ``.alice/stickers.json`` (the
ownership state, validated), its journal file, and the directories it writes into (checked)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from openalice import managed
from openalice.core import fs
from openalice.core.errors import InvalidInput
from openalice.workspaces.skills import skill_trees

from . import pack as packs

STATE_FILE = ".alice/stickers.json"
JOURNAL_FILE = ".alice/sticker-transaction.json"
STICKER_DIR = "sticker"
OWNER = "alice-stickers"
ACTIONS = ("enable", "disable")
SKILL_TREES = tuple(skill_trees(packs.SKILL_NAME))
SKILL_FILES = tuple(tree + "SKILL.md" for tree in SKILL_TREES)
GIT_EXCLUDES = ("/.alice/sticker-transaction.json",)
STATE_VERSION = 1
RECOVERY_WAIT = 30.0


def _dirs_on_the_way() -> tuple[str, ...]:
    """Every directory the projection writes into, parents first."""
    out = [STICKER_DIR, ".alice"]
    for tree in SKILL_TREES:
        parts = tree.rstrip("/").split("/")
        for n in range(1, len(parts) + 1):
            rel = "/".join(parts[:n])
            if rel not in out:
                out.append(rel)
    return tuple(out)


CHECKED_DIRS = _dirs_on_the_way()


# -- ownership state --------------------------------------------------------------------------------

def owned_path_problem(rel: str) -> str | None:
    """Why ``rel`` cannot be a path the projection owns (None: it can)."""
    if rel in SKILL_FILES:
        return None
    name = rel[len(STICKER_DIR) + 1:] if rel.startswith(STICKER_DIR + "/") else None
    if name is not None and packs.FILE_RE.match(name):
        return None
    return ("invalid sticker ownership path: outside sticker/ (only sticker/<file>.png|.webp and the "
            "alice-stickers SKILL.md and its mirror are owned)")


def read_state(root: os.PathLike | str) -> dict | None:
    """``.alice/stickers.json`` (validated), or None when the workspace never had stickers."""
    path = Path(root) / STATE_FILE
    data = fs.read_json(path, missing=None, max_bytes=1024 * 1024, root=root)
    if data is None:
        return None

    def bad(reason: str, field_: str | None = None) -> InvalidInput:
        return InvalidInput(reason, file=path, field=field_, code="malformed_sticker_state")

    if not isinstance(data, dict):
        raise bad("must be a JSON object")
    packs.check_keys(data, {"schemaVersion", "enabled", "packId", "revision", "files"}, bad)
    if data["schemaVersion"] != STATE_VERSION or isinstance(data["schemaVersion"], bool):
        raise bad(f"unsupported schemaVersion {data['schemaVersion']!r}", "schemaVersion")
    if not isinstance(data["enabled"], bool):
        raise bad("must be true or false", "enabled")
    if not isinstance(data["packId"], str) or not packs.ID_RE.match(data["packId"]):
        raise bad("not a pack id", "packId")
    if not isinstance(data["revision"], str) or not packs.REVISION_RE.match(data["revision"]):
        raise bad("not a pack revision (VERSION+12 hex digits)", "revision")
    if not isinstance(data["files"], dict):
        raise bad("must map owned paths to their sha256", "files")
    for rel, sha in data["files"].items():
        problem = owned_path_problem(rel)
        if problem is not None:
            raise bad(f"{problem}: {rel!r}", f"files/{rel}")
        if not (isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)):
            raise bad("must be a sha256 (64 lowercase hex digits)", f"files/{rel}")
    return data


def journal_store(root: os.PathLike | str) -> managed.JournalFile:
    return managed.JournalFile(root, JOURNAL_FILE)


def check_layout(root: os.PathLike | str) -> None:
    """Refuse a symlink (or a file) where a directory the projection writes into belongs."""
    base = Path(root)
    for rel in CHECKED_DIRS:
        path = base / rel
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISLNK(st.st_mode):
            raise InvalidInput(f"{rel}/ is a symlink; stickers are never written through symlinks", file=path,
                               code="symlink_refused")
        if not stat.S_ISDIR(st.st_mode):
            raise InvalidInput(f"{rel} is not a directory; the sticker projection needs a directory there",
                               file=path, code="not_a_directory")
