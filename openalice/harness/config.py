"""``.alice/alice-harness-config.json``: which skills a workspace includes and
which toolkit commands its agents may run (tracked with the workspace).

    {"schemaVersion": 1,
     "skills": {"file-delivery": false},
     "cli": {"alice-inbox": {"enabled": false},
             "alice": {"groups": {"inbox": false}}}}

* A skill is included when ``skills[name]`` says so, else when the
  workspace's template bundles it; ``self-scheduling`` is always included.
* A command group (the first word after the tool: ``alice issue ...`` is
  group ``issue`` of ``alice``, ``alice-inbox push`` is group ``push`` of
  ``alice-inbox``) is allowed unless ``cli.<tool>.enabled`` is false or
  ``cli.<tool>.groups.<group>`` is false.  ``alice-workspace`` is read as an
  alias of ``alice``.
* The file is strict: an unknown key, tool or group, or a value that is not
  true/false, is malformed, and a malformed file fails closed (harness
  writes refuse it; the workspace shims refuse every gated command), always
  naming the file and the field.  A missing file means the defaults.

This module is read on the shim path of every gated command, so it imports
only ``re`` and ``json`` (no dataclasses); the file's name is
:data:`openalice.agents.shims.HARNESS_CONFIG`, kept beside the shims that
name it (the gate gets the path from the shim, never from here).
"""

from __future__ import annotations

import json
import os

from openalice.core import patterns

__all__ = ["TOOL_GROUPS", "ALWAYS_INCLUDED", "Config", "parse", "parse_file",
           "parse_assignment", "ConfigError"]

SCHEMA_VERSION = 1
# The gated tools and their command groups (each tool's first-level verbs;
# tests/harness/test_bundle_config.py checks these against the tools themselves).
TOOL_GROUPS: dict[str, tuple[str, ...]] = {
    "alice": ("workspace", "issue", "inbox", "journal", "session", "settings", "credential", "models",
              "doctor", "serve", "schema", "completion", "chat", "manager", "connector"),
    "alice-inbox": ("push", "list", "show", "files", "cat", "read", "unread", "mark-all-read", "count",
                    "delete"),
    "alice-schedule": ("scan", "run-now", "retry-now", "runs", "run", "log", "health", "next", "install-timer",
                       "uninstall-timer"),
}
TOOL_ALIASES = {"alice-workspace": "alice"}
ALWAYS_INCLUDED = ("self-scheduling",)
_SKILL_RE = patterns.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
MAX_BYTES = 64 * 1024


class ConfigError(Exception):
    """A malformed config: ``file``, ``field`` and ``reason`` (the caller
    turns it into the toolkit's InvalidInput, exit 2)."""

    def __init__(self, reason: str, file: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.reason, self.file, self.field = reason, file, field

    def __str__(self) -> str:
        where = ":".join(p for p in (self.file, self.field) if p)
        return f"{where}: {self.reason}"


class Config:
    """A valid config (``exists`` False: the file is missing, defaults apply)."""

    __slots__ = ("file", "exists", "skills", "cli")

    def __init__(self, file: str, exists: bool, skills: dict, cli: dict) -> None:
        self.file, self.exists, self.skills, self.cli = file, exists, skills, cli

    def document(self) -> dict:
        doc: dict = {"schemaVersion": SCHEMA_VERSION}
        if self.skills:
            doc["skills"] = dict(sorted(self.skills.items()))
        doc["cli"] = {tool: {k: (dict(sorted(v.items())) if k == "groups" else v)
                             for k, v in sorted(spec.items())}
                      for tool, spec in sorted(self.cli.items())}
        return doc

    def refusal(self, tool: str, group: str) -> str | None:
        """The config key that disables ``tool group``, or None if it is allowed."""
        tool = TOOL_ALIASES.get(tool, tool)
        spec = self.cli.get(tool) or {}
        if spec.get("enabled") is False:
            return f"cli.{tool}.enabled"
        if (spec.get("groups") or {}).get(group) is False:
            return f"cli.{tool}.groups.{group}"
        return None

    def effective_cli(self) -> dict:
        return {tool: {"enabled": self.cli.get(tool, {}).get("enabled") is not False,
                       "groups": {g: self.refusal(tool, g) is None for g in groups}}
                for tool, groups in TOOL_GROUPS.items()}

    def includes(self, skill: str, *, bundled: bool) -> bool:
        if skill in ALWAYS_INCLUDED:
            return True
        return self.skills.get(skill, bundled)


def parse(data: object, file: str) -> Config:
    """Check a config document strictly; :class:`ConfigError` names the field."""
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", file)
    for key in data:
        if key not in ("schemaVersion", "skills", "cli"):
            raise ConfigError("unknown key (allowed: schemaVersion, skills, cli)", file, key)
    if data.get("schemaVersion") != SCHEMA_VERSION:
        raise ConfigError(f"must be {SCHEMA_VERSION}", file, "schemaVersion")
    skills = data.get("skills", {})
    if not isinstance(skills, dict):
        raise ConfigError("must be an object of skill names to true/false", file, "skills")
    for name, value in skills.items():
        if not _SKILL_RE.match(name):
            raise ConfigError("not a skill name", file, f"skills.{name}")
        if not isinstance(value, bool):
            raise ConfigError("must be true or false", file, f"skills.{name}")
        if name in ALWAYS_INCLUDED and value is False:
            raise ConfigError(f"{name} is always included and cannot be turned off", file, f"skills.{name}")
    cli = data.get("cli", {})
    if not isinstance(cli, dict):
        raise ConfigError("must be an object of tools", file, "cli")
    out_cli: dict = {}
    for raw_tool, spec in cli.items():
        tool = TOOL_ALIASES.get(raw_tool, raw_tool)
        where = f"cli.{raw_tool}"
        if tool not in TOOL_GROUPS:
            raise ConfigError(f"unknown tool (gated tools: {', '.join(TOOL_GROUPS)})", file, where)
        if tool in out_cli:
            raise ConfigError(f"given twice (as {tool} and its alias)", file, where)
        if not isinstance(spec, dict):
            raise ConfigError("must be an object with enabled and/or groups", file, where)
        entry: dict = {}
        for key, value in spec.items():
            if key == "enabled":
                if not isinstance(value, bool):
                    raise ConfigError("must be true or false", file, f"{where}.enabled")
                entry["enabled"] = value
            elif key == "groups":
                if not isinstance(value, dict):
                    raise ConfigError("must be an object of groups to true/false", file, f"{where}.groups")
                for group, on in value.items():
                    if group not in TOOL_GROUPS[tool]:
                        raise ConfigError(f"unknown group of {tool} (groups: {', '.join(TOOL_GROUPS[tool])})",
                                          file, f"{where}.groups.{group}")
                    if not isinstance(on, bool):
                        raise ConfigError("must be true or false", file, f"{where}.groups.{group}")
                entry["groups"] = dict(value)
            else:
                raise ConfigError("unknown key (allowed: enabled, groups)", file, f"{where}.{key}")
        out_cli[tool] = entry
    return Config(file, True, dict(skills), out_cli)


def parse_file(path: str, root: str | None = None) -> Config:
    """Read and check the config file at ``path`` (below the workspace ``root``
    when given: never through a link out of it); a missing file gives the defaults."""
    try:
        if root is None:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        else:
            # lazy: the shim gate parses this file at every shimmed tool start; the
            # walk below a root is needed only when a workspace root is given
            from openalice.core.errors import AliceError
            from openalice.core.paths import Root

            try:
                with Root(root) as base:
                    fd = base.open(path)
            except AliceError as exc:  # a link out of the workspace, not a regular file
                raise ConfigError(exc.message, path) from None
        with open(fd, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return Config(path, False, {}, {})
    except IsADirectoryError:
        raise ConfigError("is a directory, not a file", path) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", path) from None
    if len(raw) > MAX_BYTES:
        raise ConfigError(f"larger than {MAX_BYTES} bytes", path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8", path) from None
    except ValueError as exc:
        raise ConfigError(f"malformed JSON: {exc}", path) from None
    return parse(data, path)


def parse_assignment(text: str) -> tuple[list[str], bool]:
    """``cli.alice-inbox.enabled=false`` → (["cli", "alice-inbox", "enabled"], False)."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip().lower()
    if not sep or not key:
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    if value not in ("true", "false"):
        raise ValueError(f"{key}: the value must be true or false, not {value!r}")
    parts = key.split(".")
    on = value == "true"
    if parts[0] == "skills" and len(parts) == 2:
        return parts, on
    if parts[0] == "cli" and len(parts) == 3 and parts[2] == "enabled":
        return parts, on
    if parts[0] == "cli" and len(parts) == 4 and parts[2] == "groups":
        return parts, on
    raise ValueError(f"unknown key {key!r} (keys: skills.<skill>, cli.<tool>.enabled, "
                     "cli.<tool>.groups.<group>)")
