"""Connector records: ``$OPENALICE_HOME/connectors/<name>.json`` (secret-free).

One file per connector (``spec/connector.schema.json``)::

    {"version": 1, "name": "phone", "kind": "telegram", "enabled": true,
     "createdAt": "...", "workspaces": ["notes"], "skipSilent": false,
     "telegram": {"chatIds": ["123456789"], "apiBase": "https://api.telegram.org"}}

The secret a kind needs (the Telegram bot token, the webhook signing secret,
the SMTP password) lives in the vault directory, ``vault/connectors/<name>.env``
(``SECRET='...'``), written by :mod:`openalice.core.secrets` like every other
secret of the toolkit (0600 file, 0700 directory, signals held while it is
written).  Nothing here returns it for printing: :func:`secret_of` is for the
transports only, and :func:`public_view` reports presence.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from openalice.core import clock, fs, paths, patterns, secrets
from openalice.core.errors import AliceError, Conflict, InvalidInput, NotFound, Unavailable
from openalice.core.net import is_loopback_ip

__all__ = ["NAME_RE", "KINDS", "FORMATS", "connectors_dir", "record_path", "secret_path",
           "check_name", "validate", "scan_records", "list_records", "get", "add", "remove", "set_enabled",
           "secret_of", "has_secret", "public_view", "is_loopback_url", "TELEGRAM_API"]

NAME_RE = patterns.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
KINDS = ("telegram", "webhook", "email", "desktop")
FORMATS = ("json", "slack", "discord")
SECURITY = ("starttls", "ssl", "plain")
TELEGRAM_API = "https://api.telegram.org"
VERSION = 1
SECRET_VAR = "SECRET"
_CHAT_ID_RE = patterns.compile(r"-?[0-9]{1,20}\Z|@[A-Za-z][A-Za-z0-9_]{4,31}\Z")
_ADDR_RE = patterns.compile(r"[^@\s<>,;\"']{1,64}@[A-Za-z0-9.-]{1,253}\Z")
_HOST_RE = patterns.compile(r"[A-Za-z0-9.-]{1,253}\Z|\[[0-9A-Fa-f:.]{2,45}\]\Z")
_TOP = {"version", "name", "kind", "enabled", "createdAt", "updatedAt", "workspaces",
        "skipSilent", "telegram", "webhook", "email", "desktop"}
_KIND_KEYS = {"telegram": {"chatIds", "apiBase"}, "webhook": {"url", "format"},
              "email": {"host", "port", "security", "from", "to", "user"}, "desktop": set()}
NEEDS_SECRET = {"telegram": True, "webhook": False, "email": False, "desktop": False}


def connectors_dir() -> Path:
    return paths.openalice_home() / "connectors"


def record_path(name: str) -> Path:
    return connectors_dir() / f"{check_name(name)}.json"


def secret_path(name: str) -> Path:
    return paths.openalice_home() / "vault" / "connectors" / f"{check_name(name)}.env"


def check_name(name: object, *, field: str = "NAME") -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise InvalidInput(f"invalid connector name {name!r}: 1-64 of a-z, 0-9 and '-', starting "
                           "with a letter or digit", field=field, code="bad_connector_name")
    return name


def is_loopback_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host == "localhost" or is_loopback_ip(host)


def check_url(url: object, *, field: str, what: str) -> str:
    """An http(s) URL; plain http only to a loopback host (TLS is never off elsewhere)."""
    if not isinstance(url, str) or len(url) > 2048 or any(ord(c) <= 32 for c in url):
        raise InvalidInput(f"{what} must be an http(s) URL without spaces", field=field,
                           code="bad_url")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(f"{what} must be an http:// or https:// URL with a host", field=field,
                           code="bad_url")
    if parts.username or parts.password:
        raise InvalidInput(f"{what} must not carry credentials (user:password@)", field=field,
                           code="bad_url")
    if parts.scheme == "http" and not is_loopback_url(url):
        raise InvalidInput(f"{what} uses plain http to a host that is not loopback; use https "
                           "(TLS is always verified)", field=field, code="insecure_url")
    return url


def _bad(file, field: str, reason: str) -> InvalidInput:
    return InvalidInput(reason, file=file, field=field, code="bad_connector")


def validate(rec: object, *, file=None, name: str | None = None) -> dict:
    """Strict check of one record: the file and field are named on failure."""
    if not isinstance(rec, dict):
        raise _bad(file, "", "a connector record is a JSON object")
    for key in rec:
        if key not in _TOP:
            reason = ("secret-shaped key refused: secrets live only in the vault"
                      if secrets.looks_secret(key) else "unknown key")
            raise _bad(file, key, reason)
    if rec.get("version") != VERSION:
        raise _bad(file, "version", f"must be {VERSION}")
    if not isinstance(rec.get("name"), str) or not NAME_RE.match(rec["name"]):
        raise _bad(file, "name", "must be a connector name (a-z, 0-9, '-')")
    if name is not None and rec["name"] != name:
        raise _bad(file, "name", f"is {rec['name']!r} but the file is named {name!r}")
    kind = rec.get("kind")
    if kind not in KINDS:
        raise _bad(file, "kind", f"must be one of {', '.join(KINDS)}")
    if not isinstance(rec.get("enabled"), bool):
        raise _bad(file, "enabled", "must be true or false")
    if not isinstance(rec.get("skipSilent", False), bool):
        raise _bad(file, "skipSilent", "must be true or false")
    for key in ("createdAt", "updatedAt"):
        if key in rec:
            try:
                clock.parse_instant(rec[key], field=key, file=file)
            except InvalidInput as exc:
                raise _bad(file, key, exc.message) from None
    spaces = rec.get("workspaces")
    if (not isinstance(spaces, list) or len(spaces) > 100
            or not all(isinstance(w, str) and 0 < len(w) <= 128 for w in spaces)):
        raise _bad(file, "workspaces", "must be a list of workspace ids")
    for other in KINDS:
        if other != kind and other in rec:
            raise _bad(file, other, f"a {kind} connector has no {other} settings")
    settings = rec.get(kind)
    if not isinstance(settings, dict):
        raise _bad(file, kind, "must be an object")
    for key in settings:
        if key not in _KIND_KEYS[kind]:
            raise _bad(file, f"{kind}/{key}", "unknown key")
    try:
        _validate_settings(kind, settings)
    except InvalidInput as exc:
        err = _bad(file, f"{kind}/{exc.field}", exc.message)
        if exc.code in ("bad_url", "insecure_url"):
            err.code = exc.code
        raise err from None
    return rec


def _validate_settings(kind: str, s: dict) -> None:
    if kind == "telegram":
        ids = s.get("chatIds")
        if (not isinstance(ids, list) or not ids or len(ids) > 50
                or not all(isinstance(i, str) and _CHAT_ID_RE.match(i) for i in ids)):
            raise InvalidInput("must list 1-50 chat ids (digits, a leading '-' for groups, or "
                               "@channelname)", field="chatIds")
        check_url(s.get("apiBase"), field="apiBase", what="the Bot API base")
    elif kind == "webhook":
        check_url(s.get("url"), field="url", what="the webhook URL")
        if s.get("format") not in FORMATS:
            raise InvalidInput(f"must be one of {', '.join(FORMATS)}", field="format")
    elif kind == "email":
        host, port = s.get("host"), s.get("port")
        if not isinstance(host, str) or not _HOST_RE.match(host):
            raise InvalidInput("must be a host name or address", field="host")
        if type(port) is not int or not 0 < port < 65536:
            raise InvalidInput("must be a port number 1-65535", field="port")
        if s.get("security") not in SECURITY:
            raise InvalidInput(f"must be one of {', '.join(SECURITY)}", field="security")
        if s["security"] == "plain" and not (host == "localhost" or is_loopback_ip(host)):
            raise InvalidInput("plain SMTP is allowed only to a loopback host; use STARTTLS "
                               "(the default) or --ssl", field="security")
        if not isinstance(s.get("from"), str) or not _ADDR_RE.match(s["from"]):
            raise InvalidInput("must be an e-mail address", field="from")
        to = s.get("to")
        if (not isinstance(to, list) or not to or len(to) > 50
                or not all(isinstance(a, str) and _ADDR_RE.match(a) for a in to)):
            raise InvalidInput("must list 1-50 e-mail addresses", field="to")
        user = s.get("user")
        if user is not None and (not isinstance(user, str) or not user or len(user) > 256
                                 or any(ord(c) < 32 for c in user)):
            raise InvalidInput("must be a user name", field="user")


def _read(path: Path, name: str) -> dict:
    return validate(fs.read_json(path, max_bytes=1024 * 1024), file=path, name=name)


def scan_records() -> tuple[list[dict], list[dict]]:
    """Every good record by name, and ``{file, field, message}`` for each bad one
    (a bad file never hides its neighbours)."""
    directory = connectors_dir()
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return [], []
    out, problems = [], []
    for file_name in names:
        if file_name.startswith(".") or not file_name.endswith(".json"):
            continue
        name = file_name[:-5]
        path = directory / file_name
        try:
            if not NAME_RE.match(name):
                raise _bad(path, "name", "the file name is not a connector name")
            out.append(_read(path, name))
        except AliceError as err:
            problems.append({"file": str(path), "field": err.field or "", "message": err.message,
                             "code": err.code})
    return out, problems


def list_records() -> list[dict]:
    """Every record, by name; a malformed file is InvalidInput naming it (exit 2)."""
    out, problems = scan_records()
    if problems:
        first = problems[0]
        raise InvalidInput(first["message"], file=first["file"], field=first["field"] or None,
                           code="bad_connector")
    return out


def get(name: str) -> dict:
    path = record_path(name)
    if not os.path.lexists(path):
        raise NotFound(f"no connector {name!r}", field="NAME", code="unknown_connector",
                       details={"hint": "see 'alice connector list'"})
    return _read(path, name)


def has_secret(name: str) -> bool:
    return SECRET_VAR in secrets.env_file_keys(secret_path(name))


def secret_of(name: str, *, required: bool = False) -> str | None:
    """The connector's secret, for its transport only (never print it)."""
    value = secrets.load_env_file(secret_path(name)).get(SECRET_VAR) or None
    if value is None and required:
        raise Unavailable(f"connector {name!r} has no secret stored", field="NAME",
                          code="connector_secret_missing",
                          details={"hint": "re-add it with the secret on stdin"})
    return value


def public_view(rec: dict) -> dict:
    out = dict(rec)
    out["hasSecret"] = has_secret(rec["name"])
    return out


def add(rec: dict, *, secret: str | None, now: datetime, replace: bool = False) -> dict:
    """Store a new record (and its secret first).  An existing name is a Conflict
    unless ``replace``."""
    name = check_name(rec.get("name"))
    rec = {"version": VERSION, **rec, "createdAt": clock.to_iso(now)}
    validate(rec)
    if NEEDS_SECRET[rec["kind"]] and secret is None:
        raise InvalidInput(f"a {rec['kind']} connector needs its secret on stdin",
                           field="stdin", code="empty_secret")
    if secret is not None:
        secrets.check_secret(secret, field="stdin")
    path = record_path(name)
    fs.ensure_dir(connectors_dir(), 0o700)
    with fs.locked_file(path):
        if os.path.lexists(path):
            if not replace:
                raise Conflict(f"connector {name!r} already exists", field="NAME",
                               code="connector_exists",
                               details={"hint": "remove it first, or pass --replace"})
            old = _read(path, name)
            rec["createdAt"] = old.get("createdAt", rec["createdAt"])
            rec["updatedAt"] = clock.to_iso(now)
        if secret is not None:
            secrets.set_env_var(secret_path(name), SECRET_VAR, secret)
        else:
            secrets.remove_env_file(secret_path(name))
        fs.atomic_write_json(path, rec, mode=0o600)
    return rec


def remove(name: str) -> dict:
    """Delete the record, then its secret (a leftover secret goes too)."""
    path = record_path(name)
    with fs.locked_file(path):
        if not os.path.lexists(path):
            left = secrets.remove_env_file(secret_path(name))
            note = " (the secret left by an interrupted add was removed)" if left else ""
            raise NotFound(f"no connector {name!r}{note}", field="NAME", code="unknown_connector")
        rec = _read(path, name)
        fs.remove_file(path)
        secrets.remove_env_file(secret_path(name))
    return rec


def set_enabled(name: str, enabled: bool, *, now: datetime) -> dict:
    path = record_path(name)
    get(name)

    def apply(doc: dict) -> dict:
        validate(doc, file=path, name=name)
        doc["enabled"] = enabled
        doc["updatedAt"] = clock.to_iso(now)
        return doc

    return fs.locked_update_json(path, apply, mode=0o600)
