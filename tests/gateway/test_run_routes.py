"""The run detail view's routes: retry a run's issue, Run now, a run's logs
(ids checked before any shell-out, argv as separate items, refusals passed through)."""

from __future__ import annotations

import pytest

TASK = "run-AbCdEf12"


def _run_doc(status="failed", workspace="notes", issue="daily"):
    return {"task": {"taskId": TASK, "status": status, "workspaceId": workspace, "issueId": issue},
            "prompt": None, "structured": None, "logs": {}}


def test_retry_names_the_issue_from_the_run_and_runs_retry_now(fake):
    fake.runner.answer(0, _run_doc())
    fake.runner.answer(0, {"task": {"taskId": "run-New12345"}, "launched": True})
    r = fake.post(f"/api/runs/{TASK}/retry", {})
    assert r.status == 200 and r.json()["task"]["taskId"] == "run-New12345"
    assert fake.runner.calls == [
        ("alice-schedule", ("run", TASK, "--json"), None),
        ("alice-schedule", ("retry-now", "daily", "--workspace=notes", "--json"), None)]


def test_retry_passes_the_cli_refusal_through(fake):
    refusal = {"error": {"code": "already_running", "exit": 3,
                         "message": "notes/daily has a live run run-Other123"}}
    fake.runner.answer(0, _run_doc(status="interrupted"))
    fake.runner.answer(3, refusal)
    r = fake.post(f"/api/runs/{TASK}/retry", {})
    assert r.status == 503 and r.json() == refusal


@pytest.mark.parametrize("doc,code", [
    (_run_doc(status="done"), "not_retryable"),
    (_run_doc(status="running"), "not_retryable"),
    (_run_doc(issue=None), "not_retryable"),
    (_run_doc(workspace="../etc"), "bad_parameter"),
    (_run_doc(issue="--all"), "bad_parameter"),
])
def test_retry_refuses_what_it_cannot_retry_without_a_second_shell_out(fake, doc, code):
    fake.runner.answer(0, doc)
    r = fake.post(f"/api/runs/{TASK}/retry", {})
    assert r.status == 400 and r.json()["error"]["code"] == code
    assert len(fake.runner.calls) == 1  # only `run` ran


def test_a_run_document_the_gateway_cannot_read_is_502(fake):
    fake.runner.answer(0, b"not json")
    r = fake.post(f"/api/runs/{TASK}/retry", {})
    assert r.status == 502 and r.json()["error"] == {
        "code": "cli_failed", "exit": 1, "message": "alice-schedule run returned a document the gateway cannot read"}
    assert len(fake.runner.calls) == 1


def test_retry_of_an_unknown_run_is_the_cli_answer(fake):
    fake.runner.answer(2, {"error": {"code": "unknown_task", "exit": 2, "message": "unknown task"}})
    r = fake.post(f"/api/runs/{TASK}/retry", {})
    assert r.status == 400 and r.json()["error"]["code"] == "unknown_task"
    assert len(fake.runner.calls) == 1


@pytest.mark.parametrize("path", ["/api/runs/..%2Fx/retry", "/api/runs/--json/retry",
                                  "/api/issues/..%2F/daily/run", "/api/issues/notes/-rf/run",
                                  f"/api/runs/{TASK}/logs/..%2Ftask.json",
                                  f"/api/runs/{TASK}/logs/supervisor"])
def test_bad_ids_are_400_before_any_shell_out(fake, path):
    r = fake.request("GET" if "/logs/" in path else "POST", path, None if "/logs/" in path else {})
    assert r.status == 400 and r.json()["error"]["code"] == "bad_parameter"
    assert fake.runner.calls == []


def test_a_body_on_retry_or_run_is_refused(fake):
    for path in (f"/api/runs/{TASK}/retry", "/api/issues/notes/daily/run"):
        assert fake.post(path, {"force": True}).status == 400
    assert fake.runner.calls == []


def test_run_now_on_an_issue(fake):
    r = fake.post("/api/issues/notes/daily/run", {})
    assert r.status == 200
    assert fake.runner.calls == [
        ("alice-schedule", ("run-now", "daily", "--workspace=notes", "--json"), None)]


def test_a_log_is_a_text_download_of_the_cli_document(fake):
    fake.runner.answer(0, {"taskId": TASK, "stream": "stderr", "bytes": 11, "truncated": False,
                           "content": "<script>x</script>\n"})
    r = fake.get(f"/api/runs/{TASK}/logs/stderr")
    assert r.status == 200 and r.body == b"<script>x</script>\n"
    assert fake.runner.calls == [("alice-schedule", ("log", TASK, "--stream=stderr", "--json"), None)]
    assert r.header("Content-Type") == "text/plain; charset=utf-8"
    assert r.header("Content-Disposition").startswith("attachment;")
    assert r.header("Content-Security-Policy").startswith("sandbox")
    assert r.header("X-Content-Type-Options") == "nosniff"
    fake.runner.answer(2, {"error": {"code": "unknown_task", "exit": 2, "message": "unknown task"}})
    assert fake.get(f"/api/runs/{TASK}/logs/stdout").status == 400
    fake.runner.answer(0, b"not json")
    assert fake.get(f"/api/runs/{TASK}/logs/stdout").status == 502
