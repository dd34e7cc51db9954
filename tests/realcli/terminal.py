"""A pseudo-terminal for driving an interactive CLI from a test (stdlib ``pty`` only).

``Terminal(argv, env=, cwd=)`` starts ``argv`` with a fresh pseudo-terminal as
its controlling terminal and stdin/stdout/stderr, 120x40.  ``expect(text)``
reads until ``text`` appears in what the program drew (escape sequences
removed, whitespace collapsed), ``type(text)`` sends keys, ``close()`` ends it.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time

_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\"
                      rb"|\x1b[@-Z\\-_]|\x1b[()][0-9A-Za-z]")


def plain(raw: bytes) -> str:
    """What a person would read: no escape sequences, no control characters, spaces collapsed."""
    text = _ESCAPES.sub(b" ", raw).decode("utf-8", "replace")
    text = "".join(c if c.isprintable() or c == "\n" else " " for c in text)
    return re.sub(r"[ \t]+", " ", text)


def squashed(raw: bytes) -> str:
    """The drawn characters with no escape sequences and no whitespace at all: a TUI that
    draws cell by cell (cursor moves between letters) still shows its words here."""
    text = _ESCAPES.sub(b"", raw).decode("utf-8", "replace")
    return "".join(c for c in text if c.isprintable() and not c.isspace())


class Terminal:
    def __init__(self, argv: list[str], *, env: dict, cwd, rows: int = 40, cols: int = 120) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

        def controlling() -> None:
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        env = {**env, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)}
        self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=slave, stdout=slave, stderr=slave,
                                     preexec_fn=controlling, close_fds=True)
        os.close(slave)
        self.master = master
        self.raw = b""

    def _pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self.master], [], [], min(left, 0.1))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self.raw += chunk
                self._answer_queries(chunk)

    def _answer_queries(self, chunk: bytes) -> None:
        # Terminal queries a real terminal answers; a TUI may wait for them.
        if b"\x1b[6n" in chunk:            # cursor position report
            self.send(b"\x1b[1;1R")
        if b"\x1b[c" in chunk or b"\x1b[0c" in chunk:   # primary device attributes
            self.send(b"\x1b[?62;22c")
        if b"\x1b]11;?" in chunk:          # background colour
            self.send(b"\x1b]11;rgb:0000/0000/0000\x1b\\")
        if b"\x1b]10;?" in chunk:          # foreground colour
            self.send(b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\")

    @property
    def screen(self) -> str:
        return plain(self.raw)

    def shows(self, text: str, since: int = 0) -> bool:
        raw = self.raw[since:]
        return text in plain(raw) or "".join(text.split()) in squashed(raw)

    def expect(self, text: str, timeout: float = 60, since: int = 0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.shows(text, since):
                return True
            if self.proc.poll() is not None:
                self._pump(0.2)
                return self.shows(text, since)
            self._pump(0.2)
        return False

    def settle(self, seconds: float) -> None:
        self._pump(seconds)

    def send(self, data: bytes) -> None:
        try:
            os.write(self.master, data)
        except OSError:
            pass

    def type(self, text: str, *, enter: bool = True, delay: float = 0.02) -> None:
        for ch in text:
            self.send(ch.encode("utf-8"))
            time.sleep(delay)
        if enter:
            time.sleep(0.3)
            self.send(b"\r")

    def wait(self, timeout: float = 30) -> int | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._pump(0.1)
                return self.proc.returncode
            self._pump(0.2)
        return None

    def close(self) -> int | None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        try:
            os.close(self.master)
        except OSError:
            pass
        return self.proc.returncode
