"""Asking the person at the controlling terminal, and nobody else.

An approval must come from a person, so it is read from ``/dev/tty`` (the
process's controlling terminal), never from stdin, which a program can fill.
A process without a controlling terminal (a cron job, a detached tool call,
a pipe) cannot be approved: :func:`confirm` answers ``None`` and the caller
treats that as a refusal.
"""

from __future__ import annotations

import os

__all__ = ["confirm", "TTY_PATH", "MAX_ANSWER"]

TTY_PATH = "/dev/tty"
MAX_ANSWER = 256


def confirm(question: str, *, tty_path: str = TTY_PATH) -> bool | None:
    """Show ``question`` on the terminal and read one line: True for y/yes, False for anything
    else, None when there is no controlling terminal to ask."""
    try:
        fd = os.open(tty_path, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not os.isatty(fd):
            return None
        os.write(fd, (question.rstrip() + " [y/N] ").encode("utf-8", "replace"))
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < MAX_ANSWER:
            chunk = os.read(fd, 1)
            if not chunk:
                break
            answer += chunk
        if not answer.endswith(b"\n"):
            os.write(fd, b"\n")
    except OSError:
        return None
    finally:
        os.close(fd)
    return answer.decode("utf-8", "replace").strip().lower() in ("y", "yes")
