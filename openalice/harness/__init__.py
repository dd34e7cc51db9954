"""Alice Harness: versioned skills and guidance in workspaces, their safe
three-way upgrades, and the harness config.

    from openalice import harness

    harness.preview(ws, scope=harness.scope_for(), now=now)              # plan + digest
    harness.apply(ws, scope=..., digest=d, keep=[...], use=[...], now=now)
    harness.status(ws, now=now)        # versions, drift, pending updates, config problems
    harness.health(ws, now=now)        # the same as doctor findings (read-only)
    harness.config_show(ws) / harness.config_set(ws, ["cli.alice-inbox.enabled=false"], now=now)

Policy lives here (the bundle, the config, which files, which state); the
three-way engine is :mod:`openalice.managed`; the workspace's CLI shims the
config gates are :mod:`openalice.agents.shims` (the runner rewrites them
before every run without importing the harness).  See ``docs/harness.md``.

The names load lazily: a workspace shim imports :mod:`.gate` (and
:mod:`.config`) on every gated command, and must not pay for the rest.
"""

from __future__ import annotations

from openalice.core import lazy

_EXPORTS = {
    "Bundle": ("bundle", "Bundle"), "Skill": ("bundle", "Skill"), "Template": ("bundle", "Template"),
    "load_bundle": ("bundle", "load"),
    "config_show": ("settings", "show"), "config_set": ("settings", "set_values"),
    "status": ("status", "status"), "health": ("status", "health"),
    "ACTIONS": ("upgrade", "ACTIONS"), "GIT_EXCLUDES": ("upgrade", "GIT_EXCLUDES"),
    "Preview": ("upgrade", "Preview"), "Scope": ("upgrade", "Scope"), "scope_for": ("upgrade", "scope_for"),
    "preview": ("upgrade", "preview"), "apply": ("upgrade", "apply"),
    "recover_workspace": ("upgrade", "recover_workspace"),
    "project_new_workspace": ("upgrade", "project_new_workspace"),
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy.exports(__name__, globals(), _EXPORTS)
