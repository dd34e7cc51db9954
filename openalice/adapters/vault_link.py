"""The two secret stores, what each feeds, and the one link between them.

- **The vault** (``$OPENALICE_HOME/vault/``, ``alice credential``) feeds the runs the
  scheduler starts: the adapter projection puts a credential's key into the agent's
  environment just in time (``docs/runtime.md``).
- **Adapter env files** (``$HARNESS_HOME/env/NAME.env``, ``harness-adapter set-secret``)
  feed the catalog wrappers: each wrapper sources its own file (``docs/WRAPPER-CONTRACT.md``).

Neither reads the other.  :func:`suggestions` says when an adapter misses a key the
vault holds (by vendor), and :func:`link` copies that key into the adapter's env
file inside the toolkit: the value never passes through argv, stdout or a log.
"""

from __future__ import annotations

from collections.abc import Mapping

from openalice import credentials
from openalice.core.errors import AliceError, InvalidInput

from . import envfile
from .catalog import AdapterEntry, load_catalog

__all__ = ["KEY_VENDORS", "stores", "linkable_credentials", "suggestions", "adapter_links", "link"]

# The variable each engine reads for a vendor's API key, and that vendor's vault name.
KEY_VENDORS = {"ANTHROPIC_API_KEY": "anthropic", "OPENAI_API_KEY": "openai", "GEMINI_API_KEY": "google",
               "GOOGLE_API_KEY": "google", "XAI_API_KEY": "xai", "DEEPSEEK_API_KEY": "deepseek",
               "OPENROUTER_API_KEY": "openrouter"}


def stores() -> dict:
    """Where each store is and what it feeds (paths only, never a value)."""
    return {"vault": {"path": str(credentials.vault_dir()), "managedBy": "alice credential",
                      "feeds": "the runs the scheduler starts (the key reaches the agent's environment "
                               "just in time)"},
            "adapterEnvFiles": {"path": str(envfile.home_env_dir()), "managedBy": "harness-adapter set-secret",
                                "feeds": "the catalog wrappers (each sources its own env file)"}}


def linkable_credentials() -> list[dict]:
    """The vault's API-key credentials that hold a key (records: no values)."""
    try:
        records = credentials.list_records()
    except AliceError:
        return []   # a damaged vault is alice credential's to report, not a listing's
    return [r for r in records if r["authType"] == "api-key" and credentials.has_secret(r["slug"])]


def suggestions(entry: AdapterEntry, secrets: Mapping[str, str], *, records: list[dict] | None = None) -> list[dict]:
    """For each declared key missing from the adapter's env file: the vault
    credentials of its vendor that hold a key, with the command that links one."""
    missing = [k for k in entry.env if secrets.get(k) != "set" and k in KEY_VENDORS]
    if not missing:
        return []
    records = linkable_credentials() if records is None else records
    return [{"key": key, "credential": rec["slug"], "vendor": rec["vendor"],
             "command": f"harness-adapter set-secret {entry.id} {key} --from-vault {rec['slug']}"}
            for key in missing for rec in records if rec["vendor"] == KEY_VENDORS[key]]


def link(entry: AdapterEntry, slug: str, key: str | None = None, *, force: bool = False) -> dict:
    """Write vault credential ``slug``'s key to the adapter's env file (0600) as
    ``key`` (default: the adapter's declared key for the credential's vendor).
    Returns what was done, never the value."""
    record = credentials.get(slug)
    if record["authType"] != "api-key":
        raise InvalidInput(f"credential {slug!r} is a {record['authType']} token, not an API key; a wrapper "
                           "takes API keys (log in with the engine's own command instead)", field="--from-vault",
                           code="vault_credential_not_a_key")
    if key is None:
        keys = [k for k in entry.env if KEY_VENDORS.get(k) == record["vendor"]]
        if len(keys) != 1:
            raise InvalidInput(f"adapter {entry.id!r} declares no key for vendor {record['vendor']!r} (it declares: "
                               f"{', '.join(entry.env) or 'none'}); name the KEY", field="KEY",
                               code="no_key_for_vendor")
        key = keys[0]
    path = envfile.check_settable(entry, key, force=force)
    if not credentials.has_secret(slug):
        raise InvalidInput(f"credential {slug!r} has no key stored", field="--from-vault", code="vault_key_missing")
    replaced = envfile.set_secret(entry, key, credentials.secret_for(slug), force=force)
    endpoints = sorted({url for url in record["wires"].values() if url})
    out = {"id": entry.id, "key": key, "credential": slug, "vendor": record["vendor"], "envFile": str(path),
           "replaced": replaced, "notes": []}
    if endpoints:
        out["notes"].append(f"the credential's endpoint ({', '.join(endpoints)}) is not carried over: the wrapper "
                            "calls its engine's default endpoint")
    return out


def adapter_links(*, slug: str | None = None, catalog_path=None) -> list[dict]:
    """Across the catalog: every adapter missing a declared key that a vault
    credential (``slug``, or any) holds.  A catalog that cannot be read gives none
    (``harness-adapter`` reports it)."""
    records = [r for r in linkable_credentials() if slug is None or r["slug"] == slug]
    if not records:
        return []
    try:
        entries = load_catalog(catalog_path).entries
        return [{"adapter": entry.id, **link} for entry in entries
                for link in suggestions(entry, envfile.secret_status(entry), records=records)]
    except AliceError:
        return []
