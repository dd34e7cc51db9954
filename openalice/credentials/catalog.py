"""Model discovery cache: the ids (and a few facts) a credential's endpoint offers.

``$OPENALICE_HOME/data/model-catalog/providers/<slug>.json`` (0600)::

    {"version": 1, "identity": {slug, vendor, authType, wire, baseUrl},
     "fetchedAt": ISO | null, "lastAttemptAt": ISO, "lastError"?: text,
     "models": [{"id", "contextWindow"?, "maxOutputTokens"?}]}

Only ids and facts are stored: never a key, never a raw response.  A list is
fresh for 24 h; a failed refresh keeps the old list and records the error; a
new attempt waits at least 60 s after the last one.  Catalog membership is
advisory: launching never reads the network and never waits on discovery.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from openalice.core import clock, fs, paths
from openalice.core.errors import InvalidInput

from . import vault, wires
from .vault import check_slug, get

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["TTL", "RETRY_AFTER", "cache_path", "read_cache", "cached_models", "refresh",
           "http_fetcher", "Fetcher", "native_cache_path", "refresh_native"]

TTL = timedelta(hours=24)
RETRY_AFTER = timedelta(seconds=60)
MAX_MODELS = 5000
VERSION = 1
# fetcher(base_url, wire, api_key) -> list of ids or {"id", "contextWindow"?, ...}
Fetcher = Callable[[str, str, str], list]


def cache_path(slug: str) -> Path:
    return paths.data_dir() / "model-catalog" / "providers" / f"{check_slug(slug)}.json"


def _identity(rec: dict) -> dict:
    available = wires.available_wires(rec["vendor"], rec["wires"])
    shape = next(iter(available), None)
    return {"slug": rec["slug"], "vendor": rec["vendor"], "authType": rec["authType"], "wire": shape,
            "baseUrl": available.get(shape) if shape else None}


def read_cache(slug: str) -> dict | None:
    """The stored document, or None if absent or unreadable (a cache is never fatal)."""
    try:
        doc = fs.read_json(cache_path(slug), missing=None, max_bytes=8 * 1024 * 1024)
    except InvalidInput:
        return None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("models"), list):
        return None
    return doc


def _fresh(doc: dict, now: datetime) -> bool:
    fetched = doc.get("fetchedAt")
    if not fetched:
        return False
    try:
        return now - clock.parse_instant(fetched) < TTL
    except InvalidInput:
        return False


def cached_models(slug: str, *, now: datetime) -> dict:
    """What the cache knows right now (no network): ``{models, fetchedAt, fresh}``."""
    rec = get(slug)
    doc = read_cache(slug)
    if doc is None or doc.get("identity") != _identity(rec):
        return {"models": [], "fetchedAt": None, "fresh": False}
    return {"models": doc["models"], "fetchedAt": doc.get("fetchedAt"), "fresh": _fresh(doc, now),
            **({"lastError": doc["lastError"]} if doc.get("lastError") else {})}


def _clean_models(raw: Any) -> list[dict]:
    if not isinstance(raw, list):
        raise ValueError("the fetcher did not return a list")
    out: list[dict] = []
    seen = set()
    for item in raw[:MAX_MODELS]:
        entry = {"id": item} if isinstance(item, str) else item
        if not isinstance(entry, dict):
            continue
        model_id = entry.get("id")
        if (not isinstance(model_id, str) or not model_id.strip() or len(model_id) > 512
                or any(ord(c) < 32 for c in model_id) or model_id in seen):
            continue
        seen.add(model_id)
        clean: dict[str, Any] = {"id": model_id.strip()}
        for key in ("contextWindow", "maxOutputTokens"):
            value = entry.get(key)
            if type(value) is int and value > 0:
                clean[key] = value
        out.append(clean)
    return out


def _redact(text: str, secret: str) -> str:
    text = text.replace(secret, "[redacted]") if secret else text
    return text[:300]


def refresh(slug: str, *, now: datetime, fetcher: Fetcher | None = None, force: bool = False) -> dict:
    """Fetch the model list for ``slug`` unless the cache is fresh.

    Returns ``{status: fresh|refreshed|failed|backoff, models, fetchedAt, error?}``.
    A failure keeps the previous list.  The secret goes to the fetcher only.
    """
    rec = vault.get(slug)
    identity = _identity(rec)
    path = cache_path(slug)
    with fs.locked_file(path):
        doc = read_cache(slug)
        if doc is not None and doc.get("identity") != identity:
            doc = None
        if doc is not None and not force:
            if _fresh(doc, now):
                return {"status": "fresh", "models": doc["models"], "fetchedAt": doc.get("fetchedAt")}
            attempted = doc.get("lastAttemptAt")
            if attempted and doc.get("lastError"):
                try:
                    if now - clock.parse_instant(attempted) < RETRY_AFTER:
                        return {"status": "backoff", "models": doc["models"],
                                "fetchedAt": doc.get("fetchedAt"), "error": doc["lastError"]}
                except InvalidInput:
                    pass
        old_models = doc["models"] if doc else []
        new_doc: dict[str, Any] = {"version": VERSION, "identity": identity,
                                   "fetchedAt": doc.get("fetchedAt") if doc else None,
                                   "lastAttemptAt": clock.to_iso(now), "models": old_models}
        secret = ""
        try:
            if identity["wire"] is None:
                raise ValueError("the credential has no usable endpoint")
            secret = vault.secret_for(slug)
            models = _clean_models((fetcher or http_fetcher)(identity["baseUrl"], identity["wire"], secret))
        except Exception as exc:  # a refresh failure is data, never fatal
            message = _redact(f"{exc.__class__.__name__}: {exc}" if not isinstance(exc, ValueError)
                              else str(exc), secret)
            new_doc["lastError"] = message
            fs.atomic_write_json(path, new_doc, mode=0o600)
            return {"status": "failed", "models": old_models, "fetchedAt": new_doc["fetchedAt"],
                    "error": message}
        new_doc["fetchedAt"] = clock.to_iso(now)
        new_doc["models"] = models
        fs.atomic_write_json(path, new_doc, mode=0o600)
        return {"status": "refreshed", "models": models, "fetchedAt": new_doc["fetchedAt"]}


def native_cache_path(agent: str) -> Path:
    """``data/model-catalog/native/<agent>.json``: what an agent CLI listed under its own login."""
    return paths.data_dir() / "model-catalog" / "native" / f"{paths.safe_name(agent)}.json"


def refresh_native(agent: str, *, now: datetime, lister: Callable[[], list]) -> dict:
    """Cache the ids ``lister()`` (the CLI's own listing) returns, for ``agent``
    on native auth: ``{status: refreshed, models, fetchedAt}``.  No vault
    record is read or made; a failing lister raises and leaves the cache as it was."""
    models = _clean_models(lister())
    doc = {"version": VERSION, "identity": {"agent": agent, "source": "native"},
           "fetchedAt": clock.to_iso(now), "lastAttemptAt": clock.to_iso(now), "models": models}
    path = native_cache_path(agent)
    with fs.locked_file(path):
        fs.atomic_write_json(path, doc, mode=0o600)
    return {"status": "refreshed", "models": models, "fetchedAt": doc["fetchedAt"]}


def http_fetcher(base_url: str, wire: str, api_key: str, *, timeout: float = 10.0) -> list[dict]:
    """GET the endpoint's model list (OpenAI/Anthropic ``data[].id``, Google ``models[].name``)."""
    # lazy: urllib loads only for a network refresh; reading the cache never fetches
    import urllib.error
    import urllib.request

    headers = {"Accept": "application/json", "User-Agent": "openalice"}
    if wire == "anthropic":
        url = base_url.rstrip("/") + "/v1/models"
        headers["x-api-key"] = api_key
        headers["Authorization"] = f"Bearer {api_key}"
        headers["anthropic-version"] = "2023-06-01"
    elif wire == "google-generative-ai":
        url = base_url.rstrip("/") + "/models"
        headers["x-goog-api-key"] = api_key
    else:
        url = base_url.rstrip("/") + "/models"
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(url, headers=headers, method="GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(16 * 1024 * 1024)
    except urllib.error.HTTPError as exc:
        raise ValueError(f"HTTP {exc.code} from {url}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ValueError(f"cannot reach {url}: {reason}") from None
    try:
        data = json.loads(body)
    except ValueError:
        raise ValueError(f"{url} did not answer JSON") from None
    out: list[dict] = []
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        for item in data["data"]:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                entry: dict[str, Any] = {"id": item["id"]}
                ctx = item.get("context_length") or item.get("context_window") or item.get("max_input_tokens")
                if type(ctx) is int:
                    entry["contextWindow"] = ctx
                out.append(entry)
    elif isinstance(data, dict) and isinstance(data.get("models"), list):
        for item in data["models"]:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                entry = {"id": item["name"].removeprefix("models/")}
                if type(item.get("inputTokenLimit")) is int:
                    entry["contextWindow"] = item["inputTokenLimit"]
                if type(item.get("outputTokenLimit")) is int:
                    entry["maxOutputTokens"] = item["outputTokenLimit"]
                out.append(entry)
    else:
        raise ValueError(f"{url} answered an unknown model-list shape")
    return out
