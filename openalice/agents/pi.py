"""pi (``@mariozechner/pi-coding-agent``).

Headless: ``pi -p --mode json [--provider openalice-session --session-dir DIR] [--model M]
[--thinking T] [--session ID] PROMPT``.  pi ignores base-URL variables, so a vault
credential is described in ``models.json`` inside a private per-run agent
directory (``PI_CODING_AGENT_DIR=<run_dir>/pi-agent``) whose ``apiKey`` names
the environment variable holding the key; the user's own ``~/.pi`` is never
written.  ``--session-dir`` keeps sessions where pi would put them natively,
so a session resumes across credential changes.  Effort ``none`` is pi's
``off``.  pi treats an argument starting with ``@`` as a file and one
starting with ``-`` as a flag (it has no ``--``), so such a prompt gets one
leading space.
"""

from __future__ import annotations

import os
from pathlib import Path

from openalice import models
from openalice.core import fs
from openalice.core.errors import InvalidInput, UsageError

from .base import ANY_WIRE, MINIMAX_POLICY, SESSION_KEY_VAR, Adapter, Capabilities

__all__ = ["PiAdapter", "PROVIDER_ID", "models_json", "native_session_dir"]

PROVIDER_ID = "openalice-session"
_API = {"anthropic": "anthropic-messages", "openai-chat": "openai-completions",
        "openai-responses": "openai-responses", "google-generative-ai": "google-generative-ai"}
_THINKING = {"none": "off"}


def models_json(access, model: str, override) -> dict:
    """pi's provider file for a vault credential (names the key variable, holds no key)."""
    facts = models.effective(access.vendor, model, override, auth_type=access.auth_type)
    entry: dict = {"id": model}
    if "reasoning" in facts:
        entry["reasoning"] = facts["reasoning"]
    if "contextWindow" in facts:
        entry["contextWindow"] = facts["contextWindow"]
    if "maxOutputTokens" in facts:
        entry["maxTokens"] = facts["maxOutputTokens"]
    return {"providers": {PROVIDER_ID: {"baseUrl": access.base_url, "api": _API[access.wire],
                                        "apiKey": SESSION_KEY_VAR, "models": [entry]}}}


def native_session_dir(base_env, workspace: Path) -> Path:
    """Where pi keeps a workspace's sessions with its default agent directory."""
    agent_dir = base_env.get("PI_CODING_AGENT_DIR")
    if agent_dir:
        root = Path(os.path.expanduser(agent_dir))
    else:
        root = Path(base_env.get("HOME") or os.path.expanduser("~")) / ".pi" / "agent"
    cwd = os.path.realpath(workspace)
    bucket = "--" + cwd.lstrip("/\\").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"
    return root / "sessions" / bucket


def _guard_prompt(prompt: str) -> str:
    return " " + prompt if prompt.startswith(("-", "@")) else prompt


class PiAdapter(Adapter):
    name = "pi"
    capabilities = Capabilities(
        headless=True, interactive=True, resume=True,
        efforts=("none", "minimal", "low", "medium", "high", "xhigh"),
        wires=ANY_WIRE,
        stream="pi-json", executable="pi", prompt="argv")
    wire_preference = ANY_WIRE
    vendor_policies = MINIMAX_POLICY

    def _build(self, *, mode, fields, access, model, effort, prompt, native_session_id, workspace, base_env,
               run_dir):
        argv = ["pi"]
        if mode == "headless":
            argv += ["-p", "--mode", "json"]
        extra: dict[str, str] = {}
        secret_env: dict[str, str] = {}
        files: list[str] = []
        if access.vault:
            if not model:
                raise InvalidInput(f"pi needs a model for credential {access.slug!r} (vendor "
                                   f"{access.vendor} has no default)", field="model", code="model_required")
            if run_dir is None:
                raise UsageError("pi with a vault credential needs a private run directory (run_dir)",
                                 field="run_dir", code="run_dir_required")
            agent_dir = fs.ensure_dir(Path(run_dir) / "pi-agent", 0o700)
            target = agent_dir / "models.json"
            # Per-run scratch: atomic (pi never reads half a file) but not fsynced, since
            # after a crash the run it belongs to is gone anyway.
            fs.atomic_write_json(target, models_json(access, model, self.override_for(access, model, effort)),
                                 mode=0o600, durable=False)
            files.append(str(target))
            extra["PI_CODING_AGENT_DIR"] = str(agent_dir)
            secret_env[SESSION_KEY_VAR] = access.secret
            argv += ["--provider", PROVIDER_ID, "--session-dir", str(native_session_dir(base_env, workspace))]
        if model:
            argv += ["--model", model]
        if effort:
            argv += ["--thinking", _THINKING.get(effort, effort)]
        if native_session_id:
            argv += ["--session", native_session_id]
        if mode == "headless":
            extra["PI_OFFLINE"] = "1"
        if prompt:
            argv.append(_guard_prompt(prompt))
        return argv, extra, secret_env, None, files
