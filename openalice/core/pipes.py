"""Reading a child's pipe: in chunks as they arrive, split into bounded lines.

The one pipe reader of the toolkit: the run supervisor's stream pump
(:mod:`openalice.runs.supervisor.capture`), Studio's log pump
(:mod:`openalice.studio.logfile`) and the adapter wrapper's output capture
(:mod:`openalice.adapters.invoke`) read through it::

    for chunk in pipes.read_chunks(fd):             # raw bytes, as the child wrote them
        ...
    for line, cut in pipes.read_lines(fd, limit=LINE_LIMIT, on_chunk=log):
        ...                                         # each line with its b"\\n" (not the last, if unterminated)

A line is never held beyond ``limit`` bytes: a longer one is handed on cut at
the limit (``cut`` True, no newline) and the rest of it, up to its newline,
is skipped, so memory stays bounded whatever the child prints.  A pipe is
always read to its end (:func:`drain` after an error): a child blocked on a
full pipe would never exit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

__all__ = ["READ_SIZE", "read_chunks", "LineSplitter", "read_lines", "drain"]

READ_SIZE = 64 * 1024       # bytes per read of a child's pipe


def read_chunks(fd: int, size: int = READ_SIZE) -> Iterator[bytes]:
    """The pipe's bytes, one ``os.read`` at a time, until end of file."""
    while chunk := os.read(fd, size):
        yield chunk


class LineSplitter:
    """Chunks in, ``(line, cut)`` out: lines keep their ``b"\\n"``; one longer than ``limit`` comes
    out cut at ``limit`` (``cut`` True) and its remainder is dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pending = bytearray()
        self.skipping = False      # inside the remainder of an overlong line

    def feed(self, chunk: bytes) -> list[tuple[bytes, bool]]:
        out: list[tuple[bytes, bool]] = []
        pending, limit = self.pending, self.limit
        pending += chunk
        start = 0
        while (end := pending.find(b"\n", start)) >= 0:
            if self.skipping:
                self.skipping = False
            else:
                cut = end + 1 - start > limit
                out.append((bytes(pending[start:min(end + 1, start + limit)]), cut))
            start = end + 1
        del pending[:start]
        if len(pending) >= limit:
            if not self.skipping:
                out.append((bytes(pending[:limit]), True))
            self.skipping = True
            pending.clear()
        return out

    def end(self) -> list[tuple[bytes, bool]]:
        """The unterminated last line, if any (and not the remainder of a cut one)."""
        last = [(bytes(self.pending), False)] if self.pending and not self.skipping else []
        self.pending.clear()
        return last


def read_lines(fd: int, *, limit: int, size: int = READ_SIZE,
               on_chunk: Callable[[bytes], None] | None = None) -> Iterator[tuple[bytes, bool]]:
    """Every line of the pipe as ``(line, cut)`` (:class:`LineSplitter`); ``on_chunk`` sees each
    raw chunk first (a log written once per read, not once per line)."""
    splitter = LineSplitter(limit)
    for chunk in read_chunks(fd, size):
        if on_chunk is not None:
            on_chunk(chunk)
        yield from splitter.feed(chunk)
    yield from splitter.end()


def drain(fd: int, size: int = READ_SIZE) -> None:
    """Read and drop the rest of the pipe (errors ignored: the reader is giving up)."""
    try:
        for _ in read_chunks(fd, size):
            pass
    except OSError:
        pass
