"""The credential vault: secret-free records plus one 0600 secret file each.

Layout under ``$OPENALICE_HOME/vault/`` (0700)::

    credentials.json        {"version": 1, "credentials": {slug: record}}   (0600, no secrets)
    secrets/<slug>.env      API_KEY='...'                                    (0600, in a 0700 dir)

A record names the vendor, the auth type, the wires (shape -> base URL,
``""`` = official), an optional label, the last model used (a hint) and
optional per-model overrides for unknown models.  The secret is read only by
:func:`secret_for`, which exists for adapter projection into a child
environment; nothing here returns it for printing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from openalice.core import clock, fs, paths, patterns, secrets
from openalice.core.errors import Conflict, InvalidInput, NotFound, Unavailable

from . import wires as wires_mod

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = [
    "SLUG_RE", "AUTH_TYPES", "VENDORS", "SECRET_VAR", "vault_dir", "records_path", "secret_path",
    "check_slug", "list_records", "get", "exists", "has_secret", "add", "remove", "secret_for",
    "note_last_model", "set_model_override", "validate_record", "public_view", "open_credential",
]

SLUG_RE = patterns.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
AUTH_TYPES = ("api-key", "subscription")
VENDORS = ("anthropic", "openai", "google", "xai", "minimax", "glm", "kimi", "deepseek", "longcat",
           "openrouter", "cursor", "custom")
SECRET_VAR = "API_KEY"
VERSION = 1
_RECORD_KEYS = {"slug", "vendor", "authType", "label", "wires", "lastModel", "modelOverrides",
                "createdAt", "updatedAt"}


def vault_dir() -> Path:
    return paths.openalice_home() / "vault"


def records_path() -> Path:
    return vault_dir() / "credentials.json"


def secret_path(slug: str) -> Path:
    return vault_dir() / "secrets" / f"{check_slug(slug)}.env"


def check_slug(slug: str, *, field: str = "slug") -> str:
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        raise InvalidInput(f"invalid credential slug {slug!r}: 1-64 of a-z, 0-9 and '-', "
                           "starting with a letter or digit", field=field, code="bad_slug")
    return slug


def _check_model_id(model: Any, field: str, file: object = None) -> str:
    if (not isinstance(model, str) or not model.strip() or len(model) > 512
            or any(ord(c) < 32 for c in model) or model.strip().startswith("-")):
        raise InvalidInput("a model id is 1-512 printable characters, not starting with '-'", field=field,
                           file=file, code="bad_model")
    return model.strip()


def validate_record(slug: str, rec: Any, *, file: object = None) -> dict:
    """Strict check of one stored record (unknown or secret-shaped keys refused)."""
    where = f"credentials/{slug}"
    if not isinstance(rec, dict):
        raise InvalidInput("record must be an object", file=file, field=where, code="bad_credential")
    for key in rec:
        if key not in _RECORD_KEYS:
            reason = ("secret-shaped key refused: secrets live only in the vault's 0600 secret files"
                      if secrets.looks_secret(key) else "unknown key")
            raise InvalidInput(reason, file=file, field=f"{where}/{key}", code="bad_credential")
    if rec.get("slug") != slug:
        raise InvalidInput("slug does not match its key", file=file, field=f"{where}/slug",
                           code="bad_credential")
    if rec.get("vendor") not in VENDORS:
        raise InvalidInput(f"unknown vendor {rec.get('vendor')!r}", file=file, field=f"{where}/vendor",
                           code="bad_credential")
    if rec.get("authType") not in AUTH_TYPES:
        raise InvalidInput(f"authType must be one of {', '.join(AUTH_TYPES)}", file=file,
                           field=f"{where}/authType", code="bad_credential")
    label = rec.get("label")
    if label is not None and (not isinstance(label, str) or not label.strip() or len(label) > 120):
        raise InvalidInput("label must be 1-120 characters", file=file, field=f"{where}/label",
                           code="bad_credential")
    wires = rec.get("wires")
    if not isinstance(wires, dict):
        raise InvalidInput("wires must be an object", file=file, field=f"{where}/wires",
                           code="bad_credential")
    for shape, url in wires.items():
        try:
            wires_mod.check_shape(shape, field=f"{where}/wires")
        except InvalidInput as exc:
            raise InvalidInput(exc.message, file=file, field=exc.field, code="bad_credential") from None
        if url != wires_mod.OFFICIAL:
            try:
                wires_mod.check_base_url(url, field=f"{where}/wires/{shape}")
            except InvalidInput as exc:
                raise InvalidInput(exc.message, file=file, field=exc.field, code="bad_credential") from None
    if "lastModel" in rec:
        _check_model_id(rec["lastModel"], f"{where}/lastModel", file)
    overrides = rec.get("modelOverrides", {})
    if not isinstance(overrides, dict):
        raise InvalidInput("modelOverrides must be an object", file=file, field=f"{where}/modelOverrides",
                           code="bad_credential")
    for model, ov in overrides.items():
        _check_model_id(model, f"{where}/modelOverrides", file)
        if not isinstance(ov, dict) or set(ov) - {"contextWindow", "reasoning"}:
            raise InvalidInput("an override has only contextWindow and reasoning", file=file,
                               field=f"{where}/modelOverrides/{model}", code="bad_credential")
        ctx = ov.get("contextWindow")
        if ctx is not None and (type(ctx) is not int or ctx < 1):
            raise InvalidInput("contextWindow must be a positive integer", file=file,
                               field=f"{where}/modelOverrides/{model}/contextWindow", code="bad_credential")
        if "reasoning" in ov and not isinstance(ov["reasoning"], bool):
            raise InvalidInput("reasoning must be true or false", file=file,
                               field=f"{where}/modelOverrides/{model}/reasoning", code="bad_credential")
    for key in ("createdAt", "updatedAt"):
        if key in rec:
            clock.parse_instant(rec[key], field=f"{where}/{key}", file=file)
    return rec


def _read_doc() -> dict:
    path = records_path()
    doc = fs.read_json(path, missing=None, max_bytes=4 * 1024 * 1024)
    if doc is None:
        return {"version": VERSION, "credentials": {}}
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("credentials"), dict):
        raise InvalidInput("vault file must be {\"version\": 1, \"credentials\": {...}}", file=path,
                           code="bad_vault")
    for slug, rec in doc["credentials"].items():
        try:
            check_slug(slug, field=f"credentials/{slug}")
        except InvalidInput as exc:
            raise InvalidInput(exc.message, file=path, field=exc.field, code="bad_vault") from None
        validate_record(slug, rec, file=path)
    return doc


def list_records() -> list[dict]:
    return [dict(rec) for _, rec in sorted(_read_doc()["credentials"].items())]


def exists(slug: str) -> bool:
    return check_slug(slug) in _read_doc()["credentials"]


def get(slug: str) -> dict:
    rec = _read_doc()["credentials"].get(check_slug(slug))
    if rec is None:
        raise NotFound(f"no credential {slug!r}", field="credential", code="credential_not_found",
                       details={"hint": "see 'alice credential list'"})
    return dict(rec)


def has_secret(slug: str) -> bool:
    return SECRET_VAR in secrets.env_file_keys(secret_path(slug))


def public_view(rec: Mapping[str, Any]) -> dict:
    """A record for listings: presence of the secret, never its value."""
    out = {k: rec[k] for k in ("slug", "vendor", "authType", "label", "wires", "lastModel",
                               "modelOverrides", "createdAt", "updatedAt") if k in rec}
    out["hasSecret"] = has_secret(rec["slug"])
    return out


def _write_doc(doc: dict) -> None:
    fs.ensure_dir(vault_dir(), 0o700)
    fs.atomic_write_json(records_path(), doc, mode=0o600)


def add(slug: str, *, vendor: str, secret: str, auth_type: str = "api-key", base_url: str | None = None,
        wire_specs: Sequence[str] = (), label: str | None = None, last_model: str | None = None,
        replace: bool = False, now: datetime) -> dict:
    """Store a credential: the secret in its 0600 file, the record beside it.

    An existing slug is refused (``Conflict``) unless ``replace``.
    """
    check_slug(slug)
    if vendor not in VENDORS:
        raise InvalidInput(f"unknown vendor {vendor!r} (one of: {', '.join(VENDORS)})", field="vendor",
                           code="unknown_vendor")
    if auth_type not in AUTH_TYPES:
        raise InvalidInput(f"--auth must be one of {', '.join(AUTH_TYPES)}", field="auth", code="bad_auth")
    secrets.check_secret(secret)
    wires = wires_mod.parse_wire_specs(vendor, base_url, wire_specs)
    record: dict[str, Any] = {"slug": slug, "vendor": vendor, "authType": auth_type, "wires": wires}
    if label is not None:
        record["label"] = label.strip()
    if last_model is not None:
        record["lastModel"] = _check_model_id(last_model, "model")
    record["createdAt"] = clock.to_iso(now)
    validate_record(slug, record)
    fs.ensure_dir(vault_dir(), 0o700)
    fs.ensure_dir(vault_dir() / "secrets", 0o700)
    with fs.locked_file(records_path()):
        doc = _read_doc()
        existing = doc["credentials"].get(slug)
        if existing is not None and not replace:
            raise Conflict(f"credential {slug!r} already exists", field="slug", code="credential_exists",
                           details={"hint": "pass --replace to overwrite it"})
        if existing is not None:
            record["createdAt"] = existing.get("createdAt", record["createdAt"])
            record["updatedAt"] = clock.to_iso(now)
            if "modelOverrides" in existing:
                record["modelOverrides"] = existing["modelOverrides"]
        secrets.set_env_var(secret_path(slug), SECRET_VAR, secret)
        doc["credentials"][slug] = record
        try:
            _write_doc(doc)
        except BaseException:
            if existing is None:
                secrets.remove_env_file(secret_path(slug))
            raise
    return record


def remove(slug: str) -> dict:
    """Delete the record and its secret file."""
    check_slug(slug)
    with fs.locked_file(records_path()):
        doc = _read_doc()
        rec = doc["credentials"].pop(slug, None)
        if rec is None:
            # An add killed after the secret was written and before the record:
            # the secret goes anyway, so no copy of a key outlives its credential.
            leftover = secrets.remove_env_file(secret_path(slug))
            message = f"no credential {slug!r}"
            if leftover:
                message += " (the secret left by an interrupted 'credential add' was removed)"
            raise NotFound(message, field="credential", code="credential_not_found")
        _write_doc(doc)
        secrets.remove_env_file(secret_path(slug))
    return rec


def _update(slug: str, fn) -> dict:
    with fs.locked_file(records_path()):
        doc = _read_doc()
        rec = doc["credentials"].get(check_slug(slug))
        if rec is None:
            raise NotFound(f"no credential {slug!r}", field="credential", code="credential_not_found")
        fn(rec)
        validate_record(slug, rec)
        _write_doc(doc)
        return dict(rec)


def note_last_model(slug: str, model: str, *, now: datetime) -> dict:
    """Remember the model last launched with this credential (a hint only)."""
    model = _check_model_id(model, "model")

    def apply(rec: dict) -> None:
        rec["lastModel"] = model
        rec["updatedAt"] = clock.to_iso(now)

    return _update(slug, apply)


def set_model_override(slug: str, model: str, *, context_window: int | None = None,
                       reasoning: bool | None = None, clear: bool = False, now: datetime) -> dict:
    """Facts for one exact model id the table does not know (ignored for any other id)."""
    model = _check_model_id(model, "model")
    if context_window is not None and (type(context_window) is not int or context_window < 1):
        raise InvalidInput("--context-window must be a positive integer", field="context-window",
                           code="bad_override")

    def apply(rec: dict) -> None:
        overrides = rec.setdefault("modelOverrides", {})
        if clear:
            overrides.pop(model, None)
        else:
            entry = overrides.setdefault(model, {})
            if context_window is not None:
                entry["contextWindow"] = context_window
            if reasoning is not None:
                entry["reasoning"] = reasoning
            if not entry:
                raise InvalidInput("give --context-window and/or --reasoning (or --clear)",
                                   field="override", code="empty_override")
        if not overrides:
            rec.pop("modelOverrides")
        rec["updatedAt"] = clock.to_iso(now)

    return _update(slug, apply)


def open_credential(slug: str) -> tuple[dict, str]:
    """The record and the secret of ``slug`` in one read, for projection only."""
    rec = get(slug)
    return rec, _secret_value(slug)


def secret_for(slug: str) -> str:
    """The secret of ``slug``, for injection into a child environment only."""
    get(slug)
    return _secret_value(slug)


def _secret_value(slug: str) -> str:
    value = secrets.load_env_file(secret_path(slug)).get(SECRET_VAR)
    if not value:
        raise Unavailable(f"credential {slug!r} has no secret stored", field="credential",
                          code="credential_secret_missing",
                          details={"hint": f"re-add it: alice credential add {slug} --vendor V --replace"})
    return value
