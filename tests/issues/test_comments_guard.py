"""Comment sidecars, and the git commit of approved edits (the caller rule itself is in
tests/workspaces/test_access.py; the CLI in tests/e2e)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading

import pytest

from openalice.core.errors import Conflict, InvalidInput, NotFound
from openalice.issues import add_comment, create, list_comments
from openalice.workspaces.access import git_commit

from .conftest import NOW, make_ws


@pytest.fixture
def issue(ws):
    return create(ws, {"title": "Talk"}, now=NOW)


def sidecar(ws):
    return ws.root / ".alice" / "issues" / "talk.comments.json"


def test_append_and_list(ws, issue):
    first, created = add_comment(ws, "talk", "Hello\r\nthere\n", author="human", now=NOW)
    assert created and first["id"].startswith("comment-") and first["markdown"] == "Hello\nthere"
    assert first["at"] == "2026-06-01T12:00:00Z" and first["author"] == "human"
    reply, _ = add_comment(ws, "talk", "Hi", author="@resume-x", now=NOW, reply_to=first["id"])
    assert reply["replyTo"] == first["id"]
    doc = json.loads(sidecar(ws).read_text())
    assert doc == {"version": 1, "issueId": "talk", "comments": [first, reply]}
    assert list_comments(ws, "talk") == [first, reply]


def test_fixed_id_is_idempotent(ws, issue):
    a, created_a = add_comment(ws, "talk", "Once", author="human", now=NOW, comment_id="c-1")
    b, created_b = add_comment(ws, "talk", "Once", author="human", now=NOW, comment_id="c-1")
    assert (created_a, created_b) == (True, False) and a == b
    assert len(list_comments(ws, "talk")) == 1
    with pytest.raises(Conflict):
        add_comment(ws, "talk", "Different", author="human", now=NOW, comment_id="c-1")


def test_other_keys_are_kept(ws, issue):
    sidecar(ws).write_text(json.dumps({"version": 1, "issueId": "talk", "comments": [
        {"id": "c0", "author": "human", "at": "2026-01-01T00:00:00Z", "markdown": "x",
         "delivery": {"state": "pending", "targetResumeId": "resume-a", "taskId": "run-abcdefgh"}}]}))
    add_comment(ws, "talk", "y", author="human", now=NOW)
    comments = list_comments(ws, "talk")
    assert comments[0]["delivery"]["state"] == "pending" and len(comments) == 2


@pytest.mark.parametrize("kwargs, field", [
    ({"markdown": "   "}, "markdown"),
    ({"markdown": "a\x00b"}, "markdown"),
    ({"markdown": "x" * (64 * 1024 + 1)}, "markdown"),
    ({"author": "robot"}, "author"),
    ({"comment_id": "../x"}, "id"),
    ({"reply_to": "nope"}, "replyTo"),
])
def test_bad_comments_write_nothing(ws, issue, kwargs, field):
    args = {"markdown": "fine", "author": "human", **kwargs}
    markdown = args.pop("markdown")
    with pytest.raises(InvalidInput) as err:
        add_comment(ws, "talk", markdown, now=NOW, **args)
    assert err.value.field == field
    assert not sidecar(ws).exists()


def test_malformed_sidecar_is_reported_never_replaced(ws, issue):
    for content in ("{not json", '{"version": 2, "issueId": "talk", "comments": []}',
                    '{"version": 1, "issueId": "other", "comments": []}', "[]",
                    '{"version": 1, "issueId": "talk", "comments": [{"id": 1}]}'):
        sidecar(ws).write_text(content)
        with pytest.raises(InvalidInput) as err:
            add_comment(ws, "talk", "x", author="human", now=NOW)
        assert err.value.file.endswith("talk.comments.json")
        assert sidecar(ws).read_text() == content


def test_comment_needs_an_issue(ws):
    with pytest.raises(NotFound):
        add_comment(ws, "ghost", "x", author="human", now=NOW)
    assert not (ws.root / ".alice" / "issues" / "ghost.comments.json").exists()


def test_symlinked_sidecar_is_refused(ws, issue, tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text('{"version": 1, "issueId": "talk", "comments": []}')
    os.symlink(target, sidecar(ws))
    with pytest.raises(InvalidInput):
        add_comment(ws, "talk", "x", author="human", now=NOW)
    assert json.loads(target.read_text())["comments"] == []


def test_concurrent_threads_keep_every_comment(ws, issue):
    errors = []

    def writer(n):
        try:
            for k in range(5):
                add_comment(ws, "talk", f"{n}-{k}", author="human", now=NOW)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(c["markdown"] for c in list_comments(ws, "talk")) == sorted(
        f"{n}-{k}" for n in range(8) for k in range(5))


GIT_ENV = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=True, env={**os.environ, **GIT_ENV}).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_commit_takes_only_the_issue_files(tmp_path, monkeypatch):
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    ws = make_ws(tmp_path / "repo")
    git(ws.root, "init", "-q")
    (ws.root / "staged.txt").write_text("someone else's work\n")
    git(ws.root, "add", "staged.txt")
    issue = create(ws, {"title": "Remote"}, now=NOW)
    sha = git_commit(ws.root, [issue.path, ws.root / "nope.json"], "issue(remote): test")
    assert sha and len(sha) == 40
    assert git(ws.root, "show", "--name-only", "--format=%s", "HEAD").split() == [
        "issue(remote):", "test", ".alice/issues/remote.md"]
    assert git(ws.root, "diff", "--cached", "--name-only").split() == ["staged.txt"]
    assert git_commit(ws.root, [issue.path], "again") is None      # nothing changed
    assert git_commit(make_ws(tmp_path / "plain").root, [issue.path], "x") is None  # not a repo
