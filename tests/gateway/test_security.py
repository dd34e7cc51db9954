"""Who may call the gateway, and what it refuses before any CLI runs."""

from __future__ import annotations

import pytest

from openalice.gateway.api import ROUTES
from tests.helpers.polling import wait_for

ENTRY = "inbox-1796029200000-7k2m9x4q"

# Every route with its parameters filled with valid values.
def _sample_path(pattern: str) -> str:
    return (pattern.replace("{adapter}", "claude").replace("{workspace}", "notes")
            .replace("{issue}", "daily").replace("{entry}", ENTRY).replace("{task}", "run-AbCdEf12")
            .replace("{index}", "0").replace("{log}", "stderr").replace("{pack}", "alice-ink")
            .replace("{sticker}", "wave.png").replace("{connector}", "hook"))


ALL_ROUTES = [(m, _sample_path(p)) for m, p, _, _ in ROUTES]


@pytest.mark.parametrize("method,path", ALL_ROUTES, ids=lambda v: v if isinstance(v, str) else "")
def test_no_credentials_is_401_and_spawns_nothing(fake, method, path):
    r = fake.request(method, path, {} if method != "GET" else None, auth=None)
    assert r.status == 401, r
    assert r.json()["error"]["code"] == "unauthenticated"
    assert r.header("WWW-Authenticate").startswith("Bearer")
    assert fake.runner.calls == []


@pytest.mark.parametrize("method,path", ALL_ROUTES, ids=lambda v: v if isinstance(v, str) else "")
def test_wrong_token_is_401(fake, method, path):
    for headers in ({"Authorization": "Bearer not-the-token"},
                    {"Cookie": f"openalice-gateway-{fake.port}=not-the-token"},
                    # the right token under another gateway's cookie name
                    {"Cookie": f"openalice-gateway-{fake.port + 1}={fake.token}"}):
        r = fake.request(method, path, {} if method != "GET" else None, auth=None, headers=headers)
        assert r.status == 401, (headers, r)
    assert fake.runner.calls == []


def test_cookie_and_bearer_both_authenticate(fake):
    assert fake.get("/api/inbox", auth="cookie").status == 200
    assert fake.get("/api/inbox", auth="bearer").status == 200
    assert len(fake.runner.calls) == 2


STATE_ROUTES = [(m, p) for m, p in ALL_ROUTES if m != "GET"]


@pytest.mark.parametrize("method,path", STATE_ROUTES, ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("headers,code", [
    ({"X-OpenAlice-Token": None}, "token_header_required"),
    ({"X-OpenAlice-Token": "wrong"}, "token_header_required"),
    ({"Origin": None}, "bad_origin"),
    ({"Origin": "null"}, "bad_origin"),
    ({"Origin": "http://evil.example"}, "bad_origin"),
    ({"Origin": "http://127.0.0.1:1"}, "bad_origin"),
    ({"Origin": "https://127.0.0.1:{port}"}, "bad_origin"),
    ({"Origin": "http://127.0.0.1.evil.example:{port}"}, "bad_origin"),
], ids=["no-token-header", "wrong-token-header", "no-origin", "null-origin", "other-site",
        "other-port", "https", "lookalike"])
def test_state_change_needs_token_header_and_own_origin(fake, method, path, headers, code):
    headers = {k: (v.format(port=fake.port) if isinstance(v, str) else v) for k, v in headers.items()}
    r = fake.request(method, path, {}, headers=headers)
    assert r.status == 403, r
    assert r.json()["error"]["code"] == code
    assert fake.runner.calls == []


def test_origin_may_be_any_loopback_name_of_this_port(fake):
    for origin in (f"http://127.0.0.1:{fake.port}", f"http://localhost:{fake.port}",
                   f"http://[::1]:{fake.port}"):
        r = fake.post("/api/inbox/mark-all-read", headers={"Origin": origin})
        assert r.status == 200, (origin, r)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1",
                                  "127.0.0.1", "localhost.evil.example:{port}", "",
                                  "user@127.0.0.1:{port}", "127.0.0.1:{port}/x", "[::2]:{port}"])
def test_a_foreign_host_header_is_403_even_with_the_token(fake, host):
    r = fake.get("/api/inbox", headers={"Host": host.format(port=fake.port)})
    assert r.status == 403, (host, r)
    assert r.json()["error"]["code"] == "bad_host"
    r = fake.post("/api/inbox/mark-all-read", headers={"Host": host.format(port=fake.port)})
    assert r.status == 403
    assert fake.runner.calls == []


def test_loopback_host_names_are_accepted(fake):
    for host in (f"127.0.0.1:{fake.port}", f"localhost:{fake.port}", f"LOCALHOST:{fake.port}",
                 f"[::1]:{fake.port}"):
        assert fake.get("/api/inbox", headers={"Host": host}).status == 200, host


TRAVERSALS = ["..", "%2e%2e", "%2E%2E", "a%2Fb", "..%2F..%2Fetc%2Fpasswd", "%00", "x%00y",
              "-rf", "--json", "%20", "%C3%A9t%C3%A9"]


def _param_routes():
    for method, pattern, _, _ in ROUTES:
        for kind in ("adapter", "workspace", "issue", "entry", "task", "index", "log", "pack", "sticker",
                     "connector"):
            if "{" + kind + "}" in pattern:
                yield method, pattern, kind


@pytest.mark.parametrize("method,pattern,kind", list(_param_routes()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_traversal_in_any_route_parameter_is_400_before_any_shell_out(fake, method, pattern, kind):
    for bad in TRAVERSALS:
        if kind == "index" and bad == "-rf":
            bad = "-1"
        path = _sample_path(pattern.replace("{" + kind + "}", bad))
        r = fake.request(method, path, {} if method != "GET" else None)
        assert r.status == 400, (path, r)
        assert r.json()["error"]["code"] == "bad_parameter"
        assert r.json()["error"]["exit"] == 2
    assert fake.runner.calls == []


@pytest.mark.parametrize("query", [
    "before=..%2F..%2Fx", "before=--all", "workspace=..", "workspace=a%2Fb", "limit=abc",
    "limit=0", "limit=100000", "limit=1&limit=2", "unread=maybe", "sneaky=1", "before=%00",
])
def test_bad_query_values_are_400_before_any_shell_out(fake, query):
    r = fake.get("/api/inbox?" + query)
    assert r.status == 400, (query, r)
    assert fake.runner.calls == []


def test_runs_and_journal_queries_are_checked(fake):
    for path in ("/api/runs?status=bogus", "/api/runs?before=..", "/api/runs?issue=x",
                 "/api/agent-runtime?afterSeq=-1", "/api/agent-runtime?family=bogus",
                 "/api/agent-runtime?type=no.such.type", "/api/agent-runtime/stream?family=x",
                 "/api/inbox/" + ENTRY + "/files/0?require=nothing"):
        assert fake.get(path).status == 400, path
    assert fake.runner.calls == []


def test_bodies_are_checked_before_any_shell_out(fake):
    cases = [
        (b"not json", {}, "bad_body"),
        (b"[1, 2]", {}, "bad_body"),
        (b'{"action": "enable", "extra": 1}', {}, "unknown_field"),
        (b'{"action": "launch-missiles"}', {}, "bad_field"),
        (b'{"action": "set-models", "models": []}', {}, "bad_field"),
        (b'{"action": "set-models", "models": ["--reset"]}', {}, "bad_parameter"),
        (b'{"action": "set-secret", "key": "../x", "value": "v"}', {}, "bad_parameter"),
        (b'{"action": "set-secret", "key": "K", "value": ""}', {}, "bad_field"),
        (b'{"action": "config", "config": {"-k": "v"}}', {}, "bad_field"),
        (b'{"action": "config", "config": {"a=b": "v"}}', {}, "bad_field"),
        (b'{"action": "config", "config": {"k": ["list"]}}', {}, "bad_field"),
    ]
    for body, headers, code in cases:
        r = fake.request("POST", "/api/adapters/claude", body, headers=headers)
        assert r.status == 400, (body, r)
        assert r.json()["error"]["code"] == code, (body, r.json())
    for body, code in [(b'{"title": "x"}', "missing_field"),
                       (b'{"workspace": "../x", "title": "x"}', "bad_parameter"),
                       (b'{"workspace": "notes", "title": "x", "id": "../../x"}', "bad_parameter"),
                       (b'{"workspace": "notes", "title": "a\\u0000b"}', "bad_field"),
                       (b'{"workspace": "notes", "title": "x", "rm": true}', "unknown_field"),
                       (b'{"workspace": "notes", "title": "x", "catchUp": "yes"}', "bad_field")]:
        r = fake.request("POST", "/api/issues", body)
        assert r.status == 400, (body, r)
        assert r.json()["error"]["code"] == code, (body, r.json())
    r = fake.request("PATCH", "/api/issues/notes/daily", b"{}")
    assert r.status == 400 and r.json()["error"]["code"] == "missing_field"
    assert fake.runner.calls == []


def test_only_json_bodies_and_bounded_sizes(fake):
    r = fake.request("POST", "/api/issues", b"title=x", headers={"Content-Type": "text/plain"})
    assert r.status == 415
    r = fake.request("POST", "/api/issues", b"x" * (2 * 1024 * 1024 + 1))
    assert r.status == 413
    assert fake.runner.calls == []


def test_unknown_routes_and_methods(fake):
    assert fake.get("/api/nothing").status == 404
    assert fake.get("/etc/passwd").status == 404
    r = fake.request("DELETE", "/api/inbox/" + ENTRY, {})
    assert r.status == 405 and "GET" in r.header("Allow")
    assert fake.request("PUT", "/api/issues", {}).status == 405
    assert fake.request("HEAD", "/api/inbox").status == 405
    assert fake.runner.calls == []


def test_the_token_is_exchanged_for_a_strict_httponly_cookie(fake):
    r = fake.get(f"/?token={fake.token}", auth=None)
    assert r.status == 303 and r.header("Location") == "/"
    cookie = r.header("Set-Cookie")
    name, _, rest = cookie.partition("=")
    assert name == f"openalice-gateway-{fake.port}"
    assert rest.split(";")[0] == fake.token
    attrs = {a.strip().lower() for a in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= attrs
    assert fake.get("/?token=wrong", auth=None).status == 401
    assert fake.get(f"/?token={fake.token}&token=x", auth=None).status == 401
    assert fake.get("/", auth=None).status == 401


def test_the_page_needs_the_cookie_and_carries_the_token_and_a_strict_csp(fake):
    r = fake.get("/", auth="cookie")
    assert r.status == 200
    html = r.body.decode()
    assert f'<meta name="openalice-token" content="{fake.token}">' in html
    csp = r.header("Content-Security-Policy")
    nonce = csp.split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in html and "{{" not in html
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert "http://" not in html.split("<script")[0].replace("http://www.w3.org", "")  # no CDN
    assert r.header("X-Frame-Options") == "DENY"
    assert fake.runner.calls == []


def test_the_log_never_holds_the_token(fake):
    fake.get(f"/?token={fake.token}", auth=None)
    fake.get("/api/inbox?limit=5")
    fake.get("/?token=wrong-guess", auth=None)
    # The server logs a request's line after its reply is sent: wait for the third.
    wait_for(lambda: fake.log.getvalue().count("\n") >= 3, "three log lines", timeout=10)
    log = fake.log.getvalue()
    assert '"GET /api/inbox" 200' in log and "cli=1" in log
    assert fake.token not in log and "wrong-guess" not in log


def test_a_one_time_code_is_exchanged_once_for_the_cookie(fake):
    url = fake.gateway.one_time_url()
    assert fake.token not in url
    path = url[len(fake.gateway.base_url):]
    r = fake.get(path, auth=None)
    assert r.status == 303 and r.header("Location") == "/"
    assert r.header("Set-Cookie").split(";")[0] == f"openalice-gateway-{fake.port}={fake.token}"
    again = fake.get(path, auth=None)
    assert again.status == 401 and again.json()["error"]["code"] == "bad_code"
    assert fake.get("/?code=made-up", auth=None).status == 401
    both = fake.gateway.one_time_url()[len(fake.gateway.base_url):] + f"&token={fake.token}"
    assert fake.get(both, auth=None).status == 401
    assert "code=" not in fake.log.getvalue()


def test_an_expired_one_time_code_is_refused(fake, monkeypatch):
    guard = fake.gateway.guard
    now = [5000.0]
    monkeypatch.setattr(guard, "_clock", lambda: now[0])
    path = fake.gateway.one_time_url()[len(fake.gateway.base_url):]
    now[0] += 61
    r = fake.get(path, auth=None)
    assert r.status == 401 and r.json()["error"]["code"] == "bad_code"
    assert fake.runner.calls == []
