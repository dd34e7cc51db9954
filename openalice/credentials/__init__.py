"""Credentials: the vault of provider accounts (records without secrets, secrets
in 0600 files), their wire shapes and endpoints, and the model discovery cache.

Absence of a credential means the engine's native login; nothing here ever
picks a vault key on its own.
"""

from .vault import (
    AUTH_TYPES,
    SECRET_VAR,
    SLUG_RE,
    VENDORS,
    add,
    check_slug,
    exists,
    get,
    has_secret,
    list_records,
    note_last_model,
    open_credential,
    public_view,
    records_path,
    remove,
    secret_for,
    secret_path,
    set_model_override,
    validate_record,
    vault_dir,
)

__all__ = [
    "AUTH_TYPES", "SECRET_VAR", "SLUG_RE", "VENDORS", "add", "check_slug", "exists", "get",
    "has_secret", "list_records", "note_last_model", "open_credential", "public_view", "records_path", "remove",
    "secret_for", "secret_path", "set_model_override", "validate_record", "vault_dir",
]
