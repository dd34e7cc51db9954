"""Per-machine adapter state (``adapters-state/v1``) in ``$HARNESS_HOME/adapters.json``.

Only what differs per machine lives here: whether an adapter is enabled
(absent means disabled: an unconfigured adapter is never silently usable),
non-secret ``config`` and an optional ``modelAllow`` narrowing of the catalog
models.  Never secrets: a secret-looking config key or value is refused, on
write and on read (a hand-edited secret would otherwise be printed by
``show``).

Every change is a locked read-modify-write with an atomic replace, so
concurrent writers on different adapters all keep their change and a writer
killed mid-write leaves the old or the new file, never half of one.  Records
for ids the current catalog does not know are kept untouched: another catalog
(``--catalog``) may use them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from openalice.core import fs, patterns, schema_passes
from openalice.core.errors import InvalidInput
from openalice.core.paths import harness_home
from openalice.core.records import field, record_class

from .catalog import AdapterEntry, suggest

__all__ = [
    "STATE_VERSION", "AdapterState", "state_path", "load_state", "check_config_key",
    "check_config_value", "update", "set_enabled", "set_model_allow", "set_config",
]

STATE_VERSION = "adapters-state/v1"

# Values that are credentials whatever their key is called: provider key
# prefixes, bearer tokens and URLs carrying a password.
_SECRET_VALUE_RE = patterns.compile(
    r"(?:\bsk-[A-Za-z0-9_-]{8,}|\bgh[pousr]_[A-Za-z0-9]{16,}|\bgithub_pat_[A-Za-z0-9_]{16,}"
    r"|\bxox[abprs]-[A-Za-z0-9-]{8,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{30,}"
    r"|(?i:\bbearer\s+\S{8,})|://[^/\s:@]+:[^/\s@]+@)")

_CONFIG_KEY_RE = patterns.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")


@record_class(frozen=True)
class AdapterState:
    """One adapter's machine state; the defaults are what an absent record means."""

    enabled: bool = False
    config: Mapping[str, object] = field(default_factory=dict)
    modelAllow: tuple[str, ...] | None = None

    @classmethod
    def from_record(cls, record: Mapping) -> "AdapterState":
        allow = record.get("modelAllow")
        return cls(enabled=bool(record.get("enabled", False)), config=dict(record.get("config", {})),
                   modelAllow=tuple(allow) if allow is not None else None)


def state_path() -> Path:
    return harness_home() / "adapters.json"


def _empty() -> dict:
    return {"version": STATE_VERSION, "state": {}}


def check_config_key(key: str, *, file: object = None) -> str:
    from openalice.core.secrets import looks_secret  # lazy: getpass & co., only when state is written

    if looks_secret(key):
        raise InvalidInput(
            f"config key '{key}' looks like a secret; config is stored in plain text",
            field=f"config.{key}", file=file, code="secret_in_config",
            details={"hint": "store credentials with 'harness-adapter set-secret ID KEY -' "
                             "(value on stdin); they go to the adapter's 0600 env file"})
    return key


def check_config_value(key: str, value: object, *, file: object = None) -> None:
    if isinstance(value, str) and _SECRET_VALUE_RE.search(value):
        raise InvalidInput(
            f"the value of config key '{key}' looks like a credential; config is stored in plain text",
            field=f"config.{key}", file=file, code="secret_in_config",
            details={"hint": "store credentials with 'harness-adapter set-secret ID KEY -'"})


def _check_document(document: object, path: Path, *, allow_secret_config: bool = False) -> dict:
    violations = schema_passes.violations("adapters-state", document)
    if violations:
        first = violations[0]
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        raise InvalidInput(
            f"invalid adapter state: {first.message}{more}", file=path,
            field=first.instance_path or "/", code="invalid_state",
            details={"problems": [{"pointer": v.instance_path, "message": v.message}
                                  for v in violations],
                     "hint": "fix or remove the file (absent state means every adapter is disabled)"})
    if not allow_secret_config:
        for adapter_id, record in document["state"].items():
            for key, value in record.get("config", {}).items():
                try:
                    check_config_key(key, file=path)
                    check_config_value(key, value, file=path)
                except InvalidInput as exc:
                    exc.field = f"/state/{adapter_id}/config/{key}"
                    exc.details["hint"] = (f"remove it: 'harness-adapter config {adapter_id} "
                                           f"--unset {key}', then store it with set-secret")
                    raise
    return document


def _read_document(path: Path) -> dict:
    document = fs.read_json(path, missing=None, max_bytes=4 * 1024 * 1024)
    if document is None:
        return _empty()
    return _check_document(document, path)


def load_state(path: os.PathLike | str | None = None) -> dict[str, AdapterState]:
    """Every adapter's state by id (absent file: ``{}``); malformed: InvalidInput."""
    where = Path(path) if path is not None else state_path()
    document = _read_document(where)
    return {adapter_id: AdapterState.from_record(record)
            for adapter_id, record in document["state"].items()}


def update(adapter_id: str, change: Callable[[dict], dict | None], *,
           path: os.PathLike | str | None = None,
           allow_secret_config: bool = False) -> AdapterState:
    """Apply ``change`` to the adapter's raw record under the state lock.

    ``change`` gets a mutable record dict (empty if absent) and returns it (or
    mutates it).  Nothing is written if it raises.
    """
    where = Path(path) if path is not None else state_path()
    result: dict = {}

    def apply(document: object) -> dict:
        _check_document(document, where, allow_secret_config=allow_secret_config)
        record = dict(document["state"].get(adapter_id, {}))
        new = change(record)
        record = record if new is None else new
        document["state"][adapter_id] = record
        result["record"] = record
        return document

    fs.locked_update_json(where, apply, default=_empty,
                          validate=lambda doc: _check_document(
                              doc, where, allow_secret_config=allow_secret_config))
    return AdapterState.from_record(result["record"])


def set_enabled(adapter_id: str, enabled: bool, *, path: os.PathLike | str | None = None) -> AdapterState:
    def change(record: dict) -> dict:
        record["enabled"] = bool(enabled)
        return record

    return update(adapter_id, change, path=path)


def set_model_allow(entry: AdapterEntry, models: Iterable[str] | None, *,
                    path: os.PathLike | str | None = None) -> AdapterState:
    """Narrow the adapter's models on this machine (``None`` removes the narrowing).

    Every model must be in the catalog's ``models``; the first that is not is
    an :class:`InvalidInput` with a "did you mean" hint.
    """
    chosen: list[str] | None = None
    if models is not None:
        chosen = []
        for model in models:
            if model not in entry.models:
                hint = suggest(model, entry.models) or ("the catalog allows: " + ", ".join(entry.models))
                raise InvalidInput(
                    f"model '{model}' is not in the catalog models of adapter '{entry.id}'",
                    field="models", code="model_not_in_catalog", details={"hint": hint})
            if model not in chosen:
                chosen.append(model)
        if not chosen:
            raise InvalidInput("give at least one model (or --reset to use the catalog's list)",
                               field="models", code="usage")

    def change(record: dict) -> dict:
        if chosen is None:
            record.pop("modelAllow", None)
        else:
            record["modelAllow"] = chosen
        return record

    return update(entry.id, change, path=path)


def set_config(adapter_id: str, values: Mapping[str, object] | None = None,
               unset: Iterable[str] = (), *, path: os.PathLike | str | None = None) -> AdapterState:
    """Set and remove non-secret config keys.  Secret-looking keys or values are
    refused before anything is written; removing one is always allowed."""
    values = dict(values or {})
    for key, value in values.items():
        if not _CONFIG_KEY_RE.match(key):
            raise InvalidInput(f"invalid config key {key!r}: use letters, digits, '_', '.' and '-' "
                               "(not starting with a digit, '.' or '-'), at most 64 characters",
                               field="config", code="bad_config_key")
        check_config_key(key)
        check_config_value(key, value)
        if isinstance(value, str) and (len(value) > 4096
                                       or any(ch < " " and ch != "\t" or ch == "\x7f" for ch in value)):
            raise InvalidInput(f"the value of config key '{key}' must be one line of text (no "
                               "newline or other control character), at most 4096 characters",
                               field=f"config.{key}", code="bad_config_value")
    removals = list(unset)

    def change(record: dict) -> dict:
        config = dict(record.get("config", {}))
        for key in removals:
            config.pop(key, None)
        config.update(values)
        if config:
            record["config"] = config
        else:
            record.pop("config", None)
        return record

    return update(adapter_id, change, path=path, allow_secret_config=bool(removals) and not values)
