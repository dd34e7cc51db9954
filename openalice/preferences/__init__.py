"""Workspace runtime preferences: ``<workspace>/.alice/settings.json``.

Secret-free creation defaults per surface (``interactive``, ``headless``)::

    {"version": 1,
     "runtime": {"headless": {"defaultAgent": "codex",
                              "agents": {"codex": PREF},                 # fixed, set by a person
                              "recent": {"agent": "pi", "agents": {"pi": PREF}}},   # record_recent: every launch writes it
                 "interactive": {...}}}

    PREF = {"accessMode": "native", "model"?, "reasoningEffort"?}
         | {"accessMode": "vault", "credentialSlug", "wireShape"?, "model"?, "reasoningEffort"?}

Validation is strict: an unknown key is refused, a secret-shaped key (such as
``apiKey``) is refused with its own reason, and errors name ``file:field``.
Preferences only seed *new* sessions; an existing session's frozen binding is
never touched by a later change here.
"""

from .settings import (
    SURFACES,
    SettingsRead,
    empty_settings,
    load,
    pref_from_binding,
    preference_for,
    read,
    read_once,
    record_recent,
    set_default_agent,
    set_preference,
    settings_path,
    unset,
    update,
    validate,
    validate_agent_name,
)

__all__ = [
    "SURFACES", "SettingsRead", "empty_settings", "load", "pref_from_binding", "preference_for", "read", "read_once",
    "record_recent", "set_default_agent", "set_preference", "settings_path", "unset", "update",
    "validate", "validate_agent_name",
]
