"""The Host-routing proxy, in process, in front of the real toy app (run directly, route published by hand)."""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import struct
import subprocess
import sys
import threading

import pytest

from openalice.studio import proxy, state

from .conftest import APP, wait_until

CANARY = "canary-9f2c"
# The list, spelled out here (not read from the code under test). Cookies are filtered,
# not dropped (OpenAlice's own go, the app's pass: test_proxy_framing.py); X-CSRF-Token is the
# app's own header (OpenAlice's is X-OpenAlice-Token) and passes.
STRIPPED = ["authorization", "connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
            "te", "trailer", "transfer-encoding", "upgrade", "x-openalice-token", "x-openalice-other"]


@pytest.fixture
def upstream(tmp_path):
    """The toy server on two fresh loopback ports (no supervisor): ``{"http": port, ...}``."""
    from openalice.studio import ports

    allocated = ports.allocate(["http", "api"])
    env = {**os.environ, "HARNESS_PORTS": json.dumps(allocated), "HARNESS_HOST": "127.0.0.1"}
    server = subprocess.Popen([sys.executable, str(APP / "server.py")], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def answers() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", allocated["http"]), timeout=1):
                return True
        except OSError:
            return False

    try:
        wait_until(answers, what="the toy server to listen")
        yield allocated
    finally:
        from openalice.core import proc

        os.killpg(server.pid, 9)
        server.wait()
        wait_until(lambda: not proc.group_members(server.pid), what="the toy server's group to end")


def publish(port: int, *, workspace: str = "toy", host: str = "127.0.0.1") -> str:
    surface = state.new_surface_id()
    state.publish_route(surface, {"schemaVersion": 1, "host": state.host_for(surface), "workspaceId": workspace,
                                  "generation": 1, "upstream": {"host": host, "port": port},
                                  "supervisor": None, "publishedAt": "2026-12-01T00:00:00Z"})
    return state.host_for(surface)


@pytest.fixture
def running_proxy():
    servers = []

    def start(**kwargs) -> proxy.SurfaceProxy:
        server = proxy.make_server(0, verbose=False, **kwargs)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def raw_request(port: int, head: str, body: bytes = b"") -> tuple[int, dict, bytes]:
    """Send exactly these bytes; parse the answer (Content-Length or chunked)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head.encode("latin-1") + body)
        reader = sock.makefile("rb")
        response = http.client.HTTPResponse(sock)
        response.fp = reader
        response.begin()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


def request(port: int, host: str, method: str = "GET", path: str = "/", headers: dict | None = None,
            body: bytes | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def test_stripped_headers_never_reach_the_upstream(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    public = f"http://{host}:{server.port}"
    lines = ["POST /echo HTTP/1.1", f"Host: {host}:{server.port}"]
    for name in STRIPPED:
        if name in ("connection", "upgrade", "transfer-encoding"):
            continue
        lines.append(f"{name}: {CANARY}-{name}")
    lines += ["Connection: keep-alive, X-Hop-Canary", f"X-Hop-Canary: {CANARY}-named-hop",
              f"Upgrade: {CANARY}-upgrade", "Transfer-Encoding: chunked",
              f"Cookie: openalice-gateway-1={CANARY}-cookie",
              f"X-Forwarded-For: {CANARY}-xff", f"X-Forwarded-Host: {CANARY}-xfh",
              f"Origin: {public}", f"Referer: {public}/page?q=1", "X-App-Header: kept-value"]
    body = b"5\r\nhello\r\n0\r\n\r\n"
    status, _headers, answer = raw_request(server.port, "\r\n".join(lines) + "\r\n\r\n", body)
    assert status == 200
    seen = json.loads(answer)
    received = {k.lower(): v for k, v in seen["headers"]}
    assert CANARY not in json.dumps(seen["headers"])
    for name in STRIPPED + ["x-hop-canary"]:
        assert name not in received or name == "transfer-encoding", name
    assert received["host"] == f"127.0.0.1:{upstream['http']}"
    assert received["origin"] == f"http://127.0.0.1:{upstream['http']}"
    assert received["referer"] == f"http://127.0.0.1:{upstream['http']}/page?q=1"
    assert received["x-forwarded-host"] == f"{host}:{server.port}"
    assert received["x-app-header"] == "kept-value"
    # The chunked body arrives whole, re-framed by the proxy (its own Transfer-Encoding, never the client's).
    assert seen["body"] == "hello" and received.get("transfer-encoding") == "chunked"


def test_each_stripped_header_alone_with_a_canary(upstream, running_proxy):
    """One request per header, so no header hides behind another's removal."""
    server = running_proxy()
    host = publish(upstream["http"])
    for name in STRIPPED:
        value = f"{CANARY}-{name}"
        if name == "connection":
            value = f"close, {CANARY}"
        elif name == "transfer-encoding":
            continue         # any coding but chunked is refused (test_proxy_framing.py)
        head = f"GET /echo HTTP/1.1\r\nHost: {host}\r\n{name}: {value}\r\nConnection: close\r\n\r\n" \
            if name != "connection" else f"GET /echo HTTP/1.1\r\nHost: {host}\r\n{name}: {value}\r\n\r\n"
        status, _h, answer = raw_request(server.port, head)
        assert status == 200, name
        assert CANARY not in answer.decode(), name


def test_a_foreign_origin_is_passed_unchanged(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    status, _h, body = request(server.port, f"{host}:{server.port}", "GET", "/echo",
                               {"Origin": "http://evil.example", "Referer": "http://evil.example/x"})
    received = {k.lower(): v for k, v in json.loads(body)["headers"]}
    assert status == 200
    assert received["origin"] == "http://evil.example" and received["referer"] == "http://evil.example/x"


def test_routing_is_by_host_only(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    port = upstream["http"]
    assert request(server.port, host, path="/small")[0] == 200
    assert request(server.port, host.upper() + ":9999", path="/small")[0] == 200
    for other in ("localhost", f"localhost:{server.port}", "127.0.0.1", "oa-surface-abc.localhost",
                  "oa-surface-" + "0" * 24 + ".localhost", host + ".evil.com", "x" + host, f"[::1]:{server.port}",
                  host + ":notaport", ""):
        status, _h, body = request(server.port, other, path="/small")
        assert status == 404, other
        assert b"no Studio surface" in body
    # No path-based route: /proxy/<port>/ is nothing on an unknown host and an ordinary path on a known one.
    assert request(server.port, "localhost", path=f"/proxy/{port}/small")[0] == 404
    status, _h, body = request(server.port, host, path=f"/proxy/{port}/small")
    assert status == 404 and body == b"no such page"   # the toy app's own 404: the path went there untouched


def test_a_withdrawn_route_is_gone_on_the_next_request(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    assert request(server.port, host, path="/small")[0] == 200
    assert state.withdraw_route(host)
    assert request(server.port, host, path="/small")[0] == 404


def test_the_workspace_filter(upstream, running_proxy):
    server = running_proxy(workspace="other")
    host = publish(upstream["http"], workspace="toy")
    assert request(server.port, host, path="/small")[0] == 404
    mine = publish(upstream["http"], workspace="other")
    assert request(server.port, mine, path="/small")[0] == 200


def test_redirects_to_the_upstream_origin_are_rewritten(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    status, headers, _b = request(server.port, f"{host}:{server.port}", path="/redirect")
    assert status == 302
    assert headers["location"] == f"http://{host}:{server.port}/landed?from=redirect"
    status, headers, _b = request(server.port, f"{host}:{server.port}", path="/redirect-away")
    assert headers["location"] == "http://elsewhere.invalid/page"


def test_hop_by_hop_response_headers_are_dropped(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    status, headers, body = request(server.port, host, path="/set-cookie")
    assert status == 200 and body == b"cookie"
    assert "keep-alive" not in headers and "proxy-authenticate" not in headers
    assert headers["x-app"] == "kept" and headers["set-cookie"] == "app=1; Path=/"


def test_bodies_stream_both_ways(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    ten_mib = 10 * 1024 * 1024
    status, headers, body = request(server.port, host, path=f"/stream?bytes={ten_mib}")
    assert status == 200 and len(body) == ten_mib and headers["transfer-encoding"] == "chunked"
    status, headers, body = request(server.port, host, path=f"/big?bytes={ten_mib}")
    assert status == 200 and len(body) == ten_mib and headers["content-length"] == str(ten_mib)
    upload = os.urandom(1024 * 1024)
    status, _h, body = request(server.port, host, "PUT", "/echo", body=upload)
    assert status == 200 and json.loads(body)["bodyLength"] == len(upload)
    status, headers, body = request(server.port, host, "HEAD", "/big?bytes=5")
    assert status == 200 and body == b"" and headers["content-length"] == "5"


def test_keep_alive_reuses_the_client_connection(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for _ in range(5):
            conn.request("GET", "/small", headers={"Host": host})
            response = conn.getresponse()
            assert response.status == 200 and response.read() == b"hello from the toy studio\n"
    finally:
        conn.close()


def _ws_frame(payload: bytes, opcode: int = 1) -> bytes:
    mask = os.urandom(4)
    return (bytes([0x80 | opcode, 0x80 | len(payload)]) + mask
            + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def test_websocket_upgrades_are_tunnelled(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nCookie: {CANARY}\r\n\r\n").encode())
        reader = sock.makefile("rb")
        assert reader.readline().startswith(b"HTTP/1.1 101")
        headers = {}
        while (line := reader.readline()) not in (b"\r\n", b""):
            name, value = line.decode().split(":", 1)
            headers[name.strip().lower()] = value.strip()
        assert headers["upgrade"] == "websocket"
        import hashlib

        assert headers["sec-websocket-accept"] == base64.b64encode(hashlib.sha1(
            (key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        for text in (b"one", b"two"):
            sock.sendall(_ws_frame(text))
            head = reader.read(2)
            assert head[0] == 0x81
            assert reader.read(head[1] & 0x7F) == b"echo: " + text
        sock.sendall(_ws_frame(struct.pack("!H", 1000), opcode=8))
        assert reader.read(2)[0] == 0x88


def test_upstream_failure_is_a_502(running_proxy):
    from openalice.studio import ports

    server = running_proxy()
    dead_port = ports.allocate(["x"])["x"]
    host = publish(dead_port)
    status, _h, body = request(server.port, host, path="/")
    assert status == 502 and b"did not answer" in body


def test_never_forwards_to_a_non_loopback_address(running_proxy, monkeypatch):
    """A tampered route naming another address is refused before any connection is made."""
    attempts = []
    real = socket.create_connection

    def recording(address, *args, **kwargs):
        attempts.append(address)
        if not proxy.is_loopback_host(str(address[0])):
            raise AssertionError(f"the proxy tried to connect to {address}")
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", recording)
    server = running_proxy()
    for target in ("192.0.2.10", "10.1.2.3", "example.com", "localhost", "0.0.0.0"):
        host = publish(8080, host=target)
        status, _h, body = request(server.port, host, path="/")
        assert status == 502, target
        key = base64.b64encode(os.urandom(16)).decode()
        status, _h, _b = raw_request(server.port, f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                                                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n\r\n")
        assert status == 502, target
    assert [a for a in attempts if not proxy.is_loopback_host(str(a[0]))] == []


def test_the_proxy_binds_loopback_only(running_proxy):
    server = running_proxy()
    assert server.server_address[0] == "127.0.0.1"
    import inspect

    assert "host" not in inspect.signature(proxy.make_server).parameters


def test_an_absolute_form_request_target_is_refused(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    status, _h, _b = raw_request(server.port, f"GET http://{host}/small HTTP/1.1\r\nHost: {host}\r\n\r\n")
    assert status == 400


# -- the wire: framing, reuse, refusals ----------------------------------------------------------------

def test_upstream_connections_are_kept_alive_and_pooled_across_clients(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    first = request(server.port, host, path="/peer")[2]
    # Once that client has gone, its upstream connection waits in the pool; the next client
    # connection (request() opens one each time) reuses it.
    wait_until(lambda: server.pool.idle(("127.0.0.1", upstream["http"])) == 1, what="the pooled connection")
    assert request(server.port, host, path="/peer")[2] == first
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        wait_until(lambda: server.pool.idle(("127.0.0.1", upstream["http"])) == 1, what="the pooled connection")
        for _ in range(3):
            conn.request("GET", "/peer", headers={"Host": host})
            assert conn.getresponse().read() == first
    finally:
        conn.close()


def test_pipelined_requests_are_answered_in_order(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    one = f"GET /small HTTP/1.1\r\nHost: {host}\r\n\r\n"
    two = f"GET /landed HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall((one + two).encode())
        reader = sock.makefile("rb")
        bodies = []
        for _ in range(2):
            assert reader.readline().startswith(b"HTTP/1.1 200")
            length = None
            while (line := reader.readline()) != b"\r\n":
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            bodies.append(reader.read(length))
        assert bodies == [b"hello from the toy studio\n", b"landed"]
        assert reader.read() == b""      # closed after the second, as asked


def test_an_http_1_0_client_gets_a_close_delimited_body(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    size = 300 * 1024
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"GET /stream?bytes={size} HTTP/1.0\r\nHost: {host}\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding" not in head.lower()
    assert body == b"y" * size


def test_small_and_large_chunked_bodies_pass_whole(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    for size in (1, 100, 65536, 65537, 3 * 65536 + 17):
        status, headers, body = request(server.port, host, path=f"/stream?bytes={size}")
        assert status == 200 and body == b"y" * size, size
    upload = b"z" * (300 * 1024)
    head = (f"POST /echo HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n"
            f"{len(upload):x};ext=1\r\n").encode("latin-1")
    status, _h, answer = raw_request(server.port, head.decode("latin-1"), upload + b"\r\n0\r\nX-Trailer: "
                                     + CANARY.encode() + b"\r\n\r\n")
    seen = json.loads(answer)
    assert status == 200 and seen["bodyLength"] == len(upload) and CANARY not in json.dumps(seen)


def test_expect_100_continue(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"PUT /echo HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\nExpect: 100-continue\r\n"
                     "Connection: close\r\n\r\n".encode())
        reader = sock.makefile("rb")
        assert reader.readline() == b"HTTP/1.1 100 Continue\r\n" and reader.readline() == b"\r\n"
        sock.sendall(b"hello")
        response = http.client.HTTPResponse(sock)
        response.fp = reader
        response.begin()
        assert response.status == 200 and json.loads(response.read())["body"] == "hello"


@pytest.mark.parametrize("head, status", [
    ("GET /small HTTP/1.1\r\nHost: {host}\r\nAuthorization : " + CANARY + "\r\n\r\n", 400),   # space before ':'
    ("GET /small HTTP/1.1\r\nHost: {host}\r\nX-Folded: a\r\n b\r\n\r\n", 400),                  # obsolete folding
    ("GET /small HTTP/1.1\r\nHost: {host}\r\nHost: {host}\r\n\r\n", 400),                      # two Hosts
    ("POST /echo HTTP/1.1\r\nHost: {host}\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
    ("POST /echo HTTP/1.1\r\nHost: {host}\r\nContent-Length: -1\r\n\r\n", 400),
    ("GET /small HTTP/2.0\r\nHost: {host}\r\n\r\n", 505),
    ("GET /small\r\nHost: {host}\r\n\r\n", 400),
    ("GET /sm all HTTP/1.1\r\nHost: {host}\r\n\r\n", 400),
    ("GET /small HTTP/1.1\r\nHost: {host}\r\nX-Big: " + "a" * (70 * 1024) + "\r\n\r\n", 431),
])
def test_malformed_heads_are_refused_and_never_forwarded(upstream, running_proxy, head, status):
    server = running_proxy()
    host = publish(upstream["http"])
    got, headers, body = raw_request(server.port, head.format(host=host))
    assert got == status, body
    assert headers.get("connection") == "close" and CANARY.encode() not in body


def _raw_upstream(answers: list[bytes]):
    """A one-connection-at-a-time upstream that sends each canned answer and closes (no
    'Connection: close'): the proxy must notice, and retry a body-less request once."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    seen = []

    def serve():
        for answer in answers:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                seen.append(data)
                conn.sendall(answer)
                conn.shutdown(socket.SHUT_WR)

    threading.Thread(target=serve, daemon=True).start()
    return listener, seen


def test_a_kept_upstream_connection_the_app_closed_is_retried_once(running_proxy):
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    listener, seen = _raw_upstream([answer, answer])
    try:
        server = running_proxy()
        host = publish(listener.getsockname()[1])
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        for _ in range(2):
            conn.request("GET", "/", headers={"Host": host})
            response = conn.getresponse()
            assert (response.status, response.read()) == (200, b"ok")
        conn.close()
        assert len(seen) == 2
    finally:
        listener.close()


def test_a_close_delimited_answer_is_re_chunked_for_http_1_1(running_proxy):
    listener, _seen = _raw_upstream([b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + b"w" * 100_000])
    try:
        server = running_proxy()
        host = publish(listener.getsockname()[1])
        status, headers, body = request(server.port, host, path="/")
        assert status == 200 and headers["transfer-encoding"] == "chunked" and body == b"w" * 100_000
    finally:
        listener.close()


def test_garbage_from_the_upstream_is_a_502(running_proxy):
    listener, _seen = _raw_upstream([b"SMTP ready\r\n\r\n"])
    try:
        server = running_proxy()
        host = publish(listener.getsockname()[1])
        assert request(server.port, host, path="/")[0] == 502
    finally:
        listener.close()
