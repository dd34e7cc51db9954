"""The one pipe reader (:mod:`openalice.core.pipes`): chunks as they arrive, bounded lines."""

from __future__ import annotations

import os
import threading

from openalice.core import pipes


def pipe_with(data: bytes) -> int:
    """A pipe's read end whose writer sends ``data`` then closes."""
    read_fd, write_fd = os.pipe()

    def write():
        with os.fdopen(write_fd, "wb") as fh:
            fh.write(data)

    threading.Thread(target=write, daemon=True).start()
    return read_fd


def test_lines_keep_their_newline_and_the_unterminated_last_one_comes_last():
    fd = pipe_with(b"one\ntwo\r\nlast")
    try:
        assert list(pipes.read_lines(fd, limit=100, size=3)) == [
            (b"one\n", False), (b"two\r\n", False), (b"last", False)]
    finally:
        os.close(fd)


def test_an_overlong_line_is_cut_at_the_limit_and_its_rest_skipped_across_reads():
    data = b"a\n" + b"y" * 25 + b"\nb\n" + b"z" * 12 + b"tail without newline"
    for size in (1, 4, 7, 64):       # the line straddles reads, or sits whole in one
        fd = pipe_with(data)
        chunks: list[bytes] = []
        try:
            lines = list(pipes.read_lines(fd, limit=10, size=size, on_chunk=chunks.append))
        finally:
            os.close(fd)
        assert lines == [(b"a\n", False), (b"y" * 10, True), (b"b\n", False), (b"z" * 10, True)], size
        assert b"".join(chunks) == data       # every byte seen raw, once
        assert max(len(c) for c in chunks) <= size


def test_the_splitter_holds_at_most_the_limit():
    splitter = pipes.LineSplitter(8)
    assert splitter.feed(b"1234567") == []
    assert splitter.feed(b"89abcdef") == [(b"12345678", True)]
    assert len(splitter.pending) == 0 and splitter.skipping
    assert splitter.feed(b"gh\nok\n") == [(b"ok\n", False)]
    assert splitter.end() == []
    assert splitter.feed(b"end") == [] and splitter.end() == [(b"end", False)]


def test_chunks_and_drain_read_to_the_end():
    data = os.urandom(200_000)
    fd = pipe_with(data)
    try:
        assert b"".join(pipes.read_chunks(fd, 4096)) == data
    finally:
        os.close(fd)
    fd = pipe_with(data)
    try:
        pipes.drain(fd)
        assert os.read(fd, 10) == b""
    finally:
        os.close(fd)
    pipes.drain(fd)        # a closed descriptor: ignored, the reader is giving up anyway
