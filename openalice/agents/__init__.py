"""Agent adapters: project a frozen session binding onto one process of a
native agent CLI (``claude``, ``codex``, ``opencode``, ``pi``) or of any
engine wrapper from the harness-adapter catalog.

    adapter = get_adapter("codex")
    p = adapter.project(binding, mode="headless", prompt="...", native_session_id=None,
                        workspace=ws.root, run_env={...}, base_env=os.environ, run_dir=private_dir)
    # p.argv (no secrets), p.env (secrets only here), p.stdin
"""

from .base import (  # noqa: F401
    MODES, SESSION_KEY_VAR, STRIPPED_ENV, STRIPPED_PREFIXES, Access, Adapter, Capabilities, Projection,
    WORKSPACE_BIN, child_env, compose_path, run_path, shims_dir,
)
from .registry import BUILTIN, builtin_names, get_adapter, is_known, known_agents  # noqa: F401

__all__ = [
    "MODES", "SESSION_KEY_VAR", "STRIPPED_ENV", "STRIPPED_PREFIXES", "Access", "Adapter", "Capabilities",
    "Projection", "WORKSPACE_BIN", "child_env", "compose_path", "run_path", "shims_dir", "BUILTIN", "builtin_names", "get_adapter",
    "is_known", "known_agents",
]
