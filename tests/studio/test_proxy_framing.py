"""The proxy's framing rules and its cookie rule, against the same toy app as test_proxy.py.

Framing: a request whose body's end the proxy and the app could disagree on (an unknown or
malformed transfer coding, Transfer-Encoding with Content-Length, a chunk size that overflows)
is refused at once, never forwarded. ``Expect`` is the proxy's own business. Cookies: only
OpenAlice's own (``openalice-*``) are stripped; an app with its own cookie login works."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from .test_proxy import _raw_upstream, publish, raw_request, request, running_proxy, upstream  # noqa: F401

TOKEN = "gateway-token-canary-7d1e"


@pytest.mark.parametrize("framing, body, status", [
    ("Transfer-Encoding: xchunked\r\nContent-Length: 5", b"hello", 400),      # TE with CL: conflicting
    ("Transfer-Encoding: chunked\r\nContent-Length: 5", b"5\r\nhello\r\n0\r\n\r\n", 400),
    ("Transfer-Encoding: xchunked", b"5\r\nhello\r\n0\r\n\r\n", 501),         # an unknown coding
    ("Transfer-Encoding: gzip, chunked", b"5\r\nhello\r\n0\r\n\r\n", 501),    # a coding the proxy does not do
    ("Transfer-Encoding: identity", b"", 501),
    ("Transfer-Encoding: chunked, identity", b"5\r\nhello\r\n0\r\n\r\n", 400),  # chunked must be last
    ("Transfer-Encoding: chunked, chunked", b"5\r\nhello\r\n0\r\n\r\n", 400),
    ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", b"5\r\nhello\r\n0\r\n\r\n", 400),
    ("Transfer-Encoding: chunked;q=1", b"5\r\nhello\r\n0\r\n\r\n", 400),
    ("Transfer-Encoding: ", b"", 400),
    ("Transfer-Encoding: chunked,", b"5\r\nhello\r\n0\r\n\r\n", 400),
    ("Content-Length: 5\r\nContent-Length: 5", b"hello", 400),                # duplicates, even equal
    ("Content-Length: 5, 5", b"hello", 400),
    ("Content-Length: +5", b"hello", 400),
], ids=lambda v: v if isinstance(v, (str, int)) else None)
def test_conflicting_or_unknown_framing_is_refused_at_once(upstream, running_proxy, framing, body, status):
    server = running_proxy()
    host = publish(upstream["http"])
    head = f"POST /echo HTTP/1.1\r\nHost: {host}\r\n{framing}\r\n\r\n"
    got, headers, answer = raw_request(server.port, head, body)     # a 10 s timeout: at once, or fail
    assert got == status, answer
    assert headers.get("connection") == "close" and b"method" not in answer   # the proxy's, not /echo's


@pytest.mark.parametrize("size_line", [b"FFFFFFFFFFFFFFFFFFFFFFFF", b"10000000000000000", b"-5", b"0x5", b"+5",
                                       b"5_0", b" ", b"5 5"])
def test_a_chunk_size_that_overflows_or_is_malformed_is_400_at_once(upstream, running_proxy, size_line):
    server = running_proxy()
    host = publish(upstream["http"])
    head = f"POST /echo HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n"
    got, _headers, answer = raw_request(server.port, head, size_line + b"\r\nhello\r\n0\r\n\r\n")
    assert got == 400, answer


def test_exactly_chunked_in_any_case_passes(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    head = f"POST /echo HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n"
    got, _h, answer = raw_request(server.port, head, b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
    assert got == 200 and json.loads(answer)["body"] == "hello world"


def test_a_transfer_encoding_from_an_http_1_0_client_is_400(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    got, _h, _b = raw_request(server.port, f"POST /echo HTTP/1.0\r\nHost: {host}\r\nTransfer-Encoding: chunked"
                                           "\r\n\r\n", b"5\r\nhello\r\n0\r\n\r\n")
    assert got == 400


def test_refused_framing_never_reaches_the_app(running_proxy):
    """A recording upstream: not one byte of a refused request arrives."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.5)
    received: list[bytes] = []
    stop = threading.Event()

    def record():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    received.append(conn.recv(65536))
                except OSError:
                    pass

    thread = threading.Thread(target=record, daemon=True)
    thread.start()
    try:
        server = running_proxy()
        host = publish(listener.getsockname()[1])
        for framing in ("Transfer-Encoding: xchunked\r\nContent-Length: 5", "Transfer-Encoding: chunked, identity",
                        "Transfer-Encoding: gzip", "Content-Length: 1\r\nContent-Length: 2",
                        "Expect: telepathy\r\nContent-Length: 5"):
            got, _h, _b = raw_request(server.port, f"POST /x HTTP/1.1\r\nHost: {host}\r\n{framing}\r\n\r\n", b"hello")
            assert got in (400, 417, 501), framing
    finally:
        stop.set()
        thread.join(5)
        listener.close()
    assert received == []


def test_expect_is_answered_by_the_proxy_and_never_forwarded(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"PUT /echo HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\nExpect: 100-continue\r\n"
                     "Connection: close\r\n\r\n".encode())
        reader = sock.makefile("rb")
        assert reader.readline() == b"HTTP/1.1 100 Continue\r\n" and reader.readline() == b"\r\n"
        sock.sendall(b"hello")
        data = reader.read()
    seen = json.loads(data.partition(b"\r\n\r\n")[2])
    assert seen["body"] == "hello"
    assert "expect" not in {k.lower() for k, _v in seen["headers"]}
    got, _h, _b = raw_request(server.port, f"PUT /echo HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\n"
                                           "Expect: telepathy\r\n\r\n", b"hello")
    assert got == 417


def test_an_answer_with_another_transfer_coding_is_a_502(running_proxy):
    """``xchunked`` from the app is not chunked: the proxy cannot tell where that body ends."""
    answers = [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
               b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n"]
    listener, _seen = _raw_upstream(answers)
    try:
        server = running_proxy()
        host = publish(listener.getsockname()[1])
        assert request(server.port, host, path="/")[0] == 502
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:   # a bad size: cut
            sock.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        assert b"hello" not in data
    finally:
        listener.close()


# -- cookies ------------------------------------------------------------------------------------------------

def test_only_openalices_own_cookies_are_stripped(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    cookie = f"app=1; openalice-gateway-8765={TOKEN}; theme=dark; OpenAlice-Other={TOKEN}; empty="
    status, _h, body = request(server.port, host, "GET", "/echo", {"Cookie": cookie,
                                                                   "X-CSRF-Token": "the-apps-own"})
    assert status == 200
    received = json.loads(body)["headers"]
    assert TOKEN not in json.dumps(received)
    cookies = [v for k, v in received if k.lower() == "cookie"]
    assert cookies == ["app=1; theme=dark; empty="]
    assert ["X-CSRF-Token", "the-apps-own"] in received      # the app's CSRF header, not OpenAlice's
    status, _h, body = request(server.port, host, "GET", "/echo", {"Cookie": f"openalice-gateway-1={TOKEN}"})
    assert not [v for k, v in json.loads(body)["headers"] if k.lower() == "cookie"]


def test_an_app_with_its_own_cookie_login_works_through_the_proxy(upstream, running_proxy):
    server = running_proxy()
    host = publish(upstream["http"])
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert request(server.port, host, "POST", "/login", form, b"user=alice&password=wrong")[0] == 401
    status, headers, body = request(server.port, host, "POST", "/login", form,
                                    b"user=alice&password=wonderland")
    assert status == 200
    set_cookie = headers["set-cookie"]
    assert set_cookie.startswith("toy_session=") and "HttpOnly" in set_cookie   # passed back unchanged
    csrf = json.loads(body)["csrf"]
    session = set_cookie.split(";")[0]
    # The browser sends the app's cookie next to the gateway's (cookies are not kept apart by port).
    jar = f"openalice-gateway-8765={TOKEN}; {session}"
    assert request(server.port, host, "GET", "/me")[0] == 401
    status, _h, body = request(server.port, host, "GET", "/me", {"Cookie": jar})
    assert status == 200 and json.loads(body) == {"user": "alice"}
    assert request(server.port, host, "POST", "/note", {"Cookie": jar}, b"hi")[0] == 403
    status, _h, body = request(server.port, host, "POST", "/note", {"Cookie": jar, "X-CSRF-Token": csrf}, b"hi")
    assert status == 200 and json.loads(body) == {"user": "alice", "note": "hi"}
