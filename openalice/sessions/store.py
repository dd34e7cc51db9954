"""Frozen session bindings: ``<workspace>/.alice/sessions/<resumeId>.json``.

::

    {"version": 1, "resumeId": "resume-calm-amber-river-abcdef", "agent": "pi",
     "ai": {"version": 1,
            "credential": {"source": "native"} | {"source": "vault", "credentialSlug": "ds-1", "wireShape"?: S},
            "model"?: "m", "reasoningEffort"?: "high"},
     "displayName"?: "<=120 chars", "createdAt": ISO, "replacedAt"?: ISO}

A binding is frozen at birth.  :func:`ensure_session` is a no-op for an equal
binding and refuses a different one (exit 3) without touching the file;
:func:`replace_binding` is the one mutator and may change credential, model
and effort, never the agent.  Workspace preferences never reach an existing
file.  The engine's own session id (for resume) is kept beside the binding in
``sessions/native/<resumeId>.json`` and is not part of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from openalice.core import clock, fs
from openalice.core.errors import InvalidInput, NotFound, Unavailable
from openalice.core.records import record_class, replace

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = [
    "SessionBinding", "BindingConflict", "new_resume_id", "check_resume_id", "sessions_dir", "session_path",
    "normalize_credential", "make_binding", "create_session", "load_session", "list_sessions",
    "ensure_session", "replace_binding", "rename_session", "record_native_session", "native_session_id",
    "KEEP", "ADJECTIVES", "MATERIALS", "NOUNS",
]

VERSION = 1
MAX_DISPLAY_NAME = 120
MAX_FILE_BYTES = 64 * 1024
ADJECTIVES = ("calm", "brave", "bright", "clever", "eager", "gentle", "happy", "jolly", "keen", "kind",
              "lively", "lucky", "merry", "nimble", "proud", "quiet", "rapid", "shy", "steady", "swift",
              "tidy", "vivid", "warm", "wise", "bold", "crisp", "fresh", "grand", "neat", "sunny")
MATERIALS = ("amber", "bamboo", "brass", "bronze", "cedar", "chalk", "clay", "copper", "coral", "cotton",
             "crystal", "flint", "glass", "granite", "ivory", "jade", "linen", "marble", "oak", "onyx",
             "opal", "pearl", "quartz", "silk", "silver", "slate", "steel", "velvet", "willow", "wool")
NOUNS = ("river", "meadow", "harbor", "forest", "canyon", "island", "lantern", "garden", "mountain",
         "valley", "comet", "falcon", "heron", "otter", "badger", "beacon", "bridge", "cloud", "delta",
         "ember", "fjord", "glacier", "grove", "lagoon", "orchard", "prairie", "reef", "summit", "tide",
         "willow")
_SUFFIX = "0123456789abcdefghijklmnopqrstuvwxyz"
# Generated ids and legacy UUIDs are both valid; '.', '/', '\\' and NUL never are.
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}\Z")
KEEP: Any = object()


class BindingConflict(Unavailable):
    """The session already owns a different runtime binding (exit 3)."""

    default_code = "binding_conflict"


@record_class(frozen=True)
class SessionBinding:
    resume_id: str
    agent: str
    credential: dict
    model: str | None = None
    reasoning_effort: str | None = None
    display_name: str | None = None
    created_at: str | None = None

    # The contract's camelCase names.
    @property
    def resumeId(self) -> str:  # noqa: N802
        return self.resume_id

    @property
    def reasoningEffort(self) -> str | None:  # noqa: N802
        return self.reasoning_effort

    @property
    def displayName(self) -> str | None:  # noqa: N802
        return self.display_name

    def ai(self) -> dict:
        out: dict[str, Any] = {"version": 1, "credential": dict(self.credential)}
        if self.model:
            out["model"] = self.model
        if self.reasoning_effort:
            out["reasoningEffort"] = self.reasoning_effort
        return out

    def runtime(self) -> dict:
        """The frozen part: what ``ensure`` compares."""
        return {"agent": self.agent, "ai": self.ai()}

    def to_file(self) -> dict:
        out: dict[str, Any] = {"version": VERSION, "resumeId": self.resume_id, "agent": self.agent,
                               "ai": self.ai()}
        if self.display_name:
            out["displayName"] = self.display_name
        if self.created_at:
            out["createdAt"] = self.created_at
        return out

    def to_dict(self) -> dict:
        """Flat form for output: resumeId, agent, credential, model?, reasoningEffort?, displayName?."""
        out: dict[str, Any] = {"resumeId": self.resume_id, "agent": self.agent,
                               "credential": dict(self.credential)}
        for key, value in (("model", self.model), ("reasoningEffort", self.reasoning_effort),
                           ("displayName", self.display_name), ("createdAt", self.created_at)):
            if value:
                out[key] = value
        return out


def new_resume_id(rng: Any = None) -> str:
    """``resume-<adjective>-<material>-<noun>-<6 of [0-9a-z]>``.

    ``rng`` needs ``randrange(n)``; the default is the OS's secure source.
    """
    if rng is None:
        import secrets  # lazy: only a new session id needs it, not a listing

        rng = secrets.SystemRandom()
    words = [ADJECTIVES[rng.randrange(len(ADJECTIVES))], MATERIALS[rng.randrange(len(MATERIALS))],
             NOUNS[rng.randrange(len(NOUNS))]]
    suffix = "".join(_SUFFIX[rng.randrange(len(_SUFFIX))] for _ in range(6))
    return "resume-" + "-".join(words) + "-" + suffix


def check_resume_id(resume_id: Any, *, field: str = "resumeId", file: object = None) -> str:
    if not isinstance(resume_id, str) or not _ID_RE.match(resume_id):
        raise InvalidInput(f"invalid session id {resume_id!r}", field=field, file=file, code="bad_resume_id")
    return resume_id


def _root(ws) -> Path:
    return Path(ws.root if hasattr(ws, "root") else ws)


def sessions_dir(ws) -> Path:
    return _root(ws) / ".alice" / "sessions"


def session_path(ws, resume_id: str) -> Path:
    return sessions_dir(ws) / f"{check_resume_id(resume_id)}.json"


def _native_path(ws, resume_id: str) -> Path:
    return sessions_dir(ws) / "native" / f"{check_resume_id(resume_id)}.json"


def normalize_credential(credential: Any, *, field: str = "credential", file: object = None) -> dict:
    if credential is None:
        return {"source": "native"}
    if not isinstance(credential, Mapping):
        raise InvalidInput("credential must be an object", field=field, file=file, code="bad_binding")
    source = credential.get("source")
    if source == "native":
        if set(credential) != {"source"}:
            raise InvalidInput("a native credential has no other fields", field=field, file=file,
                               code="bad_binding")
        return {"source": "native"}
    if source == "vault":
        from openalice.credentials import SLUG_RE
        from openalice.credentials.wires import WIRE_SHAPES

        extra = set(credential) - {"source", "credentialSlug", "wireShape"}
        if extra:
            raise InvalidInput(f"unknown credential field {sorted(extra)[0]!r}", field=field, file=file,
                               code="bad_binding")
        slug = credential.get("credentialSlug")
        if not isinstance(slug, str) or not SLUG_RE.match(slug):
            raise InvalidInput(f"invalid credential slug {slug!r}", field=f"{field}/credentialSlug", file=file,
                               code="bad_binding")
        out = {"source": "vault", "credentialSlug": slug}
        if credential.get("wireShape") is not None:
            if credential["wireShape"] not in WIRE_SHAPES:
                raise InvalidInput(f"unknown wire shape {credential['wireShape']!r}", field=f"{field}/wireShape",
                                   file=file, code="bad_binding")
            out["wireShape"] = credential["wireShape"]
        return out
    raise InvalidInput(f"unsupported credential source {source!r} (native or vault)", field=f"{field}/source",
                       file=file, code="unsupported_credential_source")


def _display_name(value: Any, *, file: object = None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or "\n" in value or "\x00" in value:
        raise InvalidInput("displayName must be one line of text", field="displayName", file=file,
                           code="bad_display_name")
    value = value.strip()
    if len(value) > MAX_DISPLAY_NAME:
        raise InvalidInput(f"displayName is too long ({len(value)} > {MAX_DISPLAY_NAME})", field="displayName",
                           file=file, code="too_long")
    return value or None


def make_binding(*, resume_id: str, agent: str, credential: Any = None, model: str | None = None,
                 effort: str | None = None, display_name: str | None = None, created_at: str | None = None,
                 file: object = None) -> SessionBinding:
    """Validate the fields of a binding (shape only; not whether the agent or credential exist)."""
    from openalice import models
    from openalice.preferences import validate_agent_name

    check_resume_id(resume_id, file=file)
    validate_agent_name(agent, file=file)
    cred = normalize_credential(credential, file=file)
    if model is not None:
        if (not isinstance(model, str) or len(model) > 512 or any(ord(c) < 32 for c in model)
                or model.strip().startswith("-")):
            raise InvalidInput("model must be 1-512 printable characters, not starting with '-'",
                               field="model", file=file, code="bad_model")
        model = model.strip() or None  # an empty model means "engine default"
    if effort is not None:
        try:
            models.check_effort(effort)
        except InvalidInput as exc:
            raise InvalidInput(exc.message, field="reasoningEffort", file=file, code="bad_effort") from None
    return SessionBinding(resume_id=resume_id, agent=agent, credential=cred, model=model,
                          reasoning_effort=effort, display_name=_display_name(display_name, file=file),
                          created_at=created_at)


def _parse(data: Any, path: Path) -> SessionBinding:
    if not isinstance(data, dict):
        raise InvalidInput("a session file must be an object", file=path, code="bad_binding")
    if data.get("version") != VERSION:
        raise InvalidInput(f"unsupported version {data.get('version')!r}", file=path, field="version",
                           code="bad_binding")
    unknown = set(data) - {"version", "resumeId", "agent", "ai", "displayName", "createdAt", "replacedAt"}
    if unknown:
        raise InvalidInput("unknown key", file=path, field=sorted(unknown)[0], code="bad_binding")
    ai = data.get("ai")
    if not isinstance(ai, dict) or ai.get("version") != 1:
        raise InvalidInput("ai must be an object with version 1", file=path, field="ai", code="bad_binding")
    unknown = set(ai) - {"version", "credential", "model", "reasoningEffort"}
    if unknown:
        raise InvalidInput("unknown key", file=path, field=f"ai/{sorted(unknown)[0]}", code="bad_binding")
    if path.stem != data.get("resumeId"):
        raise InvalidInput("resumeId does not match the file name", file=path, field="resumeId",
                           code="bad_binding")
    created = data.get("createdAt")
    if created is not None:
        clock.parse_instant(created, field="createdAt", file=path)
    return make_binding(resume_id=data["resumeId"], agent=data.get("agent"), credential=ai.get("credential"),
                        model=ai.get("model"), effort=ai.get("reasoningEffort"),
                        display_name=data.get("displayName"), created_at=created, file=path)


def _read(path: Path) -> SessionBinding | None:
    data = fs.read_json(path, missing=None, max_bytes=MAX_FILE_BYTES)
    return None if data is None else _parse(data, path)


def load_session(ws, resume_id: str) -> SessionBinding:
    path = session_path(ws, resume_id)
    binding = _read(path)
    if binding is None:
        raise NotFound(f"no session {resume_id!r} in this workspace", field="resumeId", code="session_not_found",
                       details={"hint": "see 'alice session list'"})
    return binding


def list_sessions(ws) -> tuple[list[SessionBinding], list[dict]]:
    """Every readable binding (oldest first) and, apart, each unreadable file with its reason."""
    directory = sessions_dir(ws)
    found: list[SessionBinding] = []
    problems: list[dict] = []
    if not directory.is_dir():
        return found, problems
    for path in sorted(directory.glob("*.json")):
        if path.name.startswith("."):
            continue
        try:
            binding = _read(path)
        except InvalidInput as exc:
            problems.append({"file": str(path), "code": exc.code, "message": str(exc)})
            continue
        if binding is not None:
            found.append(binding)
    found.sort(key=lambda b: (b.created_at or "", b.resume_id))
    return found, problems


def _validate_runtime(binding: SessionBinding) -> None:
    """The agent exists, accepts the effort; a vault credential exists."""
    from openalice import agents, credentials

    adapter = agents.get_adapter(binding.agent)
    adapter.check_effort(binding.reasoning_effort)
    if binding.credential.get("source") == "vault":
        credentials.get(binding.credential["credentialSlug"])


def _write_new(path: Path, binding: SessionBinding) -> bool:
    return fs.create_exclusive(path, fs.dump_json(binding.to_file()).encode("utf-8"), mode=0o644)


def _journal_born(ws, binding: SessionBinding, now: datetime | None) -> None:
    """Record ``session.born`` after the binding is durable (secret-free payload).
    The journal belongs to another capability: absent, it is simply skipped."""
    if now is None:
        return
    from openalice import journal  # lazy: only a new session records a fact

    payload: dict[str, Any] = {"resumeId": binding.resume_id, "agent": binding.agent,
                               "credentialSource": binding.credential["source"]}
    if hasattr(ws, "id"):
        payload["workspaceId"] = ws.id
    if binding.credential.get("credentialSlug"):
        payload["credentialSlug"] = binding.credential["credentialSlug"]
    if binding.model:
        payload["model"] = binding.model
    if binding.reasoning_effort:
        payload["reasoningEffort"] = binding.reasoning_effort
    journal.record("session.born", payload, now=now)


def create_session(ws, *, agent: str, credential: Any = None, model: str | None = None,
                   effort: str | None = None, display_name: str | None = None, now: datetime,
                   rng: Any = None) -> SessionBinding:
    """A new session with a fresh id and its binding frozen on disk."""
    binding = make_binding(resume_id=new_resume_id(rng), agent=agent, credential=credential, model=model,
                           effort=effort, display_name=display_name, created_at=clock.to_iso(now))
    _validate_runtime(binding)
    fs.ensure_dir(sessions_dir(ws), 0o755)
    for _ in range(64):
        if _write_new(session_path(ws, binding.resume_id), binding):
            _journal_born(ws, binding, now)
            return binding
        # A taken id regenerates the whole id, never just its suffix.
        binding = replace(binding, resume_id=new_resume_id(rng))
    raise Unavailable("could not find a free session id", code="resume_id_exhausted")


def ensure_session(ws, binding: SessionBinding, *, now: datetime | None = None) -> SessionBinding:
    """Freeze ``binding`` unless its session exists: equal -> no-op, different -> refused (file unchanged)."""
    path = session_path(ws, binding.resume_id)
    fs.ensure_dir(path.parent, 0o755)
    with fs.locked_file(path):
        existing = _read(path)
        if existing is None:
            _validate_runtime(binding)
            if binding.created_at is None and now is not None:
                binding = replace(binding, created_at=clock.to_iso(now))
            if not _write_new(path, binding):
                existing = _read(path)
            else:
                _journal_born(ws, binding, now)
                return binding
        if existing.runtime() != binding.runtime():
            raise BindingConflict(f"session {binding.resume_id!r} already owns a different runtime binding",
                                  file=path, field="ai",
                                  details={"existing": existing.to_dict(), "requested": binding.to_dict(),
                                           "hint": "use 'alice session replace' to change credential, "
                                                   "model or effort"})
        return existing


def replace_binding(ws, resume_id: str, *, credential: Any = KEEP, model: Any = KEEP, effort: Any = KEEP,
                    now: datetime | None = None) -> SessionBinding:
    """Change credential, model and/or effort (``None`` clears model or effort).
    The agent is frozen; the display name is kept."""
    path = session_path(ws, resume_id)
    with fs.locked_file(path):
        current = load_session(ws, resume_id)
        new = make_binding(
            resume_id=resume_id, agent=current.agent,
            credential=current.credential if credential is KEEP else credential,
            model=current.model if model is KEEP else model,
            effort=current.reasoning_effort if effort is KEEP else effort,
            display_name=current.display_name, created_at=current.created_at)
        _validate_runtime(new)
        doc = new.to_file()
        if now is not None:
            doc["replacedAt"] = clock.to_iso(now)
        fs.atomic_write_json(path, doc)
        return new


def rename_session(ws, resume_id: str, display_name: str | None) -> SessionBinding:
    """Set or (with None) clear the display name; the runtime binding is untouched."""
    path = session_path(ws, resume_id)
    with fs.locked_file(path):
        raw = fs.read_json(path, missing=None, max_bytes=MAX_FILE_BYTES)
        current = load_session(ws, resume_id)
        name = _display_name(display_name)
        doc = current.to_file()
        if raw and "replacedAt" in raw:
            doc["replacedAt"] = raw["replacedAt"]
        doc.pop("displayName", None)
        if name:
            doc["displayName"] = name
        fs.atomic_write_json(path, doc)
        return replace(current, display_name=name)


def record_native_session(ws, resume_id: str, native_session_id: str, now: datetime) -> dict:
    """Remember the engine's own session id for resume (beside, not inside, the binding)."""
    binding = load_session(ws, resume_id)
    if (not isinstance(native_session_id, str) or not native_session_id or len(native_session_id) > 256
            or any(ord(c) < 33 for c in native_session_id) or native_session_id.startswith("-")):
        raise InvalidInput(f"invalid native session id {native_session_id!r}", field="nativeSessionId",
                           code="bad_native_session_id")
    record = {"version": 1, "resumeId": resume_id, "agent": binding.agent, "nativeSessionId": native_session_id,
              "recordedAt": clock.to_iso(now)}
    path = _native_path(ws, resume_id)
    fs.ensure_dir(path.parent, 0o755)
    with fs.locked_file(path):
        fs.atomic_write_json(path, record, mode=0o644)
    return record


def native_session_id(ws, resume_id: str) -> str | None:
    data = fs.read_json(_native_path(ws, resume_id), missing=None, max_bytes=MAX_FILE_BYTES)
    if not isinstance(data, dict):
        return None
    value = data.get("nativeSessionId")
    return value if isinstance(value, str) and value else None
