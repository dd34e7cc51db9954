"""Model discovery cache: ids and facts only, 24 h TTL, old list kept on failure."""

import json
import threading
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from openalice import credentials
from openalice.core import resources
from openalice.core.schema import Validator
from openalice.credentials import catalog

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
KEY = "sk-catalog-secret-77"


@pytest.fixture
def cred():
    credentials.add("or-1", vendor="custom", secret=KEY, base_url="http://127.0.0.1:9/v1",
                    wire_specs=["openai-chat"], now=NOW)
    return "or-1"


class Recorder:
    def __init__(self, result=None, error=None):
        self.calls = []
        self.result = result if result is not None else ["m-a", {"id": "m-b", "contextWindow": 8000}]
        self.error = error

    def __call__(self, base_url, wire, api_key):
        self.calls.append((base_url, wire, api_key))
        if self.error:
            raise self.error
        return self.result


def _cache_text(slug):
    return catalog.cache_path(slug).read_text()


def test_refresh_stores_ids_and_facts_only(cred):
    fetch = Recorder(result=["m-a", {"id": "m-b", "contextWindow": 8000, "raw": {"secret": KEY}}, 7, {"id": ""}])
    result = catalog.refresh(cred, now=NOW, fetcher=fetch)
    assert result["status"] == "refreshed"
    assert fetch.calls == [("http://127.0.0.1:9/v1", "openai-chat", KEY)]
    assert result["models"] == [{"id": "m-a"}, {"id": "m-b", "contextWindow": 8000}]
    text = _cache_text(cred)
    assert KEY not in text and "raw" not in text
    assert Validator(resources.schema("model-catalog-cache")).errors(json.loads(text)) == []
    assert oct(catalog.cache_path(cred).stat().st_mode & 0o777) == "0o600"


def test_fresh_cache_is_not_refetched_until_ttl(cred):
    fetch = Recorder()
    catalog.refresh(cred, now=NOW, fetcher=fetch)
    assert catalog.refresh(cred, now=NOW + timedelta(hours=23), fetcher=fetch)["status"] == "fresh"
    assert len(fetch.calls) == 1
    assert catalog.refresh(cred, now=NOW + timedelta(hours=24, seconds=1), fetcher=fetch)["status"] == "refreshed"
    assert len(fetch.calls) == 2
    assert catalog.cached_models(cred, now=NOW + timedelta(hours=25))["fresh"] is True


def test_failure_keeps_the_old_list_and_backs_off(cred):
    catalog.refresh(cred, now=NOW, fetcher=Recorder())
    later = NOW + timedelta(days=2)
    failing = Recorder(error=RuntimeError(f"boom with {KEY} inside"))
    result = catalog.refresh(cred, now=later, fetcher=failing)
    assert result["status"] == "failed" and [m["id"] for m in result["models"]] == ["m-a", "m-b"]
    assert KEY not in result["error"] and KEY not in _cache_text(cred)
    assert catalog.cached_models(cred, now=later)["fresh"] is False
    assert catalog.refresh(cred, now=later + timedelta(seconds=30), fetcher=failing)["status"] == "backoff"
    assert len(failing.calls) == 1
    assert catalog.refresh(cred, now=later + timedelta(seconds=61), fetcher=Recorder(result=["m-c"]))["models"] == [
        {"id": "m-c"}]


def test_identity_change_invalidates_the_cache(cred):
    catalog.refresh(cred, now=NOW, fetcher=Recorder())
    credentials.add("or-1", vendor="custom", secret=KEY, base_url="http://127.0.0.1:10/v1",
                    wire_specs=["openai-chat"], replace=True, now=NOW)
    assert catalog.cached_models(cred, now=NOW)["models"] == []


def test_listing_models_never_fetches(cred, monkeypatch, capsys):
    from openalice.cli import alice

    catalog.refresh(cred, now=NOW, fetcher=Recorder())

    def forbidden(*a, **k):
        raise AssertionError("models list must not fetch")

    monkeypatch.setattr(catalog, "http_fetcher", forbidden)
    monkeypatch.setattr(catalog, "refresh", forbidden)
    monkeypatch.setenv("ALICE_NOW", "2026-11-30T10:00:00Z")
    assert alice.main(["models", "list", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["discovered"] == [{"credential": "or-1", "vendor": "custom", "fetchedAt": "2026-11-30T09:00:00Z",
                                  "fresh": True, "models": ["m-a", "m-b"]}]
    assert Validator(resources.schema("models-list")).errors(doc) == []


class _ModelsHandler(BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        self.seen.append((self.path, self.headers.get("Authorization")))
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            self.send_response(401)
            self.end_headers()
            return
        body = json.dumps({"data": [{"id": "loop-1", "context_length": 32000, "pricing": {"x": 1}},
                                    {"id": "loop-2"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_http_fetcher_against_a_loopback_server(cli):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ModelsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        assert cli("alice", "credential", "add", "loop", "--vendor", "custom",
                   "--wire", f"openai-chat=http://127.0.0.1:{port}/v1", input=KEY).returncode == 0
        r = cli("alice", "models", "refresh", "loop", "--json", env={"ALICE_NOW": "2026-11-30T09:00:00Z"})
        assert r.returncode == 0, r
        doc = r.json()
        assert doc["status"] == "refreshed" and doc["models"] == ["loop-1", "loop-2"]
        assert Validator(resources.schema("models-refresh")).errors(doc) == []
        assert _ModelsHandler.seen[-1][0] == "/v1/models"
        cached = json.loads(catalog.cache_path("loop").read_text())
        assert cached["models"] == [{"id": "loop-1", "contextWindow": 32000}, {"id": "loop-2"}]
        assert KEY not in catalog.cache_path("loop").read_text() and "pricing" not in json.dumps(cached)
    finally:
        server.shutdown()
        server.server_close()
    # The server is gone: a forced refresh fails (exit 3) and keeps the list.
    r = cli("alice", "models", "refresh", "loop", "--force", "--timeout", "2", "--json",
            env={"ALICE_NOW": "2026-11-30T09:05:00Z"})
    assert r.returncode == 3 and r.json()["status"] == "failed" and r.json()["count"] == 2
    assert KEY not in r.stdout + r.stderr
