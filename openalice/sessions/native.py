"""What a session's engine and launches left behind, kept beside (never inside) its frozen binding.

``<sessions dir>/native/<resumeId>.json``::

    {"version": 1, "resumeId": "...", "agent": "claude",
     "nativeSessionId"?: "<the engine's own id, for resume>", "recordedAt"?: ISO,
     "lastLaunch"?: {"surface": "headless|interactive|manager", "at": ISO, "exitStatus"?: N}}

The binding is frozen at birth; this record changes on every launch, so it is a
file of its own, rewritten atomically under its lock: recording the native id
keeps the last launch, and recording a launch keeps the native id.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from openalice.core import clock, fs
from openalice.core.errors import InvalidInput

from .binding import SURFACES, check_resume_id
from .store import MAX_FILE_BYTES, load_session, sessions_dir, sessions_root

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any, Callable

__all__ = ["record_native_session", "native_session_id", "record_launch", "session_state"]


def _state_path(ws, resume_id: str) -> Path:
    return sessions_dir(ws) / "native" / f"{check_resume_id(resume_id)}.json"


def session_state(ws, resume_id: str) -> dict:
    """The record (``{}`` when there is none or it cannot be read: it is a convenience, never the truth
    of the binding)."""
    try:
        data = fs.read_json(_state_path(ws, resume_id), missing=None, max_bytes=MAX_FILE_BYTES,
                            root=sessions_root(ws))
    except InvalidInput:
        return {}
    return data if isinstance(data, dict) else {}


def _update(ws, resume_id: str, change: Callable[[dict], None]) -> dict:
    binding = load_session(ws, resume_id)
    path = _state_path(ws, resume_id)
    root = sessions_root(ws)
    fs.ensure_dir(path.parent, 0o755, root=root)
    with fs.locked_file(path, root=root, dir_mode=0o755):
        current = session_state(ws, resume_id)
        record: dict[str, Any] = {"version": 1, "resumeId": resume_id, "agent": binding.agent}
        for key in ("nativeSessionId", "recordedAt", "lastLaunch"):
            if key in current:
                record[key] = current[key]
        change(record)
        fs.atomic_write_json(path, record, mode=0o644, root=root, dir_mode=0o755)
    return record


def record_native_session(ws, resume_id: str, native_session_id: str, now: datetime) -> dict:
    """Remember the engine's own session id for resume."""
    from openalice.agents.base import check_native_id  # lazy: the adapters load only when an id is written

    check_native_id(native_session_id, field="nativeSessionId")

    def change(record: dict) -> None:
        record["nativeSessionId"] = native_session_id
        record["recordedAt"] = clock.to_iso(now)

    return _update(ws, resume_id, change)


def record_launch(ws, resume_id: str, *, surface: str, now: datetime, exit_status: int | None = None) -> dict:
    """The session's last launch: where, when, and (once it ended) its exit status."""
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}")

    def change(record: dict) -> None:
        launch: dict[str, Any] = {"surface": surface, "at": clock.to_iso(now)}
        if exit_status is not None:
            launch["exitStatus"] = int(exit_status)
        record["lastLaunch"] = launch

    return _update(ws, resume_id, change)


def native_session_id(ws, resume_id: str) -> str | None:
    value = session_state(ws, resume_id).get("nativeSessionId")
    return value if isinstance(value, str) and value else None
