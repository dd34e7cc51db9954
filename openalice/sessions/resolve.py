"""Which binding a new session gets: explicit choices, then workspace preferences.

Agent: explicit -> surface ``defaultAgent`` -> ``recent.agent`` -> the first
built-in agent able to run on the surface.  Preference for that agent: the
fixed one, else the recent one (whole, never merged field-wise).  Credential:
explicit native -> explicit slug -> the preference's vault slug -> native
(never an arbitrary vault key).  Model and effort: explicit, else the
preference's, inherited only when the credential is the preference's own.
"""

from __future__ import annotations

from collections.abc import Mapping

from openalice.core.errors import InvalidInput, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = ["resolve_binding", "remember_recent"]


def _same_credential(credential: Mapping[str, Any], pref: Mapping[str, Any]) -> bool:
    if credential.get("source") == "native":
        return pref.get("accessMode") == "native"
    return pref.get("accessMode") == "vault" and pref.get("credentialSlug") == credential.get("credentialSlug")


def resolve_binding(ws, *, surface: str = "headless", agent: str | None = None, credential: str | None = None,
                    native_credential: bool = False, model: str | None = None, effort: str | None = None,
                    wire: str | None = None) -> dict:
    """The binding fields for a new session plus where each came from (``sources``)."""
    from openalice import agents, credentials, preferences  # lazy: `alice session list` (pinned) never resolves

    if surface not in preferences.SURFACES:
        raise InvalidInput(f"surface must be one of {', '.join(preferences.SURFACES)}", field="surface",
                           code="bad_surface")
    if native_credential and credential:
        raise UsageError("choose either a vault credential or the native credential, not both",
                         field="credential", code="credential_selection_conflict")
    settings = preferences.load(ws)
    block = settings.get("runtime", {}).get(surface, {})
    sources: dict[str, str] = {}

    if agent:
        sources["agent"] = "explicit"
    elif block.get("defaultAgent"):
        agent, sources["agent"] = block["defaultAgent"], "defaultAgent"
    elif block.get("recent", {}).get("agent"):
        agent, sources["agent"] = block["recent"]["agent"], "recent"
    else:
        for name in agents.builtin_names():
            caps = agents.get_adapter(name).capabilities
            if caps.headless if surface == "headless" else caps.interactive:
                agent, sources["agent"] = name, "fallback"
                break
    preferences.validate_agent_name(agent)
    adapter = agents.get_adapter(agent)
    adapter.check_mode(surface)

    pref, pref_source = preferences.preference_for(settings, surface, agent)
    sources["preference"] = pref_source or "none"

    if native_credential:
        cred: dict[str, Any] = {"source": "native"}
        sources["credential"] = "explicit"
    elif credential:
        cred = {"source": "vault", "credentialSlug": credentials.check_slug(credential, field="credential")}
        sources["credential"] = "explicit"
    elif pref is not None and pref.get("accessMode") == "vault":
        cred = {"source": "vault", "credentialSlug": pref["credentialSlug"]}
        if pref.get("wireShape"):
            cred["wireShape"] = pref["wireShape"]
        sources["credential"] = pref_source
    else:
        cred = {"source": "native"}
        sources["credential"] = pref_source if pref is not None else "default"
    if wire:
        if cred["source"] != "vault":
            raise UsageError("--wire applies only to a vault credential", field="wire", code="usage")
        from openalice.credentials import wires  # lazy: only --wire needs the wire shapes

        cred["wireShape"] = wires.check_shape(wire)
    if cred["source"] == "vault":
        credentials.get(cred["credentialSlug"])  # credential_not_found, exit 2

    explicit_credential = native_credential or bool(credential)
    inherit = pref is not None and (not explicit_credential or _same_credential(cred, pref))
    out: dict[str, Any] = {"agent": agent, "credential": cred}
    if model is not None:
        out["model"], sources["model"] = model, "explicit"
    elif inherit and pref.get("model"):
        out["model"], sources["model"] = pref["model"], pref_source
    if effort is not None:
        out["reasoningEffort"], sources["reasoningEffort"] = effort, "explicit"
    elif inherit and pref.get("reasoningEffort"):
        out["reasoningEffort"], sources["reasoningEffort"] = pref["reasoningEffort"], pref_source
    adapter.check_effort(out.get("reasoningEffort"))
    out["sources"] = sources
    return out


def remember_recent(ws, binding: Any, *, surface: str) -> dict:
    """A launch's secret-free tuple (agent, credential slug or native, model, effort) as the
    workspace's ``recent`` choice for ``surface``; the fixed preferences are never touched."""
    from openalice import preferences  # lazy: only a launch writes the workspace's settings

    return preferences.record_recent(ws, surface=surface, agent=binding.agent, credential=binding.credential,
                                     model=binding.model, effort=binding.reasoning_effort)
