"""What an unauthenticated or hostile client can make the gateway hold: the headers are
judged before any body byte is read, heads and bodies are capped (431/413), connections are
capped (503) with the slowest heads evicted first, framing is strict, JSON depth bounded."""

from __future__ import annotations

import io
import json
import socket
import threading
import time

import pytest

from openalice.gateway import Gateway
from openalice.gateway.runner import CliResult

from .conftest import FakeRunner


def _raw(port: int, data: bytes, *, timeout: float = 5.0) -> tuple[int, bytes]:
    """Send ``data``, read the answer's status and body (the gateway answers at once, or
    the test fails on the socket timeout)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        got = b""
        while b"\r\n\r\n" not in got:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
        head, _, body = got.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
        return int(head.split(b" ")[1]), body


def _code(body: bytes) -> str:
    return json.loads(body)["error"]["code"]


def _head(fake, method: str = "POST", path: str = "/api/issues", *, auth: bool = True,
          state: bool = True, extra: str = "", host: str | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{fake.port}'}"]
    if auth:
        lines.append(f"Authorization: Bearer {fake.token}")
    if state:
        lines += [f"X-OpenAlice-Token: {fake.token}", f"Origin: http://127.0.0.1:{fake.port}"]
    lines.append("Content-Type: application/json")
    return ("\r\n".join(lines) + "\r\n" + extra + "\r\n").encode()


@pytest.mark.parametrize("case,status,code", [
    ("bad-host", 403, "bad_host"),
    ("no-token", 401, "unauthenticated"),
    ("bad-origin", 403, "bad_origin"),
])
def test_the_headers_are_judged_before_any_body_byte_is_read(fake, case, status, code):
    """A refused request announcing a 1 MiB body it never sends is answered at once."""
    head = _head(fake, auth=case != "no-token", host="evil.example" if case == "bad-host" else None,
                 extra="Content-Length: 1000000\r\n")
    if case == "bad-origin":
        head = head.replace(f"Origin: http://127.0.0.1:{fake.port}".encode(), b"Origin: http://evil.example")
    got, body = _raw(fake.port, head)
    assert (got, _code(body)) == (status, code)
    assert fake.runner.calls == []


@pytest.mark.parametrize("lengths", [("2", "3"), ("2", "2"), ("2, 2",), ("+2",), ("0x2",),
                                     ("9" * 30,)])
def test_duplicate_conflicting_or_malformed_content_lengths_are_400(fake, lengths):
    extra = "".join(f"Content-Length: {v}\r\n" for v in lengths)
    got, body = _raw(fake.port, _head(fake, extra=extra) + b"{}")
    assert got == 400 and _code(body) == "bad_request", (lengths, body)
    assert fake.runner.calls == []


def test_a_body_over_the_cap_is_413_for_an_authenticated_client_and_401_for_others(fake):
    head = _head(fake, extra=f"Content-Length: {8 * 1024 * 1024}\r\n")
    assert _raw(fake.port, head)[0] == 413
    assert _raw(fake.port, _head(fake, auth=False, extra="Content-Length: 99999999\r\n"))[0] == 401
    assert fake.runner.calls == []


def test_a_head_over_32_kib_is_431(fake):
    pad = "X-Pad: " + "a" * (33 * 1024) + "\r\n"
    got, body = _raw(fake.port, _head(fake, "GET", "/api/inbox", state=False, extra=pad))
    assert got == 431 and _code(body) == "headers_too_large"
    many = "".join(f"X-Pad-{i}: {'b' * 400}\r\n" for i in range(90))
    assert _raw(fake.port, _head(fake, "GET", "/api/inbox", state=False, extra=many))[0] == 431
    got, body = _raw(fake.port, b"GET /" + b"a" * (40 * 1024) + b" HTTP/1.1\r\n\r\n")
    assert got == 414 and _code(body) == "uri_too_long"
    for line, status in ((b"GARBAGE", 400), (b"GET / HTTP/2.0", 505), (b"BREW / HTTP/1.1", 501)):
        got, body = _raw(fake.port, line + f"\r\nHost: 127.0.0.1:{fake.port}\r\n\r\n".encode())
        assert got == status and json.loads(body)["error"]["exit"] == 2, line   # the envelope
    assert fake.runner.calls == []


@pytest.mark.parametrize("body", [b"[" * 100_000 + b"]" * 100_000,
                                  b'{"title": ' + b"[" * 5000 + b"]" * 5000 + b', "workspace": "notes"}',
                                  b'{"workspace": "notes", "title": "x", "timeout": 1' + b"0" * 50_000 + b"}"],
                         ids=["100000-deep", "5000-deep-field", "huge-number"])
def test_deep_or_huge_json_is_400_not_500(fake, body):
    r = fake.request("POST", "/api/issues", body)
    assert r.status == 400 and r.json()["error"]["code"] == "bad_body", r
    r = fake.request("POST", "/api/adapters/claude", body)
    assert r.status == 400, r
    assert fake.runner.calls == []
    assert "gateway_failed" not in fake.log.getvalue()


# -- connections -------------------------------------------------------------------------------

class BlockingRunner(FakeRunner):
    """Holds every CLI call until released (the connections stay busy)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.started = threading.Semaphore(0)

    def run(self, tool, args, *, stdin=None, timeout=None) -> CliResult:
        self.started.release()
        self.release.wait(20)
        return super().run(tool, args, stdin=stdin, timeout=timeout)


@pytest.fixture
def small():
    runner = BlockingRunner()
    gateway = Gateway(port=0, runner=runner, log=io.StringIO(), max_connections=8).start()
    gateway.runner_ = runner
    yield gateway
    runner.release.set()
    gateway.close()


def _get(gateway, path: str = "/api/inbox/unread-count", timeout: float = 10.0) -> int:
    head = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{gateway.port}\r\n"
            f"Authorization: Bearer {gateway.token}\r\nConnection: close\r\n\r\n").encode()
    return _raw(gateway.port, head, timeout=timeout)[0]


def test_busy_connections_are_capped_with_503(small):
    results: list[int] = []
    workers = [threading.Thread(target=lambda: results.append(_get(small))) for _ in range(8)]
    for w in workers:
        w.start()
    for _ in range(8):
        assert small.runner_.started.acquire(timeout=10)
    assert _get(small, timeout=5) == 503        # every slot is busy: refused at once
    small.runner_.release.set()
    for w in workers:
        w.join(10)
    assert results == [200] * 8
    assert _get(small) == 200


def test_a_slowloris_of_1000_connections_leaves_the_gateway_serving_others(fake):
    """1,000 loopback connections each sending a partial head and stalling: the gateway keeps
    answering a well-behaved client, and its threads stay bounded (the slowest heads are
    evicted when the cap is reached). The test closes every socket itself."""
    before = threading.active_count()
    stalled: list[socket.socket] = []
    served: list[tuple[float, int]] = []
    try:
        for i in range(1000):
            sock = socket.create_connection(("127.0.0.1", fake.port), timeout=5)
            sock.sendall(f"GET /api/inbox HTTP/1.1\r\nHost: 127.0.0.1:{fake.port}\r\nX-Slow: ".encode())
            stalled.append(sock)
            if i % 100 == 99:
                started = time.monotonic()
                head = (f"GET /api/inbox/unread-count HTTP/1.1\r\nHost: 127.0.0.1:{fake.port}\r\n"
                        f"Authorization: Bearer {fake.token}\r\nConnection: close\r\n\r\n").encode()
                served.append((time.monotonic() - started, _raw(fake.port, head)[0]))
        assert [status for _, status in served] == [200] * 10
        assert max(seconds for seconds, _ in served) < 5
        assert threading.active_count() - before <= 2 * fake.gateway.httpd.max_connections + 8
    finally:
        for sock in stalled:
            sock.close()


def _rss_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


@pytest.mark.skipif(not hasattr(socket, "MSG_DONTWAIT"), reason="needs Linux sockets")
def test_200_stalled_unauthenticated_clients_cost_the_gateway_little_memory(cli):
    """Each client announces a 2 MiB body, sends most of it and stalls. The gateway must not
    buffer those bodies: its peak RSS (VmHWM, from /proc) grows by less than 48 MiB (before,
    it read each body whole before looking at the token: about 400 MiB)."""
    from tests.conftest import tool_path
    from tests.helpers.gateway import Served

    with Served(tool_path("alice"), cli.env) as served:
        pid = served.proc.pid
        baseline = _rss_kib(pid, "VmRSS")
        head = (f"POST /api/issues HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {2 * 1024 * 1024}\r\n\r\n").encode()
        part = b"x" * (1900 * 1024)
        clients: list[socket.socket] = []

        def stall(count: int) -> None:
            for _ in range(count):
                sock = socket.create_connection(("127.0.0.1", served.port), timeout=5)
                clients.append(sock)
                try:
                    sock.sendall(head)
                    sent, deadline = 0, time.monotonic() + 2
                    while sent < len(part) and time.monotonic() < deadline:
                        try:
                            sent += sock.send(part[sent:sent + 262144], socket.MSG_DONTWAIT)
                        except BlockingIOError:
                            time.sleep(0.01)
                except OSError:
                    pass        # refused and closed: nothing held

        workers = [threading.Thread(target=stall, args=(25,)) for _ in range(8)]
        try:
            for w in workers:
                w.start()
            for w in workers:
                w.join(120)
            time.sleep(0.5)
            grown_mib = (_rss_kib(pid, "VmHWM") - baseline) / 1024
            print(f"gateway peak RSS growth: {grown_mib:.1f} MiB")
            assert grown_mib < 48, f"the gateway grew by {grown_mib:.0f} MiB"
            assert served.get("/?token=" + served.token, auth=None).status == 303   # still serving
        finally:
            for sock in clients:
                sock.close()


def test_an_evicted_connection_never_runs_its_cut_head():
    """The longest-waiting head is ended by shutdown(); what it had sent (here an authenticated
    state change, without its blank line) must not run as a request."""
    runner = FakeRunner()
    gateway = Gateway(port=0, runner=runner, log=io.StringIO(), max_connections=2).start()
    try:
        partial = socket.create_connection(("127.0.0.1", gateway.port), timeout=5)
        partial.sendall((f"POST /api/inbox/mark-all-read HTTP/1.1\r\nHost: 127.0.0.1:{gateway.port}\r\n"
                         f"Authorization: Bearer {gateway.token}\r\nX-OpenAlice-Token: {gateway.token}\r\n"
                         f"Origin: http://127.0.0.1:{gateway.port}\r\n").encode())
        time.sleep(0.2)
        others = [socket.create_connection(("127.0.0.1", gateway.port), timeout=5) for _ in range(2)]
        partial.settimeout(5)
        assert partial.recv(65536) == b""           # ended, unanswered
        time.sleep(0.2)
        assert runner.calls == []
        for sock in others + [partial]:
            sock.close()
    finally:
        gateway.close()
