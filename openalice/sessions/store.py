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

from datetime import datetime
from pathlib import Path

from openalice.core import clock, fs
from openalice.core.errors import InvalidInput, NotFound, Unavailable
from openalice.core.paths import Root
from openalice.core.records import replace

from .binding import (
    ADJECTIVES,
    MATERIALS,
    NOUNS,
    VERSION,
    SessionBinding,
    check_display_name,
    check_resume_id,
    make_binding,
    new_resume_id,
    normalize_credential,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

__all__ = [
    "SessionBinding", "BindingConflict", "new_resume_id", "check_resume_id", "sessions_dir", "session_path",
    "normalize_credential", "make_binding", "create_session", "load_session", "list_sessions",
    "ensure_session", "replace_binding", "rename_session", "KEEP", "ADJECTIVES", "MATERIALS", "NOUNS",
]

MAX_FILE_BYTES = 64 * 1024
KEEP: Any = object()


class BindingConflict(Unavailable):
    """The session already owns a different runtime binding (exit 3)."""

    default_code = "binding_conflict"


def sessions_root(ws) -> Path:
    """The directory every session file is reached below (a workspace's root, or the manager's home)."""
    return Path(ws.root if hasattr(ws, "root") else ws)


def sessions_dir(ws) -> Path:
    """``<workspace>/.alice/sessions``; a home that keeps its sessions elsewhere (the Workspace
    Manager's) names the directory as its ``sessions_path``."""
    own = getattr(ws, "sessions_path", None)
    return Path(own) if own is not None else sessions_root(ws) / ".alice" / "sessions"


def session_path(ws, resume_id: str) -> Path:
    return sessions_dir(ws) / f"{check_resume_id(resume_id)}.json"


def _parse(data: Any, path: Path) -> SessionBinding:
    if not isinstance(data, dict):
        raise InvalidInput("a session file must be an object", file=path, code="bad_binding")
    if data.get("version") != VERSION:
        raise InvalidInput(f"unsupported version {data.get('version')!r}", file=path, field="version",
                           code="bad_binding")
    unknown = set(data) - {"version", "resumeId", "agent", "ai", "displayName", "createdAt", "replacedAt",
                           "bornOn"}
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
                        display_name=data.get("displayName"), created_at=created, born_on=data.get("bornOn"),
                        file=path)


def _read(path: Path, root: Path) -> SessionBinding | None:
    data = fs.read_json(path, missing=None, max_bytes=MAX_FILE_BYTES, root=root)
    return None if data is None else _parse(data, path)


def load_session(ws, resume_id: str) -> SessionBinding:
    path = session_path(ws, resume_id)
    binding = _read(path, sessions_root(ws))
    if binding is None:
        raise NotFound(f"no session {resume_id!r} in this workspace", field="resumeId", code="session_not_found",
                       details={"hint": "see 'alice session list'"})
    return binding


def list_sessions(ws) -> tuple[list[SessionBinding], list[dict]]:
    """Every readable binding (oldest first) and, apart, each unreadable file with its reason."""
    directory = sessions_dir(ws)
    found: list[SessionBinding] = []
    problems: list[dict] = []
    root = sessions_root(ws)
    try:
        with Root(root) as base:
            names = base.names(directory)
    except (FileNotFoundError, NotADirectoryError):
        return found, problems
    except OSError as exc:
        raise fs.explain_os_error(exc, directory) from None
    for name in sorted(names):
        if name.startswith(".") or not name.endswith(".json"):
            continue
        path = directory / name
        try:
            binding = _read(path, root)
        except InvalidInput as exc:
            problems.append({"file": str(path), "code": exc.code, "message": str(exc)})
            continue
        if binding is not None:
            found.append(binding)
    found.sort(key=lambda b: (b.created_at or "", b.resume_id))
    return found, problems


def _validate_runtime(binding: SessionBinding) -> None:
    """The agent exists, accepts the effort; a vault credential exists."""
    from openalice import agents, credentials  # lazy: only a write checks them, never a listing

    adapter = agents.get_adapter(binding.agent)
    adapter.check_effort(binding.reasoning_effort)
    if binding.credential.get("source") == "vault":
        credentials.get(binding.credential["credentialSlug"])


def _write_new(ws, path: Path, binding: SessionBinding) -> bool:
    return fs.create_exclusive(path, fs.dump_json(binding.to_file()).encode("utf-8"), mode=0o644,
                               dir_mode=0o755, root=sessions_root(ws))


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
    if binding.born_on:
        payload["bornOn"] = binding.born_on
    journal.record("session.born", payload, now=now)


def create_session(ws, *, agent: str, credential: Any = None, model: str | None = None,
                   effort: str | None = None, display_name: str | None = None, now: datetime,
                   rng: Any = None, born_on: str | None = None) -> SessionBinding:
    """A new session with a fresh id and its binding frozen on disk (``born_on``: its surface)."""
    binding = make_binding(resume_id=new_resume_id(rng), agent=agent, credential=credential, model=model,
                           effort=effort, display_name=display_name, created_at=clock.to_iso(now),
                           born_on=born_on)
    _validate_runtime(binding)
    fs.ensure_dir(sessions_dir(ws), 0o755, root=sessions_root(ws))
    for _ in range(64):
        if _write_new(ws, session_path(ws, binding.resume_id), binding):
            _journal_born(ws, binding, now)
            return binding
        # A taken id regenerates the whole id, never just its suffix.
        binding = replace(binding, resume_id=new_resume_id(rng))
    raise Unavailable("could not find a free session id", code="resume_id_exhausted")


def ensure_session(ws, binding: SessionBinding, *, now: datetime | None = None) -> SessionBinding:
    """Freeze ``binding`` unless its session exists: equal -> no-op, different -> refused (file unchanged)."""
    path = session_path(ws, binding.resume_id)
    root = sessions_root(ws)
    fs.ensure_dir(path.parent, 0o755, root=root)
    with fs.locked_file(path, root=root, dir_mode=0o755):
        existing = _read(path, root)
        if existing is None:
            _validate_runtime(binding)
            if binding.created_at is None and now is not None:
                binding = replace(binding, created_at=clock.to_iso(now))
            if not _write_new(ws, path, binding):
                existing = _read(path, root)
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
    root = sessions_root(ws)
    with fs.locked_file(path, root=root, dir_mode=0o755):
        current = load_session(ws, resume_id)
        new = make_binding(
            resume_id=resume_id, agent=current.agent,
            credential=current.credential if credential is KEEP else credential,
            model=current.model if model is KEEP else model,
            effort=current.reasoning_effort if effort is KEEP else effort,
            display_name=current.display_name, created_at=current.created_at, born_on=current.born_on)
        _validate_runtime(new)
        doc = new.to_file()
        if now is not None:
            doc["replacedAt"] = clock.to_iso(now)
        fs.atomic_write_json(path, doc, root=root, dir_mode=0o755)
        return new


def rename_session(ws, resume_id: str, display_name: str | None) -> SessionBinding:
    """Set or (with None) clear the display name; the runtime binding is untouched."""
    path = session_path(ws, resume_id)
    root = sessions_root(ws)
    with fs.locked_file(path, root=root, dir_mode=0o755):
        raw = fs.read_json(path, missing=None, max_bytes=MAX_FILE_BYTES, root=root)
        current = load_session(ws, resume_id)
        name = check_display_name(display_name)
        doc = current.to_file()
        if raw and "replacedAt" in raw:
            doc["replacedAt"] = raw["replacedAt"]
        doc.pop("displayName", None)
        if name:
            doc["displayName"] = name
        fs.atomic_write_json(path, doc, root=root, dir_mode=0o755)
        return replace(current, display_name=name)
