"""Sessions: each one's runtime binding (agent, credential source, model,
effort) is frozen at birth in ``.alice/sessions/<resumeId>.json`` and replayed
by every surface; later preference changes never touch it."""

from .resolve import resolve_binding  # noqa: F401
from .store import (  # noqa: F401
    ADJECTIVES, KEEP, MATERIALS, NOUNS, BindingConflict, SessionBinding, check_resume_id, create_session,
    ensure_session, list_sessions, load_session, make_binding, native_session_id, new_resume_id,
    normalize_credential, record_native_session, rename_session, replace_binding, session_path, sessions_dir,
)

__all__ = [
    "ADJECTIVES", "KEEP", "MATERIALS", "NOUNS", "BindingConflict", "SessionBinding", "check_resume_id",
    "create_session", "ensure_session", "list_sessions", "load_session", "make_binding", "native_session_id",
    "new_resume_id", "normalize_credential", "record_native_session", "rename_session", "replace_binding",
    "resolve_binding", "session_path", "sessions_dir",
]
