"""The failure reasons, proven on failure streams recorded from the real CLIs.

``tests/data/agent-streams/failures/<cli>-<case>.jsonl`` (stdout) and
``.stderr`` were recorded from claude 2.1.197, codex 0.171.0, opencode 1.18.33
and pi 0.73.1 against the loopback fake model server (README there).  Each is
fed through the CLI's normalizer, as the supervisor does, and classified with
the exit status it ended with.
"""

from __future__ import annotations

import json

import pytest

from openalice.runs import reasons
from openalice.runs.streams import normalizer_for
from tests.testdata import AGENT_STREAMS

FAILURES = AGENT_STREAMS / "failures"
FORMATS = {"claude": "claude-stream-json", "codex": "codex-json", "opencode": "opencode-json", "pi": "pi-json"}
CASES = json.loads((FAILURES / "cases.json").read_text())


def run_of(stem: str) -> dict:
    """What the supervisor knows at the end of the recorded run."""
    agent = stem.split("-")[0]
    case = CASES[stem]
    stdout = (FAILURES / f"{stem}.jsonl").read_text()
    stderr_path = FAILURES / f"{stem}.stderr"
    stderr = stderr_path.read_text() if stderr_path.exists() else ""
    normalizer = normalizer_for(FORMATS[agent])
    normalizer.strict = True
    for line in stdout.splitlines(keepends=True):
        normalizer.feed(line)
    normalizer.flush()
    structured = normalizer.finish()
    errors = [b["message"] for b in structured["blocks"] if b["type"] == "error"]
    failed = (case.get("killed") or case.get("exitCode") != 0 or normalizer.engine_reported_failure()
              or normalizer.error_after_last_text())
    return {"agent": agent, "status": "failed" if failed else "done", "exit_code": case.get("exitCode"),
            "killed": bool(case.get("killed")), "errors": errors, "stdout_tail": stdout,
            "stderr_tail": stderr, "native": case["native"], "timeout_s": 60 if case.get("killed") else None}


@pytest.mark.parametrize("stem", sorted(CASES))
def test_each_recorded_failure_classifies_as_documented(stem):
    run = run_of(stem)
    assert run["status"] == "failed", stem
    code, detail = reasons.classify(**run)
    assert code == CASES[stem]["reason"], (stem, code, detail)
    assert code in reasons.REASONS
    if CASES[stem].get("detail"):
        assert CASES[stem]["detail"] in (detail or ""), detail


def test_every_cli_has_each_recorded_case():
    for agent in FORMATS:
        cases = {stem.split("-", 1)[1] for stem in CASES if stem.startswith(agent + "-")}
        assert {"nologin", "401", "404", "429", "gone"} <= cases, agent


def test_the_recordings_are_complete_and_free_of_machine_paths():
    for path in FAILURES.iterdir():
        if path.suffix in (".jsonl", ".stderr"):
            assert path.stem in CASES, path.name
            text = path.read_text()
            for marker in ("/tmp/", "/work/", "/home/", "/root/", "/Users/"):
                assert marker not in text, (path.name, marker)


def test_a_detail_is_short_and_secret_free():
    code, detail = reasons.classify(agent="codex", status="failed", exit_code=1,
                                    errors=["unexpected status 401 Unauthorized: bad key sk-abcdefghijklmnop1234 "
                                            + "x" * 500])
    assert code == "credential_rejected"
    assert "sk-abcdefghijklmnop1234" not in detail and len(detail) <= reasons.DETAIL_LIMIT


def test_native_codex_401_is_a_missing_login_and_a_vault_401_a_rejected_key():
    run = run_of("codex-401")
    assert reasons.classify(**{**run, "native": False})[0] == "credential_rejected"
    assert reasons.classify(**{**run, "native": True})[0] == "not_logged_in"


@pytest.mark.parametrize("kwargs,want", [
    ({"status": "done"}, None),
    ({"status": "interrupted", "interruption": "supervisor received SIGTERM"}, "interrupted"),
    ({"status": "failed", "process_started": False, "launch_code": "executable_not_found",
      "launch_error": "executable not found: claude"}, "agent_missing"),
    ({"status": "failed", "process_started": False, "launch_error": "workspace gone"}, "launch_failed"),
    ({"status": "failed", "killed": True, "signal": "SIGTERM"}, "timeout"),
    ({"status": "failed", "signal": "SIGKILL"}, "killed"),
    ({"status": "failed", "signal": "SIGSEGV"}, "crashed"),
    ({"status": "failed", "exit_code": 1, "stderr_tail": "thread 'main' panicked at src/x.rs"}, "crashed"),
    ({"status": "failed", "exit_code": 0, "errors": ["the tool broke"]}, "agent_error"),
    ({"status": "failed", "exit_code": 3, "stderr_tail": "usage: wrapper\nbad flag\n"}, "exit_nonzero"),
    ({"status": "failed", "exit_code": 1, "errors": ["HTTP 503 Service Unavailable"]}, "service_error"),
])
def test_the_rules_without_a_stream(kwargs, want):
    assert reasons.classify(agent="some-wrapper", **kwargs)[0] == want


def test_a_wrapper_error_event_gets_the_generic_rules():
    code, detail = reasons.classify(agent="my-engine", status="failed", exit_code=1,
                                    errors=["provider said: 429 Too Many Requests"])
    assert code == "rate_limited" and "429" in detail


def test_explain_gives_words_and_a_next_step_naming_the_agent():
    told = reasons.explain("not_logged_in", "claude")
    assert told["words"] == "not logged in"
    assert "`claude auth login`" in told["next"] and "alice credential add" in told["next"]
    assert "--vendor anthropic" in told["next"]
    assert reasons.explain(None) is None
    assert all(reasons.explain(code, "pi")["next"] for code in reasons.REASONS)
    line = reasons.describe("rate_limited", "429 slow down", "codex")
    assert line.startswith("rate limited") and "(429 slow down)" in line and "retry-now" in line


def test_an_old_record_gets_a_reason_from_its_own_fields():
    assert reasons.from_record({"status": "failed", "exitCode": 1}) == ("exit_nonzero", "exit code 1")
    assert reasons.from_record({"status": "failed", "killed": True, "signal": "SIGTERM"})[0] == "timeout"
    assert reasons.from_record({"status": "failed", "processStarted": False, "exitCode": -1,
                                "error": "executable not found: claude",
                                "launchErrorCode": "executable_not_found"})[0] == "agent_missing"
    assert reasons.from_record({"status": "done", "exitCode": 0}) == (None, None)
    assert reasons.from_record({"status": "failed", "reason": "network", "detail": "x"}) == ("network", "x")
