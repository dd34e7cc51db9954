"""Claude Code (``@anthropic-ai/claude-code``).

Headless: ``claude -p --output-format stream-json --verbose [--setting-sources=project]
[--model M] [--effort E] --dangerously-skip-permissions [--resume ID] -- PROMPT``.
A vault credential adds ``--setting-sources=project`` so the user's own
settings (which may carry another key or an ``apiKeyHelper``) cannot override
the injected one; the key travels in ``ANTHROPIC_API_KEY`` (or
``ANTHROPIC_AUTH_TOKEN`` for bearer endpoints), a subscription token in
``CLAUDE_CODE_OAUTH_TOKEN``.  As root, ``--dangerously-skip-permissions``
needs ``IS_SANDBOX=1``.  After ``--`` a prompt that starts with ``-`` or is
exactly a subcommand name (``update``) stays a prompt (checked with 2.1.197).
"""

from __future__ import annotations

import os

from openalice.core.errors import InvalidInput

from .base import Access, Adapter, Capabilities

__all__ = ["ClaudeAdapter"]

_OFFICIAL = "https://api.anthropic.com"


class ClaudeAdapter(Adapter):
    name = "claude"
    capabilities = Capabilities(
        headless=True, interactive=True, resume=True,
        efforts=("low", "medium", "high", "xhigh", "max"),  # `claude --help` of 2.1.197
        wires=("anthropic",), stream="claude-stream-json", executable="claude", subscription=True,
        prompt="argv")
    wire_preference = ("anthropic",)
    credential_env = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")

    def _subscription_access(self, rec, secret) -> Access:
        if rec["vendor"] != "anthropic":
            raise InvalidInput(f"claude takes a subscription credential only from vendor anthropic, not "
                               f"{rec['vendor']!r}", field="credential", code="credential_incompatible")
        return Access(source="vault", slug=rec["slug"], vendor=rec["vendor"], auth_type="subscription",
                      secret=secret, last_model=rec.get("lastModel"),
                      model_overrides=rec.get("modelOverrides", {}))

    def _build(self, *, mode, fields, access, model, effort, prompt, native_session_id, workspace, base_env,
               run_dir):
        argv = ["claude"]
        if mode == "headless":
            argv += ["-p", "--output-format", "stream-json", "--verbose"]
        if access.vault:
            argv.append("--setting-sources=project")
        if model:
            argv += ["--model", model]
        if effort:
            argv += ["--effort", effort]
        argv.append("--dangerously-skip-permissions")
        if native_session_id:
            argv += ["--resume", native_session_id]
        if prompt:
            argv += ["--", prompt]
        extra: dict[str, str] = {}
        secret_env: dict[str, str] = {}
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            extra["IS_SANDBOX"] = "1"
        if access.vault:
            if access.auth_type == "subscription":
                secret_env["CLAUDE_CODE_OAUTH_TOKEN"] = access.secret
            else:
                if access.base_url and access.base_url.rstrip("/") != _OFFICIAL:
                    extra["ANTHROPIC_BASE_URL"] = access.base_url
                var = "ANTHROPIC_AUTH_TOKEN" if access.anthropic_auth == "bearer" else "ANTHROPIC_API_KEY"
                secret_env[var] = access.secret
        return argv, extra, secret_env, None, []
