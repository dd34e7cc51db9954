"""The issue detail view's and issue forms' routes: next fires, the thread and
its comments, the form's choices (agents with install state, credentials,
models).  Ids are checked before any shell-out, argv are separate items, the
comment body travels on stdin only, and state changes need token and Origin."""

from __future__ import annotations

import pytest

from tests.helpers.schemas import conforms

DOCTOR = {"ok": False, "exit": 3, "summary": {"ok": 0, "info": 2, "attention": 1}, "findings": [],
          "error": {"code": "attention", "message": "x", "exit": 3},
          "agents": [{"name": "claude", "found": True, "pinned": "2.1.197", "path": "/opt/bin/claude",
                      "version": "2.1.197"},
                     {"name": "pi", "found": False, "pinned": "0.73.1"}]}
CATALOG = [{"id": "claude", "enabled": True, "label": "Claude Code"},
           {"id": "local", "enabled": False, "label": "Local model"}]


def test_next_runs_alice_schedule_next_with_the_checked_ids(fake):
    r = fake.get("/api/issues/notes/daily/next?count=3")
    assert r.status == 200
    assert fake.runner.calls == [("alice-schedule", ("next", "daily", "--workspace=notes", "--count=3",
                                                     "--json"), None)]


@pytest.mark.parametrize("count", ["0", "51", "x", "-1"])
def test_next_count_is_bounded_before_any_shell_out(fake, count):
    assert fake.get(f"/api/issues/notes/daily/next?count={count}").status == 400
    assert fake.runner.calls == []


@pytest.mark.parametrize("method,path", [
    ("GET", "/api/issues/..%2Fetc/daily/next"), ("GET", "/api/issues/notes/-rf/next"),
    ("GET", "/api/issues/Notes/daily/next"), ("GET", "/api/issues/notes/a%2Fb/thread"),
    ("GET", "/api/issues/notes/--json"), ("PATCH", "/api/issues/notes/..%2F..%2Fx"),
    ("POST", "/api/issues/no_tes/daily/comments"), ("POST", "/api/issues/notes/-x/comments"),
])
def test_bad_ids_are_400_before_any_shell_out(fake, method, path):
    r = fake.request(method, path, None if method == "GET" else {"body": "hi", "status": "todo"})
    assert r.status == 400 and r.json()["error"]["code"] == "bad_parameter", r
    assert fake.runner.calls == []


def test_a_comment_body_goes_on_stdin_never_argv(fake):
    secret = "the key is sk-" + "x" * 40
    r = fake.post("/api/issues/notes/daily/comments", {"body": secret, "wait": True})
    assert r.status == 200
    [(tool, args, stdin)] = fake.runner.calls
    assert (tool, stdin) == ("alice", secret.encode())
    assert args[:3] == ("issue", "comment", "daily") and "--body-file=-" in args
    assert "--wait" in args and not any(secret in a for a in args)


@pytest.mark.parametrize("body", [{}, {"body": ""}, {"body": 5}, {"body": "x", "wait": "yes"},
                                  {"body": "x", "author": "@resume-x"}, {"body": "a\x00b"}])
def test_a_bad_comment_is_400_before_any_shell_out(fake, body):
    assert fake.post("/api/issues/notes/daily/comments", body).status == 400
    assert fake.runner.calls == []


def test_a_comment_needs_the_token_and_the_origin(fake):
    assert fake.request("POST", "/api/issues/notes/daily/comments", {"body": "hi"},
                        state=False).status == 403
    assert fake.post("/api/issues/notes/daily/comments", {"body": "hi"},
                     headers={"Origin": "http://evil.example"}).status == 403
    assert fake.runner.calls == []


def test_agents_join_doctor_and_the_catalog_without_paths(fake):
    fake.runner.answer(3, DOCTOR)  # doctor's exit 3 (attention) still lists every agent
    fake.runner.answer(0, CATALOG)
    r = fake.get("/api/agents")
    assert r.status == 200
    doc = conforms("gateway-agents", r.json())
    assert [(a["name"], a["kind"], a["installed"]) for a in doc["agents"]] == [
        ("claude", "builtin", True), ("pi", "builtin", False), ("local", "adapter", False)]
    assert "/opt/bin" not in r.body.decode()
    assert [c[:2] for c in fake.runner.calls] == [("alice", ("doctor", "--timeout=3", "--json")),
                                                  ("harness-adapter", ("list", "--json"))]


def test_agents_without_a_catalog_still_lists_the_builtins(fake):
    fake.runner.answer(3, DOCTOR)
    fake.runner.answer(1, {"error": {"code": "catalog_unreadable", "message": "x", "exit": 1}})
    doc = conforms("gateway-agents", fake.get("/api/agents").json())
    assert doc["catalog"] == "unavailable" and [a["name"] for a in doc["agents"]] == ["claude", "pi"]


def test_a_doctor_without_a_document_is_a_502(fake):
    fake.runner.answer(3, b"not json")
    r = fake.get("/api/agents")
    assert r.status == 502 and r.json()["error"]["code"] == "cli_failed"


def test_the_form_choices_are_the_cli_documents(fake):
    assert fake.get("/api/credentials").status == 200
    assert fake.get("/api/models").status == 200
    assert [c[:2] for c in fake.runner.calls] == [("alice", ("credential", "list", "--json")),
                                                  ("alice", ("models", "list", "--json"))]
    assert fake.get("/api/models?vendor=x").status == 400  # no query keys on these routes


def test_an_edit_maps_each_field_to_its_own_flag(fake):
    r = fake.request("PATCH", "/api/issues/notes/daily", {
        "agent": "codex", "model": "--rf", "effort": "high", "assignee": "@new-each-run",
        "timeout": "30m", "nativeCredential": True, "unset": ["credential"]})
    assert r.status == 200
    [(_, args, stdin)] = fake.runner.calls
    assert stdin is None and "--model=--rf" in args  # a value never reads as a flag
    for item in ("--agent=codex", "--effort=high", "--assignee=@new-each-run", "--timeout=30m",
                 "--native-credential", "--unset=credential"):
        assert item in args
