"""Bodies on the move: exact-length copies (one reused buffer, or ``os.splice`` through a pipe on
Linux, so the bytes never enter Python), chunked bodies read only for their end or re-framed, and
the byte tunnel of an upgraded WebSocket."""

from __future__ import annotations

import os
import socket
import threading

from .wire import BadMessage, Reader, chunk_size

BUFFER = 256 * 1024
SPLICE_MIN = 256 * 1024       # bodies at least this long go through a pipe (os.splice), when available
SPLICE_CHUNK = 16 * 1024      # chunks of a chunked body at least this long, too
SIZE_LINE_READ = 512          # while chunks are spliced: peek this much to read the next size line
SPLICE = getattr(os, "splice", None)


class ChunkedEnd:
    """Where a chunked body ends, read off the stream as it passes: only the chunk-size lines
    and the trailer section are looked at, never copied out of the buffer."""

    __slots__ = ("left", "line", "trailers")

    def __init__(self) -> None:
        self.left = 0          # bytes of chunk data (and its CRLF) still to pass
        self.line = b""        # a size or trailer line cut by the end of a block
        self.trailers = False

    def scan(self, block, start: int, stop: int) -> int:
        """The index just past the body's end within ``block[start:stop]``, or -1."""
        i = start
        while i < stop:
            if self.left:
                step = min(self.left, stop - i)
                i += step
                self.left -= step
                continue
            end = block.find(b"\n", i, stop)
            if end < 0:
                self.line += bytes(block[i:stop])
                if len(self.line) > 4096:
                    raise BadMessage("a chunk-size line is too long")
                return -1
            line = (self.line + bytes(block[i:end])).rstrip(b"\r")
            self.line = b""
            i = end + 1
            if self.trailers:
                if not line:
                    return i
                continue
            size = chunk_size(line)
            if size == 0:
                self.trailers = True
            else:
                self.left = size + 2
        return -1


def copy_exact(source: socket.socket, target: socket.socket, count: int, view: memoryview, pipe) -> None:
    """Move exactly ``count`` bytes from ``source`` to ``target``: through a pipe with
    ``os.splice`` (the kernel moves pages; nothing enters Python) when ``pipe`` is given,
    else through ``view`` (one reused buffer)."""
    if pipe is not None:
        read_end, write_end = pipe
        src, dst = source.fileno(), target.fileno()
        while count:
            moved = SPLICE(src, write_end, min(count, BUFFER), flags=os.SPLICE_F_MOVE)
            if not moved:
                raise ConnectionError("the upstream closed inside a body")
            count -= moved
            while moved:
                moved -= SPLICE(read_end, dst, moved, flags=os.SPLICE_F_MOVE)
        return
    size = len(view)
    while count:
        n = source.recv_into(view[:count] if count < size else view)
        if not n:
            raise ConnectionError("the peer closed inside a body")
        target.sendall(view[:n])
        count -= n


def copy_dechunked(reader: Reader, target: socket.socket, *, reframe: bool) -> None:
    """Copy the data of the chunked body ``reader`` is at: as new chunks without extensions
    or trailers (``reframe``), or bare (for an HTTP/1.0 client)."""
    while True:
        line = reader.readline()
        if not line:
            raise ConnectionError("the stream closed inside a chunked body")
        size = chunk_size(line)
        if size == 0:
            while reader.readline() not in (b"\r\n", b"\n", b""):
                pass
            if reframe:
                target.sendall(b"0\r\n\r\n")
            return
        if reframe:
            target.sendall(b"%x\r\n" % size)
        left = size
        while left:
            data = reader.take(min(left, BUFFER))
            if not data:
                raise ConnectionError("the stream closed inside a chunk")
            target.sendall(data)
            left -= len(data)
        if reframe:
            target.sendall(b"\r\n")
        if reader.readline() not in (b"\r\n", b"\n"):
            raise BadMessage("a chunk's data is not followed by CRLF")


def chunk_ahead(peeked: bytes) -> int:
    """The length of the next whole chunk (size line, data, CRLF) from a peek at its size line;
    0 when it cannot be told (the line is not all there, the last chunk, a bad size)."""
    end = peeked.find(b"\n")
    if end < 0:
        return 0
    try:
        size = chunk_size(peeked[:end + 1])
    except BadMessage:
        return 0
    return end + 1 + size + 2 if size > 0 else 0


def pipe_both_ways(client: socket.socket, upstream: socket.socket) -> None:
    """Copy bytes client → upstream in a thread and upstream → client here, until both sides end."""

    def client_to_upstream() -> None:
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                upstream.sendall(data)
        except OSError:
            pass
        finally:
            try:
                upstream.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    pump = threading.Thread(target=client_to_upstream, name="ws-client-to-upstream", daemon=True)
    pump.start()
    try:
        while True:
            data = upstream.recv(65536)
            if not data:
                break
            client.sendall(data)
    except OSError:
        pass
    finally:
        try:
            client.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        pump.join(5.0)
        upstream.close()
