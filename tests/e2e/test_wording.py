"""Wording slips a first user hits (issue 22 item 8), each with the case that used to be wrong."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers.schemas import schema_errors

TOOLS = ("alice", "alice-schedule", "alice-inbox", "alice-harness", "harness-adapter")


def test_the_inbox_cat_hint_names_the_command_as_typed(cli, workspace):
    r = cli("alice", "inbox", "cat", "inbox-1764493200000-0000000a", cwd=workspace)
    assert r.returncode == 2
    assert "see 'alice inbox cat --help'" in r.stderr and "'alice cat" not in r.stderr
    r = cli("alice-inbox", "cat", "inbox-1764493200000-0000000a", cwd=workspace)
    assert r.returncode == 2 and "see 'alice-inbox cat --help'" in r.stderr


def test_version_json_on_every_tool(cli):
    for tool in TOOLS:
        for argv in (("--version", "--json"), ("--json", "--version"), ("-V", "--json")):
            r = cli(tool, *argv)
            assert r.returncode == 0, (tool, argv, r)
            assert r.json()["version"] and r.json()["tool"] == tool
            assert schema_errors("version", r.json()) == []
        plain = cli(tool, "--version")
        assert plain.returncode == 0 and plain.stdout.startswith(f"{tool} ")


def test_a_dashed_duration_is_judged_as_a_duration(cli, workspace):
    r = cli("alice", "issue", "create", "--title", "x", "--every", "-5m", "--body", "b", cwd=workspace)
    assert r.returncode == 2
    assert "expected one argument" not in r.stderr
    assert "`-5m` is not a duration" in r.stderr, r.stderr
    # An option where a value belongs is still argparse's own error.
    r = cli("alice", "issue", "create", "--title", "x", "--every", "--json", cwd=workspace)
    assert r.returncode == 2 and "expected one argument" in r.json()["error"]["message"]


def test_session_list_with_a_corrupt_file_names_it(cli, workspace):
    sessions = workspace / ".alice" / "sessions"
    sessions.mkdir(parents=True)
    bad = sessions / "resume-1.json"
    bad.write_text("{not json")
    r = cli("alice", "session", "list", cwd=workspace)
    assert r.returncode == 2
    assert "no sessions" not in r.stdout and r.stdout.strip() == "no readable sessions"
    assert f"alice: error: {bad}: malformed JSON" in r.stderr
    assert r.stderr.count(str(bad)) == 1
    j = cli("alice", "session", "list", "--json", cwd=workspace)
    assert j.returncode == 2 and j.json()["problems"][0]["file"] == str(bad)
    assert j.stderr == ""


def test_models_show_of_an_empty_id_is_invalid(cli):
    for model in ("", "   "):
        r = cli("alice", "models", "show", model, "--json")
        assert r.returncode == 2 and r.json()["error"]["code"] == "empty_model", r


def _fake_agent(tmp_path: Path) -> str:
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    exe = bindir / "claude"
    exe.write_text("#!/bin/sh\necho 2.1.197\n")
    exe.chmod(0o755)
    return f"{bindir}:{os.environ['PATH']}"


def test_issue_create_says_when_the_scan_will_block_it(cli, workspace, tmp_path):
    from tests.conftest import tool_path

    tools = os.path.dirname(tool_path("alice"))
    r = cli("alice", "issue", "create", "--title", "Blocked", "--every", "5m", "--agent", "claude",
            "--body", "b", cwd=workspace, env={"PATH": f"{tools}:/usr/bin:/bin"})
    assert r.returncode == 0, r
    assert "the next scan starts it" not in r.stdout
    assert "due now, but the scan will block it (agent_not_installed:" in r.stdout, r.stdout
    r = cli("alice", "issue", "create", "--title", "Ready", "--every", "5m", "--agent", "claude",
            "--body", "b", cwd=workspace, env={"PATH": _fake_agent(tmp_path)})
    assert r.returncode == 0, r
    assert "due now (the next scan starts it)" in r.stdout and "block" not in r.stdout, r.stdout


def test_list_board_and_show_say_when_the_scan_will_block_a_due_issue(cli, workspace, tmp_path):
    """The listing views gave every due issue "the next scan starts it", also
    the ones the scan refuses (issue 22): they now ask the same readiness rule
    for the due ones, in text and in --json (schedule.blocked)."""
    from tests.conftest import tool_path
    from tests.helpers.schemas import conforms

    tools = os.path.dirname(tool_path("alice"))
    bare = {"PATH": f"{tools}:/usr/bin:/bin"}
    for title in ("Blocked", "Ready"):
        r = cli("alice", "issue", "create", "--id", title.lower(), "--title", title, "--every", "5m",
                "--agent", "claude", "--body", "b", cwd=workspace,
                env=bare if title == "Blocked" else {"PATH": _fake_agent(tmp_path)})
        assert r.returncode == 0, r
    with_agent = {"PATH": str(tmp_path / "fakebin") + ":" + bare["PATH"]}
    for env, blocked in ((bare, {"blocked", "ready"}), (with_agent, set())):
        listed = cli("alice", "issue", "list", "--json", cwd=workspace, env=env)
        assert listed.returncode == 0, listed
        conforms("issue-list", listed.json())
        marks = {i["id"]: i["schedule"].get("blocked") for i in listed.json()["issues"]}
        assert {k for k, v in marks.items() if v} == blocked, marks
        if blocked:
            assert marks["blocked"]["code"] == "agent_not_installed"
        text = cli("alice", "issue", "list", cwd=workspace, env=env).stdout
        board = cli("alice", "issue", "board", cwd=workspace, env=env)
        conforms("issue-board", cli("alice", "issue", "board", "--json", cwd=workspace, env=env).json())
        show = cli("alice", "issue", "show", "blocked", cwd=workspace, env=env)
        for out in (text, board.stdout, show.stdout):
            if blocked:
                assert "the next scan starts it" not in out, out
                assert "due now, but the scan will block it (agent_not_installed:" in out, out
            else:
                assert "due now (the next scan starts it)" in out and "scan will block" not in out, out
