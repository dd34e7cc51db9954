"""Agent adapters: project a frozen session binding onto one process of a
native agent CLI (``claude``, ``codex``, ``opencode``, ``pi``) or of any
engine wrapper from the harness-adapter catalog.

    adapter = get_adapter("codex")
    p = adapter.project(binding, mode="headless", prompt="...", native_session_id=None,
                        workspace=ws.root, run_env={...}, base_env=os.environ, run_dir=private_dir)
    # p.argv (no secrets), p.env (secrets only here), p.stdin
"""

from __future__ import annotations

from openalice.core import lazy

# The names load lazily (PEP 562): the harness and the runner reach the
# workspace shims (:mod:`.shims`) without paying for every adapter.
_EXPORTS = {
    **{name: "base" for name in (
        "MODES", "SESSION_KEY_VAR", "STRIPPED_ENV", "STRIPPED_PREFIXES", "Access", "Adapter", "Capabilities",
        "Projection", "check_native_id", "child_env", "compose_path", "run_path", "shims_dir")},
    "WORKSPACE_BIN": "shims",
    **{name: "registry" for name in ("BUILTIN", "builtin_names", "get_adapter", "is_known", "known_agents")},
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy.exports(__name__, globals(), _EXPORTS)
