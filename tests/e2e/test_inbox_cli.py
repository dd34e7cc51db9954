"""alice-inbox (and alice inbox) end to end, as a user runs them; every --json
document and every on-disk file is validated against its schema in spec/."""

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.helpers.schemas import conforms

NOW = "2026-11-30T09:00:00Z"


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def home() -> Path:
    return Path(os.environ["OPENALICE_HOME"])


def check_disk():
    inbox_dir = home() / "data" / "inbox"
    for line in (inbox_dir / "entries.jsonl").read_bytes().splitlines():
        conforms("inbox-entry", json.loads(line))
    if (inbox_dir / "read-state.json").exists():
        conforms("inbox-read-state", json.loads((inbox_dir / "read-state.json").read_text()))


@pytest.fixture
def ws(workspace, tmp_path):
    (workspace / "reports").mkdir()
    (workspace / "reports" / "close.md").write_bytes(b"# Close\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (workspace / "leak").symlink_to(outside, target_is_directory=True)
    return workspace


def push(cli, ws, body, *extra, env=None):
    r = cli("alice-inbox", "push", "--body", body, "--json", *extra, cwd=ws,
            env={"ALICE_NOW": NOW, **(env or {})})
    assert r.returncode == 0, r
    return conforms("inbox-push", r.json())


def test_push_three_references_and_show_tells_the_truth(cli, ws):
    body = ("# Nightly close\nGood [[reports/close.md]], missing [[reports/gone.md]], "
            "escaping [[leak/secret.txt]], not a path [[../secret.txt]].")
    r = cli("alice-inbox", "push", "--body", body, cwd=ws, env={"ALICE_NOW": NOW})
    assert r.returncode == 0, r
    entry_id = r.stdout.strip()
    assert entry_id.startswith("inbox-1796029200000-")  # prints just the id
    assert "[[reports/gone.md]] is unavailable (missing)" in r.stderr
    assert "[[leak/secret.txt]] is unavailable (path_escape)" in r.stderr
    assert "[[../secret.txt]] is not a file reference (dotdot)" in r.stderr

    shown = conforms("inbox-show", cli("alice-inbox", "show", entry_id, "--json").json())
    assert shown["entry"]["body"] == body and shown["entry"]["origin"] == {"kind": "manual"}
    assert shown["entry"]["ts"] == 1796029200000 and shown["entry"]["read"] is False
    assert shown["entry"]["fileRevisions"] == {"reports/close.md": sha(b"# Close\n")}
    assert shown["files"] == [
        {"path": "reports/close.md", "available": True, "revision": sha(b"# Close\n"),
         "currentRevision": sha(b"# Close\n"), "matchesRevision": True},
        {"path": "reports/gone.md", "available": False, "reason": "missing"},
        {"path": "leak/secret.txt", "available": False, "reason": "path_escape"},
    ]
    human = cli("alice-inbox", "show", entry_id)
    assert human.returncode == 0
    for text in ("origin:    manual", "status:    unread", "ok       reports/close.md",
                 "missing  reports/gone.md", "escapes  leak/secret.txt", "# Nightly close"):
        assert text in human.stdout, human.stdout
    check_disk()


def test_push_body_sources_and_refusals(cli, ws, tmp_path):
    f = tmp_path / "body.md"
    f.write_text("from a file [[reports/close.md]]\n")
    r = cli("alice-inbox", "push", "--body-file", str(f), "--json", cwd=ws)
    assert r.returncode == 0, r
    got = conforms("inbox-push", r.json())
    body = cli("alice-inbox", "show", got["id"], "--json").json()["entry"]["body"]
    assert body == "from a file [[reports/close.md]]"  # one trailing newline dropped
    r = cli("alice-inbox", "push", "--body-file", "-", "--json", input="from stdin\n\n", cwd=ws)
    assert r.returncode == 0, r
    assert cli("alice-inbox", "show", r.json()["id"], "--json").json()["entry"]["body"] == \
        "from stdin\n"
    for args, inp in ((["--body", "   "], None), (["--body-file", "-"], " \n"),):
        r = cli("alice-inbox", "push", *args, "--json", input=inp, cwd=ws)
        assert r.returncode == 2 and r.json()["error"]["code"] == "empty_body", r
    r = cli("alice-inbox", "push", "--body-file", "-", "--json", input=b"\xff\xfe", cwd=ws)
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_utf8"
    r = cli("alice-inbox", "push", "--json", cwd=ws)
    assert r.returncode == 2 and r.json()["error"]["code"] == "usage"
    r = cli("alice-inbox", "push", "--body", "x", "--body-file", str(f), cwd=ws)
    assert r.returncode == 2 and "not allowed with" in r.stderr
    # outside any registered workspace there is no workspaceId: refused
    r = cli("alice-inbox", "push", "--body", "lost", "--json", cwd=tmp_path)
    assert r.returncode == 2 and r.json()["error"]["code"] == "no_workspace"
    r = cli("alice-inbox", "push", "--body", "x", "--workspace", "nope", "--json", cwd=tmp_path)
    assert r.returncode == 2 and r.json()["error"]["code"] == "unknown_workspace"
    # --workspace from anywhere
    r = cli("alice-inbox", "push", "--body", "remote", "--workspace", "test-ws", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("inbox-")
    assert "Traceback" not in r.stderr
    check_disk()


def test_push_inside_a_run(cli, ws, tmp_path):
    other = tmp_path / "other"
    assert cli("alice", "workspace", "init", str(other)).returncode == 0
    env = {"ALICE_RUN_ID": "run-AAAAAAAA", "ALICE_WORKSPACE_ID": "test-ws",
           "ALICE_RESUME_ID": "resume-a-b-c-000000"}
    r = cli("alice-inbox", "push", "--body", "x", "--workspace", "other", "--json", cwd=ws,
            env=env)
    assert r.returncode == 4 and r.json()["error"]["code"] == "cross_workspace"
    # the workspace comes from the run environment, whatever the cwd
    r = cli("alice-inbox", "push", "--body", "from a run", cwd=tmp_path, env=env)
    assert r.returncode == 0, r
    assert "unknown to the task registry" in r.stderr
    entry = cli("alice-inbox", "show", r.stdout.strip(), "--json").json()["entry"]
    assert entry["workspaceId"] == "test-ws" and "origin" not in entry  # never forged
    fact = cli("alice", "journal", "--json").json()["entries"][0]
    assert "originKind" not in fact["payload"]
    # writes to another workspace's entries are refused inside a run
    foreign = push(cli, other, "someone else's report")["id"]
    for verb in ("read", "unread", "delete"):
        r = cli("alice-inbox", verb, foreign, "--json", env=env)
        assert r.returncode == 4, (verb, r)
    r = cli("alice-inbox", "mark-all-read", "--json", env=env)
    assert r.returncode == 0 and conforms("inbox-mark-all-read", r.json())["marked"] == 1
    assert cli("alice-inbox", "count", "--json").json()["unread"] == 1  # the foreign one
    check_disk()


def test_list_pages_filters_and_human_output(cli, ws, tmp_path):
    ids = [push(cli, ws, f"report {i}")["id"] for i in range(5)]
    assert ids == sorted(ids)
    page = conforms("inbox-list", cli("alice-inbox", "list", "--limit", "3", "--json").json())
    assert [e["id"] for e in page["entries"]] == ids[::-1][:3]
    assert page["hasMore"] is True and page["nextBefore"] == ids[2]
    rest = conforms("inbox-list", cli("alice-inbox", "list", "--before", ids[2], "--json").json())
    assert [e["id"] for e in rest["entries"]] == [ids[1], ids[0]] and not rest["hasMore"]
    unknown = cli("alice-inbox", "list", "--before", "inbox-0000000000000-00000000", "--json")
    assert conforms("inbox-list", unknown.json())["entries"] == []
    assert cli("alice-inbox", "read", ids[4]).returncode == 0
    unread = cli("alice-inbox", "list", "--unread", "--json").json()
    assert [e["id"] for e in unread["entries"]] == ids[3::-1]
    assert cli("alice-inbox", "list", "--workspace", "nobody-here", "--json").json()[
        "entries"] == []
    assert len(cli("alice-inbox", "list", "--workspace", str(ws), "--json").json()[
        "entries"]) == 5
    human = cli("alice-inbox", "list", "--limit", "2")
    assert human.returncode == 0 and "report 4" in human.stdout
    assert f"more: alice-inbox list --before {ids[3]}" in human.stdout
    for bad in ("0", "1001", "x"):
        assert cli("alice-inbox", "list", "--limit", bad).returncode == 2


def test_malformed_lines_never_break_a_listing(cli, ws):
    a = push(cli, ws, "first")["id"]
    entries = home() / "data" / "inbox" / "entries.jsonl"
    with open(entries, "ab") as fh:
        fh.write(b"{oops\n")
    b = push(cli, ws, "second")["id"]
    r = cli("alice-inbox", "list", "--json")
    doc = conforms("inbox-list", r.json())
    assert [e["id"] for e in doc["entries"]] == [b, a]
    assert doc["problems"][0]["reason"].startswith("malformed line")
    human = cli("alice-inbox", "list")
    assert human.returncode == 0 and "skipped line at byte" in human.stderr
    count = conforms("inbox-count", cli("alice-inbox", "count", "--json").json())
    assert (count["total"], count["unread"]) == (2, 2)
    assert count["problems"][0]["reason"].startswith("malformed line")
    assert cli("alice-inbox", "show", b, "--json").returncode == 0


def test_files_and_cat(cli, ws):
    (ws / "reports" / "bin.dat").write_bytes(b"\x00\x01\xff")
    entry_id = push(cli, ws, "[[reports/close.md]] [[reports/bin.dat]] [[leak/secret.txt]] "
                             "[[reports/later.md]]")["id"]
    files = conforms("inbox-files", cli("alice-inbox", "files", entry_id, "--json").json())
    assert [f["available"] for f in files["files"]] == [True, True, False, False]
    r = cli("alice-inbox", "cat", entry_id, "reports/close.md")
    assert (r.returncode, r.stdout) == (0, "# Close\n")
    assert "matches its published revision" in r.stderr
    doc = conforms("inbox-cat", cli("alice-inbox", "cat", entry_id, "reports/bin.dat",
                                 "--json").json())
    assert (doc["encoding"], doc["content"], doc["matchesRevision"]) == ("base64", "AAH/", True)
    (ws / "reports" / "close.md").write_bytes(b"# Close (edited)\n")
    r = cli("alice-inbox", "cat", entry_id, "reports/close.md")
    assert r.returncode == 0 and r.stdout == "# Close (edited)\n"
    assert "changed since it was published" in r.stderr
    r = cli("alice-inbox", "cat", entry_id, "reports/close.md", "--require-revision", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "revision_mismatch"
    r = cli("alice-inbox", "cat", entry_id, "reports/close.md", "--require-revision")
    assert r.returncode == 2 and r.stdout == ""  # nothing streamed when refused
    doc = conforms("inbox-cat", cli("alice-inbox", "cat", entry_id, "reports/close.md",
                                 "--json").json())
    assert doc["matchesRevision"] is False and doc["content"] == "# Close (edited)\n"
    r = cli("alice-inbox", "cat", entry_id, "leak/secret.txt", "--json")
    assert r.returncode == 4 and r.json()["error"]["code"] == "path_escape"
    r = cli("alice-inbox", "cat", entry_id, "reports/later.md", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_found"
    (ws / "reports" / "later.md").write_text("arrived after the push")
    r = cli("alice-inbox", "cat", entry_id, "reports/later.md")
    assert r.returncode == 0 and "no published revision" in r.stderr
    r = cli("alice-inbox", "cat", entry_id, "reports/later.md", "--require-revision")
    assert r.returncode == 2 and r.stdout == ""
    r = cli("alice-inbox", "cat", entry_id, "CLAUDE.md", "--json")  # not referenced
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_referenced"
    # swap a published file for a directory, then a FIFO
    (ws / "reports" / "bin.dat").unlink()
    os.mkfifo(ws / "reports" / "bin.dat")
    r = cli("alice-inbox", "cat", entry_id, "reports/bin.dat", "--json", timeout=20)
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_regular_file"
    # the workspace unregistered: entries survive, files are unavailable
    assert cli("alice", "workspace", "remove", "test-ws").returncode == 0
    r = cli("alice-inbox", "cat", entry_id, "reports/close.md", "--json")
    assert r.returncode == 3 and r.json()["error"]["code"] == "workspace_unavailable"
    files = conforms("inbox-files", cli("alice-inbox", "files", entry_id, "--json").json())
    assert files["workspaceAvailable"] is False
    assert {f["reason"] for f in files["files"]} == {"workspace_unavailable"}


def test_read_state_verbs(cli, ws):
    a, b, c = (push(cli, ws, f"r{i}")["id"] for i in range(3))
    assert conforms("inbox-count", cli("alice-inbox", "count", "--json").json()) == \
        {"total": 3, "unread": 3}
    r = cli("alice-inbox", "read", a, "--json", env={"ALICE_NOW": NOW})
    assert conforms("inbox-read", r.json()) == {"id": a, "read": True, "readAt": 1796029200000}
    r = cli("alice-inbox", "unread", a, "--json")
    assert conforms("inbox-read", r.json()) == {"id": a, "read": False, "wasRead": True}
    cli("alice-inbox", "read", b)
    check_disk()
    r = cli("alice-inbox", "mark-all-read", "--json")
    assert conforms("inbox-mark-all-read", r.json()) == {"marked": 2, "total": 3, "unread": 0}
    d = push(cli, ws, "late")["id"]
    r = cli("alice-inbox", "count")
    assert r.stdout.strip() == "1 unread of 4"
    r = cli("alice-inbox", "count", "--workspace", "test-ws", "--json")
    assert conforms("inbox-count", r.json()) == {"total": 4, "unread": 1, "workspaceUnread": 1}
    state = json.loads((home() / "data" / "inbox" / "read-state.json").read_text())
    # a read one by one keeps its own mark; mark-all-read closed a segment through c
    assert state["segments"][-1]["through"] == c and state["unread"] == {}
    assert set(state["read"]) == {b} and d not in state["read"]
    for verb in ("read", "unread", "show", "files", "delete"):
        r = cli("alice-inbox", verb, "inbox-0000000000000-00000000", "--json")
        assert r.returncode == 2 and r.json()["error"]["code"] == "unknown_entry", verb
    r = cli("alice-inbox", "delete", b, "--json")
    assert conforms("inbox-delete", r.json()) == {"id": b, "deleted": True,
                                               "workspaceId": "test-ws"}
    assert b not in json.loads((home() / "data" / "inbox" / "read-state.json").read_text())[
        "read"]
    assert cli("alice-inbox", "count", "--json").json() == {"total": 3, "unread": 1}
    check_disk()


def test_alice_inbox_group_is_the_same_tool(cli, ws):
    r = cli("alice", "inbox", "push", "--body", "via alice", "--json", cwd=ws)
    assert r.returncode == 0
    entry_id = conforms("inbox-push", r.json())["id"]
    assert cli("alice", "inbox", "list", "--json").json()["entries"][0]["id"] == entry_id
    assert cli("alice", "inbox", "mark-all-read", "--json").json()["unread"] == 0
    r = cli("alice", "inbox", "--help")
    assert r.returncode == 0 and "mark-all-read" in r.stdout
    r = cli("alice", "inbox", "push", "--help")
    assert "alice inbox push --body" in r.stdout
    r = cli("alice-inbox", "--help")
    for verb in ("push", "list", "show", "files", "cat", "read", "unread", "mark-all-read",
                 "count", "delete"):
        assert f"\n  {verb} " in r.stdout


def test_done_means_scenario_as_a_new_user(cli, ws):
    """Push a report with three references (good, missing, escaping), see show
    tell the truth, read it, mark all read, follow the journal."""
    body = "Report: [[reports/close.md]] [[reports/missing.md]] [[leak/secret.txt]]"
    entry_id = cli("alice", "inbox", "push", "--body", body, cwd=ws).stdout.strip()
    other = push(cli, ws, "a second report")["id"]
    shown = cli("alice", "inbox", "show", entry_id, "--json").json()
    assert [(f["path"], f["available"], f.get("reason")) for f in shown["files"]] == [
        ("reports/close.md", True, None), ("reports/missing.md", False, "missing"),
        ("leak/secret.txt", False, "path_escape")]
    assert shown["files"][0]["matchesRevision"] is True
    assert cli("alice", "inbox", "count").stdout.strip() == "2 unread of 2"
    assert cli("alice", "inbox", "read", entry_id).returncode == 0
    assert cli("alice", "inbox", "count").stdout.strip() == "1 unread of 2"
    r = cli("alice", "inbox", "mark-all-read")
    assert r.stdout.strip() == "marked 1 read; 0 unread"
    assert cli("alice", "inbox", "list", "--unread", "--json").json()["entries"] == []
    r = cli("alice", "journal", "--follow", "--after-seq", "0", "--until-seq", "2")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and all("inbox.received" in line for line in lines)
    assert entry_id in lines[0] and other in lines[1]


def test_push_inside_a_known_run_is_stamped_headless_and_an_unknown_one_gets_no_origin(cli, workspace):
    """The origin comes from the task registry, never from what the caller claims."""
    from openalice.runs import tasks

    ws_id = cli("alice", "workspace", "show", "--json", cwd=workspace).json()["workspace"]["id"]
    record = tasks.create_task({
        "workspaceId": ws_id, "issueId": "daily", "createdAt": "2026-11-30T09:00:00Z",
        "trigger": {"kind": "issue", "workspaceId": ws_id, "issueId": "daily", "fire": "schedule"},
        "owner": "@new-then-resume", "resumeId": "resume-calm-amber-river-abcdef", "agent": "claude",
        "prompt": "report", "timeoutMs": None})
    run_env = {"ALICE_RUN_ID": record["taskId"], "ALICE_WORKSPACE_ID": ws_id,
               "ALICE_RESUME_ID": "resume-calm-amber-river-abcdef"}
    pushed = cli("alice", "inbox", "push", "--body", "from the run", "--json", cwd=workspace, env=run_env)
    assert pushed.returncode == 0, pushed
    assert pushed.json()["origin"] == {"kind": "headless", "runId": record["taskId"],
                      "resumeId": "resume-calm-amber-river-abcdef", "issueId": "daily",
                      "issueWorkspaceId": ws_id, "agent": "claude"}
    forged = cli("alice", "inbox", "push", "--body", "forged", "--json", cwd=workspace,
                 env={**run_env, "ALICE_RUN_ID": "run-NeVeR000"})
    assert forged.returncode == 0
    assert forged.json().get("origin") is None
    stored = {e["id"]: e for e in cli("alice", "inbox", "list", "--json", cwd=workspace).json()["entries"]}
    assert stored[pushed.json()["id"]]["origin"]["kind"] == "headless"
    assert "origin" not in stored[forged.json()["id"]]


def test_cat_by_index_and_references_in_listings(cli, workspace):
    (workspace / "a.md").write_text("alpha")
    (workspace / "b").mkdir()
    (workspace / "b" / "c.txt").write_text("gamma")
    body = "see [[b/c.txt]] then [[a.md]] and again [[b/c.txt]], `[[x/code.md]]`, [[gone.md]]"
    entry = cli("alice-inbox", "push", "--body", body, "--json", cwd=workspace).json()["id"]
    listed = cli("alice-inbox", "list", "--json").json()["entries"][0]
    assert listed["references"] == ["b/c.txt", "a.md", "gone.md"]
    assert cli("alice-inbox", "show", entry, "--json").json()["entry"]["references"] == listed["references"]
    for index, content in ((0, "gamma"), (1, "alpha")):
        r = cli("alice-inbox", "cat", entry, "--index", str(index), "--json")
        assert r.returncode == 0, r
        assert r.json()["content"] == content and r.json()["matchesRevision"] is True
    r = cli("alice-inbox", "cat", entry, "--index", "1")
    assert r.returncode == 0 and r.stdout == "alpha"
    r = cli("alice-inbox", "cat", entry, "--index", "2", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "not_found"
    r = cli("alice-inbox", "cat", entry, "--index", "3", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "no_such_reference"
    for bad in (["--index", "-1"], ["a.md", "--index", "0"], []):
        r = cli("alice-inbox", "cat", entry, *bad, "--json")
        assert r.returncode == 2 and r.json()["error"]["code"] == "usage", bad


def test_count_through_the_counter_equals_a_recount_from_both_tools(cli, ws):
    """`alice-inbox count` and `alice inbox count` answer from counts.json while it
    matches the files, and recount after a foreign append or a damaged counter."""
    ids = [push(cli, ws, f"report {i}")["id"] for i in range(3)]
    assert cli("alice-inbox", "read", ids[0], env={"ALICE_NOW": NOW}).returncode == 0
    counter_file = home() / "data" / "inbox" / "counts.json"

    def both():
        a = cli("alice-inbox", "count", "--json").json()
        b = cli("alice", "inbox", "count", "--json").json()
        assert a == b
        conforms("inbox-count", a)
        conforms("inbox-counts", json.loads(counter_file.read_text()))
        return a

    assert both() == {"total": 3, "unread": 2}
    with open(home() / "data" / "inbox" / "entries.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "inbox-1796029300000-0000000a", "ts": 1796029300000,
                             "workspaceId": "elsewhere", "body": "foreign",
                             "fileRevisions": {}}) + "\n")
    assert both() == {"total": 4, "unread": 3}
    counter_file.write_text('{"version": 1, "total": 0')
    assert both() == {"total": 4, "unread": 3}
    check_disk()
