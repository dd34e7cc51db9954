"""Request bodies of the workspace view's actions → argv (and stdin).

Every value is checked here, before any child starts: keys and paths against
the grammars of the CLI that receives them, booleans as JSON booleans, a
digest as 64 hex digits.  Values go as ``--flag=value`` items (a value that
starts with ``-`` is never a flag), positionals cannot start with ``-``, and
a secret travels on stdin only.
"""

from __future__ import annotations

import re
from typing import Any

from openalice.core import patterns

from .errors import HttpError
from .params import check_param, json_body, no_dash, text_value

__all__ = ["config_set_args", "upgrade_args", "sticker_args", "studio_action", "connector_add_args",
           "managed_path"]

#: ``alice-harness config set`` keys (docs/harness.md §3): the CLI checks the
#: tool and group names against its tables; this only keeps the grammar.
CONFIG_KEY_RE = patterns.compile(
    r"(skills\.[a-z0-9][a-z0-9-]{0,63}|cli\.[a-z][a-z-]{0,31}\.(enabled|groups\.[a-z][a-z0-9-]{0,31}))\Z")
DIGEST_RE = patterns.compile(r"[0-9a-f]{64}\Z")
_CONTROL_RE = patterns.compile(r"[\x00-\x1f\x7f]")
MAX_PATHS = 256
MAX_PATH_CHARS = 1024


def _flag(data: dict, key: str) -> bool:
    value = data.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise HttpError(400, f"{key} must be true or false", code="bad_field", field=key)
    return value


def _digest(data: dict, key: str = "digest", *, required: bool = False) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            raise HttpError(400, f"{key} is required (the preview's digest)", code="missing_field",
                            field=key)
        return None
    if not isinstance(value, str) or not DIGEST_RE.match(value):
        raise HttpError(400, f"{key} must be 64 lowercase hex digits", code="bad_field", field=key)
    return value


def managed_path(value: Any, field: str) -> str:
    """A relative managed path (``openalice.managed.snapshot.check_path``'s rules),
    and never one that reads as a flag."""
    path = text_value(value, field, max_chars=MAX_PATH_CHARS)
    parts = path.split("/")
    if (path.startswith(("/", "-")) or "\\" in path or _CONTROL_RE.search(path)
            or any(part in ("", ".", "..") for part in parts)):
        raise HttpError(400, f"{field}: {path[:80]!r} is not a relative path inside the workspace",
                        code="bad_field", field=field)
    return path


def _paths(data: dict, key: str) -> list[str]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_PATHS:
        raise HttpError(400, f"{key} must be a list of at most {MAX_PATHS} paths", code="bad_field",
                        field=key)
    paths = [managed_path(item, f"{key}/{n}") for n, item in enumerate(value)]
    if len(set(paths)) != len(paths):
        raise HttpError(400, f"{key} names a path twice", code="bad_field", field=key)
    return paths


def config_set_args(raw: bytes) -> list[str]:
    """``{"set": {"skills.file-delivery": true, "cli.alice-inbox.enabled": false}}`` →
    ``KEY=true|false`` positionals."""
    data = json_body(raw, allowed=("set",), required=("set",))
    pairs = data["set"]
    if not isinstance(pairs, dict) or not 1 <= len(pairs) <= 64:
        raise HttpError(400, "set must be an object of 1..64 keys", code="bad_field", field="set")
    out = []
    for key, value in pairs.items():
        if not CONFIG_KEY_RE.match(key):
            raise HttpError(400, f"unknown config key {key[:80]!r} (skills.<skill>, cli.<tool>.enabled, "
                                 "cli.<tool>.groups.<group>)", code="bad_field", field=f"set/{key[:80]}")
        if not isinstance(value, bool):
            raise HttpError(400, f"{key} must be true or false", code="bad_field", field=f"set/{key}")
        out.append(f"{key}={'true' if value else 'false'}")
    return out


def upgrade_args(raw: bytes) -> list[str]:
    """``{digest, template?, keepWorkspace?: [path], useTemplate?: [path]}`` → the
    flags after ``upgrade --apply`` (the CLI refuses a stale digest and any
    conflict left without exactly one resolution)."""
    data = json_body(raw, allowed=("digest", "template", "keepWorkspace", "useTemplate"),
                     required=("digest",))
    args = [f"--digest={_digest(data, required=True)}"]
    if _flag(data, "template"):
        args.append("--template")
    keep, use = _paths(data, "keepWorkspace"), _paths(data, "useTemplate")
    both = sorted(set(keep) & set(use))
    if both:
        raise HttpError(400, f"{both[0]!r} is both kept and taken from the template",
                        code="bad_field", field="useTemplate")
    return args + [f"--keep-workspace={p}" for p in keep] + [f"--use-template={p}" for p in use]


def sticker_args(raw: bytes) -> list[str]:
    """``{action: enable|disable, pack?, restore?, keep?: [path], apply?, digest?}`` →
    ``enable|disable`` and its flags; ``enable`` previews unless ``apply``,
    ``disable`` applies unless ``apply`` is false (then ``--preview``)."""
    data = json_body(raw, allowed=("action", "pack", "restore", "keep", "apply", "digest"),
                     required=("action",))
    action = data["action"]
    if action not in ("enable", "disable"):
        raise HttpError(400, "action must be enable or disable", code="bad_field", field="action")
    args = [action]
    if data.get("pack") is not None:
        if action != "enable":
            raise HttpError(400, "pack applies to enable only", code="bad_field", field="pack")
        args.append(f"--pack={check_param('pack', text_value(data['pack'], 'pack'), field='pack')}")
    if _flag(data, "restore"):
        args.append("--restore")
    keep, digest = _paths(data, "keep"), _digest(data)
    apply = _flag(data, "apply") if data.get("apply") is not None else action == "disable"
    if not apply and (keep or digest):
        raise HttpError(400, "digest and keep need apply", code="bad_field",
                        field="digest" if digest else "keep")
    if action == "enable" and apply:
        args.append("--apply")
    if action == "disable" and not apply:
        args.append("--preview")
    return args + ([f"--digest={digest}"] if digest else []) + [f"--keep={p}" for p in keep]


def studio_action(raw: bytes) -> str:
    data = json_body(raw, allowed=("action",), required=("action",))
    if data["action"] not in ("start", "stop", "restart"):
        raise HttpError(400, "action must be start, stop or restart", code="bad_field", field="action")
    return data["action"]


CONNECTOR_FIELDS = ("kind", "name", "url", "format", "secret", "chatIds", "apiBase", "workspaces",
                    "skipSilent", "backfill", "replace")


def connector_add_args(raw: bytes) -> tuple[list[str], bytes | None]:
    """``alice connector add KIND NAME ...``: a webhook (its signing secret), a
    Telegram chat (its bot token) or a desktop notifier.  The secret goes on
    stdin only, and is never echoed back (the CLI answers ``hasSecret``)."""
    data = json_body(raw, allowed=CONNECTOR_FIELDS, required=("kind", "name"))
    kind = data["kind"]
    if kind not in ("webhook", "telegram", "desktop"):
        raise HttpError(400, "kind must be webhook, telegram or desktop", code="bad_field", field="kind")
    name = check_param("connector", text_value(data["name"], "name"), field="name")
    args = ["connector", "add", kind, no_dash(name, "name"), "--json"]
    secret = data.get("secret")
    stdin = None
    if secret is not None:
        stdin = text_value(secret, "secret", max_chars=4096).encode("utf-8")
    for key in ("url", "apiBase"):
        if data.get(key) is not None:
            value = text_value(data[key], key, max_chars=2048)
            if not value.startswith(("http://", "https://")):
                raise HttpError(400, f"{key} must be an http(s) URL", code="bad_field", field=key)
            args.append(f"--{'url' if key == 'url' else 'api-base'}={value}")
    if data.get("format") is not None:
        if data["format"] not in ("json", "slack", "discord"):
            raise HttpError(400, "format must be json, slack or discord", code="bad_field", field="format")
        args.append(f"--format={data['format']}")
    for key in ("chatIds", "workspaces"):
        if data.get(key) is not None and (not isinstance(data[key], list) or len(data[key]) > 64):
            raise HttpError(400, f"{key} must be a list of at most 64", code="bad_field", field=key)
    for n, chat in enumerate(data.get("chatIds") or []):
        if not isinstance(chat, str) or not re.fullmatch(r"-?[0-9]{1,20}", chat):
            raise HttpError(400, "a chat id is digits", code="bad_field", field=f"chatIds/{n}")
        args.append(f"--chat-id={chat}")
    for n, ws in enumerate(data.get("workspaces") or []):
        ws = check_param("workspace", text_value(ws, f"workspaces/{n}"), field=f"workspaces/{n}")
        args.append(f"--workspace={ws}")
    for key, flag in (("skipSilent", "--skip-silent"), ("backfill", "--backfill"), ("replace", "--replace")):
        if _flag(data, key):
            args.append(flag)
    if kind == "webhook":
        if data.get("url") is None:
            raise HttpError(400, "a webhook needs url", code="missing_field", field="url")
        if stdin is not None:
            args.append("--sign")
    elif kind == "telegram" and stdin is None:
        raise HttpError(400, "a Telegram connector needs its bot token (secret)", code="missing_field",
                        field="secret")
    elif kind == "desktop" and stdin is not None:
        raise HttpError(400, "a desktop connector has no secret", code="bad_field", field="secret")
    return args, stdin
