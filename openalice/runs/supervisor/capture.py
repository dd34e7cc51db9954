"""Capture: each pipe of the agent drained into a capped log, stdout lines
handed to the normalizer, and ``structured.json`` rewritten while it runs."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from openalice.core import fs, pipes
from openalice.core.fs.writes import write_all

STREAM_CAP = 16 * 1024 * 1024        # bytes kept of each raw stream (stdout.log, stderr.log)
LINE_LIMIT = 4 * 1024 * 1024         # one stdout line held in memory at most; the rest is skipped
READ_SIZE = pipes.READ_SIZE         # bytes per read of a child's pipe
SNAPSHOT_INTERVAL = 0.25             # structured.json is rewritten at most this often while running


class Pump(threading.Thread):
    """Drain one pipe into a capped log file, handing each stdout line on.

    The pipe is read in chunks as they arrive (one log write per chunk, so
    the log is current without a write per line), then split into lines
    (:func:`openalice.core.pipes.read_lines`, the one pipe reader).
    Past ``STREAM_CAP`` the log stops growing but the pipe is still drained
    (a child blocked on a full pipe would never exit) and lines still reach
    ``on_line``.  A line longer than ``LINE_LIMIT`` is handed on cut at the
    limit and its remainder skipped, so memory stays bounded.
    """

    def __init__(self, pipe, log_path: Path, on_line: Callable[[bytes], None] | None, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.pipe = pipe
        self.log_path = log_path
        self.on_line = on_line
        self.written = 0
        self.dropped = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        except OSError as exc:
            self.error = exc
            fd = -1
        source = self.pipe.fileno()
        try:
            if self.on_line is None:
                for chunk in pipes.read_chunks(source, READ_SIZE):
                    self._log(fd, chunk)
            else:
                for line, _cut in pipes.read_lines(source, limit=LINE_LIMIT, size=READ_SIZE,
                                                   on_chunk=lambda chunk: self._log(fd, chunk)):
                    self.on_line(line)
        except BaseException as exc:
            self.error = exc
            pipes.drain(source, READ_SIZE)
        finally:
            if fd >= 0:
                if self.dropped:
                    note = f"\n[openalice: log capped at {STREAM_CAP} bytes; {self.dropped} bytes not kept]\n"
                    write_all(fd, note.encode())
                os.close(fd)
            try:
                self.pipe.close()
            except OSError:
                pass

    def _log(self, fd: int, chunk: bytes) -> None:
        room = STREAM_CAP - self.written
        if fd < 0 or room <= 0:
            self.dropped += len(chunk)
            return
        part = chunk[:room]
        try:
            write_all(fd, part)
        except OSError as exc:
            self.error = exc
            self.dropped += len(chunk)
            return
        self.written += len(part)
        self.dropped += len(chunk) - len(part)


class SnapshotWriter(threading.Thread):
    """Rewrites structured.json (atomically, compact) at most every
    ``SNAPSHOT_INTERVAL`` seconds while new output arrives."""

    def __init__(self, path: Path, snapshot: Callable[[], dict]) -> None:
        super().__init__(name="structured-writer", daemon=True)
        self.path = path
        self.snapshot = snapshot
        self.dirty = threading.Event()
        self.stopping = threading.Event()

    def run(self) -> None:
        while True:
            self.dirty.wait()
            if self.stopping.is_set():
                return
            self.dirty.clear()
            try:
                fs.atomic_write_json(self.path, self.snapshot(), indent=None, mode=0o600, durable=False)
            except OSError as exc:  # the final write at the end still happens
                print(f"supervisor: structured.json not updated: {exc}", file=sys.stderr)
            if self.stopping.wait(SNAPSHOT_INTERVAL):
                return

    def stop(self) -> None:
        self.stopping.set()
        self.dirty.set()
        self.join()


def feed_stdin(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError, ValueError):
        pass  # the engine closed its stdin early; its exit tells the story
    finally:
        try:
            pipe.close()
        except (BrokenPipeError, OSError, ValueError):
            pass

