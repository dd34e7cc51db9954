"""What every adapter shares: capabilities, the projection result, access
resolution (native vs. vault) and the child environment.

Projection turns a frozen session binding into one process: ``argv`` (never a
secret), ``env`` (secrets only here, just in time) and ``stdin``.  Omitted
effort stays omitted; an effort the engine does not accept is refused; full
host access and automatic approval come only from process-local flags.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from openalice import models
from openalice.core.errors import InvalidInput, NotFound, UsageError
from openalice.core.records import field, record_class
from openalice.core.tools import tools_dir as shims_dir

from . import shellrc
from .shims import WORKSPACE_BIN

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = [
    "MODES", "Capabilities", "Projection", "Access", "Adapter", "binding_fields", "shims_dir",
    "compose_path", "path_head", "run_path", "child_env", "STRIPPED_ENV", "STRIPPED_PREFIXES", "SESSION_KEY_VAR",
    "ANY_WIRE", "MINIMAX_POLICY", "check_native_id",
]

MODES = ("headless", "interactive")
# Ambient variables a child must not inherit: another tool's plumbing, and a
# parent run's identity (the run env sets the child's own).
STRIPPED_ENV = ("OPENALICE_MCP_URL", "OPENALICE_TOOL_URL", "OPENCODE_CONFIG_CONTENT",
                "ALICE_RUN_ID", "ALICE_RESUME_ID", "ALICE_WORKSPACE_ID",
                "OPENALICE_SCAN_TIMER")  # (a scan an agent starts is not its timer's)
STRIPPED_PREFIXES = ("CLAUDE_CODE_", "VSCODE_")
# The one variable a vault key travels in for engines that take a key by env name.
SESSION_KEY_VAR = "OPENALICE_SESSION_KEY"
# Engines that speak every wire shape through a provider SDK (opencode, pi): the
# shapes they accept, in the order they prefer them for a credential offering several.
ANY_WIRE = ("google-generative-ai", "openai-chat", "anthropic", "openai-responses")
# Their vendor policy (the reference's): a MiniMax credential drives them over
# ``anthropic`` only, and an older binding that asked for ``openai-chat`` moves to it.
MINIMAX_POLICY = {"minimax": {"wirePreference": ("anthropic",),
                              "legacyRequestedWireFallbacks": {"openai-chat": "anthropic"}}}


@record_class(frozen=True)
class Capabilities:
    headless: bool
    interactive: bool
    resume: bool
    efforts: tuple[str, ...] | None  # accepted effort names; None = passed through (engine decides)
    wires: tuple[str, ...]           # wire shapes usable with a vault credential; () = native only
    stream: str                      # name of the headless stdout format
    executable: str
    subscription: bool = False       # can use a vault credential of authType "subscription"
    prompt: str = "argv"             # how a headless prompt travels: "argv" or "stdin"

    def to_dict(self) -> dict:
        return {"headless": self.headless, "interactive": self.interactive, "resume": self.resume,
                "efforts": None if self.efforts is None else list(self.efforts),
                "wires": list(self.wires), "stream": self.stream, "executable": self.executable,
                "subscription": self.subscription, "prompt": self.prompt}


@record_class(frozen=True)
class Projection:
    """One child process.  ``stdin`` None: headless children get /dev/null,
    interactive ones keep the terminal; bytes: written to the child's stdin."""

    argv: list[str]
    env: dict[str, str]
    stdin: bytes | None = None
    files: tuple[str, ...] = field(default=())  # non-secret config written into run_dir
    secret_names: tuple[str, ...] = field(default=())  # the variables of env that carry a secret


@record_class(frozen=True)
class Access:
    """A binding's credential, resolved just in time."""

    source: str                       # "native" | "vault"
    slug: str | None = None
    vendor: str | None = None
    auth_type: str | None = None
    wire: str | None = None
    base_url: str | None = None
    anthropic_auth: str | None = None  # "bearer" | "x-api-key" for an anthropic wire
    secret: str | None = field(default=None, repr=False)
    last_model: str | None = None
    model_overrides: Mapping[str, Any] = field(default_factory=dict)

    @property
    def vault(self) -> bool:
        return self.source == "vault"


def binding_fields(binding: Any) -> dict:
    """The binding as a dict (accepts a SessionBinding or a mapping)."""
    if isinstance(binding, Mapping):
        data = dict(binding)
        ai = data.get("ai") if isinstance(data.get("ai"), Mapping) else {}
        return {"resumeId": data.get("resumeId"), "agent": data.get("agent"),
                "credential": dict(data.get("credential") or ai.get("credential") or {"source": "native"}),
                "model": data.get("model", ai.get("model")),
                "reasoningEffort": data.get("reasoningEffort", ai.get("reasoningEffort")),
                "displayName": data.get("displayName")}
    return {"resumeId": getattr(binding, "resume_id", None), "agent": getattr(binding, "agent", None),
            "credential": dict(getattr(binding, "credential", None) or {"source": "native"}),
            "model": getattr(binding, "model", None),
            "reasoningEffort": getattr(binding, "reasoning_effort", None),
            "displayName": getattr(binding, "display_name", None)}


def compose_path(first: os.PathLike | str | Sequence[os.PathLike | str], rest: str | None) -> str:
    """``first`` (one directory or several) then ``rest``, without duplicates
    of the leading directories or empty entries."""
    heads = [os.fspath(first)] if isinstance(first, (str, os.PathLike)) else [os.fspath(p) for p in first]
    seen = {os.path.normpath(h) for h in heads}
    tail = [p for p in (rest or "").split(os.pathsep) if p and os.path.normpath(p) not in seen]
    return os.pathsep.join([*heads, *tail])


def path_head(workspace: os.PathLike | str | None) -> list[str]:
    """The directories every child's ``PATH`` starts with: the workspace's shims
    (``<ws>/.alice/bin``), then the toolkit's own tools."""
    heads = [str(Path(os.path.abspath(workspace)) / WORKSPACE_BIN)] if workspace is not None else []
    return [*heads, str(shims_dir())]


def run_path(workspace: os.PathLike | str | None, rest: str | None) -> str:
    """The ``PATH`` of every child: the workspace's shims (``<ws>/.alice/bin``),
    the toolkit's own tools, then ``rest``."""
    return compose_path(path_head(workspace), rest)


def child_env(base_env: Mapping[str, str], run_env: Mapping[str, str] | None = None, *,
              extra: Mapping[str, str] | None = None, secret_env: Mapping[str, str] | None = None,
              strip: Sequence[str] = (), workspace: os.PathLike | str | None = None) -> dict[str, str]:
    """base (minus stripped names) + run env + adapter settings + secrets; one
    PATH: the workspace's shims, then the toolkit's tools, then the caller's; and
    the shells' start-up hooks that keep that head first (:mod:`.shellrc`)."""
    drop = set(STRIPPED_ENV) | set(strip)
    env = {k: v for k, v in base_env.items()
           if k not in drop and not k.startswith(STRIPPED_PREFIXES)}
    env.update(run_env or {})
    env.update(extra or {})
    env.update(secret_env or {})
    env["PATH"] = run_path(workspace, base_env.get("PATH", os.defpath))
    # The same head first again after any login or interactive shell's start-up files.
    env.update(shellrc.environment(workspace, path_head(workspace), base_env))
    return env


class Adapter:
    """Base of every engine adapter.  Subclasses set the class attributes and
    implement :meth:`_build`."""

    name: str = ""
    capabilities: Capabilities
    wire_preference: tuple[str, ...] = ()
    vendor_policies: Mapping[str, Mapping[str, Any]] = {}
    credential_env: tuple[str, ...] = ()  # ambient auth variables dropped when a vault key is used

    # -- checks ---------------------------------------------------------------------------------
    def check_effort(self, effort: str | None) -> str | None:
        """Refuse an effort this engine does not accept (None = omitted, always fine)."""
        if effort is None:
            return None
        models.check_effort(effort)
        accepted = self.capabilities.efforts
        if accepted is not None and effort not in accepted:
            raise InvalidInput(f"{self.name} does not accept effort {effort!r} (accepted: "
                               f"{', '.join(accepted)})", field="effort", code="effort_unsupported")
        return effort

    def check_mode(self, mode: str) -> str:
        if mode not in MODES:
            raise UsageError(f"mode must be one of {', '.join(MODES)}", field="mode", code="bad_mode")
        if mode == "headless" and not self.capabilities.headless:
            raise InvalidInput(f"{self.name} cannot run headless", field="agent", code="not_headless")
        if mode == "interactive" and not self.capabilities.interactive:
            raise InvalidInput(f"{self.name} has no interactive mode", field="agent", code="not_interactive")
        return mode

    # -- access ---------------------------------------------------------------------------------
    def resolve_access(self, credential: Mapping[str, Any]) -> Access:
        """Native, or a vault credential with its wire picked for this engine."""
        from openalice import credentials  # lazy: the vault, only when a binding resolves its access
        from openalice.credentials import wires

        source = (credential or {}).get("source", "native")
        if source == "native":
            return Access(source="native")
        if source != "vault":
            raise InvalidInput(f"unsupported credential source {source!r}", field="credential",
                               code="unsupported_credential_source")
        slug = credential.get("credentialSlug")
        try:
            rec, secret = credentials.open_credential(slug)
        except NotFound:
            raise NotFound(f"credential {slug!r} no longer exists", field="credential",
                           code="credential_not_found",
                           details={"hint": "re-add it, or switch the session with 'alice session replace'"}
                           ) from None
        if rec["authType"] == "subscription":
            return self._subscription_access(rec, secret)
        policy = self.vendor_policies.get(rec["vendor"], {})
        preference = tuple(policy.get("wirePreference", self.wire_preference))
        picked = wires.pick_wire(rec["vendor"], rec["wires"], preference,
                                 requested=credential.get("wireShape"),
                                 fallbacks=policy.get("legacyRequestedWireFallbacks"))
        if picked is None:
            asked = credential.get("wireShape")
            have = ", ".join(wires.available_wires(rec["vendor"], rec["wires"])) or "none"
            raise InvalidInput(
                f"credential {slug!r} ({rec['vendor']}; wires: {have}) cannot drive {self.name}"
                + (f" with wire {asked!r}" if asked else "")
                + f" (it speaks: {', '.join(preference) or 'no vault credentials'})",
                field="credential", code="credential_incompatible")
        shape, base_url = picked
        return Access(source="vault", slug=slug, vendor=rec["vendor"], auth_type=rec["authType"], wire=shape,
                      base_url=base_url,
                      anthropic_auth=wires.anthropic_auth(base_url) if shape == "anthropic" else None,
                      secret=secret, last_model=rec.get("lastModel"),
                      model_overrides=rec.get("modelOverrides", {}))

    def _subscription_access(self, rec: Mapping[str, Any], secret: str) -> Access:
        raise InvalidInput(f"{self.name} cannot use the subscription credential {rec['slug']!r}: "
                           f"log in with {self.name}'s own command and use the native credential",
                           field="credential", code="credential_incompatible")

    def model_for(self, binding: Mapping[str, Any], access: Access) -> str | None:
        """Explicit model; for a vault credential: else its last model, else the vendor default."""
        model = binding.get("model") or None
        if model or not access.vault:
            return model
        return access.last_model or models.default_model(access.vendor)

    def override_for(self, access: Access, model: str | None, effort: str | None = None) -> dict | None:
        """The credential's override for exactly ``model``.  An explicit effort on a model
        nobody describes says the model reasons: without that, engines that register
        models (pi, opencode) would silently drop the effort."""
        override = None
        if model and model in access.model_overrides:
            override = {"model": model, **access.model_overrides[model]}
        if model and effort and effort != "none" and "reasoning" not in (override or {}):
            if models.resolve(access.vendor, model, auth_type=access.auth_type) is None:
                override = {"model": model, **(override or {}), "reasoning": True}
        return override

    # -- projection -----------------------------------------------------------------------------
    def project(self, binding: Any, *, mode: str = "headless", prompt: str | None = None,
                native_session_id: str | None = None, workspace: os.PathLike | str,
                run_env: Mapping[str, str] | None = None, base_env: Mapping[str, str] | None = None,
                run_dir: os.PathLike | str | None = None) -> Projection:
        self.check_mode(mode)
        fields = binding_fields(binding)
        if fields.get("agent") not in (None, self.name):
            raise InvalidInput(f"binding belongs to agent {fields['agent']!r}, not {self.name!r}",
                               field="agent", code="agent_mismatch")
        effort = self.check_effort(fields.get("reasoningEffort"))
        if native_session_id is not None:
            check_native_id(native_session_id)
            if not self.capabilities.resume:
                raise InvalidInput(f"{self.name} cannot resume a session", field="resume", code="no_resume")
        if mode == "headless" and not prompt:
            raise UsageError("a headless turn needs a prompt", field="prompt", code="empty_prompt")
        if prompt is not None and "\x00" in prompt:
            raise InvalidInput("the prompt contains a NUL byte", field="prompt", code="bad_prompt")
        access = self.resolve_access(fields["credential"])
        model = self.model_for(fields, access)
        ws = Path(os.path.abspath(workspace))
        argv, extra_env, secret_env, stdin, files = self._build(
            mode=mode, fields=fields, access=access, model=model, effort=effort, prompt=prompt or "",
            native_session_id=native_session_id, workspace=ws,
            base_env=os.environ if base_env is None else base_env,
            run_dir=None if run_dir is None else Path(run_dir))
        env = child_env(os.environ if base_env is None else base_env, run_env, extra=extra_env,
                        secret_env=secret_env, strip=self.credential_env if access.vault else (),
                        workspace=ws)
        return Projection(argv=argv, env=env, stdin=stdin, files=tuple(files), secret_names=tuple(sorted(secret_env)))

    def _build(self, *, mode: str, fields: dict, access: Access, model: str | None, effort: str | None,
               prompt: str, native_session_id: str | None, workspace: Path, base_env: Mapping[str, str],
               run_dir: Path | None) -> tuple[list[str], dict, dict, bytes | None, list[str]]:
        raise NotImplementedError

    def describe(self) -> dict:
        return {"name": self.name, "kind": "builtin", "capabilities": self.capabilities.to_dict()}


def check_native_id(value: Any, *, field: str = "native_session_id") -> str:
    """An engine's own session id as it may travel in argv: printable, no leading '-', <= 256 characters."""
    if (not isinstance(value, str) or not value or len(value) > 256 or value.startswith("-")
            or any(ord(c) < 33 for c in value)):
        raise InvalidInput(f"invalid native session id {value!r}", field=field, code="bad_native_session_id")
    return value
