"""Sessions: each one's runtime binding (agent, credential source, model,
effort) is frozen at birth in ``.alice/sessions/<resumeId>.json`` and replayed
by every surface; later preference changes never touch it."""

from .binding import SURFACES
from .native import native_session_id, record_launch, record_native_session, session_state
from .resolve import remember_recent, resolve_binding
from .store import (
    ADJECTIVES,
    KEEP,
    MATERIALS,
    NOUNS,
    BindingConflict,
    SessionBinding,
    check_resume_id,
    create_session,
    ensure_session,
    list_sessions,
    load_session,
    make_binding,
    new_resume_id,
    normalize_credential,
    rename_session,
    replace_binding,
    session_path,
    sessions_dir,
)

__all__ = [
    "ADJECTIVES", "KEEP", "MATERIALS", "NOUNS", "SURFACES", "BindingConflict", "SessionBinding",
    "check_resume_id", "create_session", "ensure_session", "list_sessions", "load_session",
    "make_binding", "native_session_id", "new_resume_id", "normalize_credential", "record_launch",
    "record_native_session", "remember_recent", "rename_session", "replace_binding", "resolve_binding", "session_path",
    "session_state", "sessions_dir",
]
