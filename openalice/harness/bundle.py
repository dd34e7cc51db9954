"""The harness bundle: versioned skills and workspace templates.

A bundle is a directory laid out like the shipped ``default/``::

    alice-harness.json                 {"schemaVersion": 1, "version": "1.0.0", "description": "..."}
    skills/<name>/SKILL.md             frontmatter name (= <name>) and description, + any files
    templates/<name>/template.json     {"schemaVersion", "name", "version", "description",
                                        "bundledSkills": [...], "injectInstructions": bool}
    templates/<name>/files/instruction.md

The shipped ``default/`` is used unless ``--bundle DIR`` or
``ALICE_HARNESS_BUNDLE`` names another directory: that is how a newer version,
or a third-party bundle, is offered.  Every file is read and checked up
front; a malformed one is an error naming the file and field.

Revisions: ``version + "+" + sha256[:16]`` over the skill trees walked sorted,
each file fed as ``"<skill>/<rel>\\0"`` then its bytes (the bundle over all
skills, a skill over its own tree), so any byte change shows.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from openalice.core import frontmatter, fs, resources
from openalice.core.errors import InvalidInput
from openalice.managed import check_path

__all__ = ["Skill", "Template", "Bundle", "load", "BUNDLE_ENV", "NAME_RE", "MAX_FILE_BYTES",
           "INSTRUCTION_SOFT_LIMIT"]

BUNDLE_ENV = "ALICE_HARNESS_BUNDLE"
NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
VERSION_RE = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}\Z")
MAX_FILE_BYTES = 1024 * 1024
MAX_SKILL_FILES = 2000
MAX_INSTRUCTION_BYTES = 64 * 1024
INSTRUCTION_SOFT_LIMIT = 4 * 1024     # shipped guidance stays under this (a test checks it)


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    version: str
    revision: str
    files: Mapping[str, bytes] = field(repr=False)


@dataclass(frozen=True)
class Template:
    name: str
    version: str
    description: str
    bundled_skills: tuple[str, ...]
    inject_instructions: bool
    instruction: bytes | None = field(repr=False)


@dataclass(frozen=True)
class Bundle:
    root: Path
    source: str                 # "default" or the directory given
    version: str
    description: str
    revision: str
    skills: Mapping[str, Skill]
    templates: Mapping[str, Template]

    def skill(self, name: str) -> Skill:
        return self._named(self.skills, "skill", name, "--skill")

    def template(self, name: str) -> Template:
        return self._named(self.templates, "template", name, "template")

    def _named(self, table: Mapping, kind: str, name: str, field: str):
        if name not in table:
            raise InvalidInput(f"no {kind} {name!r} in the bundle ({self.source}); it has: "
                               f"{', '.join(sorted(table)) or 'none'}", field=field,
                               code=f"unknown_{kind}")
        return table[name]


def _bad(reason: str, path, field: str | None = None) -> InvalidInput:
    return InvalidInput(reason, file=path, field=field, code="malformed_bundle")


def _read_json(path: Path) -> dict:
    data = fs.read_json(path, max_bytes=64 * 1024)
    if not isinstance(data, dict):
        raise _bad("must be a JSON object", path)
    return data


def _exact_keys(data: dict, path: Path, required: set[str], optional: set[str] = frozenset()) -> None:
    for key in sorted(required - set(data)):
        raise _bad("missing", path, key)
    for key in sorted(set(data) - required - set(optional)):
        raise _bad("unknown key", path, key)


def _string(data: dict, key: str, path: Path, pattern: re.Pattern | None = None, limit: int = 500) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise _bad(f"must be a non-empty string of at most {limit} characters", path, key)
    if pattern is not None and not pattern.match(value):
        raise _bad(f"invalid value {value!r}", path, key)
    return value


def _tree(directory: Path) -> dict[str, bytes]:
    """Every regular file under ``directory`` (relative paths); symlinks and
    special files are refused, so a bundle never smuggles a link into a workspace."""
    out: dict[str, bytes] = {}
    top = os.fspath(directory)
    for current, dirs, files in os.walk(top, followlinks=False):
        dirs.sort()
        prefix = os.path.relpath(current, top).replace(os.sep, "/")
        prefix = "" if prefix == "." else prefix + "/"
        for name in sorted(dirs + files):
            full = os.path.join(current, name)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                raise _bad("symlinks are not allowed in a bundle", full)
            if stat.S_ISDIR(st.st_mode):
                continue
            if not stat.S_ISREG(st.st_mode):
                raise _bad("not a regular file", full)
            if name.startswith(fs.TEMP_PREFIX) or (name.startswith(".") and name.endswith(".lock")):
                continue
            rel = prefix + name
            check_path(rel, file=full)
            if st.st_size > MAX_FILE_BYTES:
                raise _bad(f"file larger than {MAX_FILE_BYTES} bytes", full)
            out[rel] = fs.read_bytes(full)
            if len(out) > MAX_SKILL_FILES:
                raise _bad(f"more than {MAX_SKILL_FILES} files", directory)
    return out


def _revision(version: str, trees: Mapping[str, Mapping[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for skill in sorted(trees):
        for rel in sorted(trees[skill]):
            digest.update(f"{skill}/{rel}\0".encode("utf-8"))
            digest.update(trees[skill][rel])
    return f"{version}+{digest.hexdigest()[:16]}"


def _skill(directory: Path, name: str, version: str) -> Skill:
    files = _tree(directory)
    skill_md = directory / "SKILL.md"
    if "SKILL.md" not in files:
        raise _bad("a skill needs a SKILL.md", skill_md)
    doc = frontmatter.parse(files["SKILL.md"], path=str(skill_md))
    declared = doc.data.get("name")
    if declared != name:
        raise _bad(f"name must be the directory name {name!r}, not {declared!r}", skill_md, "name")
    description = doc.data.get("description")
    if not isinstance(description, str) or not description.strip() or len(description) > 1024:
        raise _bad("must be a non-empty string of at most 1024 characters", skill_md, "description")
    return Skill(name=name, description=description.strip(), version=version,
                 revision=_revision(version, {name: files}), files=files)


def _template(directory: Path, name: str, skills: Mapping[str, Skill]) -> Template:
    path = directory / "template.json"
    data = _read_json(path)
    _exact_keys(data, path, {"schemaVersion", "name", "version", "bundledSkills", "injectInstructions"},
                {"description"})
    if data["schemaVersion"] != 1:
        raise _bad(f"unsupported schemaVersion {data['schemaVersion']!r}", path, "schemaVersion")
    if data["name"] != name:
        raise _bad(f"must be the directory name {name!r}", path, "name")
    version = _string(data, "version", path, VERSION_RE, 64)
    description = _string(data, "description", path) if "description" in data else ""
    bundled = data["bundledSkills"]
    if not isinstance(bundled, list) or not all(isinstance(s, str) for s in bundled):
        raise _bad("must be a list of skill names", path, "bundledSkills")
    for n, skill in enumerate(bundled):
        if skill not in skills:
            raise _bad(f"names skill {skill!r}, which the bundle does not have", path, f"bundledSkills/{n}")
    inject = data["injectInstructions"]
    if not isinstance(inject, bool):
        raise _bad("must be true or false", path, "injectInstructions")
    instruction = None
    instruction_path = directory / "files" / "instruction.md"
    if inject:
        instruction = fs.read_bytes(instruction_path, max_bytes=MAX_INSTRUCTION_BYTES)
        try:
            instruction.decode("utf-8")
        except UnicodeDecodeError:
            raise _bad("instruction.md must be UTF-8 text", instruction_path) from None
    return Template(name=name, version=version, description=description, bundled_skills=tuple(bundled),
                    inject_instructions=inject, instruction=instruction)


def _subdirs(directory: Path) -> list[str]:
    if not directory.exists():
        return []
    if directory.is_symlink() or not directory.is_dir():
        raise _bad("must be a directory", directory)
    names = []
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        if entry.is_symlink() or not entry.is_dir():
            raise _bad("must be a directory (no symlinks, no stray files)", entry.path)
        if not NAME_RE.match(entry.name):
            raise _bad("names are lowercase letters, digits and '-' (at most 64)", entry.path)
        names.append(entry.name)
    return names


def load(directory: os.PathLike | str | None = None, *, env: Mapping[str, str] | None = None) -> Bundle:
    """The bundle in ``directory``, else ``$ALICE_HARNESS_BUNDLE``, else the shipped ``default/``."""
    env = os.environ if env is None else env
    given = directory if directory is not None else (env.get(BUNDLE_ENV) or None)
    if given is None:
        root, source = resources.data_root("default"), "default"
    else:
        root = Path(os.path.abspath(os.path.expanduser(os.fspath(given))))
        source = str(root)
        if not root.is_dir():
            raise InvalidInput("bundle directory does not exist (or is not a directory)", file=root,
                               field="--bundle" if directory is not None else BUNDLE_ENV,
                               code="bundle_not_found")
    manifest_path = root / "alice-harness.json"
    manifest = _read_json(manifest_path)
    _exact_keys(manifest, manifest_path, {"schemaVersion", "version"}, {"description"})
    if manifest["schemaVersion"] != 1:
        raise _bad(f"unsupported schemaVersion {manifest['schemaVersion']!r}", manifest_path, "schemaVersion")
    version = _string(manifest, "version", manifest_path, VERSION_RE, 64)
    description = _string(manifest, "description", manifest_path) if "description" in manifest else ""
    skills = {name: _skill(root / "skills" / name, name, version) for name in _subdirs(root / "skills")}
    templates = {name: _template(root / "templates" / name, name, skills)
                 for name in _subdirs(root / "templates")}
    revision = _revision(version, {name: s.files for name, s in skills.items()})
    return Bundle(root=root, source=source, version=version, description=description, revision=revision,
                  skills=skills, templates=templates)


def describe(bundle: Bundle) -> dict:
    return {"source": bundle.source, "version": bundle.version, "revision": bundle.revision,
            "skills": {n: s.revision for n, s in sorted(bundle.skills.items())},
            "templates": {n: t.version for n, t in sorted(bundle.templates.items())}}

