"""The Host, Origin and token checks on their own."""

from __future__ import annotations

from openalice.gateway.auth import Guard, is_loopback, new_token


def guard(port=8765, hosts=("127.0.0.1", "localhost", "::1")):
    return Guard("tok-123", port=port, hosts=hosts)


def test_tokens_are_random_and_long():
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50 and min(len(t) for t in tokens) >= 40


def test_loopback():
    for host in ("127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]", "LocalHost"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.2", "example.com", "localhost.example.com", ""):
        assert not is_loopback(host), host


def test_host_header():
    g = guard()
    for ok in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST:8765"):
        assert g.host_allowed(ok), ok
    for bad in (None, "", "127.0.0.1", "127.0.0.1:80", "127.0.0.1:8766", "evil.com:8765",
                "127.0.0.1.nip.io:8765", "a@127.0.0.1:8765", "127.0.0.1:8765/", "127.0.0.1:abc",
                "[::1", "127.0.0.1:8765 ", "localhost.:8765"):
        assert not g.host_allowed(bad), bad
    assert Guard("t", port=80, hosts=("localhost",)).host_allowed("localhost")


def test_origin():
    g = guard()
    assert g.origin_allowed("http://127.0.0.1:8765")
    assert g.origin_allowed("http://localhost:8765")
    for bad in (None, "", "null", "http://127.0.0.1:8766", "https://127.0.0.1:8765",
                "http://evil.com:8765", "http://127.0.0.1:8765/path", "http://u:p@127.0.0.1:8765",
                "file://", "http://127.0.0.1:99999"):
        assert not g.origin_allowed(bad), bad


def test_credentials():
    g = guard()
    assert g.authenticated({"Authorization": "Bearer tok-123"})
    assert g.authenticated({"Authorization": "bearer tok-123"})
    assert g.authenticated({"Cookie": "other=1; openalice-gateway-8765=tok-123"})
    for bad in ({}, {"Authorization": "Basic tok-123"}, {"Authorization": "Bearer tok-12"},
                {"Cookie": "openalice-gateway-8766=tok-123"}, {"Cookie": "openalice-gateway-8765=x"},
                {"Cookie": "\x00garbage=;;"}, {"Authorization": "Bearer tok-123x"}):
        assert not g.authenticated(bad), bad
    assert g.state_change_refusal({"X-OpenAlice-Token": "tok-123",
                                   "Origin": "http://127.0.0.1:8765"}) is None
    assert g.state_change_refusal({"Origin": "http://127.0.0.1:8765"})[0] == "token_header_required"
    assert g.state_change_refusal({"X-OpenAlice-Token": "tok-123"})[0] == "bad_origin"


def test_a_one_time_code_works_once_and_expires():
    now = [1000.0]
    g = Guard("tok-123", port=8765, hosts=("127.0.0.1",), clock=lambda: now[0])
    code = g.issue_code()
    assert "tok-123" not in code and len(code) >= 40
    assert g.redeem_code(code)
    assert not g.redeem_code(code)          # used: refused
    late = g.issue_code(seconds=60)
    now[0] += 60.5
    assert not g.redeem_code(late)          # expired: refused
    assert not g.redeem_code(late)
    for bad in (None, "", "tok-123", code + "x"):
        assert not g.redeem_code(bad), bad
    codes = [g.issue_code() for _ in range(3)]
    assert all(g.redeem_code(c) for c in codes)
