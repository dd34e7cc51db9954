"""Codex CLI (``@openai/codex``).

Headless: ``codex exec --json --skip-git-repo-check --disable plugins -c analytics.enabled=false
-C WS -c shell_environment_policy.set.PATH="P" [-m M] [-c model_reasoning_effort=E]
[-c model_provider=openalice_session -c model_providers.openalice_session={...}]
--dangerously-bypass-approvals-and-sandbox [resume ID] -- PROMPT`` with stdin = /dev/null (codex reads a non-terminal stdin).
Codex ignores ``OPENAI_BASE_URL``: a vault credential becomes a process-local
provider whose ``env_key`` names the variable holding the key.  Interactive
runs get ``--sandbox danger-full-access --ask-for-approval never`` on fresh
launch and resume alike.  Nothing is written to ``~/.codex``.

Codex builds its shell tool's environment from a snapshot of the user's *login*
shell, and a login shell's ``/etc/profile`` resets ``PATH`` (Debian does so
unconditionally), so the toolkit's tool directory that the runner put first
would be gone and ``alice inbox push`` not found.  ``shell_environment_policy.set``
is applied after the snapshot (even when the model asks for a login shell), so
it pins the run's ``PATH`` (``P``: the workspace's shims, the toolkit's tools,
then the caller's ``PATH``).  A shell the command itself starts (``bash -lc``,
``zsh -lic``) is covered by the start-up hooks every child gets (:mod:`.shellrc`),
which codex's default policy (``inherit = "all"``) passes on.
"""

from __future__ import annotations

import json
import os

from .base import SESSION_KEY_VAR, Adapter, Capabilities, run_path

__all__ = ["CodexAdapter", "PROVIDER_ID"]

PROVIDER_ID = "openalice_session"


def _toml_string(text: str) -> str:
    # A TOML basic string; JSON escaping is a valid subset for these characters.
    return json.dumps(text, ensure_ascii=True)


class CodexAdapter(Adapter):
    name = "codex"
    capabilities = Capabilities(
        headless=True, interactive=True, resume=True,
        efforts=("none", "minimal", "low", "medium", "high", "xhigh"),
        wires=("openai-responses",), stream="codex-json", executable="codex", prompt="argv")
    wire_preference = ("openai-responses",)
    credential_env = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY")

    def _build(self, *, mode, fields, access, model, effort, prompt, native_session_id, workspace, base_env,
               run_dir):
        # The same PATH child_env gives the process; see the module docstring for why.
        pinned = run_path(workspace, base_env.get("PATH", os.defpath))
        common: list[str] = ["-c", f"shell_environment_policy.set.PATH={_toml_string(pinned)}"]
        if model:
            common += ["-m", model]
        if effort:
            common += ["-c", f"model_reasoning_effort={effort}"]
        secret_env: dict[str, str] = {}
        if access.vault:
            common += ["-c", f"model_provider={PROVIDER_ID}",
                       "-c", f"model_providers.{PROVIDER_ID}={{name=\"OpenAlice session\", "
                             f"base_url={_toml_string(access.base_url)}, env_key=\"{SESSION_KEY_VAR}\"}}"]
            secret_env[SESSION_KEY_VAR] = access.secret
        if mode == "headless":
            argv = ["codex", "exec", "--json", "--skip-git-repo-check", "--disable", "plugins",
                    "-c", "analytics.enabled=false", "-C", str(workspace), *common,
                    "--dangerously-bypass-approvals-and-sandbox"]
            if native_session_id:
                argv += ["resume", native_session_id]
            argv += ["--", prompt]
        else:
            argv = ["codex"] + (["resume"] if native_session_id else [])
            argv += ["--sandbox", "danger-full-access", "--ask-for-approval", "never", "-C", str(workspace),
                     *common]
            if native_session_id:
                argv.append(native_session_id)
            if prompt:
                argv += ["--", prompt]
        return argv, {}, secret_env, None, []
