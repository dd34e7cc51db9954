"""Each route runs one CLI verb with --json: the argv it builds, the status its
exit code maps to, and the document passed through unchanged."""

from __future__ import annotations

import json

import pytest

ENTRY = "inbox-1796029200000-7k2m9x4q"


@pytest.mark.parametrize("exit_code,status", [(0, 200), (1, 500), (2, 400), (3, 503), (4, 403),
                                              (130, 500), (-9, 500)])
def test_exit_codes_map_to_statuses_and_the_document_passes_through(fake, exit_code, status):
    document = {"error": {"code": "some_code", "message": "why", "exit": exit_code}}
    raw = json.dumps(document, indent=2).encode()
    fake.runner.answer(exit_code, raw)
    r = fake.get("/api/issues")
    assert r.status == status
    assert r.body == raw.strip()
    assert r.header("Content-Type") == "application/json"
    assert r.header("X-Content-Type-Options") == "nosniff"


def test_a_result_document_with_a_nonzero_exit_passes_through(fake):
    """validate/health print a result and exit 2/3: the status follows the exit code."""
    fake.runner.answer(3, {"adapters": [{"id": "a", "health": "down"}], "ok": False})
    r = fake.get("/api/health")
    assert r.status == 503 and r.json()["ok"] is False


def test_a_cli_that_prints_no_json_is_a_502_with_the_envelope(fake):
    fake.runner.answer(0, b"Traceback (most recent call last): ...")
    r = fake.get("/api/runs")
    assert r.status == 502
    err = r.json()["error"]
    assert err["code"] == "cli_failed" and err["exit"] == 1
    assert "Traceback" not in r.body.decode()
    fake.runner.answer(2, b"")
    assert fake.get("/api/runs").status == 400


ROUTE_ARGV = [
    ("GET", "/api/connectors", None, "alice", ["connector", "list", "--json"]),
    ("POST", "/api/connectors/phone/test", None, "alice", ["connector", "test", "phone", "--json"]),
    ("GET", "/api/workspaces", None, "alice", ["workspace", "list", "--json"]),
    ("GET", "/api/adapters", None, "harness-adapter", ["list", "--json", "--probe"]),
    ("GET", "/api/adapters?probe=0", None, "harness-adapter", ["list", "--json"]),
    ("GET", "/api/adapters/claude?probe=1", None, "harness-adapter",
     ["show", "claude", "--json", "--probe"]),
    ("GET", "/api/adapters/claude/available-models?refresh=1", None, "harness-adapter",
     ["available-models", "claude", "--json", "--refresh"]),
    ("POST", "/api/adapters/claude", {"action": "enable"}, "harness-adapter",
     ["enable", "claude", "--json"]),
    ("POST", "/api/adapters/claude", {"action": "disable"}, "harness-adapter",
     ["disable", "claude", "--json"]),
    ("POST", "/api/adapters/claude", {"action": "set-models", "models": ["m-1", "org/m:2"]},
     "harness-adapter", ["set-models", "claude", "m-1", "org/m:2", "--json"]),
    ("POST", "/api/adapters/claude", {"action": "set-models", "reset": True}, "harness-adapter",
     ["set-models", "claude", "--reset", "--json"]),
    ("POST", "/api/adapters/claude", {"action": "config", "config": {"region": "eu", "old": None,
                                                                      "n": 3}},
     "harness-adapter", ["config", "claude", "region=eu", "n=3", "--unset=old", "--json"]),
    ("POST", "/api/adapters/claude", {"action": "unset-secret", "key": "API_KEY"},
     "harness-adapter", ["unset-secret", "claude", "API_KEY", "--json"]),
    ("GET", "/api/issues", None, "alice", ["issue", "board", "--json"]),
    ("GET", "/api/issues/notes/daily", None, "alice",
     ["issue", "show", "daily", "--workspace=notes", "--json"]),
    ("POST", "/api/issues/notes/daily/run-now", {}, "alice-schedule",
     ["run-now", "daily", "--workspace=notes", "--json"]),
    ("GET", "/api/issues/notes/daily/thread", None, "alice",
     ["issue", "thread", "daily", "--workspace=notes", "--json"]),
    ("GET", "/api/runs?limit=5&status=failed&workspace=notes&issue=daily&before=run-AbCdEf12", None,
     "alice-schedule", ["runs", "--json", "--limit=5", "--before=run-AbCdEf12", "--status=failed",
                        "--workspace=notes", "--issue=daily"]),
    ("GET", "/api/runs/run-AbCdEf12", None, "alice-schedule", ["run", "run-AbCdEf12", "--json"]),
    ("GET", "/api/health", None, "alice-schedule", ["health", "--json"]),
    ("GET", f"/api/inbox?limit=10&before={ENTRY}&unread=1", None, "alice-inbox",
     ["list", "--json", "--limit=10", f"--before={ENTRY}", "--unread"]),
    ("GET", "/api/inbox", None, "alice-inbox", ["list", "--json", "--limit=50"]),
    ("GET", "/api/inbox/unread-count", None, "alice-inbox", ["count", "--json"]),
    ("POST", "/api/inbox/mark-all-read", {}, "alice-inbox", ["mark-all-read", "--json"]),
    ("POST", "/api/inbox/mark-all-read", {"workspace": "notes"}, "alice-inbox",
     ["mark-all-read", "--json", "--workspace=notes"]),
    ("GET", f"/api/inbox/{ENTRY}", None, "alice-inbox", ["show", ENTRY, "--json"]),
    ("GET", f"/api/inbox/{ENTRY}/files", None, "alice-inbox", ["files", ENTRY, "--json"]),
    ("POST", f"/api/inbox/{ENTRY}/read", {}, "alice-inbox", ["read", ENTRY, "--json"]),
    ("POST", f"/api/inbox/{ENTRY}/unread", {}, "alice-inbox", ["unread", ENTRY, "--json"]),
    ("GET", "/api/agent-runtime?afterSeq=7&family=inbox&limit=20", None, "alice",
     ["journal", "--json", "--family=inbox", "--after-seq=7", "--limit=20"]),
    ("GET", "/api/agent-runtime?page=2&type=inbox.received", None, "alice",
     ["journal", "--json", "--type=inbox.received", "--page=2"]),
]


@pytest.mark.parametrize("method,path,body,tool,argv", ROUTE_ARGV,
                         ids=[f"{m} {p}" for m, p, *_ in ROUTE_ARGV])
def test_each_route_runs_its_verb_with_separate_argv_items(fake, method, path, body, tool, argv):
    r = fake.request(method, path, body)
    assert r.status == 200, r
    assert fake.runner.calls == [(tool, tuple(argv), None)]


def test_a_comment_goes_with_its_body_on_stdin_and_waits_when_asked(fake):
    r = fake.post("/api/issues/notes/daily/comments", {"body": "--json\n$(reboot)",
                                                       "replyTo": "comment-1", "wait": True})
    assert r.status == 200
    tool, argv, stdin = fake.runner.calls[0]
    assert tool == "alice" and stdin == b"--json\n$(reboot)"
    assert argv == ("issue", "comment", "daily", "--workspace=notes", "--body-file=-", "--via=web",
                    "--json", "--reply-to=comment-1", "--wait", "--timeout=90")
    fake.runner.calls.clear()
    assert fake.post("/api/issues/notes/daily/comments", {"body": "x"}).status == 200
    assert "--wait" not in fake.runner.calls[0][1]
    for bad in ({}, {"body": ""}, {"body": "x", "wait": "yes"}, {"body": "x", "other": 1},
                {"body": "x" * (64 * 1024 + 1)}):
        assert fake.post("/api/issues/notes/daily/comments", bad).status == 400, bad


def test_issue_fields_go_as_flag_equals_value_and_the_body_on_stdin(fake):
    r = fake.post("/api/issues", {"workspace": "notes", "title": "-rf /; $(reboot)", "id": "x-1",
                                  "cron": "0 9 * * 1-5", "timezone": "Europe/Paris",
                                  "catchUp": False, "nativeCredential": True, "priority": "high",
                                  "body": "--json\nline two"})
    assert r.status == 200
    tool, argv, stdin = fake.runner.calls[0]
    assert tool == "alice"
    assert argv == ("issue", "create", "--workspace=notes", "--json", "--id=x-1",
                    "--cron=0 9 * * 1-5", "--timezone=Europe/Paris", "--priority=high",
                    "--title=-rf /; $(reboot)", "--no-catch-up", "--native-credential",
                    "--body-file=-")
    assert stdin == b"--json\nline two"


def test_issue_update_maps_unset_and_catch_up(fake):
    r = fake.request("PATCH", "/api/issues/notes/daily", {"status": "done", "unset": ["model"],
                                                          "catchUp": True})
    assert r.status == 200
    assert fake.runner.calls[0][1] == ("issue", "update", "daily", "--workspace=notes", "--json",
                                       "--status=done", "--catch-up", "--unset=model")


def test_a_secret_goes_to_the_child_on_stdin_only(fake):
    secret = "sk-canary-Zq81xYQ"
    r = fake.post("/api/adapters/claude", {"action": "set-secret", "key": "ANTHROPIC_API_KEY",
                                           "value": secret, "force": True})
    assert r.status == 200
    tool, argv, stdin = fake.runner.calls[0]
    assert argv == ("set-secret", "claude", "ANTHROPIC_API_KEY", "-", "--json", "--force")
    assert stdin == secret.encode()
    assert secret not in r.body.decode() and secret not in fake.log.getvalue()


def test_file_delivery_decodes_the_cat_document(fake):
    import base64

    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
    fake.runner.answer(0, {"id": ENTRY, "path": "charts/a.png", "currentRevision": "sha256:" + "0" * 64,
                           "matchesRevision": False, "size": len(png), "encoding": "base64",
                           "content": base64.b64encode(png).decode()})
    r = fake.get(f"/api/inbox/{ENTRY}/files/3")
    assert r.status == 200 and r.body == png
    assert fake.runner.calls[0][1] == ("cat", ENTRY, "--index=3", "--json")
    assert r.header("Content-Type") == "image/png"
    assert r.header("X-OpenAlice-Revision") == "changed"
    fake.get(f"/api/inbox/{ENTRY}/files/3?require=revision")
    assert fake.runner.calls[1][1][-1] == "--require-revision"


def test_a_bug_in_one_request_is_a_500_and_the_server_goes_on(fake, monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(fake.runner, "run", broken)
    r = fake.get("/api/issues")
    assert r.status == 500
    err = r.json()["error"]
    assert err["code"] == "gateway_failed" and err["exit"] == 1
    assert "Traceback" not in r.body.decode() and "boom" not in r.body.decode()
    assert "request failed: ZeroDivisionError: boom" in fake.log.getvalue()
    monkeypatch.undo()
    assert fake.get("/api/issues").status == 200


def test_a_connector_name_is_checked_before_any_cli_runs(fake):
    r = fake.request("POST", "/api/connectors/Bad..Name/test", None)
    assert r.status == 400 and fake.runner.calls == []
