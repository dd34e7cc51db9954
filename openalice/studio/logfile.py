"""Studio logs: captured redacted as they are written, shown as a redacted tail.

The supervisor pipes the app's stdout and stderr through :class:`LogPump`:
each line has credential-shaped values scrubbed (:func:`openalice.core.redact.redact`)
before it reaches ``studio.log``, so no secret an app prints lands on disk.
Past ``ROTATE_BYTES`` the file becomes ``studio.log.1`` (one old file kept).

:func:`tail` reads at most ``TAIL_BYTES`` (64 KiB) from the end, across the
rotation, and redacts again for display, this time also hiding loopback
addresses (``127.0.0.1:49321`` → ``[HARNESS_LOOPBACK]``): the proxy host is the
one way in, and a raw port would invite bypassing it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from openalice.core import patterns, pipes
from openalice.core.redact import redact

__all__ = ["TAIL_BYTES", "ROTATE_BYTES", "LINE_LIMIT", "LOOPBACK", "redact_line", "redact_for_display",
           "LogPump", "write_marker", "tail"]

TAIL_BYTES = 64 * 1024
ROTATE_BYTES = 8 * 1024 * 1024
LINE_LIMIT = 16 * 1024          # a longer line is cut (and marked) before redaction
LOOPBACK = "[HARNESS_LOOPBACK]"
_LOOPBACK_RE = patterns.compile(
    r"(?i)(?<![\w.-])(?:127(?:\.\d{1,3}){3}|localhost|\[::1\]|::1|0\.0\.0\.0)(?::\d{1,5})\b(?![\w-])")


def redact_line(text: str) -> str:
    """Credential-shaped values (bearer tokens, ``token=…``, ``api_key: …``,
    ``secret``, ``password``, known key shapes) replaced by ``[REDACTED]``."""
    return redact(text)


def redact_for_display(text: str) -> str:
    """:func:`redact_line` plus loopback ``host:port`` → ``[HARNESS_LOOPBACK]``."""
    return _LOOPBACK_RE.sub(LOOPBACK, redact_line(text))


class LogPump(threading.Thread):
    """Drain one pipe into the shared log file, a redacted line at a time.

    Several pumps (stdout, stderr) share one :class:`_LogFile`; each whole line
    is one ``write`` under its lock, so lines never interleave mid-way.  Lines
    come from :func:`openalice.core.pipes.read_lines` (the one pipe reader): one
    longer than ``LINE_LIMIT`` is cut and marked, and its rest skipped.  The
    pipe is always drained to its end, even when the log cannot be written (a
    child blocked on a full pipe would never exit).
    """

    def __init__(self, pipe, log: "_LogFile", name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.pipe = pipe
        self.log = log

    def run(self) -> None:
        try:
            for line, cut in pipes.read_lines(self.pipe.fileno(), limit=LINE_LIMIT):
                self.log.write_line(line[:-1] if line.endswith(b"\n") else line, cut=cut)
        except OSError:
            pass
        finally:
            try:
                self.pipe.close()
            except OSError:
                pass


class _LogFile:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.lock = threading.Lock()
        self.fd = -1
        self.size = 0
        self._open()

    def _open(self) -> None:
        try:
            self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            self.size = os.fstat(self.fd).st_size
        except OSError:
            self.fd = -1

    def write_line(self, raw: bytes, *, cut: bool = False) -> None:
        cut = cut or len(raw) > LINE_LIMIT
        text = raw[:LINE_LIMIT].decode("utf-8", "replace").rstrip("\r")
        data = (redact_line(text) + (" [line cut]" if cut else "") + "\n").encode("utf-8")
        with self.lock:
            if self.fd < 0:
                return
            if self.size + len(data) > ROTATE_BYTES:
                self._rotate()
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view):]
                self.size += len(data)
            except OSError:
                pass

    def _rotate(self) -> None:
        os.close(self.fd)
        try:
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        except OSError:
            pass
        self._open()

    def close(self) -> None:
        with self.lock:
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1


def open_log(path: Path) -> _LogFile:
    return _LogFile(path)


def write_marker(log: _LogFile, text: str) -> None:
    """A line of our own in the app's log (generation boundaries)."""
    log.write_line(f"--- openalice: {text} ---".encode())


def _read_end(path: Path, limit: int) -> tuple[bytes, int]:
    """The last ``limit`` bytes of ``path`` and the file's size (0, b"" if missing)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - limit))
            return fh.read(limit), size
    except OSError:
        return b"", 0


def tail(path: Path, limit: int = TAIL_BYTES) -> dict:
    """The redacted last ``limit`` bytes of the log (reaching into ``.1``).

    ``truncated`` says older output exists beyond what is shown; a line cut
    at the start of the window is dropped rather than shown half.
    """
    limit = max(1, min(int(limit), TAIL_BYTES))
    current, size = _read_end(path, limit)
    older_size = 0
    data = current
    if len(current) < limit:
        older, older_size = _read_end(path.with_name(path.name + ".1"), limit - len(current))
        data = older + current
    total = size + older_size
    truncated = total > len(data)
    if truncated:
        cut = data.find(b"\n")
        data = data[cut + 1:] if cut >= 0 else b""
    text = redact_for_display(data.decode("utf-8", "replace"))
    return {"file": str(path), "bytes": len(data), "truncated": truncated, "text": text}
