"""The gateway's own refusals, in the CLI's error envelope plus an HTTP status."""

from __future__ import annotations

from openalice.core.errors import AliceError

__all__ = ["HttpError", "STATUS_FOR_EXIT", "error_document"]

# The CLI exit codes (0 ok, 1 internal, 2 bad input, 3 unavailable, 4 not allowed) → HTTP.
# Anything else (a signal, an unknown code) is 500.
STATUS_FOR_EXIT = {0: 200, 1: 500, 2: 400, 3: 503, 4: 403}
_EXIT_FOR_STATUS = {400: 2, 401: 4, 403: 4, 404: 2, 405: 2, 408: 2, 411: 2, 413: 2, 414: 2, 415: 2,
                    431: 2, 501: 2, 503: 3, 505: 2}


class HttpError(AliceError):
    """A request the gateway refuses before (or instead of) running a CLI."""

    def __init__(self, status: int, message: str, *, code: str, field: str | None = None,
                 details: dict | None = None, headers: dict | None = None) -> None:
        super().__init__(message, code=code, field=field, details=details)
        self.status = status
        self.exit_code = _EXIT_FOR_STATUS.get(status, 1)
        self.headers = headers or {}


def error_document(err: AliceError) -> dict:
    return {"error": err.to_dict()}
