"""`.alice/settings.json`: strict, secret-free, fixed vs recent."""

import json
from datetime import datetime, timezone

import pytest

from openalice import credentials, preferences, workspaces
from openalice.core import resources
from openalice.core.errors import AliceError, InvalidInput
from openalice.core.schema import Validator

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def ws(tmp_path):
    return workspaces.init(tmp_path / "ws", now=NOW)[0]


def _write(ws, doc):
    preferences.settings_path(ws).write_text(json.dumps(doc))


def test_absent_file_reads_as_empty(ws):
    result = preferences.read(ws)
    assert result.status == "absent" and result.data == {"version": 1, "runtime": {}}


def test_item17_native_with_slug_and_api_key_is_invalid(ws):
    _write(ws, {"version": 1, "runtime": {"headless": {"agents": {"pi": {
        "accessMode": "native", "credentialSlug": "ds-1", "apiKey": "sk-x"}}}}})
    result = preferences.read(ws)
    assert result.status == "invalid"
    assert result.error.field == "runtime/headless/agents/pi/apiKey"
    assert "secret-shaped" in result.error.message
    assert str(preferences.settings_path(ws)) in str(result.error)


def test_slug_with_native_mode_is_refused(ws):
    _write(ws, {"version": 1, "runtime": {"headless": {"agents": {"pi": {
        "accessMode": "native", "credentialSlug": "ds-1"}}}}})
    err = preferences.read(ws).error
    assert err.field == "runtime/headless/agents/pi/credentialSlug" and "not allowed" in err.message


@pytest.mark.parametrize("doc,field", [
    ({"version": 2}, "version"),
    ({"version": 1, "extra": 1}, "/extra"),
    ({"version": 1, "runtime": {"web": {}}}, "runtime/web"),
    ({"version": 1, "runtime": {"headless": {"token": "x"}}}, "runtime/headless/token"),
    ({"version": 1, "runtime": {"headless": {"defaultAgent": "Bad Agent"}}}, "runtime/headless/defaultAgent"),
    ({"version": 1, "runtime": {"headless": {"agents": {"pi": {"accessMode": "vault"}}}}},
     "runtime/headless/agents/pi/credentialSlug"),
    ({"version": 1, "runtime": {"headless": {"agents": {"pi": {"accessMode": "native", "model": "m" * 513}}}}},
     "runtime/headless/agents/pi/model"),
    ({"version": 1, "runtime": {"headless": {"agents": {"pi": {"accessMode": "native",
                                                               "reasoningEffort": "extreme"}}}}},
     "runtime/headless/agents/pi/reasoningEffort"),
    ({"version": 1, "runtime": {"headless": {"recent": {"agent": "pi", "password": "x"}}}},
     "runtime/headless/recent/password"),
])
def test_strict_validation_names_the_field(ws, doc, field):
    _write(ws, doc)
    err = preferences.read(ws).error
    assert err is not None and err.field.endswith(field.lstrip("/")), (err and err.field)


def test_update_never_overwrites_an_invalid_file(ws):
    _write(ws, {"version": 1, "runtime": {"headless": {"apiKey": "x"}}})
    before = preferences.settings_path(ws).read_bytes()
    with pytest.raises(InvalidInput):
        preferences.set_default_agent(ws, surface="headless", agent="pi")
    assert preferences.settings_path(ws).read_bytes() == before


def test_set_and_recent_and_resolution_order_of_preference(ws):
    credentials.add("ds-1", vendor="deepseek", secret="sk-ds", now=datetime(2026, 1, 1, tzinfo=timezone.utc))
    preferences.set_preference(ws, surface="headless", agent="pi",
                               pref={"accessMode": "vault", "credentialSlug": "ds-1", "model": "fixed-model",
                                     "reasoningEffort": "high"}, make_default=True)
    preferences.record_recent(ws, surface="headless", agent="pi",
                              credential={"source": "vault", "credentialSlug": "ds-1"}, model="recent-model",
                              effort="medium")
    data = preferences.load(ws)
    assert data["runtime"]["headless"]["defaultAgent"] == "pi"
    assert data["runtime"]["headless"]["agents"]["pi"]["model"] == "fixed-model"  # recent never touches fixed
    assert data["runtime"]["headless"]["recent"] == {"agent": "pi", "agents": {"pi": {
        "accessMode": "vault", "credentialSlug": "ds-1", "model": "recent-model", "reasoningEffort": "medium"}}}
    assert preferences.preference_for(data, "headless", "pi") == (
        {"accessMode": "vault", "credentialSlug": "ds-1", "model": "fixed-model", "reasoningEffort": "high"},
        "fixed")
    preferences.unset(ws, surface="headless", agent="pi")
    assert preferences.preference_for(preferences.load(ws), "headless", "pi")[1] == "recent"
    assert Validator(resources.schema("settings")).errors(preferences.load(ws)) == []
    text = preferences.settings_path(ws).read_text()
    assert text.endswith("}\n") and "\n  " in text  # pretty JSON + newline


def test_oversized_file_is_invalid(ws):
    preferences.settings_path(ws).write_text(" " * (64 * 1024 + 1))
    assert preferences.read(ws).error.code == "too_large"


# -- the domain refuses what `alice settings set` refuses (one rule for the CLI, the gateway, tests) --

@pytest.mark.parametrize("call,code", [
    (lambda ws: preferences.set_default_agent(ws, surface="headless", agent="no-such-agent"), "unknown_agent"),
    (lambda ws: preferences.set_preference(ws, surface="headless", agent="no-such-agent",
                                           pref={"accessMode": "native"}), "unknown_agent"),
    (lambda ws: preferences.set_preference(ws, surface="headless", agent="pi",
                                           pref={"accessMode": "native", "reasoningEffort": "max"}),
     "effort_unsupported"),
    (lambda ws: preferences.set_preference(ws, surface="headless", agent="pi",  # `--effort ""`
                                           pref=preferences.pref_from_binding({"source": "native"}, None, "")),
     "bad_effort"),
    (lambda ws: preferences.set_preference(ws, surface="headless", agent="pi",
                                           pref={"accessMode": "vault", "credentialSlug": "nobody"}),
     "credential_not_found"),
    (lambda ws: preferences.set_preference(ws, surface="headless", agent="pi",
                                           pref={"accessMode": "vault", "credentialSlug": "ds-1",
                                                 "wireShape": "smoke-signals"}), "bad_wire"),
])
def test_a_preference_that_could_never_seed_a_session_is_refused_and_nothing_is_written(ws, call, code):
    credentials.add("ds-1", vendor="deepseek", secret="sk-ds", now=datetime(2026, 1, 1, tzinfo=timezone.utc))
    with pytest.raises(AliceError) as err:
        call(ws)
    assert err.value.code == code
    assert not preferences.settings_path(ws).exists()


def test_read_once_reads_each_workspace_once_per_block(ws, tmp_path):
    other = workspaces.init(tmp_path / "other", now=NOW)[0]
    preferences.set_default_agent(ws, surface="headless", agent="codex")
    with preferences.read_once():
        first = preferences.load(ws)
        assert preferences.load(other) == preferences.empty_settings()
        preferences.set_default_agent(ws, surface="headless", agent="pi")  # written meanwhile
        assert preferences.load(ws) is first  # the block's answer: read at its start
        with preferences.read_once():  # nested: the outer block's answers
            assert preferences.load(ws) is first
        assert preferences.load(ws) is first
    # after the block the file is read again
    assert preferences.load(ws)["runtime"]["headless"]["defaultAgent"] == "pi"
    assert first["runtime"]["headless"]["defaultAgent"] == "codex"


def test_read_once_keeps_an_invalid_file_invalid(ws):
    _write(ws, {"version": 1, "runtime": {"headless": {"apiKey": "x"}}})
    with preferences.read_once():
        for _ in range(2):
            with pytest.raises(InvalidInput):
                preferences.load(ws)
        assert preferences.read(ws).status == "invalid"
