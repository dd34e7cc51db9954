"""The vault: records without secrets, 0600 secret files, wires."""

import json
import os
import stat
from datetime import datetime, timezone

import pytest

from openalice import credentials
from openalice.core.errors import Conflict, InvalidInput, NotFound, Unavailable
from openalice.credentials import wires

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
SECRET = "sk-test-secret-value-0001"


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_add_keeps_secret_only_in_a_0600_file():
    rec = credentials.add("ds-1", vendor="deepseek", secret=SECRET, now=NOW)
    assert rec["wires"] == {"anthropic": "", "openai-chat": ""}
    records = credentials.records_path()
    assert SECRET not in records.read_text()
    assert _mode(records) == 0o600 and _mode(credentials.vault_dir()) == 0o700
    secret_file = credentials.secret_path("ds-1")
    assert _mode(secret_file) == 0o600 and _mode(secret_file.parent) == 0o700
    assert credentials.secret_for("ds-1") == SECRET
    assert credentials.has_secret("ds-1")
    view = credentials.public_view(rec)
    assert view["hasSecret"] is True and SECRET not in json.dumps(view)


def test_existing_slug_needs_replace():
    credentials.add("a-1", vendor="openai", secret="one", now=NOW)
    with pytest.raises(Conflict) as err:
        credentials.add("a-1", vendor="openai", secret="two", now=NOW)
    assert err.value.code == "credential_exists" and credentials.secret_for("a-1") == "one"
    rec = credentials.add("a-1", vendor="openai", secret="two", replace=True, now=NOW)
    assert credentials.secret_for("a-1") == "two" and rec["updatedAt"]


@pytest.mark.parametrize("slug", ["", "A", "-x", "a" * 65, "a/b", "a.b", "a b"])
def test_bad_slugs(slug):
    with pytest.raises(InvalidInput):
        credentials.add(slug, vendor="openai", secret="x", now=NOW)


def test_remove_deletes_record_and_secret():
    credentials.add("gone", vendor="openai", secret="x", now=NOW)
    credentials.remove("gone")
    assert not credentials.secret_path("gone").exists()
    with pytest.raises(NotFound) as err:
        credentials.secret_for("gone")
    assert err.value.code == "credential_not_found"
    with pytest.raises(NotFound):
        credentials.remove("gone")


def test_missing_secret_file_is_unavailable():
    credentials.add("nokey", vendor="openai", secret="x", now=NOW)
    credentials.secret_path("nokey").unlink()
    with pytest.raises(Unavailable) as err:
        credentials.secret_for("nokey")
    assert err.value.code == "credential_secret_missing" and err.value.exit_code == 3


def test_secret_shaped_key_in_vault_file_is_refused():
    credentials.add("x-1", vendor="openai", secret="x", now=NOW)
    doc = json.loads(credentials.records_path().read_text())
    doc["credentials"]["x-1"]["apiKey"] = "leak"
    credentials.records_path().write_text(json.dumps(doc))
    with pytest.raises(InvalidInput) as err:
        credentials.list_records()
    assert "secret-shaped" in err.value.message and err.value.field == "credentials/x-1/apiKey"


def test_custom_vendor_needs_wire_and_base_url():
    with pytest.raises(InvalidInput) as err:
        credentials.add("c", vendor="custom", secret="x", now=NOW)
    assert err.value.code == "base_url_required"
    with pytest.raises(InvalidInput) as err:
        credentials.add("c", vendor="custom", secret="x", base_url="http://127.0.0.1:9/v1", now=NOW)
    assert err.value.code == "wire_required"
    rec = credentials.add("c", vendor="custom", secret="x", base_url="http://127.0.0.1:9/v1/",
                          wire_specs=["openai-chat"], now=NOW)
    assert rec["wires"] == {"openai-chat": "http://127.0.0.1:9/v1"}


@pytest.mark.parametrize("url", ["ftp://x", "http://user:pw@host/v1", "https://h/v1?key=1", "not a url", ""])
def test_base_url_never_carries_a_secret_or_junk(url):
    with pytest.raises(InvalidInput):
        credentials.add("c", vendor="openai", secret="x", base_url=url, now=NOW)


def test_wire_specs():
    assert wires.parse_wire_specs("openai", None) == {"openai-responses": "", "openai-chat": ""}
    assert wires.parse_wire_specs("anthropic", "http://127.0.0.1:1") == {"anthropic": "http://127.0.0.1:1"}
    assert wires.parse_wire_specs("minimax", None, ["anthropic", "openai-chat=https://api.minimaxi.com/v1"]) == {
        "anthropic": "", "openai-chat": "https://api.minimaxi.com/v1"}
    with pytest.raises(InvalidInput):
        wires.parse_wire_specs("openai", None, ["smoke-signals"])


def test_item7_openrouter_wires_per_engine():
    w = wires.default_wires("openrouter")
    assert wires.pick_wire("openrouter", w, ("anthropic",)) == ("anthropic", "https://openrouter.ai/api")
    assert wires.anthropic_auth("https://openrouter.ai/api") == "bearer"
    assert wires.pick_wire("openrouter", w, ("openai-responses",)) == (
        "openai-responses", "https://openrouter.ai/api/v1")
    pi_pref = ("google-generative-ai", "openai-chat", "anthropic", "openai-responses")
    assert wires.pick_wire("openrouter", w, pi_pref) == ("openai-chat", "https://openrouter.ai/api/v1")


def test_item8_minimax_legacy_chat_only_credential():
    legacy = {"openai-chat": "https://api.minimaxi.com/v1"}
    policy = {"legacyRequestedWireFallbacks": {"openai-chat": "anthropic"}}
    picked = wires.pick_wire("minimax", legacy, ("anthropic",), requested="openai-chat",
                             fallbacks=policy["legacyRequestedWireFallbacks"])
    assert picked == ("anthropic", "https://api.minimaxi.com/anthropic")
    assert wires.anthropic_auth(picked[1]) == "bearer"
    assert wires.pick_wire("minimax", legacy, ("openai-responses",), requested="anthropic") is None


def test_anthropic_auth_defaults_to_api_key_header():
    assert wires.anthropic_auth("https://api.anthropic.com") == "x-api-key"
    assert wires.anthropic_auth("http://127.0.0.1:8080") == "x-api-key"
    assert wires.anthropic_auth("https://api.longcat.chat/anthropic") == "bearer"
    assert wires.anthropic_auth("https://evil-openrouter.ai.example") == "x-api-key"
    assert wires.anthropic_auth("https://x", explicit="bearer") == "bearer"


def test_model_overrides_and_last_model():
    credentials.add("p", vendor="custom", secret="x", base_url="http://127.0.0.1:9/v1", wire_specs=["openai-chat"],
                    now=NOW)
    rec = credentials.set_model_override("p", "m-1", context_window=128_000, reasoning=True, now=NOW)
    assert rec["modelOverrides"] == {"m-1": {"contextWindow": 128_000, "reasoning": True}}
    rec = credentials.set_model_override("p", "m-1", clear=True, now=NOW)
    assert "modelOverrides" not in rec
    with pytest.raises(InvalidInput):
        credentials.set_model_override("p", "m-1", now=NOW)
    assert credentials.note_last_model("p", "m-2", now=NOW)["lastModel"] == "m-2"
