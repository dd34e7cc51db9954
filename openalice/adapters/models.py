"""Full model lists: ``<wrapper> --list-models``, cached with a 24 h TTL.

``models`` in the catalog is the curated allowlist a binding may pin; the
*available* list feeds a picker and may be long (hundreds on a router).  It
comes only from the wrapper's declared ``--list-models`` mode (never from a
command string in committed config) and is cached per adapter id in
``$HARNESS_HOME/adapters.cache.json``, keyed also by the wrapper's path and
mtime so an edited wrapper is asked again.

Failures are never cached.  When a refresh fails and an older list exists,
that list is returned marked ``stale`` with the (redacted) reason; with no
list at all the failure is :class:`Unavailable` (exit 3).  A wrapper without
``listModels`` yields the catalog's curated models.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path

from openalice.core import fs, patterns
from openalice.core.clock import parse_instant, to_iso
from openalice.core.errors import AliceError, InvalidInput, Unavailable
from openalice.core.paths import harness_home
from openalice.core.records import field, record_class
from openalice.core.redact import summarize

from .catalog import AdapterEntry, schema_validator
from .invoke import DEFAULT_TIMEOUT, known_secret_values, run_wrapper

__all__ = ["CACHE_VERSION", "TTL", "MAX_LIST_OUTPUT", "ModelList", "cache_path", "parse_model_list",
           "read_cache", "cached_models", "available_models"]

CACHE_VERSION = "adapters-cache/v1"
TTL = timedelta(hours=24)
MAX_LIST_OUTPUT = 1024 * 1024
_MODEL_RE = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}\Z")


@record_class
class ModelList:
    id: str
    models: list[str]
    stale: bool
    fetchedAt: str | None
    source: str  # "wrapper" | "cache" | "catalog"
    detail: str | None = None
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        out = {"id": self.id, "models": self.models, "stale": self.stale,
               "fetchedAt": self.fetchedAt, "source": self.source}
        if self.detail:
            out["detail"] = self.detail
        return out


def cache_path() -> Path:
    return harness_home() / "adapters.cache.json"


def parse_model_list(text: str) -> list[str]:
    """Model ids from ``--list-models`` output: one per line, or one JSON
    object ``{"models": [...]}`` whose items are ids or ``{"id": ...}``.
    Raises ValueError with the reason for anything else."""
    stripped = text.strip()
    models: list[str] = []
    if stripped.startswith("{"):
        try:
            document = json.loads(stripped)
        except ValueError as exc:
            raise ValueError(f"output starts with '{{' but is not one JSON object: {exc}") from None
        if not isinstance(document, dict) or not isinstance(document.get("models"), list):
            raise ValueError('JSON output must be an object with a "models" array')
        for index, item in enumerate(document["models"]):
            model = item.get("id") if isinstance(item, dict) else item
            if not isinstance(model, str) or not _MODEL_RE.match(model):
                raise ValueError(f"models[{index}] is not a model id")
            models.append(model)
    else:
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if not _MODEL_RE.match(line):
                raise ValueError(f"line {number} is not a model id: {line[:60]!r}")
            models.append(line)
    unique = list(dict.fromkeys(models))
    if not unique:
        raise ValueError("the wrapper listed no models")
    return unique


def read_cache(path: Path | None = None) -> tuple[dict, str | None]:
    """``(entries, warning)``.  A cache is regenerable, so a malformed one is
    reported (the warning) and treated as empty rather than failing the verb."""
    where = path or cache_path()
    try:
        document = fs.read_json(where, missing=None, max_bytes=16 * 1024 * 1024)
    except AliceError as exc:
        return {}, f"ignoring the model cache: {exc}"
    if document is None:
        return {}, None
    violations = schema_validator("adapters-cache").errors(document)
    if violations:
        return {}, (f"ignoring the model cache {where}: {violations[0].instance_path or '/'}: "
                    f"{violations[0].message}")
    return document["entries"], None


def _wrapper_mtime(entry: AdapterEntry) -> int | None:
    try:
        return os.stat(entry.wrapper).st_mtime_ns
    except OSError:
        return None


def cached_models(entry: AdapterEntry, path: Path | None = None) -> dict | None:
    """The cached record for this adapter (any age, same wrapper path), or None."""
    entries, _ = read_cache(path)
    record = entries.get(entry.id)
    if record is None or record.get("wrapper") != str(entry.wrapper):
        return None
    return record


def _fresh(record: dict, entry: AdapterEntry, now: datetime) -> bool:
    if record.get("wrapperMtimeNs") != _wrapper_mtime(entry):
        return False
    try:
        fetched = parse_instant(record["fetchedAt"])
    except InvalidInput:
        return False
    return timedelta(0) <= now - fetched < TTL


def _store(entry: AdapterEntry, models: list[str], fetched_at: str, path: Path) -> None:
    record = {"models": models, "fetchedAt": fetched_at, "wrapper": str(entry.wrapper),
              "wrapperMtimeNs": _wrapper_mtime(entry)}

    def change(document: object) -> dict:
        usable = (isinstance(document, dict)
                  and schema_validator("adapters-cache").is_valid(document))
        if not usable:
            document = {"version": CACHE_VERSION, "entries": {}}
        document["entries"][entry.id] = record
        return document

    with fs.locked_file(path):
        try:
            current = fs.read_json(path, missing=None)
        except AliceError:
            current = None
        fs.atomic_write_json(path, change(current))


def available_models(entry: AdapterEntry, *, now: datetime, refresh: bool = False,
                     timeout: float = DEFAULT_TIMEOUT, path: Path | None = None) -> ModelList:
    """The adapter's full model list (see the module docstring for the rules)."""
    if not entry.listModels:
        return ModelList(entry.id, list(entry.models), False, None, "catalog")
    where = path or cache_path()
    entries, warning = read_cache(where)
    warnings = [warning] if warning else []
    record = entries.get(entry.id)
    if record is not None and record.get("wrapper") != str(entry.wrapper):
        record = None
    if record is not None and not refresh and _fresh(record, entry, now):
        return ModelList(entry.id, list(record["models"]), False, record["fetchedAt"], "cache",
                         warnings=warnings)

    run = run_wrapper(entry, ["--list-models"], timeout=timeout, max_output=MAX_LIST_OUTPUT)
    reason = None
    if run.error:
        reason = run.error
    elif run.timed_out:
        reason = f"--list-models timed out after {timeout:g}s"
    elif run.returncode != 0:
        tail = " / ".join(l for l in run.stderr_text.strip().splitlines()[-3:] if l.strip())
        reason = f"--list-models exited {run.returncode}" + (f": {tail}" if tail else "")
    else:
        try:
            models = parse_model_list(run.stdout_text)
        except ValueError as exc:
            reason = f"--list-models printed an unusable list: {exc}"
        else:
            fetched_at = to_iso(now)
            _store(entry, models, fetched_at, where)
            return ModelList(entry.id, models, False, fetched_at, "wrapper", warnings=warnings)

    detail = summarize(reason, known_secret_values(entry))
    if record is not None:
        return ModelList(entry.id, list(record["models"]), True, record["fetchedAt"], "cache",
                         detail=detail, warnings=warnings)
    raise Unavailable(f"cannot list the models of adapter '{entry.id}': {detail}",
                      code="list_models_failed",
                      details={"hint": "check the adapter with 'harness-adapter health "
                                       f"{entry.id}'; the curated models still work in bindings"})
