"""Frozen session bindings and binding resolution (reference items 6, 13-16, 18-21)."""

import json
from datetime import datetime, timezone

import pytest

from openalice import credentials, preferences, sessions, workspaces
from openalice.core import resources
from openalice.core.errors import InvalidInput, NotFound, UsageError
from openalice.core.schema import Validator

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def ws(tmp_path):
    return workspaces.init(tmp_path / "ws", now=NOW)[0]


@pytest.fixture
def creds():
    credentials.add("ds-1", vendor="deepseek", secret="sk-ds", now=NOW)
    credentials.add("openai-1", vendor="openai", secret="sk-oa", now=NOW)


class SeqRng:
    """randrange() answers from a script: the test decides every pick."""

    def __init__(self, *picks):
        self.picks = list(picks)

    def randrange(self, n):
        value = self.picks.pop(0)
        assert 0 <= value < n
        return value


CALM_AMBER_RIVER_ABCDEF = (0, 0, 0, 10, 11, 12, 13, 14, 15)


def test_item21_seeded_id_and_whole_id_regenerated_on_collision(ws):
    assert sessions.new_resume_id(SeqRng(*CALM_AMBER_RIVER_ABCDEF)) == "resume-calm-amber-river-abcdef"
    first = sessions.create_session(ws, agent="codex", now=NOW, rng=SeqRng(*CALM_AMBER_RIVER_ABCDEF))
    assert first.resume_id == "resume-calm-amber-river-abcdef"
    second = sessions.create_session(ws, agent="codex", now=NOW,
                                     rng=SeqRng(*CALM_AMBER_RIVER_ABCDEF, 1, 1, 1, 0, 0, 0, 0, 0, 1))
    assert second.resume_id == "resume-brave-bamboo-meadow-000001"  # every word re-drawn, not only the suffix
    assert sessions.load_session(ws, first.resume_id) == first


def test_generated_ids_have_the_documented_shape(ws):
    import re

    for _ in range(50):
        assert re.fullmatch(r"resume-[a-z]+-[a-z]+-[a-z]+-[0-9a-z]{6}", sessions.new_resume_id())


def test_binding_file_format(ws, creds):
    b = sessions.create_session(ws, agent="pi", credential={"source": "vault", "credentialSlug": "ds-1"},
                                model="deepseek-v4-pro", effort="high", display_name="  Nightly  ", now=NOW)
    doc = json.loads(sessions.session_path(ws, b.resume_id).read_text())
    assert doc == {"version": 1, "resumeId": b.resume_id, "agent": "pi",
                   "ai": {"version": 1, "credential": {"source": "vault", "credentialSlug": "ds-1"},
                          "model": "deepseek-v4-pro", "reasoningEffort": "high"},
                   "displayName": "Nightly", "createdAt": "2026-11-30T09:00:00Z"}
    assert Validator(resources.schema("session-binding")).errors(doc) == []
    assert b.resumeId == b.resume_id and b.reasoningEffort == "high" and b.displayName == "Nightly"


def test_item15_ensure_equal_is_noop_different_is_refused_file_unchanged(ws):
    b = sessions.make_binding(resume_id="resume-calm-amber-river-abcdef", agent="codex", model="gpt-5.5",
                              effort="high", display_name="Keep me")
    stored = sessions.ensure_session(ws, b, now=NOW)
    path = sessions.session_path(ws, b.resume_id)
    before = path.read_bytes()
    assert sessions.ensure_session(ws, b) == stored and path.read_bytes() == before
    different = sessions.make_binding(resume_id=b.resume_id, agent="codex", model="gpt-5.4", effort="high")
    with pytest.raises(sessions.BindingConflict) as err:
        sessions.ensure_session(ws, different)
    assert err.value.exit_code == 3 and "already owns a different runtime binding" in err.value.message
    assert path.read_bytes() == before
    replaced = sessions.replace_binding(ws, b.resume_id, model="gpt-5.4", now=NOW)
    assert replaced.display_name == "Keep me" and replaced.model == "gpt-5.4" and replaced.agent == "codex"


def test_replace_never_changes_the_agent(ws, creds):
    b = sessions.create_session(ws, agent="claude", now=NOW)
    with pytest.raises(TypeError):
        sessions.replace_binding(ws, b.resume_id, agent="codex")  # no such parameter
    new = sessions.replace_binding(ws, b.resume_id, credential={"source": "vault", "credentialSlug": "ds-1"},
                                   effort="max", now=NOW)
    assert new.agent == "claude" and new.credential["credentialSlug"] == "ds-1"
    cleared = sessions.replace_binding(ws, b.resume_id, effort=None)
    assert cleared.reasoning_effort is None and cleared.credential == new.credential
    with pytest.raises(InvalidInput) as err:
        sessions.replace_binding(ws, b.resume_id, effort="none")  # claude has no 'none' tier
    assert err.value.code == "effort_unsupported"


def test_item16_display_name(ws):
    b = sessions.create_session(ws, agent="codex", effort="low", display_name="x", now=NOW)
    with pytest.raises(InvalidInput) as err:
        sessions.rename_session(ws, b.resume_id, "n" * 121)
    assert err.value.code == "too_long"
    assert sessions.rename_session(ws, b.resume_id, "n" * 120).display_name == "n" * 120
    cleared = sessions.rename_session(ws, b.resume_id, None)
    assert cleared.display_name is None and cleared.runtime() == b.runtime()
    assert "displayName" not in json.loads(sessions.session_path(ws, b.resume_id).read_text())


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d.update(version=2), "version"),
    (lambda d: d["ai"]["credential"].update(source="workspace", fingerprint="ab" * 32), "credential/source"),
    (lambda d: d["ai"]["credential"].update(source="vault", credentialSlug="ds-1", wireShape="smoke"),
     "credential/wireShape"),
    (lambda d: d["ai"].update(reasoningEffort="extreme"), "reasoningEffort"),
    (lambda d: d.update(agent="../x"), "agent"),
    (lambda d: d.update(apiKey="sk-x"), "apiKey"),
])
def test_parser_rejects(ws, mutate, field):
    b = sessions.create_session(ws, agent="codex", now=NOW)
    path = sessions.session_path(ws, b.resume_id)
    doc = json.loads(path.read_text())
    mutate(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(InvalidInput) as err:
        sessions.load_session(ws, b.resume_id)
    assert field in (err.value.field or "") and err.value.file == str(path)
    found, problems = sessions.list_sessions(ws)
    assert found == [] and problems[0]["file"] == str(path)


def test_item14_legacy_workspace_source_is_refused_not_guessed(ws):
    """Workspace-provider bindings do not exist here (no secret ever lives in a workspace),
    so a legacy ``workspace`` source is refused by name instead of silently becoming native."""
    with pytest.raises(InvalidInput) as err:
        sessions.normalize_credential({"source": "workspace", "fingerprint": "0" * 64})
    assert err.value.code == "unsupported_credential_source"


def test_empty_model_is_dropped_and_ids_are_safe_file_names(ws):
    b = sessions.make_binding(resume_id="3f1c2d4e-aaaa-bbbb-cccc-123456789abc", agent="codex", model="  ")
    assert b.model is None  # UUIDs stay valid ids
    with pytest.raises(InvalidInput):
        sessions.make_binding(resume_id="r-1", agent="codex", model="--dangerous")  # would read as a flag
    for bad in ("", ".", "..", "a/b", "a\\b", "a\x00b", "x.json"):
        with pytest.raises(InvalidInput):
            sessions.session_path(ws, bad)


def test_native_session_id_lives_beside_the_binding(ws):
    b = sessions.create_session(ws, agent="claude", now=NOW)
    before = sessions.session_path(ws, b.resume_id).read_bytes()
    assert sessions.native_session_id(ws, b.resume_id) is None
    sessions.record_native_session(ws, b.resume_id, "28413c41-55c0-4f99-9a4a-162d19a56642", NOW)
    assert sessions.native_session_id(ws, b.resume_id) == "28413c41-55c0-4f99-9a4a-162d19a56642"
    assert sessions.session_path(ws, b.resume_id).read_bytes() == before
    assert [s.resume_id for s in sessions.list_sessions(ws)[0]] == [b.resume_id]
    with pytest.raises(InvalidInput):
        sessions.record_native_session(ws, b.resume_id, "--evil", NOW)
    with pytest.raises(NotFound):
        sessions.record_native_session(ws, "resume-no-such-one-abcdef", "x", NOW)


def test_unknown_agent_and_unsupported_effort_are_refused_at_birth(ws):
    with pytest.raises(NotFound) as err:
        sessions.create_session(ws, agent="nonesuch", now=NOW)
    assert err.value.code == "unknown_agent"
    with pytest.raises(InvalidInput) as err:
        sessions.create_session(ws, agent="pi", effort="max", now=NOW)
    assert err.value.code == "effort_unsupported"
    assert not sessions.sessions_dir(ws).exists() or not list(sessions.sessions_dir(ws).glob("*.json"))


# -- resolution -------------------------------------------------------------------------------

def _fixed(ws, agent, pref, default=False):
    preferences.set_preference(ws, surface="headless", agent=agent, pref=pref, make_default=default)


def test_item18_fixed_preference_plus_explicit_effort(ws, creds):
    _fixed(ws, "pi", {"accessMode": "vault", "credentialSlug": "ds-1", "model": "fixed-model",
                      "reasoningEffort": "high"})
    preferences.record_recent(ws, surface="headless", agent="pi",
                              credential={"source": "vault", "credentialSlug": "ds-1"}, model="recent-model",
                              effort="medium")
    r = sessions.resolve_binding(ws, agent="pi", effort="low")
    assert (r["credential"], r["model"], r["reasoningEffort"]) == (
        {"source": "vault", "credentialSlug": "ds-1"}, "fixed-model", "low")


def test_item19_explicit_other_credential_inherits_nothing(ws, creds):
    _fixed(ws, "pi", {"accessMode": "vault", "credentialSlug": "ds-1", "model": "m", "reasoningEffort": "high"})
    r = sessions.resolve_binding(ws, agent="pi", credential="openai-1")
    assert r["credential"] == {"source": "vault", "credentialSlug": "openai-1"}
    assert "model" not in r and "reasoningEffort" not in r
    same = sessions.resolve_binding(ws, agent="pi", credential="ds-1")
    assert same["model"] == "m" and same["reasoningEffort"] == "high"


def test_item20_default_agent_then_recent(ws):
    preferences.record_recent(ws, surface="headless", agent="pi", credential={"source": "native"})
    assert sessions.resolve_binding(ws)["agent"] == "pi"
    preferences.set_default_agent(ws, surface="headless", agent="codex")
    r = sessions.resolve_binding(ws)
    assert r["agent"] == "codex" and r["sources"]["agent"] == "defaultAgent"
    assert sessions.resolve_binding(ws, agent="opencode")["agent"] == "opencode"


def test_no_preference_means_native_never_an_arbitrary_vault_key(ws, creds):
    r = sessions.resolve_binding(ws, agent="codex")
    assert r["credential"] == {"source": "native"} and r["sources"]["credential"] == "default"
    assert sessions.resolve_binding(ws)["agent"] == "claude"  # first built-in, headless-capable


def test_item13_native_plus_slug_conflict_and_deleted_slug(ws, creds):
    with pytest.raises(UsageError) as err:
        sessions.resolve_binding(ws, agent="pi", credential="ds-1", native_credential=True)
    assert err.value.code == "credential_selection_conflict"
    _fixed(ws, "pi", {"accessMode": "vault", "credentialSlug": "openai-1"})  # fixed while it exists
    credentials.remove("openai-1")
    with pytest.raises(NotFound) as err:
        sessions.resolve_binding(ws, agent="pi", credential="openai-1")
    assert err.value.code == "credential_not_found"
    with pytest.raises(NotFound) as err:
        sessions.resolve_binding(ws, agent="pi")
    assert err.value.code == "credential_not_found"


def test_item6_omitted_effort_stays_omitted(ws, creds):
    for agent, model in (("claude", "claude-sonnet-4-6"), ("codex", "gpt-5.6")):
        r = sessions.resolve_binding(ws, agent=agent, model=model)
        assert "reasoningEffort" not in r
        b = sessions.create_session(ws, agent=agent, model=model, now=NOW)
        assert "reasoningEffort" not in json.loads(sessions.session_path(ws, b.resume_id).read_text())["ai"]
    credentials.add("lc", vendor="longcat", secret="k", now=NOW)
    r = sessions.resolve_binding(ws, agent="claude", credential="lc", model="LongCat-2.0")
    assert "reasoningEffort" not in r  # a thinking switch, no effort to fabricate


def test_preference_change_never_touches_an_existing_binding(ws, creds):
    _fixed(ws, "pi", {"accessMode": "vault", "credentialSlug": "ds-1", "model": "deepseek-v4-pro",
                      "reasoningEffort": "high"}, default=True)
    r = sessions.resolve_binding(ws)
    b = sessions.create_session(ws, agent=r["agent"], credential=r["credential"], model=r["model"],
                                effort=r["reasoningEffort"], now=NOW)
    path = sessions.session_path(ws, b.resume_id)
    before = path.read_bytes()
    _fixed(ws, "pi", {"accessMode": "native", "model": "other", "reasoningEffort": "low"}, default=True)
    preferences.set_default_agent(ws, surface="headless", agent="codex")
    assert path.read_bytes() == before
    assert sessions.load_session(ws, b.resume_id) == b


def test_headless_surface_needs_a_headless_agent(ws, monkeypatch):
    from openalice.agents import registry
    from openalice.agents.base import Capabilities

    real = registry.get_adapter

    def fake(name):
        adapter = real(name)
        if name == "codex":
            adapter.capabilities = Capabilities(headless=False, interactive=True, resume=True, efforts=None,
                                                wires=(), stream="x", executable="codex")
        return adapter

    monkeypatch.setattr("openalice.agents.get_adapter", fake)
    with pytest.raises(InvalidInput) as err:
        sessions.resolve_binding(ws, agent="codex")
    assert err.value.code == "not_headless"


def test_session_born_is_journalled_once_after_the_write(ws, monkeypatch):
    from openalice import journal

    recorded = []

    def record(type_, payload, *, now, caused_by=None):
        path = sessions.session_path(ws, payload["resumeId"])
        assert path.exists()  # only after the durable write
        recorded.append((type_, payload))
        return {"seq": len(recorded)}

    monkeypatch.setattr(journal, "record", record)
    b = sessions.create_session(ws, agent="codex", model="gpt-5.5", now=NOW)
    assert recorded == [("session.born", {"resumeId": b.resume_id, "agent": "codex", "credentialSource": "native",
                                          "workspaceId": ws.id, "model": "gpt-5.5"})]
    sessions.ensure_session(ws, b)  # equal: no-op, no new fact
    assert len(recorded) == 1
    other = sessions.make_binding(resume_id="resume-calm-amber-river-abcdef", agent="pi")
    sessions.ensure_session(ws, other, now=NOW)
    assert len(recorded) == 2 and recorded[1][1]["resumeId"] == "resume-calm-amber-river-abcdef"
