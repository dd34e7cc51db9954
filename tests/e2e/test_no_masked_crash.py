"""No masked crash: inputs that once ended in ``internal error: <Exception>``
(exit 1), a traceback, or a silent yes, each end in a clear exit 2 (or 3)
naming the file or flag, and leave state as it was.

Every case runs the installed tools as subprocesses (issue 10, point 6)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openalice.core.resources import schema
from openalice.core.schema import Validator
from tests.conftest import REPO, TOOLS, tool_path

NOW = "2026-03-02T08:00:30Z"
NO_LAUNCH = {"OPENALICE_TEST_LAUNCH": "none"}


def home() -> Path:
    return Path(os.environ["OPENALICE_HOME"])


def clean(r, code=2):
    """A handled failure: the exit code, a message, no traceback, no 'internal error'."""
    assert r.returncode == code, r
    text = r.stdout + r.stderr
    assert "Traceback" not in text and "internal error" not in text, r
    return r


def envelope(r, code=2):
    clean(r, code)
    doc = r.json()
    assert Validator(schema("error")).errors(doc) == [], doc
    assert doc["error"]["exit"] == code
    return doc["error"]


@pytest.fixture
def ws(cli, workspace):
    return workspace


@pytest.fixture
def scheduled(cli, ws):
    r = cli("alice", "issue", "create", "--title", "Hourly", "--every", "1h", "--body", "Do it",
            cwd=ws, env={"ALICE_NOW": NOW})
    assert r.returncode == 0, r
    return ws


# -- secrets: the hidden prompt and stdin ------------------------------------------

def _on_a_pty(argv, env, cwd, send=b"\x04"):
    """Run argv with a terminal as stdin/stdout; answer the prompt with ``send``."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    out = b""
    deadline = time.monotonic() + 30
    sent = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if not sent and b"(hidden)" in out:
            os.write(fd, send)
            sent = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


@pytest.mark.parametrize("argv", [["alice", "credential", "add", "k1", "--vendor", "deepseek"],
                                  ["harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY"]])
def test_ctrl_d_at_the_hidden_prompt(cli, tmp_path, argv):
    code, out = _on_a_pty([tool_path(argv[0]), *argv[1:]], cli.env, tmp_path)
    assert code == 2, out
    assert "Ctrl-D" in out and "prompt" in out and "internal error" not in out, out
    assert not (home() / "vault" / "secrets").exists() or not any((home() / "vault" / "secrets").iterdir())
    assert not (Path(os.environ["HARNESS_HOME"]) / "env" / "CLAUDE.env").exists()


SECRET_CASES = {
    "not utf-8": (b"\xff\xfe-key", "bad_secret", "not UTF-8"),
    "whitespace only": (b"   \t \n", "empty_secret", "whitespace"),
    "over 64 KiB": (b"k" * (64 * 1024 + 1), "too_large", "too large"),
}


@pytest.mark.parametrize("case", SECRET_CASES)
def test_bad_secrets_on_stdin_are_refused(cli, case):
    data, code, words = SECRET_CASES[case]
    for argv in (["alice", "credential", "add", "k1", "-", "--vendor", "deepseek"],
                 ["harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY", "-"]):
        error = envelope(cli(*argv, "--json", input=data))
        assert error["code"] == code and words in error["message"], error
        assert error["field"] == "stdin"
    assert cli("alice", "credential", "list", "--json").json()["credentials"] == []
    assert not (Path(os.environ["HARNESS_HOME"]) / "env" / "CLAUDE.env").exists()
    # the largest accepted secret still goes through
    ok = cli("alice", "credential", "add", "k2", "-", "--vendor", "deepseek", input=b"k" * 65536)
    assert ok.returncode == 0, ok


# -- the clock -------------------------------------------------------------------

@pytest.mark.parametrize("instant", ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00+01:00",
                                     "1969-12-31T23:59:59Z"])
def test_a_clock_out_of_range_is_refused_by_flag_and_by_environment(cli, scheduled, instant):
    for argv in (["alice-schedule", "scan"], ["alice-schedule", "scan", "--dry-run"],
                 ["alice-schedule", "health"], ["alice-schedule", "next", "hourly"],
                 ["alice", "issue", "list"], ["alice", "issue", "create", "--title", "X", "--every", "1h"]):
        error = envelope(cli(*argv, "--now", instant, "--json", cwd=scheduled, env=NO_LAUNCH))
        assert error["field"] == "--now" and error["code"] == "bad_instant", (argv, error)
        r = clean(cli(*argv, cwd=scheduled, env={**NO_LAUNCH, "ALICE_NOW": instant}))
        assert "ALICE_NOW" in r.stderr, (argv, r)
    assert sorted(p.name for p in (scheduled / ".alice" / "issues").iterdir()
                  if not p.name.startswith(".")) == ["hourly.md"]


# -- state files in the wrong shape ----------------------------------------------------

def test_a_directory_where_the_inbox_or_the_journal_belongs(cli, ws):
    entries = home() / "data" / "inbox" / "entries.jsonl"
    entries.mkdir(parents=True)
    for argv in (["alice-inbox", "push", "--body", "x"], ["alice-inbox", "list"],
                 ["alice-inbox", "count"], ["alice", "inbox", "list"]):
        error = envelope(cli(*argv, "--json", cwd=ws))
        assert error["file"] == str(entries) and "directory" in error["message"], (argv, error)
    entries.rmdir()
    journal = home() / "state" / "agent-runtime.jsonl"
    if journal.exists():
        journal.unlink()
    journal.mkdir(parents=True)
    error = envelope(cli("alice", "journal", "--json"))
    assert error["file"] == str(journal) and error["code"] == "not_regular_file"


def test_a_file_where_a_state_directory_belongs(cli, scheduled):
    state = home() / "state"
    state.mkdir(exist_ok=True)
    runs = state / "runs"
    if runs.exists():
        import shutil
        shutil.rmtree(runs)
    runs.write_text("")
    for argv in (["alice-schedule", "runs"], ["alice-schedule", "scan"]):
        error = envelope(cli(*argv, "--json", cwd=scheduled, env={**NO_LAUNCH, "ALICE_NOW": NOW}))
        assert error["file"] == str(runs) and error["code"] == "not_a_directory", (argv, error)
    runs.unlink()
    # a cursor directory that is a file: that issue is skipped (named), the others still scan
    cursors = state / "schedule" / "cursors"
    cursors.mkdir(parents=True, exist_ok=True)
    (cursors / "test-ws").write_text("")
    r = clean(cli("alice-schedule", "scan", "--json", cwd=scheduled,
                  env={**NO_LAUNCH, "ALICE_NOW": NOW}), 0)
    skipped = r.json()["skipped"]
    assert skipped[0]["reason"] == "cursor_invalid" and str(cursors / "test-ws") in skipped[0]["detail"]


def test_openalice_home_that_is_a_file(cli, tmp_path):
    not_a_dir = tmp_path / "home-file"
    not_a_dir.write_text("oops\n")
    for argv in (["alice", "workspace", "list"], ["alice-schedule", "scan"],
                 ["alice-inbox", "list"], ["alice", "journal"],
                 ["alice", "workspace", "init", str(tmp_path / "w")]):
        error = envelope(cli(*argv, "--json", env={"OPENALICE_HOME": str(not_a_dir)}))
        assert error["field"] == "OPENALICE_HOME" and error["file"] == str(not_a_dir), (argv, error)
    assert not_a_dir.read_text() == "oops\n" and not (tmp_path / "w").exists()


# -- values refused, not silently accepted ------------------------------------------------

def test_a_config_value_with_a_newline_is_refused(cli):
    error = envelope(cli("harness-adapter", "config", "claude", "region=eu\nx", "--json"))
    assert error["code"] == "bad_config_value" and error["field"] == "config.region"
    assert not (Path(os.environ["HARNESS_HOME"]) / "adapters.json").exists()


@pytest.mark.parametrize("every", ["87841h", "99999999999999999999h", "3000000000s"])
def test_every_beyond_ten_years_is_refused(cli, ws, every):
    error = envelope(cli("alice", "issue", "create", "--title", "Rare", "--every", every, "--json",
                         cwd=ws))
    assert error["field"] == "when.every" and "ten years" in error["message"]
    assert not (ws / ".alice" / "issues" / "rare.md").exists()


def test_a_bad_run_capacity_is_refused_even_when_nothing_is_due(cli, ws):
    assert cli("alice-schedule", "scan", cwd=ws).returncode == 0   # cache: nothing due
    error = envelope(cli("alice-schedule", "scan", "--json", cwd=ws,
                         env={"OPENALICE_RUN_CAPACITY": "lots"}))
    assert error["field"] == "OPENALICE_RUN_CAPACITY"
    assert cli("alice-schedule", "scan", cwd=ws, env={"OPENALICE_RUN_CAPACITY": "3"}).returncode == 0


def test_inbox_list_before_garbage(cli, ws):
    assert cli("alice-inbox", "push", "--body", "hello", cwd=ws).returncode == 0
    error = envelope(cli("alice-inbox", "list", "--before", "garbage", "--json"))
    assert error["code"] == "unknown_entry" and "--before" in error["message"]
    gone = cli("alice-inbox", "list", "--before", "inbox-0000000000001-00000000", "--json")
    assert gone.returncode == 0 and gone.json()["entries"] == []   # a well-formed id: an empty page


def test_duplicate_ids_in_the_workspace_registry(cli, ws, tmp_path):
    registry = home() / "workspaces.json"
    doc = json.loads(registry.read_text())
    twin = dict(doc["workspaces"][0], path=str(tmp_path))
    doc["workspaces"].append(twin)
    registry.write_text(json.dumps(doc))
    for argv in (["alice", "workspace", "list"], ["alice-schedule", "scan"], ["alice", "issue", "board"]):
        error = envelope(cli(*argv, "--json"))
        assert error["file"] == str(registry) and error["field"] == "workspaces/1/id", (argv, error)
        assert "duplicate workspace id 'test-ws'" in error["message"]


# -- a corrupt read state does not lock the inbox ------------------------------------------

def test_a_corrupt_read_state_is_reported_and_mark_all_read_starts_over(cli, ws):
    first = cli("alice-inbox", "push", "--body", "one", cwd=ws).stdout.strip()
    cli("alice-inbox", "push", "--body", "two", cwd=ws)
    state = home() / "data" / "inbox" / "read-state.json"
    state.write_text("{not json")
    listed = clean(cli("alice-inbox", "list", "--json"), 0).json()
    assert [e["read"] for e in listed["entries"]] == [False, False]
    assert listed["problems"][-1]["file"] == str(state)
    human = clean(cli("alice-inbox", "list"), 0)
    assert str(state) in human.stderr and "unread" in human.stderr
    count = clean(cli("alice-inbox", "count", "--json"), 0).json()
    assert (count["unread"], count["problems"][0]["file"]) == (2, str(state))
    refused = envelope(cli("alice-inbox", "read", first, "--json"))   # never written over
    assert refused["file"] == str(state) and "mark-all-read" in refused["details"]["hint"]
    assert state.read_text() == "{not json"
    second = cli("alice-inbox", "list", "--json").json()["entries"][0]["id"]
    deleted = clean(cli("alice-inbox", "delete", second), 0)      # a delete still deletes
    assert str(state) in deleted.stderr and state.read_text() == "{not json"
    cli("alice-inbox", "push", "--body", "two again", cwd=ws)
    done = clean(cli("alice-inbox", "mark-all-read", "--json", env={"ALICE_NOW": NOW}), 0).json()
    assert done["marked"] == 2 and done["unread"] == 0
    aside = Path(done["setAside"])
    assert aside.parent == state.parent and aside.read_text() == "{not json"
    assert cli("alice-inbox", "count", "--json").json() == {"total": 2, "unread": 0}


# -- state files are never followed through symlinks -------------------------------------

def test_a_symlinked_entries_file_is_refused_and_its_target_untouched(cli, ws, tmp_path):
    assert cli("alice-inbox", "push", "--body", "real", cwd=ws).returncode == 0
    entries = home() / "data" / "inbox" / "entries.jsonl"
    target = tmp_path / "elsewhere.jsonl"
    target.write_bytes(entries.read_bytes())
    entries.unlink()
    entries.symlink_to(target)
    before = target.read_bytes()
    for argv in (["alice-inbox", "push", "--body", "x"], ["alice-inbox", "list"],
                 ["alice-inbox", "count"], ["alice-inbox", "mark-all-read"]):
        error = envelope(cli(*argv, "--json", cwd=ws))
        assert error["code"] == "symlink_refused" and error["file"] == str(entries), (argv, error)
    assert target.read_bytes() == before


def test_a_symlinked_session_file_is_refused(cli, ws, tmp_path):
    made = cli("alice", "session", "new", "--agent", "codex", "--json", cwd=ws).json()
    path = Path(made["file"])
    resume_id = made["session"]["resumeId"]
    target = tmp_path / "outside.json"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)
    error = envelope(cli("alice", "session", "show", resume_id, "--json", cwd=ws))
    assert error["code"] == "symlink_refused" and error["file"] == str(path)
    listed = clean(cli("alice", "session", "list", "--json", cwd=ws), 2).json()
    assert listed["problems"][0]["file"] == str(path)
    assert envelope(cli("alice", "session", "rename", resume_id, "--name", "n", "--json", cwd=ws))
    assert json.loads(target.read_text())["resumeId"] == resume_id and path.is_symlink()


# -- one top-level handler, every entry path -------------------------------------------------

def _entry_points():
    """(name, argv prefix) of every way to start a tool."""
    points = [(f"script:{t}", [tool_path(t)]) for t in TOOLS]
    points += [(f"bin:{t}", [sys.executable, str(REPO / "bin" / t)]) for t in TOOLS]
    points.append(("python -m openalice", [sys.executable, "-m", "openalice"]))
    return points


def _into_a_closed_pipe(argv, env, cwd):
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(argv, stdout=write_end, stderr=subprocess.PIPE, env=env, cwd=cwd,
                              timeout=60)
    finally:
        os.close(write_end)


VERB_OF = {"alice": ["workspace", "list"], "alice-schedule": ["scan"], "alice-inbox": ["list"],
           "alice-harness": ["--version"], "harness-adapter": ["list"], "python -m openalice": ["workspace", "list"]}


@pytest.mark.parametrize("name,prefix", _entry_points(), ids=[n for n, _ in _entry_points()])
def test_every_entry_path_is_quiet_into_a_closed_pipe(cli, ws, name, prefix):
    tool = name.split(":", 1)[-1]
    verb = VERB_OF[tool]
    for extra in (["--json"], []):
        argv = [*prefix, *verb, *(extra if verb != ["--version"] else [])]
        r = _into_a_closed_pipe(argv, {**cli.env, "ALICE_NOW": NOW}, ws)
        assert b"Traceback" not in r.stderr and b"BrokenPipe" not in r.stderr, (argv, r.stderr)
        assert r.returncode in (0, 1), (argv, r.returncode, r.stderr)


def test_the_full_scan_into_a_closed_pipe(cli, scheduled):
    """The due path (not the fast path) too, with a handled error after the pipe closed."""
    env = {**cli.env, **NO_LAUNCH, "ALICE_NOW": NOW}
    for argv in ([tool_path("alice-schedule"), "scan", "--json"],
                 [tool_path("alice-schedule"), "scan", "--json", "--now", "not-a-time"]):
        r = _into_a_closed_pipe(argv, env, scheduled)
        assert b"Traceback" not in r.stderr and b"Broken" not in r.stderr, r.stderr


def test_one_top_level_handler():
    """Nothing but cli/_run.py turns escaping exceptions into exit codes."""
    holders = []
    for path in sorted((REPO / "openalice").rglob("*.py")):
        text = path.read_text()
        if ('"internal error' in text or "f\"internal error" in text or "except BrokenPipeError" in text
                or "except KeyboardInterrupt" in text):
            holders.append(str(path.relative_to(REPO)))
    assert holders == ["openalice/cli/_run.py"], holders
