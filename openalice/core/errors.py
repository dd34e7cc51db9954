"""Exception classes, each mapped to one of the toolkit's exit codes.

Every error a user can cause is an :class:`AliceError`; the CLI layer turns it
into a message on stderr (or the JSON error envelope) and its ``exit_code``.
Anything else that escapes is a bug and exits 1.

    0 ok · 1 operational failure · 2 usage or invalid input
    3 unavailable or busy · 4 forbidden
"""

from __future__ import annotations

__all__ = [
    "EXIT_OK", "EXIT_OPERATIONAL", "EXIT_INVALID", "EXIT_UNAVAILABLE", "EXIT_FORBIDDEN",
    "AliceError", "OperationalError", "UsageError", "InvalidInput", "NotFound", "Conflict",
    "Unavailable", "Busy", "Forbidden", "PathEscape", "excerpt",
]

EXIT_OK = 0
EXIT_OPERATIONAL = 1
EXIT_INVALID = 2
EXIT_UNAVAILABLE = 3
EXIT_FORBIDDEN = 4


class AliceError(Exception):
    """Base of every handled error.

    ``code`` is a stable slug for scripts; ``file`` and ``field`` say where the
    problem is; ``details`` is extra JSON-able data for ``--json`` output.
    """

    exit_code = EXIT_OPERATIONAL
    default_code = "operational"

    def __init__(self, message: str, *, code: str | None = None, file: object = None,
                 field: str | None = None, details: dict | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.file = None if file is None else str(file)
        self.field = field
        self.details = details or {}

    def location(self) -> str:
        """``file:field`` prefix (either part may be absent)."""
        parts = [p for p in (self.file, self.field) if p]
        return ":".join(parts)

    def __str__(self) -> str:
        where = self.location()
        if not where or (self.file is None and self.message.startswith(f"{self.field} ")):
            # "--digest must be ..." already names its field: no "--digest: " before it
            return self.message
        return f"{where}: {self.message}"

    def to_dict(self) -> dict:
        out = {"code": self.code, "message": self.message, "exit": self.exit_code}
        if self.file is not None:
            out["file"] = self.file
        if self.field is not None:
            out["field"] = self.field
        if self.details:
            out["details"] = self.details
        return out


class OperationalError(AliceError):
    """I/O failure or an internal problem (exit 1)."""


class UsageError(AliceError):
    """Bad flag or argument combination (exit 2)."""

    exit_code = EXIT_INVALID
    default_code = "usage"


class InvalidInput(AliceError):
    """Malformed file, failed validation, bad value (exit 2)."""

    exit_code = EXIT_INVALID
    default_code = "invalid"


class NotFound(InvalidInput):
    """Unknown id or missing file that the user named (exit 2)."""

    default_code = "not_found"


class Conflict(InvalidInput):
    """The thing already exists or is in the wrong state for the request (exit 2)."""

    default_code = "conflict"


class Unavailable(AliceError):
    """Something needed is down, missing or busy (exit 3)."""

    exit_code = EXIT_UNAVAILABLE
    default_code = "unavailable"


class Busy(Unavailable):
    """A lock or lease is held, or a run is already going (exit 3)."""

    default_code = "busy"


class Forbidden(AliceError):
    """Disabled by configuration, or not allowed from here (exit 4)."""

    exit_code = EXIT_FORBIDDEN
    default_code = "forbidden"


class PathEscape(Forbidden):
    """A path leaves the root it must stay inside (exit 4)."""

    default_code = "path_escape"


def excerpt(text: str, limit: int = 40) -> str:
    """The start of a refused value, for its message: at most ``limit`` characters, then ``...``."""
    return text if len(text) <= limit else text[:limit] + "..."
