"""opencode (``opencode-ai``).

Headless: ``opencode run --format json --dir WS [-m PROVIDER/M] [--variant E] [-s ID]
[--title=T] --auto`` with the prompt on stdin (an argv message containing spaces
gets quoted by opencode).  A vault credential becomes a process-local provider
in ``OPENCODE_CONFIG_CONTENT`` whose ``apiKey`` is ``{env:OPENALICE_SESSION_KEY}``:
the config names the variable, the key itself is only in the environment.
``--variant`` is a headless-only flag.
"""

from __future__ import annotations

import json

from openalice import models
from openalice.core.errors import InvalidInput

from .base import ANY_WIRE, MINIMAX_POLICY, SESSION_KEY_VAR, Adapter, Capabilities

__all__ = ["OpencodeAdapter", "PROVIDER_ID", "provider_config"]

PROVIDER_ID = "openalice-session"
_NPM = {"anthropic": "@ai-sdk/anthropic", "openai-chat": "@ai-sdk/openai-compatible",
        "openai-responses": "@ai-sdk/openai", "google-generative-ai": "@ai-sdk/google"}
_DEFAULT_OUTPUT = 32000  # opencode's own output cap for models it does not know


def provider_config(access, model: str, override) -> dict:
    """The ``OPENCODE_CONFIG_CONTENT`` document for a vault credential (no secret inside)."""
    base_url = access.base_url.rstrip("/")
    if access.wire == "anthropic":
        base_url += "/v1"  # the AI SDK's Anthropic base includes the version segment
    options: dict = {"baseURL": base_url, "apiKey": f"{{env:{SESSION_KEY_VAR}}}"}
    if access.anthropic_auth == "bearer":
        options["headers"] = {"Authorization": f"Bearer {{env:{SESSION_KEY_VAR}}}"}
    facts = models.effective(access.vendor, model, override, auth_type=access.auth_type)
    entry: dict = {}
    if "reasoning" in facts:
        entry["reasoning"] = facts["reasoning"]
    if "contextWindow" in facts:
        entry["limit"] = {"context": facts["contextWindow"],
                          "output": min(facts.get("maxOutputTokens", _DEFAULT_OUTPUT), _DEFAULT_OUTPUT)}
    return {"provider": {PROVIDER_ID: {"npm": _NPM[access.wire], "name": "OpenAlice session",
                                       "options": options, "models": {model: entry}}},
            "model": f"{PROVIDER_ID}/{model}"}


class OpencodeAdapter(Adapter):
    name = "opencode"
    capabilities = Capabilities(
        headless=True, interactive=True, resume=True,
        efforts=("none", "minimal", "low", "medium", "high", "xhigh", "max"),
        wires=ANY_WIRE,
        stream="opencode-json", executable="opencode", prompt="stdin")
    wire_preference = ANY_WIRE
    vendor_policies = MINIMAX_POLICY

    def _build(self, *, mode, fields, access, model, effort, prompt, native_session_id, workspace, base_env,
               run_dir):
        extra: dict[str, str] = {}
        secret_env: dict[str, str] = {}
        model_arg = model
        if access.vault:
            if not model:
                raise InvalidInput(f"opencode needs a model for credential {access.slug!r} (vendor "
                                   f"{access.vendor} has no default)", field="model", code="model_required")
            config = provider_config(access, model, self.override_for(access, model, effort))
            extra["OPENCODE_CONFIG_CONTENT"] = json.dumps(config, separators=(",", ":"))
            secret_env[SESSION_KEY_VAR] = access.secret
            model_arg = config["model"]
        if mode == "headless":
            argv = ["opencode", "run", "--format", "json", "--dir", str(workspace)]
            if model_arg:
                argv += ["-m", model_arg]
            if effort:
                argv += ["--variant", effort]
            if native_session_id:
                argv += ["-s", native_session_id]
            elif fields.get("resumeId"):
                argv.append(f"--title={fields.get('displayName') or fields['resumeId']}")
            argv.append("--auto")
            extra["OPENCODE_DISABLE_AUTOUPDATE"] = "1"
            return argv, extra, secret_env, prompt.encode("utf-8"), []
        argv = ["opencode"]
        if model_arg:
            argv += ["-m", model_arg]
        if native_session_id:
            argv += ["-s", native_session_id]
        argv.append("--auto")
        if prompt:
            argv.append(f"--prompt={prompt}")  # one token: a prompt starting with '-' stays a value
        argv.append(str(workspace))
        return argv, extra, secret_env, None, []
