"""What a workspace last accepted: the harness version file and the template state.

``.alice/alice-harness-version.json`` (git-excluded, machine bookkeeping)::

    {"schemaVersion": 1, "template": "alice-harness", "appliedVersion": "1.0.0",
     "appliedRevision": "1.0.0+0123456789abcdef", "appliedAt": "...", "source": "creation",
     "bundle": "default", "skillVersions": {"alice": {"version", "revision", "appliedAt", "bundle"}},
     "commit": "<sha>"}

``appliedVersion`` is ``unversioned`` before the workspace ever accepted a
bundle (then ``appliedRevision``/``appliedAt`` are null); a skill without an
entry in ``skillVersions`` has no injected version (never inferred from files).
``bundle`` is where a skill came from (``default`` or a bundle directory): an
unscoped upgrade also plans the removal of skills that bundle no longer has,
and leaves alone the skills another bundle put there.

``.alice/template-upgrade/state.json`` (git-excluded)::

    {"schemaVersion": 1, "template": "chat", "appliedVersion": "1.0.0", "appliedAt": "...",
     "source": "creation", "bundle": "default", "commit": "<sha>"}

Both are read strictly: a malformed file is an error naming the file and
field, and every harness write refuses until it is fixed (or removed: the
workspace then reads as never having accepted anything).
"""

from __future__ import annotations

from pathlib import Path

from openalice.core import fs
from openalice.core.errors import InvalidInput

__all__ = ["VERSION_FILE", "TEMPLATE_STATE_DIR", "HARNESS_STATE_DIR", "UNVERSIONED", "read_version",
           "read_template_state", "SOURCES"]

VERSION_FILE = ".alice/alice-harness-version.json"
HARNESS_STATE_DIR = ".alice/alice-harness-upgrade"
TEMPLATE_STATE_DIR = ".alice/template-upgrade"
TEMPLATE_STATE_FILE = TEMPLATE_STATE_DIR + "/state.json"
UNVERSIONED = "unversioned"
SOURCES = ("creation", "upgrade", "skill")


def _bad(reason: str, path, field: str | None = None) -> InvalidInput:
    return InvalidInput(reason, file=path, field=field, code="malformed_harness_state")


def _str(doc: dict, key: str, path, *, null: bool = False) -> None:
    value = doc.get(key)
    if value is None and null:
        return
    if not isinstance(value, str) or not value:
        raise _bad("must be a non-empty string" + (" or null" if null else ""), path, key)


def _keys(doc: object, path, required: set[str], optional: set[str]) -> dict:
    if not isinstance(doc, dict):
        raise _bad("must be a JSON object", path)
    for key in sorted(required - set(doc)):
        raise _bad("missing", path, key)
    for key in sorted(set(doc) - required - optional):
        raise _bad("unknown key", path, key)
    if doc["schemaVersion"] != 1:
        raise _bad(f"unsupported schemaVersion {doc['schemaVersion']!r}", path, "schemaVersion")
    return doc


def empty_version() -> dict:
    return {"schemaVersion": 1, "template": "alice-harness", "appliedVersion": UNVERSIONED,
            "appliedRevision": None, "appliedAt": None, "source": None, "bundle": None, "skillVersions": {}}


def read_version(root) -> dict:
    """The version file, or the never-accepted document when there is none."""
    path = Path(root) / VERSION_FILE
    doc = fs.read_json(path, missing=None, max_bytes=256 * 1024, root=root)
    if doc is None:
        return empty_version()
    _keys(doc, path, {"schemaVersion", "template", "appliedVersion", "appliedRevision", "appliedAt", "source",
                      "bundle", "skillVersions"}, {"commit"})
    if doc["template"] != "alice-harness":
        raise _bad("must be 'alice-harness'", path, "template")
    _str(doc, "appliedVersion", path)
    unversioned = doc["appliedVersion"] == UNVERSIONED
    for key in ("appliedRevision", "appliedAt", "bundle"):
        _str(doc, key, path, null=unversioned)
    if doc["source"] is not None and doc["source"] not in SOURCES:
        raise _bad(f"must be one of {', '.join(SOURCES)} (or null)", path, "source")
    _str(doc, "commit", path, null=True)
    skills = doc["skillVersions"]
    if not isinstance(skills, dict):
        raise _bad("must be an object", path, "skillVersions")
    for name, entry in skills.items():
        field = f"skillVersions.{name}"
        if not isinstance(entry, dict) or set(entry) != {"version", "revision", "appliedAt", "bundle"}:
            raise _bad("must be {version, revision, appliedAt, bundle}", path, field)
        for key in ("version", "revision", "appliedAt", "bundle"):
            if not isinstance(entry[key], str) or not entry[key]:
                raise _bad("must be a non-empty string", path, f"{field}.{key}")
    return doc


def read_template_state(root) -> dict | None:
    """The template state, or None when the workspace never accepted a template's guidance."""
    path = Path(root) / TEMPLATE_STATE_FILE
    doc = fs.read_json(path, missing=None, max_bytes=64 * 1024, root=root)
    if doc is None:
        return None
    _keys(doc, path, {"schemaVersion", "template", "appliedVersion", "appliedAt", "source", "bundle"}, {"commit"})
    for key in ("template", "appliedVersion", "appliedAt", "bundle"):
        _str(doc, key, path)
    if doc["source"] not in SOURCES:
        raise _bad(f"must be one of {', '.join(SOURCES)}", path, "source")
    _str(doc, "commit", path, null=True)
    return doc
