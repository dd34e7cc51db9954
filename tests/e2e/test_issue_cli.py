"""`alice issue ...` run as real subprocesses against a temp home, checking the files on disk."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from openalice.core import frontmatter, resources
from openalice.core.schema import Validator
from tests.conftest import tool_path
from tests.helpers.schemas import conforms

NOW = "2026-06-01T12:00:00Z"


def issues_dir(ws):
    return ws / ".alice" / "issues"


def snapshot(directory):
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if not p.name.startswith(".")}


@pytest.fixture
def alice(cli, workspace):
    """Run `alice` inside the workspace with a frozen clock."""
    def run(*args, cwd=None, env=None, input=None):
        return cli("alice", *args, cwd=cwd or workspace, env={"ALICE_NOW": NOW, **(env or {})},
                   input=input)
    return run


def test_round_trip_keeps_fields_and_unknown_keys(alice, workspace):
    r = alice("issue", "create", "--title", "Nightly sync", "--every", "2h", "--priority", "high",
              "--agent", "claude", "--model", "sonnet", "--body", "Sync the mirrors.", "--json")
    assert r.returncode == 0, r
    assert r.json()["action"] == "created" and r.json()["commit"] is None
    path = issues_dir(workspace) / "nightly-sync.md"
    # a person adds their own keys and a comment by hand
    text = path.read_text().replace("title: Nightly sync\n",
                                    "# owned by ops\ntitle: Nightly sync\nteam: ops\n")
    path.write_text(text + "\n<!-- notes -->\n")
    before = frontmatter.parse(path.read_bytes())
    r = alice("issue", "update", "nightly-sync", "--status", "in_progress", "--timeout", "30m",
              "--json")
    assert r.returncode == 0 and r.json()["action"] == "updated", r
    after = frontmatter.parse(path.read_bytes())
    assert after.data == {**before.data, "status": "in_progress", "timeout": "30m"}
    assert list(after.data)[:len(before.data)] == list(before.data)
    assert after.body == before.body and "# owned by ops\n" in path.read_text()
    shown = alice("issue", "show", "nightly-sync", "--json").json()
    assert shown["extra"] == {"team": "ops"} and shown["status"] == "in_progress"
    assert shown["what"].startswith("Sync the mirrors.")
    again = alice("issue", "update", "nightly-sync", "--status", "in_progress", "--json")
    assert again.json()["action"] == "unchanged"
    r = alice("issue", "update", "nightly-sync", "--unset", "timeout", "--unset", "team", "--json")
    assert r.returncode == 0
    data = frontmatter.parse(path.read_bytes()).data
    assert "timeout" not in data and "team" not in data and data["model"] == "sonnet"


def test_json_outputs_match_their_schemas(alice, workspace):
    created = alice("issue", "create", "--title", "Daily report", "--cron", "30 8 * * 1-5",
                    "--timezone", "America/New_York", "--no-catch-up", "--json")
    conforms("issue-change", created.json())
    issue = created.json()["issue"]
    assert issue["when"] == {"kind": "cron", "cron": "30 8 * * 1-5", "timezone": "America/New_York",
                             "catchUp": False}
    assert issue["schedule"]["nextFireAt"] == "2026-06-01T12:30:00Z"
    assert issue["assignee"] == "@new-then-resume" and issue["workspaceId"] == "test-ws"
    conforms("issue-change", alice("issue", "create", "--title", "Plain", "--json").json())
    conforms("issue-change", alice("issue", "create", "--title", "Once", "--at",
                                       "2026-07-01T09:00:00+02:00", "--json").json())
    conforms("issue-change", alice("issue", "update", "plain", "--priority", "urgent",
                                       "--json").json())
    comment = alice("issue", "comment", "plain", "--body", "A *note*", "--json")
    conforms("issue-comment", comment.json())
    assert comment.json()["comment"]["author"] == "human"
    conforms("issue-comments", json.loads(
        (issues_dir(workspace) / "plain.comments.json").read_text()))
    shown = alice("issue", "show", "plain", "--json").json()
    conforms("issue", shown)
    assert shown["comments"][0]["markdown"] == "A *note*"
    (issues_dir(workspace) / "broken.md").write_text("---\ntitle: 2026\n---\n")
    listing = alice("issue", "list", "--json").json()
    conforms("issue-list", listing)
    assert [i["id"] for i in listing["issues"]] == ["daily-report", "once", "plain"]
    assert listing["invalid"][0]["id"] == "broken"
    conforms("issue-list", alice("issue", "list", "--all", "--status", "todo", "--json").json())
    board = alice("issue", "board", "--json").json()
    conforms("issue-board", board)
    todo = next(c for c in board["columns"] if c["status"] == "todo")
    assert [i["id"] for i in todo["issues"]] == ["plain", "daily-report", "once"]  # urgent first
    validation = alice("issue", "validate", "--json")
    assert validation.returncode == 2
    conforms("issue-validate", validation.json())
    error = alice("issue", "show", "nope", "--json")
    assert error.returncode == 2
    conforms("error", error.json())
    # the schemas are not vacuous
    assert Validator(resources.schema("issue-board")).errors({"columns": [], "workspaces": [],
                                                              "invalid": []})


def test_shared_defs_are_identical_across_schemas():
    issue = resources.schema("issue")["$defs"]
    for name in ("issue-change", "issue-list", "issue-board"):
        assert resources.schema(name)["$defs"]["issue"] == issue["issue"], name
    for name in ("issue-change", "issue-list", "issue-board", "issue-comment", "issue-comments"):
        assert resources.schema(name)["$defs"]["comment"] == issue["comment"], name
    assert resources.schema("issue-list")["$defs"]["invalid"] == \
        resources.schema("issue-board")["$defs"]["invalid"]


def test_eight_concurrent_comment_writers_are_all_kept(cli, workspace):
    assert cli("alice", "issue", "create", "--title", "Busy", cwd=workspace).returncode == 0
    procs = [subprocess.Popen([tool_path("alice"), "issue", "comment", "busy", "--body",
                               f"writer {n}", "--json"], cwd=workspace, env=cli.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(8)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, outs
    doc = json.loads((issues_dir(workspace) / "busy.comments.json").read_text())
    assert sorted(c["markdown"] for c in doc["comments"]) == [f"writer {n}" for n in range(8)]
    assert len({c["id"] for c in doc["comments"]}) == 8
    # the same fixed id is appended once, however often it is sent
    for _ in range(2):
        r = cli("alice", "issue", "comment", "busy", "--body", "once", "--id", "comment-fixed",
                "--json", cwd=workspace)
        assert r.returncode == 0
    assert r.json()["created"] is False
    doc = json.loads((issues_dir(workspace) / "busy.comments.json").read_text())
    assert [c["id"] for c in doc["comments"]].count("comment-fixed") == 1


BAD_CREATES = [
    (["--title", "X", "--id", "../escape"], "id"),
    (["--title", "X", "--id", "a/b"], "id"),
    (["--title", "X", "--every", "soon"], "when.every"),
    (["--title", "X", "--every", "1d"], "when.every"),
    (["--title", "X", "--cron", "0 0 9 * * *", "--timezone", "UTC"], "when.cron"),
    (["--title", "X", "--every", "1h", "--assignee", "@resume-not.a.session.id"], "assignee"),
    (["--title", "X", "--cron", "0 9 * * *", "--timezone", "New York-ish"], "when.timezone"),
    (["--title", "X", "--at", "2026-05-01T00:00:00Z"], "when.at"),
    (["--title", "X", "--assignee", "@workspace", "--every", "1h"], "assignee"),
    (["--title", "X", "--assignee", "new", "--every", "1h"], "assignee"),
    (["--title", "X", "--assignee", "@new-each-run"], "assignee"),
    (["--title", "X", "--assignee", "@resume-x", "--model", "m"], "model"),
    (["--title", "X", "--timeout", "20m"], "timeout"),
    (["--title", "X", "--status", "doing"], "status"),
    (["--title", "X", "--effort", "ultra"], "effort"),
    (["--title", "X", "--credential", "Bad Slug"], "credential"),
    (["--title", "X", "--comment-prompt", "no token"], "commentPrompt"),
    (["--title", " "], "title"),
    (["--title", "Neighbour"], "id"),     # exists already
]


@pytest.mark.parametrize("args, field", BAD_CREATES, ids=[" ".join(a) for a, _ in BAD_CREATES])
def test_bad_create_exits_2_names_file_and_field_writes_nothing(alice, workspace, args, field):
    assert alice("issue", "create", "--title", "Neighbour").returncode == 0
    before = snapshot(issues_dir(workspace))
    r = alice("issue", "create", *args)
    assert r.returncode == 2, r
    assert "Traceback" not in r.stderr and f":{field}: " in r.stderr, r.stderr
    assert "/.alice/issues" in r.stderr
    j = alice("issue", "create", *args, "--json")
    assert j.returncode == 2 and j.json()["error"]["field"] == field
    assert "/.alice/issues" in j.json()["error"]["file"]
    assert snapshot(issues_dir(workspace)) == before
    assert not (workspace / ".alice" / "escape.md").exists()


def test_bad_body_files(alice, workspace, tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    huge = tmp_path / "huge.md"
    huge.write_bytes(b"x" * (10 * 1024 * 1024))
    for path, needle in ((garbage, "not UTF-8"), (huge, "too large"),
                         (tmp_path / "missing.md", "no such file")):
        r = alice("issue", "create", "--title", "B", "--body-file", str(path))
        assert r.returncode == 2 and needle in r.stderr and ":body:" in r.stderr or \
            (r.returncode == 2 and needle in r.stderr), r
    assert snapshot(issues_dir(workspace)) == {}
    r = alice("issue", "create", "--title", "From stdin", "--body-file", "-", input="Prompt\n")
    assert r.returncode == 0
    assert (issues_dir(workspace) / "from-stdin.md").read_text().endswith("\n\nPrompt\n")


def test_bad_update_writes_nothing(alice, workspace):
    alice("issue", "create", "--title", "E", "--every", "30m")
    before = snapshot(issues_dir(workspace))
    for args, field in ((["--every", "soon"], "when.every"), (["--timezone", "UTC"], "when.timezone"),
                        (["--assignee", "@new"], "assignee"), (["--unset", "title"], "title"),
                        (["--unset", "nonsense"], "nonsense"), (["--status", "later"], "status")):
        r = alice("issue", "update", "e", *args)
        assert r.returncode == 2 and f"e.md:{field}: " in r.stderr, (args, r)
    assert alice("issue", "update", "e").returncode == 2       # nothing to change
    assert alice("issue", "update", "ghost", "--status", "done").returncode == 2
    assert alice("issue", "show", "../../etc/passwd").returncode == 2
    assert snapshot(issues_dir(workspace)) == before


def test_hostile_files_on_disk(alice, workspace, tmp_path):
    d = issues_dir(workspace)
    alice("issue", "create", "--title", "Good")
    (d / "anchors.md").write_text("---\ntitle: &a X\nb: *a\n---\n")
    (d / "deep.md").write_text("---\ntitle: X\nn: " + "{a: " * 10000 + "}" * 10000 + "\n---\n")
    (d / "dup.md").write_text("---\ntitle: X\ntitle: Y\n---\n")
    (d / "big.md").write_bytes(b"---\ntitle: X\n---\n" + b"y" * (10 * 1024 * 1024))
    (d / "bin.md").write_bytes(bytes(range(256)))
    secret = tmp_path / "secret.md"
    secret.write_text("---\ntitle: SECRET TITLE\n---\n")
    os.symlink(secret, d / "link.md")
    r = alice("issue", "list", "--json")
    assert r.returncode == 0, r
    doc = r.json()
    assert [i["id"] for i in doc["issues"]] == ["good"]
    assert sorted(i["id"] for i in doc["invalid"]) == ["anchors", "big", "bin", "deep", "dup", "link"]
    assert "SECRET" not in r.stdout
    v = alice("issue", "validate")
    assert v.returncode == 2 and v.stdout.count("\n") == 6 and "Traceback" not in v.stderr
    fields = {"anchors": "frontmatter", "big": "file", "bin": "frontmatter", "deep": "frontmatter",
              "dup": "frontmatter", "link": "file"}
    before = snapshot(d)
    for issue_id, field in fields.items():
        assert f"{d / issue_id}.md:{field}: " in v.stdout
        for verb in (["show", issue_id], ["update", issue_id, "--status", "done"]):
            r = alice("issue", *verb, "--json")
            assert r.returncode == 2, (verb, r)
            error = r.json()["error"]
            assert error["file"] == f"{d / issue_id}.md" and error["field"] == field, (verb, error)
    assert snapshot(d) == before and secret.read_text() == "---\ntitle: SECRET TITLE\n---\n"


def test_validate_is_a_ci_step(alice, workspace):
    d = issues_dir(workspace)
    assert alice("issue", "validate").returncode == 0         # empty workspace is fine
    alice("issue", "create", "--title", "Fine", "--every", "1h")
    (d / "soon.md").write_text("---\ntitle: Soon\nwhen: {kind: every, every: soon}\n---\n")
    (d / "six.md").write_text("---\ntitle: Six\nwhen: {kind: cron, cron: '0 0 9 * * *'}\n---\n")
    (d / "past.md").write_text("---\ntitle: Past\nwhen: {kind: at, at: '2026-01-01T00:00:00Z'}\n---\n")
    (d / "done.md").write_text("---\ntitle: Done\nstatus: done\nwhen: {kind: at, at: '2026-01-01T00:00:00Z'}\n---\n")
    (d / "year.md").write_text("---\ntitle: 2026\n---\n")
    # the reader tolerates the schedules that never fire
    listing = alice("issue", "list", "--json").json()
    assert sorted(i["id"] for i in listing["issues"]) == ["done", "fine", "past", "six", "soon"]
    soon = next(i for i in listing["issues"] if i["id"] == "soon")
    assert soon["schedule"]["problem"].startswith("when.every: can never fire")
    r = alice("issue", "validate")
    assert r.returncode == 2
    lines = sorted(r.stdout.splitlines())
    assert lines == sorted([
        f"{d / 'past.md'}:when.at: can never fire: at is in the past (2026-01-01T00:00:00Z)",
        f"{d / 'six.md'}:when.cron: can never fire: cron expression must have exactly 5 fields "
        "(minute hour day-of-month month day-of-week); got 6 (a seconds or year field is not supported)",
        next(line for line in lines if line.startswith(f"{d / 'soon.md'}:when.every: can never fire: ")),
        f"{d / 'year.md'}:title: must be a string, not an integer (quote it: title: \"2026\")",
    ])
    assert "4 problems (6 issue files checked in 1 workspace)" in r.stderr
    for name in ("soon", "six", "past", "year"):
        (d / f"{name}.md").unlink()
    r = alice("issue", "validate")
    assert r.returncode == 0 and r.stdout == "" and "ok: 2 issue files valid" in r.stderr


def test_validate_flags_a_broken_comment_sidecar(alice, workspace):
    alice("issue", "create", "--title", "Talk")
    (issues_dir(workspace) / "talk.comments.json").write_text("{oops")
    r = alice("issue", "validate")
    assert r.returncode == 2 and "talk.comments.json:" in r.stdout and "malformed JSON" in r.stdout


def test_board_shows_every_workspace_and_reports_the_broken(cli, tmp_path):
    env = {"ALICE_NOW": NOW}
    for name in ("alpha", "beta", "gone", "old"):
        assert cli("alice", "workspace", "init", str(tmp_path / name)).returncode == 0
    cli("alice", "issue", "create", "--title", "A1", "--priority", "low", cwd=tmp_path / "alpha", env=env)
    cli("alice", "issue", "create", "--title", "A2", "--priority", "urgent", "--status", "backlog",
        cwd=tmp_path / "alpha", env=env)
    cli("alice", "issue", "create", "--title", "B1", "--priority", "high", cwd=tmp_path / "beta", env=env)
    (tmp_path / "beta" / ".alice" / "issues" / "bad.md").write_text("no frontmatter\n")
    import shutil
    shutil.rmtree(tmp_path / "gone")
    os.rmdir(tmp_path / "old" / ".alice" / "issues")
    (tmp_path / "old" / ".alice" / "issue.json").write_text("{}")
    r = cli("alice", "issue", "board", "--json", env=env, cwd=tmp_path)
    assert r.returncode == 0, r
    doc = r.json()
    conforms("issue-board", doc)
    states = {w["id"]: w["state"] for w in doc["workspaces"]}
    assert states == {"alpha": "ok", "beta": "ok", "gone": "unreadable", "old": "invalid"}
    old = next(w for w in doc["workspaces"] if w["id"] == "old")
    assert ".alice/issue.json" in old["error"] and ".alice/issues/" in old["error"]
    columns = {c["status"]: [f"{i['workspaceId']}/{i['id']}" for i in c["issues"]]
               for c in doc["columns"]}
    assert columns == {"backlog": ["alpha/a2"], "todo": ["beta/b1", "alpha/a1"], "in_progress": [],
                       "done": [], "canceled": []}
    assert [(i["workspaceId"], i["id"]) for i in doc["invalid"]] == [("beta", "bad")]
    human = cli("alice", "issue", "board", env=env, cwd=tmp_path)
    assert human.returncode == 0
    assert "gone" in human.stdout and "unreadable" in human.stdout
    assert "beta/bad" in human.stdout and "missing YAML frontmatter" in human.stdout
    v = cli("alice", "issue", "validate", "--all", env=env, cwd=tmp_path)
    assert v.returncode == 2 and "issue.json:workspace:" in v.stdout and "bad.md:frontmatter:" in v.stdout


def test_list_needs_a_workspace_or_all(cli, tmp_path):
    r = cli("alice", "issue", "list", cwd=tmp_path)
    assert r.returncode == 2 and "--all" in r.stderr
    assert cli("alice", "issue", "list", "--all", "--json", cwd=tmp_path).json() == {
        "issues": [], "invalid": [], "workspaces": []}
    assert cli("alice", "issue", "list", "--status", "later", "--all").returncode == 2


# -- the cross-workspace rule ----------------------------------------------------

GIT_ENV = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def two(cli, tmp_path):
    for name in ("home", "other"):
        assert cli("alice", "workspace", "init", str(tmp_path / name)).returncode == 0
    assert cli("alice", "issue", "create", "--title", "Theirs", cwd=tmp_path / "other").returncode == 0
    return tmp_path / "home", tmp_path / "other"


def test_a_run_may_write_only_its_own_workspace(cli, two):
    home, other = two
    run = {"ALICE_RUN_ID": "run-AAAAAAAA", "ALICE_WORKSPACE_ID": "home",
           "ALICE_RESUME_ID": "resume-bright-oak-fox-a1b2c3"}
    before = snapshot(issues_dir(other))
    for args in (["create", "--title", "Sneaky"], ["update", "theirs", "--status", "done"],
                 ["comment", "theirs", "--body", "hi"]):
        r = cli("alice", "issue", *args, "--workspace", "other", cwd=other, env=run)
        assert r.returncode == 4, r
        r = cli("alice", "issue", *args, "--workspace", "other", "--approve", "--json", cwd=other, env=run)
        assert r.returncode == 4 and r.json()["error"]["code"] in ("cross_workspace", "approve_refused")
    assert snapshot(issues_dir(other)) == before
    # its own workspace is inferred from the run; @me is the run's session
    r = cli("alice", "issue", "create", "--title", "Mine", "--every", "1h", "--assignee", "@me",
            "--json", cwd=other, env=run)
    assert r.returncode == 0, r
    assert r.json()["issue"]["workspaceId"] == "home"
    assert r.json()["issue"]["assignee"] == "@resume-bright-oak-fox-a1b2c3"
    c = cli("alice", "issue", "comment", "mine", "--body", "from the run", "--json", cwd=other, env=run)
    assert c.json()["comment"]["author"] == "@resume-bright-oak-fox-a1b2c3"
    # reading other workspaces is fine
    assert cli("alice", "issue", "show", "theirs", "--workspace", "other", env=run).returncode == 0
    assert cli("alice", "issue", "create", "--title", "X", "--assignee", "@me", "--every", "1h",
               cwd=home).returncode == 2


def test_a_person_needs_attended_approval_for_another_workspace(cli, two):
    home, other = two
    before = snapshot(issues_dir(other))
    r = cli("alice", "issue", "update", "theirs", "--status", "done", "--workspace", "other",
            "--json", cwd=home)
    assert r.returncode == 4 and "--approve" in r.json()["error"]["message"]
    r = cli("alice", "issue", "update", "theirs", "--status", "done", "--workspace", "other",
            "--approve", "--json", cwd=home, input="")
    assert r.returncode == 4 and r.json()["error"]["code"] == "approve_refused"
    assert snapshot(issues_dir(other)) == before


def test_outside_every_workspace_a_caller_writes_the_workspace_it_names(cli, two, tmp_path):
    """A person at ~ or a cron job (no terminal, in no workspace): --workspace is enough."""
    home, other = two
    away = tmp_path / "away"
    away.mkdir()
    for cwd in (away, Path(cli.env["HOME"])):
        r = cli("alice", "issue", "create", "--title", f"From {cwd.name}", "--workspace", "other",
                "--json", cwd=cwd, input="")
        assert r.returncode == 0, r
        doc = r.json()
        conforms("issue-change", doc)
        assert doc["issue"]["workspaceId"] == "other" and doc["commit"] is None
    r = cli("alice", "issue", "update", "theirs", "--status", "in_progress", "--workspace", "other",
            "--json", cwd=away, env={"PATH": "/usr/bin:/bin", "HOME": cli.env["HOME"],
                                     "OPENALICE_HOME": cli.env["OPENALICE_HOME"]})
    assert r.returncode == 0 and r.json()["action"] == "updated", r
    r = cli("alice", "issue", "comment", "theirs", "--body", "from cron", "--workspace", "other",
            "--json", cwd=away)
    assert r.returncode == 0 and r.json()["comment"]["author"] == "human", r
    # from inside another workspace the same write still needs --approve
    r = cli("alice", "issue", "update", "theirs", "--status", "done", "--workspace", "other",
            "--json", cwd=home)
    assert r.returncode == 4 and r.json()["error"]["code"] == "cross_workspace"


def _run_on_a_tty(argv, cwd, env):
    import pty
    master, slave = pty.openpty()
    try:
        return subprocess.run(argv, stdin=slave, capture_output=True, text=True, cwd=cwd, env=env,
                              timeout=60)
    finally:
        os.close(slave)
        os.close(master)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_approved_cross_workspace_edit_is_committed_there(cli, two):
    home, other = two
    env = {**cli.env, **GIT_ENV}
    git = lambda *a: subprocess.run(["git", "-C", str(other), *a], capture_output=True, text=True,
                                    env=env, check=True).stdout
    git("init", "-q")
    git("add", ".alice/.gitignore")
    git("commit", "-q", "-m", "workspace")
    (other / "wip.txt").write_text("unrelated staged work\n")
    git("add", "wip.txt")
    r = _run_on_a_tty([tool_path("alice"), "issue", "update", "theirs", "--status", "in_progress",
                       "--workspace", "other", "--approve", "--json"], home, env)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    conforms("issue-change", doc)
    assert doc["action"] == "updated" and len(doc["commit"]) == 40
    assert git("log", "-1", "--format=%s") == "issue(theirs): update via alice (approved)\n"
    assert git("show", "--name-only", "--format=", "HEAD").split() == [".alice/issues/theirs.md"]
    assert git("diff", "--cached", "--name-only").split() == ["wip.txt"]
    r = _run_on_a_tty([tool_path("alice"), "issue", "comment", "theirs", "--body", "approved note",
                       "--workspace", "other", "--approve", "--json"], home, env)
    assert r.returncode == 0, r.stderr
    assert git("show", "--name-only", "--format=", "HEAD").split() == [
        ".alice/issues/theirs.comments.json"]
    r = _run_on_a_tty([tool_path("alice"), "issue", "create", "--title", "Handed over",
                       "--workspace", "other", "--approve"], home, env)
    assert r.returncode == 0 and "committed in" in r.stdout, r.stderr
    # everything the edits wrote is committed; lock files are ignored (.alice/.gitignore)
    assert git("status", "--porcelain", "--untracked-files=all", "--", ".alice") == ""


def test_legacy_workspace_in_list_and_validate(cli, workspace):
    os.rmdir(issues_dir(workspace))
    (workspace / ".alice" / "issue.json").write_text('{"issues": []}')
    r = cli("alice", "issue", "list", "--json", cwd=workspace)
    assert r.returncode == 0 and r.json()["workspaces"][0]["state"] == "invalid"
    r = cli("alice", "issue", "validate", cwd=workspace)
    assert r.returncode == 2 and "issue.json:workspace: `.alice/issue.json` is retired" in r.stdout
    r = cli("alice", "issue", "create", "--title", "New", cwd=workspace)
    assert r.returncode == 2 and "retired" in r.stderr


def test_help_lists_every_verb(cli):
    r = cli("alice", "issue", "--help")
    assert r.returncode == 0
    for verb in ("create", "list", "show", "update", "comment", "validate", "board"):
        assert verb in r.stdout
    r = cli("alice", "issue", "create", "--help")
    assert "--every" in r.stdout and "--native-credential" in r.stdout and "examples:" in r.stdout


def test_validate_reports_every_problem_of_an_invalid_file(alice, workspace):
    path = issues_dir(workspace) / "broken.md"
    path.write_text("---\ntitle: Broken\nassignee: '@human'\nwhen: {kind: every, every: soon}\n"
                    "timeout: 20m\n---\n")
    r = alice("issue", "validate")
    assert r.returncode == 2
    assert [line.split(":")[1] for line in r.stdout.splitlines()] == [
        "timeout", "assignee", "when.every"]
    r = alice("issue", "update", "broken", "--timeout", "30m")
    assert r.returncode == 2
    assert r.stderr.startswith(f"alice: error: {path}:assignee: `@human` cannot run a schedule")
    assert "; when.every: can never fire" in r.stderr
    fixed = alice("issue", "update", "broken", "--timeout", "30m", "--assignee", "@new-each-run",
                  "--every", "1h")
    assert fixed.returncode == 0, fixed
    assert alice("issue", "validate").returncode == 0


def test_non_utf8_arguments_and_escape_sequences(alice, workspace):
    # "\udcff" reaches the child as the raw byte 0xff (surrogateescape)
    for args, field in ((["create", "--title", "\udcff bad"], "title"),
                        (["create", "--title", "T", "--model", "\udcff"], "model"),
                        (["create", "--title", "T", "--body", "\udcff"], "body")):
        r = alice("issue", *args)
        assert r.returncode == 2 and f":{field}: " in r.stderr and "not valid UTF-8" in r.stderr, r
    assert snapshot(issues_dir(workspace)) == {}
    alice("issue", "create", "--title", "Plain")
    r = alice("issue", "comment", "plain", "--body", "\udcff")
    assert r.returncode == 2 and "not valid UTF-8" in r.stderr
    assert alice("issue", "create", "--title", "esc\x1b[31mred", "--id", "esc").returncode == 0
    for verb in (["list"], ["board"], ["show", "esc"]):
        out = alice("issue", *verb).stdout
        assert "\x1b" not in out and "esc\\x1b[31mred" in out, verb
    assert "\x1b" in alice("issue", "show", "esc", "--json").json()["title"]


def test_every_issues_show_their_next_fire_in_create_list_and_board(alice, cli, workspace, agent_stubs):
    path_env = {"PATH": os.environ["PATH"]}
    created = alice("issue", "create", "--title", "Poll", "--every", "1h", "--agent", "claude", env=path_env)
    assert created.returncode == 0, created
    assert "schedule: every 1h  due now (the next scan starts it)" in created.stdout
    data = alice("issue", "create", "--title", "Poll2", "--every", "2h", "--json", env=path_env).json()
    assert data["issue"]["schedule"]["nextFireAt"] == NOW
    scan = cli("alice-schedule", "scan", "--json",
               env={"ALICE_NOW": NOW, "OPENALICE_TEST_LAUNCH": "none", **path_env}).json()
    assert sorted(f["issueId"] for f in scan["fired"]) == ["poll", "poll2"]
    from datetime import datetime, timedelta

    start = datetime.fromisoformat(NOW.replace("Z", "+00:00"))
    in_1h = (start + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    in_2h = (start + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    listed = alice("issue", "list").stdout
    assert f"every 1h  next {in_1h}" in listed and f"every 2h  next {in_2h}" in listed, listed
    assert f"every 1h  next {in_1h}" in alice("issue", "board").stdout
    items = {i["id"]: i for i in alice("issue", "list", "--json").json()["issues"]}
    assert items["poll"]["schedule"]["nextFireAt"] == in_1h
