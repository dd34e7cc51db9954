"""Reading, validating and updating ``.alice/settings.json``."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path

from openalice.core import fs, once, patterns, secrets
from openalice.core.errors import AliceError, InvalidInput
from openalice.core.records import record_class
from openalice.models.ladder import EFFORTS

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = [
    "SURFACES", "SettingsRead", "settings_path", "empty_settings", "validate", "read", "load", "update",
    "set_preference", "set_default_agent", "unset", "record_recent", "preference_for",
    "pref_from_binding", "validate_agent_name",
]

SURFACES = ("interactive", "headless")
VERSION = 1
MAX_BYTES = 64 * 1024
AGENT_RE = patterns.compile(r"[a-z0-9][a-z0-9._-]{0,63}\Z")
_SLUG_RE = patterns.compile(r"[a-z0-9][a-z0-9-]{0,127}\Z")
_PREF_KEYS = {"native": {"accessMode", "model", "reasoningEffort"},
              "vault": {"accessMode", "credentialSlug", "wireShape", "model", "reasoningEffort"}}


@record_class(frozen=True)
class SettingsRead:
    """``status`` is ``ok``, ``absent`` or ``invalid`` (then ``error`` says why)."""

    status: str
    data: dict
    error: AliceError | None = None


def settings_path(ws) -> Path:
    return _root(ws) / ".alice" / "settings.json"


def _root(ws) -> Path:
    return Path(ws.root if hasattr(ws, "root") else ws)


def empty_settings() -> dict:
    return {"version": VERSION, "runtime": {}}


def validate_agent_name(agent: Any, *, field: str = "agent", file: object = None) -> str:
    if not isinstance(agent, str) or not AGENT_RE.match(agent):
        raise InvalidInput(f"invalid agent name {agent!r}: 1-64 of a-z, 0-9, '.', '_', '-'", field=field,
                           file=file, code="bad_agent")
    return agent


def _refuse_key(key: str, where: str, file: object) -> None:
    if secrets.looks_secret(key):
        raise InvalidInput("secret-shaped key refused: settings hold no secrets (credentials live in "
                           "the vault)", file=file, field=f"{where}/{key}", code="secret_in_settings")
    raise InvalidInput("unknown key", file=file, field=f"{where}/{key}", code="bad_settings")


def _check_keys(obj: Any, allowed: set[str], where: str, file: object) -> dict:
    if not isinstance(obj, dict):
        raise InvalidInput("must be an object", file=file, field=where or "/", code="bad_settings")
    for key in obj:
        if key not in allowed:
            _refuse_key(key, where, file)
    return obj


def _check_pref(pref: Any, where: str, file: object) -> None:
    if not isinstance(pref, dict):
        raise InvalidInput("must be an object", file=file, field=where, code="bad_settings")
    mode = pref.get("accessMode")
    if not isinstance(mode, str) or mode not in _PREF_KEYS:
        raise InvalidInput("accessMode must be 'native' or 'vault'", file=file, field=f"{where}/accessMode",
                           code="bad_settings")
    # Secret-shaped keys first: they are the reason that matters most.
    for key in pref:
        if key not in _PREF_KEYS["vault"] and secrets.looks_secret(key):
            _refuse_key(key, where, file)
    for key in pref:
        if key not in _PREF_KEYS[mode]:
            if key in _PREF_KEYS["vault"]:
                raise InvalidInput(f"not allowed with accessMode {mode!r}", file=file, field=f"{where}/{key}",
                                   code="bad_settings")
            _refuse_key(key, where, file)
    if mode == "vault":
        from openalice.credentials import wires  # lazy: the vault package, for vault preferences only

        slug = pref.get("credentialSlug")
        if not isinstance(slug, str) or not _SLUG_RE.match(slug):
            raise InvalidInput("credentialSlug must be a credential slug (<=128 of a-z, 0-9, '-')",
                               file=file, field=f"{where}/credentialSlug", code="bad_settings")
        if "wireShape" in pref and pref["wireShape"] not in wires.WIRE_SHAPES:
            raise InvalidInput(f"wireShape must be one of {', '.join(wires.WIRE_SHAPES)}", file=file,
                               field=f"{where}/wireShape", code="bad_settings")
    if "model" in pref:
        model = pref["model"]
        if (not isinstance(model, str) or not model.strip() or len(model) > 512
                or model.strip().startswith("-") or any(ord(c) < 32 for c in model)):
            raise InvalidInput("model must be 1-512 printable characters, not starting with '-'", file=file,
                               field=f"{where}/model", code="bad_settings")
    if "reasoningEffort" in pref and pref["reasoningEffort"] not in EFFORTS:
        raise InvalidInput(f"reasoningEffort must be one of {', '.join(EFFORTS)}", file=file,
                           field=f"{where}/reasoningEffort", code="bad_settings")


def _check_agents(obj: Any, where: str, file: object) -> None:
    if not isinstance(obj, dict):
        raise InvalidInput("must be an object", file=file, field=where, code="bad_settings")
    for agent, pref in obj.items():
        validate_agent_name(agent, field=f"{where}/{agent}", file=file)
        _check_pref(pref, f"{where}/{agent}", file)


def validate(data: Any, *, file: object = None) -> dict:
    """Strict check; raises :class:`InvalidInput` naming ``file:field`` and the reason."""
    _check_keys(data, {"version", "runtime"}, "", file)
    if data.get("version") != VERSION:
        raise InvalidInput(f"unsupported version {data.get('version')!r} (expected {VERSION})", file=file,
                           field="version", code="bad_settings")
    runtime = _check_keys(data.get("runtime", {}), set(SURFACES), "runtime", file)
    for surface, block in runtime.items():
        where = f"runtime/{surface}"
        _check_keys(block, {"defaultAgent", "agents", "recent"}, where, file)
        if "defaultAgent" in block:
            validate_agent_name(block["defaultAgent"], field=f"{where}/defaultAgent", file=file)
        _check_agents(block.get("agents", {}), f"{where}/agents", file)
        if "recent" in block:
            recent = _check_keys(block["recent"], {"agent", "agents"}, f"{where}/recent", file)
            if "agent" in recent:
                validate_agent_name(recent["agent"], field=f"{where}/recent/agent", file=file)
            _check_agents(recent.get("agents", {}), f"{where}/recent/agents", file)
    return data


#: ``with read_once():`` -- inside the block each workspace's settings are read once
#: (``core.once``: health asks readiness per issue, which resolves the binding, which
#: reads the settings, about 0.1 ms each: a third of an issue's health before).
read_once = once.report


def read(ws) -> SettingsRead:
    """Never raises for a bad file: ``ok``, ``absent`` or ``invalid``."""
    return once.remembered("workspace settings", (ws.id, ws.path), lambda: _read(ws))


def _read(ws) -> SettingsRead:
    path = settings_path(ws)
    try:
        data = fs.read_json(path, missing=None, max_bytes=MAX_BYTES, root=_root(ws))
        if data is None:
            return SettingsRead("absent", empty_settings())
        return SettingsRead("ok", validate(data, file=path))
    except AliceError as err:
        return SettingsRead("invalid", empty_settings(), err)


def load(ws) -> dict:
    """The settings (an empty document when absent); an invalid file raises."""
    result = read(ws)
    if result.error is not None:
        raise result.error
    return result.data


def update(ws, fn: Callable[[dict], Any]) -> dict:
    """Locked read-modify-write.  An invalid existing file is never overwritten."""
    path = settings_path(ws)
    root = _root(ws)
    fs.ensure_dir(path.parent, 0o755, root=root)

    def apply(current: Any) -> dict:
        validate(current, file=path)
        new = copy.deepcopy(current)
        result = fn(new)
        return new if result is None else result

    with fs.locked_file(path, root=root, dir_mode=0o755):
        current = fs.read_json(path, missing=None, max_bytes=MAX_BYTES, root=root)
        if current is None:
            current = empty_settings()
        new = apply(current)
        validate(new, file=path)
        text = fs.dump_json(new)
        if len(text.encode("utf-8")) > MAX_BYTES:
            raise InvalidInput(f"settings would exceed {MAX_BYTES} bytes", file=path, code="too_large")
        fs.atomic_write_text(path, text, mode=0o644, root=root, dir_mode=0o755)
        return new


def _surface(surface: str) -> str:
    if surface not in SURFACES:
        raise InvalidInput(f"surface must be one of {', '.join(SURFACES)}", field="surface", code="bad_surface")
    return surface


def pref_from_binding(credential: Mapping[str, Any], model: str | None = None,
                      effort: str | None = None) -> dict:
    """The PREF form of a binding tuple."""
    if credential.get("source") == "vault":
        pref: dict[str, Any] = {"accessMode": "vault", "credentialSlug": credential["credentialSlug"]}
        if credential.get("wireShape"):
            pref["wireShape"] = credential["wireShape"]
    else:
        pref = {"accessMode": "native"}
    if model:
        pref["model"] = model
    if effort is not None:  # an empty effort is kept, so the check refuses it rather than drops it
        pref["reasoningEffort"] = effort
    return pref


def _runnable_adapter(agent: str, surface: str):
    """The adapter of ``agent`` when it exists and runs on ``surface``; else the refusal."""
    from openalice import agents  # lazy: only writes check the agent; `settings show` is a read verb

    adapter = agents.get_adapter(agent)
    adapter.check_mode(surface)
    return adapter


def set_preference(ws, *, surface: str, agent: str, pref: Mapping[str, Any],
                   make_default: bool = False) -> dict:
    """Fix the preference of ``agent`` on ``surface`` (replaces it whole).

    Refused (nothing written) unless the agent exists and runs on the
    surface, accepts the effort, and a vault credential exists and names a
    known wire shape: a preference that could never seed a session is not kept."""
    from openalice import credentials  # lazy: only writes check the credential (not read verbs)
    from openalice.credentials import wires

    _surface(surface)
    adapter = _runnable_adapter(agent, surface)
    adapter.check_effort(pref.get("reasoningEffort"))
    if pref.get("accessMode") == "vault":
        credentials.get(pref.get("credentialSlug"))
        if pref.get("wireShape") is not None:
            wires.check_shape(pref["wireShape"])
    validate_agent_name(agent)

    def apply(data: dict) -> None:
        block = data.setdefault("runtime", {}).setdefault(surface, {})
        block.setdefault("agents", {})[agent] = dict(pref)
        if make_default:
            block["defaultAgent"] = agent

    return update(ws, apply)


def set_default_agent(ws, *, surface: str, agent: str) -> dict:
    """Make ``agent`` the surface's default; refused unless it exists and runs there."""
    _surface(surface)
    _runnable_adapter(agent, surface)
    validate_agent_name(agent)
    return update(ws, lambda d: d.setdefault("runtime", {}).setdefault(surface, {}).__setitem__(
        "defaultAgent", agent))


def unset(ws, *, surface: str, agent: str | None = None, default_agent: bool = False) -> dict:
    """Remove a fixed preference and/or the default agent (recent stays)."""
    _surface(surface)

    def apply(data: dict) -> None:
        block = data.setdefault("runtime", {}).setdefault(surface, {})
        if agent is not None:
            block.get("agents", {}).pop(agent, None)
            if "agents" in block and not block["agents"]:
                del block["agents"]
        if default_agent:
            block.pop("defaultAgent", None)
        if not block:
            del data["runtime"][surface]

    return update(ws, apply)


def record_recent(ws, *, surface: str, agent: str, credential: Mapping[str, Any], model: str | None = None,
                  effort: str | None = None) -> dict:
    """What a successful fresh launch writes: only ``recent``, never the fixed part."""
    _surface(surface)
    validate_agent_name(agent)
    pref = pref_from_binding(credential, model, effort)

    def apply(data: dict) -> None:
        recent = data.setdefault("runtime", {}).setdefault(surface, {}).setdefault("recent", {})
        recent["agent"] = agent
        recent.setdefault("agents", {})[agent] = pref

    return update(ws, apply)


def preference_for(data: Mapping[str, Any], surface: str, agent: str) -> tuple[dict | None, str | None]:
    """Fixed ``agents[A]`` else ``recent.agents[A]`` (whole, never merged field-wise)."""
    block = data.get("runtime", {}).get(surface, {})
    fixed = block.get("agents", {}).get(agent)
    if fixed is not None:
        return dict(fixed), "fixed"
    recent = block.get("recent", {}).get("agents", {}).get(agent)
    if recent is not None:
        return dict(recent), "recent"
    return None, None
