"""Desktop notifications: ``notify-send`` on Linux, ``osascript`` on macOS.

Argv only, never a shell: the title and the text are separate arguments (on
macOS passed to the AppleScript as ``argv`` items, never spliced into the
script).  The text is the body's first 1,000 characters (a notification is a
nudge; the report is in the Inbox).
"""

from __future__ import annotations

import subprocess
import sys

from openalice.core import executables

from .http import SendError

__all__ = ["command", "notify", "TEXT_LIMIT"]

TEXT_LIMIT = 1000
_APPLESCRIPT = ("on run argv", "display notification (item 2 of argv) with title (item 1 of argv)",
                "end run")


def command(title: str, text: str, *, platform: str | None = None) -> list[str]:
    platform = sys.platform if platform is None else platform
    if len(text) > TEXT_LIMIT:
        text = text[:TEXT_LIMIT - 1] + "…"
    if platform == "darwin":
        argv = ["osascript"]
        for line in _APPLESCRIPT:
            argv += ["-e", line]
        return argv + [title, text]
    return ["notify-send", "--app-name=OpenAlice", "--", title, text]


def notify(title: str, text: str, *, timeout: float = 10.0) -> str:
    argv = command(title, text)
    exe = executables.which(argv[0])
    if exe is None:
        raise SendError(f"desktop: {argv[0]} is not installed (not on PATH)")
    try:
        proc = subprocess.run([exe, *argv[1:]], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise SendError(f"desktop: {argv[0]} did not finish in {timeout:g} s") from None
    except OSError as exc:
        raise SendError(f"desktop: cannot run {argv[0]}: {exc.strerror}") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()[:300]
        raise SendError(f"desktop: {argv[0]} exited {proc.returncode}: {err}".rstrip(": "))
    return f"{argv[0]} shown"
