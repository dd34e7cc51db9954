"""Source-backed upgrades end to end through the installed tools, with real local git repositories.

The template is the toy Studio app in a bare repository: ``main`` has v0.1.0 then
v0.2.0 (a new file, harness.json and server.py changed); ``clash`` edits the
wrapper's line that the workspace edits too; ``broken`` has an invalid
harness.json.  Workspaces are created pinned at v0.1.0 with ``--from-git URL@SHA``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from openalice.core import proc
from tests.harness.helpers import GIT_ENV, git, needs_git
from tests.helpers.schemas import conforms

from .conftest import APP

pytestmark = needs_git
NOW = "2026-12-01T09:00:00Z"
RECEIPT = ".alice/harness-source.json"


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def set_version(root: Path, version: str) -> None:
    manifest = json.loads((root / "harness.json").read_text())
    manifest["version"] = version
    (root / "harness.json").write_text(json.dumps(manifest, indent=2) + "\n")


@pytest.fixture
def template(tmp_path) -> SimpleNamespace:
    work = tmp_path / "template-work"
    shutil.copytree(APP, work)
    manifest = json.loads((work / "harness.json").read_text())
    manifest["capabilities"]["studio"]["command"][0] = sys.executable
    (work / "harness.json").write_text(json.dumps(manifest, indent=2) + "\n")
    git(work, "init", "-q", "-b", "main")
    c1 = commit_all(work, "toy studio 0.1.0")
    git(work, "checkout", "-q", "-b", "clash")
    wrapper = work / "wrapper.py"
    wrapper.write_text(wrapper.read_text().replace("exiting", "exiting (template 0.1.1)"))
    set_version(work, "0.1.1")
    clash = commit_all(work, "toy studio 0.1.1: a new wrapper message")
    git(work, "checkout", "-q", "-b", "broken", c1)
    (work / "harness.json").write_text('{"manifestVersion": 1, "version": "0.3.0", "capabilities": {}}')
    broken = commit_all(work, "a broken manifest")
    git(work, "checkout", "-q", "-b", "carries-receipt", c1)
    (work / ".alice").mkdir()
    (work / ".alice" / "harness-source.json").write_text('{"schemaVersion": 1, "note": "the template\'s own"}\n')
    set_version(work, "0.1.2")
    carries = commit_all(work, "a template that tracks its own receipt")
    git(work, "checkout", "-q", "main")
    (work / "NEWS.md").write_text("# 0.2.0\n\n- a new page\n")
    server = work / "server.py"
    server.write_text(server.read_text().replace('"hello from the toy studio\\n"', '"hello from toy studio 0.2\\n"'))
    set_version(work, "0.2.0")
    c2 = commit_all(work, "toy studio 0.2.0")
    bare = tmp_path / "toy-studio.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    for branch in ("clash", "broken", "carries-receipt"):
        git(bare, "fetch", "-q", str(work), f"{branch}:{branch}")
    return SimpleNamespace(bare=bare, work=work, c1=c1, c2=c2, clash=clash, broken=broken, carries=carries)


def create(cli, template, tmp_path, name="ws", *, at=None) -> Path:
    root = tmp_path / name
    r = cli("alice", "workspace", "init", str(root), "--from-git", f"{template.bare}@{at or template.c1}",
            "--label", name, "--json")
    assert r.returncode == 0, r
    return root


def snapshot(root: Path) -> dict:
    """HEAD, index and work tree, to compare before and after."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(".git/") or rel == ".git" or not path.is_file():
            continue
        files[rel] = path.read_bytes()
    return {"head": git(root, "rev-parse", "HEAD").strip(), "index": git(root, "ls-files", "-s"),
            "status": git(root, "status", "--porcelain"), "files": files}


def preview(cli, root, *args, expect=0):
    r = cli("alice-harness", "source", "preview", *args, "--json", cwd=root)
    assert r.returncode == expect, r
    return conforms("harness-source-upgrade", r.json())["preview"] if expect == 0 else r.json()


def apply(cli, root, digest, *, expect=0, env=None):
    r = cli("alice-harness", "source", "apply", "--digest", digest, "--json", cwd=root, env=env)
    assert r.returncode == expect, r
    return r.json()


def facts(cli, type_: str) -> list[dict]:
    r = cli("alice", "journal", "--type", type_, "--json")
    return [entry["payload"] for entry in r.json()["entries"]]


# -- creating a workspace from a template repository --------------------------------------------------

def test_init_from_git_clones_checks_and_commits_the_receipt(cli, template, tmp_path):
    root = tmp_path / "aq"
    r = cli("alice", "workspace", "init", str(root), "--from-git", f"{template.bare}@{template.c1}", "--json")
    assert r.returncode == 0, r
    doc = conforms("workspace", r.json())
    receipt = conforms("harness-source", json.loads((root / RECEIPT).read_text()))
    assert doc["source"] == receipt == {"schemaVersion": 1, "template": "toy-studio",
                                        "repository": str(template.bare), "version": "0.1.0",
                                        "commit": template.c1}
    # One commit on top of the template's: the receipt and what init wrote; the tree is clean.
    assert git(root, "rev-parse", "HEAD~1").strip() == template.c1
    committed = git(root, "show", "--name-only", "--format=%s", "HEAD").split("\n")
    assert committed[0].startswith("source(toy-studio): created from")
    assert RECEIPT in committed and "AGENTS.md" in committed
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "symbolic-ref", "--short", "HEAD").strip() == "main"
    assert "NEWS.md" not in os.listdir(root)     # pinned at 0.1.0
    # Without @REF: the default branch.
    r = cli("alice", "workspace", "init", str(tmp_path / "latest"), "--from-git", str(template.bare), "--json")
    assert r.returncode == 0 and r.json()["source"]["commit"] == template.c2, r
    # A branch name: checked out as that branch.
    r = cli("alice", "workspace", "init", str(tmp_path / "clashing"), "--from-git", f"{template.bare}@clash",
            "--json")
    assert r.returncode == 0 and r.json()["source"]["version"] == "0.1.1", r
    assert git(tmp_path / "clashing", "symbolic-ref", "--short", "HEAD").strip() == "clash"


def test_init_from_git_refuses_bad_sources_and_leaves_nothing(cli, template, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "README.md").write_text("no harness here\n")
    git(plain, "init", "-q", "-b", "main")
    commit_all(plain, "not a harness")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine")
    cases = [
        (tmp_path / "a", str(plain), "missing"),
        (tmp_path / "b", f"{template.bare}@broken", "invalid_manifest"),
        (tmp_path / "c", f"{template.bare}@no-such-branch", "bad_ref"),
        (tmp_path / "d", "https://user:s3cret@example.invalid/t.git", "credentials_in_url"),
        (tmp_path / "e", "ext::sh -c touch% /tmp/pwned", "bad_repository"),
        (occupied, str(template.bare), "target_not_empty"),
    ]
    for target, spec, code in cases:
        r = cli("alice", "workspace", "init", str(target), "--from-git", spec, "--json")
        assert r.returncode == 2, (spec, r)
        assert r.json()["error"]["code"] == code, (spec, r)
        assert "s3cret" not in r.stdout + r.stderr
        if target is not occupied:
            assert not target.exists(), spec
    assert (occupied / "keep.txt").read_text() == "mine" and os.listdir(occupied) == ["keep.txt"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-clone-")] == []
    assert cli("alice", "workspace", "list", "--json").json()["workspaces"] == []


def test_the_source_spec_grammar():
    from openalice.studio.source import parse_source_spec

    assert parse_source_spec("git@example.org:o/r.git") == ("git@example.org:o/r.git", None)
    assert parse_source_spec("git@example.org:o/r.git@v2") == ("git@example.org:o/r.git", "v2")
    assert parse_source_spec("ssh://git@example.org/o/r.git") == ("ssh://git@example.org/o/r.git", None)
    assert parse_source_spec("https://example.org/o/r@feature/x") == ("https://example.org/o/r", "feature/x")
    assert parse_source_spec("/srv/t.git@main") == ("/srv/t.git", "main")


# -- preview and apply ---------------------------------------------------------------------------------

def test_a_clean_upgrade_preview_touches_nothing_and_apply_merges_with_the_receipt(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    before = snapshot(root)
    plan = preview(cli, root)
    assert snapshot(root) == before                       # work tree, index and HEAD untouched
    assert plan["status"] == "ready" and plan["mergeable"] is True and plan["conflicts"] == []
    assert plan["ref"] == "main" and plan["commit"] == template.c2
    assert (plan["fromVersion"], plan["toVersion"]) == ("0.1.0", "0.2.0")
    assert {"NEWS.md", "harness.json", "server.py", RECEIPT} == set(plan["touchedPaths"])
    assert plan["nextCommand"].endswith(f"--digest {plan['digest']}")
    assert preview(cli, root)["digest"] == plan["digest"]  # the same state gives the same digest

    done = conforms("harness-source-upgrade", apply(cli, root, plan["digest"]))
    assert done["action"] == "applied"
    merge = done["result"]["commit"]
    assert git(root, "rev-parse", "HEAD").strip() == merge
    assert git(root, "rev-parse", "HEAD^1").strip() == before["head"]
    assert git(root, "rev-parse", "HEAD^2").strip() == template.c2          # --no-ff: a real merge commit
    message = git(root, "log", "-1", "--format=%B")
    assert f"OpenAlice-Source-Upgrade: {plan['digest']}" in message
    assert git(root, "log", "-1", "--format=%an <%ae>").strip() == "OpenAlice <launcher@local>"
    receipt = conforms("harness-source", json.loads((root / RECEIPT).read_text()))
    assert (receipt["commit"], receipt["version"]) == (template.c2, "0.2.0")
    assert RECEIPT in git(root, "show", "--name-only", "--format=", "HEAD", "--first-parent").split()
    assert (root / "NEWS.md").exists() and git(root, "status", "--porcelain") == ""
    assert git(root, "for-each-ref", "refs/openalice/") == ""
    [fact] = facts(cli, "harness.source.upgraded")
    assert fact["toCommit"] == template.c2 and fact["commit"] == merge and fact["digest"] == plan["digest"]
    # Now current: preview says so, and applying that is a noop.
    again = preview(cli, root)
    assert again["status"] == "current" and again["touchedPaths"] == []
    assert apply(cli, root, again["digest"], expect=2)["error"]["code"] == "stale_plan"   # nothing previewed


def test_a_conflicting_upgrade_is_refused_and_nothing_changes(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    wrapper = root / "wrapper.py"
    wrapper.write_text(wrapper.read_text().replace("exiting", "exiting (our local launcher)"))
    commit_all(root, "our wrapper message")
    before = snapshot(root)
    plan = preview(cli, root, "--to", "clash")
    assert snapshot(root) == before
    assert plan["status"] == "conflicts" and plan["mergeable"] is False and plan["conflicts"] == ["wrapper.py"]
    assert plan["nextCommand"] is None
    error = apply(cli, root, plan["digest"], expect=2)["error"]
    assert error["code"] == "merge_conflict" and error["details"]["conflicts"] == ["wrapper.py"]
    assert snapshot(root) == before
    assert not (root / ".git" / "MERGE_HEAD").exists()
    assert facts(cli, "harness.source.upgraded") == []


def unsafe_branch(bare: Path, parent: str, segment: bytes, branch: str) -> None:
    """A commit on ``parent`` whose tree adds ``<segment>/hook`` (a tree git itself can store but
    never check out: ``.git``, ``..``): written object by object, as a hostile repository would."""
    def obj(kind: str, data: bytes) -> bytes:
        out = subprocess.run(["git", "-C", str(bare), "hash-object", "-t", kind, "--literally", "-w", "--stdin"],
                             input=data, capture_output=True, check=True).stdout.strip()
        return bytes.fromhex(out.decode())

    blob = obj("blob", b"#!/bin/sh\necho owned\n")
    sub = obj("tree", b"100755 hook\0" + blob)
    listing = subprocess.run(["git", "-C", str(bare), "ls-tree", "-z", parent], capture_output=True,
                             check=True).stdout
    entries = []
    for line in filter(None, listing.split(b"\0")):
        meta, name = line.split(b"\t", 1)
        mode, _kind, sha = meta.split()
        entries.append((mode.lstrip(b"0") or mode, name, bytes.fromhex(sha.decode())))
    entries.append((b"40000", segment, sub))
    entries.sort(key=lambda e: e[1] + (b"/" if e[0] == b"40000" else b""))
    tree = obj("tree", b"".join(mode + b" " + name + b"\0" + sha for mode, name, sha in entries))
    commit = subprocess.run(["git", "-C", str(bare), "commit-tree", "-p", parent, "-m", "hostile", tree.hex()],
                            capture_output=True, text=True, check=True, env={**os.environ, **GIT_ENV}).stdout.strip()
    git(bare, "update-ref", f"refs/heads/{branch}", commit)


@pytest.mark.parametrize("segment", [b".git", b"..", b".GIT"], ids=["dot-git", "dot-dot", "dot-git-upper"])
def test_preview_runs_the_path_checks_of_apply_on_a_hostile_tree(cli, template, tmp_path, segment):
    """issue 27 item 5: preview said ready for a tree with .git or .. paths, and apply then
    refused in git; both now plan through one check and refuse before git is asked."""
    unsafe_branch(template.bare, template.c1, segment, "hostile")
    root = create(cli, template, tmp_path)
    before = snapshot(root)
    plan = preview(cli, root, "--to", "hostile")
    [blocker] = plan["blockers"]
    assert plan["status"] == "blocked" and plan["nextCommand"] is None, plan
    assert blocker["code"] == "unsafe_paths" and blocker["paths"] == [f"{segment.decode()}/hook"], blocker
    error = apply(cli, root, plan["digest"], expect=2)["error"]
    assert error["code"] == "unsafe_paths" and error["details"]["paths"] == blocker["paths"], error
    assert snapshot(root) == before and not (root / ".git" / "MERGE_HEAD").exists()
    assert facts(cli, "harness.source.upgraded") == []


def test_a_template_that_carries_a_receipt_of_its_own_merges_with_ours(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    plan = preview(cli, root, "--to", "carries-receipt")
    assert plan["mergeable"] is True and plan["status"] == "ready", plan
    assert apply(cli, root, plan["digest"])["action"] == "applied"
    receipt = conforms("harness-source", json.loads((root / RECEIPT).read_text()))
    assert (receipt["commit"], receipt["version"]) == (template.carries, "0.1.2")
    assert git(root, "status", "--porcelain") == ""


def test_local_changes_on_touched_paths_block_and_other_changes_survive(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    (root / "harness.json").write_text((root / "harness.json").read_text() + "\n")   # touched: blocks
    (root / "NEWS.md").write_text("my notes\n")                                      # untracked, in the way
    wrapper = root / "wrapper.py"
    wrapper.write_text(wrapper.read_text() + "# a local note\n")                     # not touched: fine
    plan = preview(cli, root)
    [blocker] = plan["blockers"]
    assert plan["status"] == "blocked" and blocker["code"] == "working_tree_changes"
    assert blocker["paths"] == ["NEWS.md", "harness.json"]
    assert apply(cli, root, plan["digest"], expect=2)["error"]["code"] == "working_tree_changes"
    assert (root / "NEWS.md").read_text() == "my notes\n"
    # Staged changes anywhere block too.
    (root / "NEWS.md").unlink()
    git(root, "checkout", "-q", "--", "harness.json")
    (root / "notes.txt").write_text("staged\n")
    git(root, "add", "notes.txt")
    plan = preview(cli, root)
    assert [b["code"] for b in plan["blockers"]] == ["staged_changes"]
    assert apply(cli, root, plan["digest"], expect=2)["error"]["code"] == "staged_changes"
    git(root, "reset", "-q", "--", "notes.txt")
    # Clean for every touched path: the merge goes through and the unrelated edits stay.
    plan = preview(cli, root)
    assert plan["status"] == "ready", plan
    assert apply(cli, root, plan["digest"])["action"] == "applied"
    assert wrapper.read_text().endswith("# a local note\n") and (root / "notes.txt").read_text() == "staged\n"
    assert git(root, "status", "--porcelain").split("\n")[0].strip() == "M wrapper.py"


def test_a_stale_digest_is_refused(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    plan = preview(cli, root)
    (root / "mine.txt").write_text("a new commit here\n")
    commit_all(root, "local work")
    error = apply(cli, root, plan["digest"], expect=2)["error"]
    assert error["code"] == "stale_plan" and error["details"]["digest"] != plan["digest"]
    fresh = preview(cli, root)
    other = preview(cli, root, "--to", "clash")            # a newer preview of another target
    assert apply(cli, root, fresh["digest"], expect=2)["error"]["code"] == "stale_plan"
    assert apply(cli, root, "not-a-digest", expect=2)["error"]["code"] == "usage"
    assert apply(cli, root, other["digest"])["action"] == "applied"
    assert json.loads((root / RECEIPT).read_text())["commit"] == template.clash


def test_a_live_run_blocks_the_apply(cli, template, tmp_path):
    from openalice import workspaces
    from openalice.runs import admission, tasks

    root = create(cli, template, tmp_path)
    ws = workspaces.get("ws")
    record = admission.admit(ws, {"id": "live", "title": "Live", "assignee": "@new-each-run"}, fire="run-now",
                             now=__import__("openalice.core.clock", fromlist=["x"]).parse_instant(NOW))
    tasks.update_task(record["taskId"], {"supervisor": {"pid": os.getpid(),
                                                        "startToken": proc.start_token(os.getpid())}})
    try:
        before = snapshot(root)
        plan = preview(cli, root)
        assert plan["status"] == "blocked" and plan["activity"]["liveRuns"] == 1
        assert [b["code"] for b in plan["blockers"]] == ["live_run"]
        error = apply(cli, root, plan["digest"], expect=3)["error"]
        assert error["code"] == "live_run"
        assert snapshot(root) == before
    finally:
        admission.release(record["taskId"])
    assert apply(cli, root, preview(cli, root)["digest"])["action"] == "applied"


def test_a_running_studio_blocks_the_apply_and_none_starts_during_it(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    r = cli("alice-harness", "studio", "start", "--json", cwd=root)
    assert r.returncode == 0 and r.json()["phase"] == "ready", r
    plan = preview(cli, root)
    assert plan["activity"]["studio"] == "ready"
    assert [b["code"] for b in plan["blockers"]] == ["studio_running"]
    assert apply(cli, root, plan["digest"], expect=3)["error"]["code"] == "studio_running"
    assert cli("alice-harness", "studio", "stop", cwd=root).returncode == 0
    # A pre-commit hook records who holds the Studio operation lease and the checkout lease at commit time.
    home = os.environ["OPENALICE_HOME"]
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ncat '{home}/state/studio/ws/operation.lease' > '{tmp_path}/studio-lease.json'\n"
                    f"cat '{home}/locks/checkout/ws.lease' > '{tmp_path}/checkout-lease.json'\n")
    hook.chmod(0o755)
    plan = preview(cli, root)
    assert plan["status"] == "ready"
    assert apply(cli, root, plan["digest"])["action"] == "applied"
    studio_lease = json.loads((tmp_path / "studio-lease.json").read_text())
    checkout_lease = json.loads((tmp_path / "checkout-lease.json").read_text())
    assert "source apply" in studio_lease["owner"] and not studio_lease.get("released")
    assert "source apply" in checkout_lease["owner"] and not checkout_lease.get("released")
    # The upgraded app starts and serves the new version.
    r = cli("alice-harness", "studio", "start", "--json", cwd=root)
    assert r.returncode == 0, r
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", r.json()["ports"]["http"], timeout=10)
    conn.request("GET", "/small")
    assert conn.getresponse().read() == b"hello from toy studio 0.2\n"
    conn.close()
    assert cli("alice-harness", "studio", "stop", cwd=root).returncode == 0


def test_a_failing_pre_commit_hook_aborts_the_merge_cleanly(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    wrapper = root / "wrapper.py"
    wrapper.write_text(wrapper.read_text() + "# unrelated local edit\n")
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'policy: no merges on Fridays' >&2\nexit 1\n")
    hook.chmod(0o755)
    before = snapshot(root)
    plan = preview(cli, root)
    r = cli("alice-harness", "source", "apply", "--digest", plan["digest"], "--json", cwd=root)
    assert r.returncode == 1, r
    assert "no merges on Fridays" in json.dumps(r.json()["error"])
    assert snapshot(root) == before                   # HEAD, index and every file as before
    assert not (root / ".git" / "MERGE_HEAD").exists() and not (root / "NEWS.md").exists()
    assert facts(cli, "harness.source.upgraded") == []
    hook.unlink()
    assert apply(cli, root, preview(cli, root)["digest"])["action"] == "applied"


def test_a_killed_apply_is_rolled_back_by_the_next_command(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    before = snapshot(root)
    plan = preview(cli, root)
    r = cli("alice-harness", "source", "apply", "--digest", plan["digest"], cwd=root,
            env={"OPENALICE_TEST_CRASH_AFTER": "source-merged"})
    assert r.returncode == -9, r
    assert (root / ".git" / "MERGE_HEAD").exists() and (root / "NEWS.md").exists()   # killed mid-merge
    again = cli("alice-harness", "source", "preview", "--json", cwd=root)
    assert again.returncode == 0, again
    [recovered] = conforms("harness-source-upgrade", again.json())["recovered"]
    assert recovered["outcome"] == "rolled_back" and recovered["digest"] == plan["digest"]
    assert snapshot(root) == before and not (root / ".git" / "MERGE_HEAD").exists()
    assert [f["owner"] for f in facts(cli, "harness.recovered")] == ["harness-source"]
    assert apply(cli, root, again.json()["preview"]["digest"])["action"] == "applied"


def test_bad_input_and_other_refusals(cli, template, tmp_path, workspace):
    root = create(cli, template, tmp_path, "aq")
    # A workspace not created from a template repository.
    assert preview(cli, workspace, expect=2)["error"]["code"] in ("no_source_receipt", "not_a_git_workspace")
    git(workspace, "init", "-q")
    commit_all(workspace, "plain")
    assert preview(cli, workspace, expect=2)["error"]["code"] == "no_source_receipt"
    # A target without a valid harness.json, an unknown ref.
    error = preview(cli, root, "--to", "broken", expect=2)["error"]
    assert error["code"] == "invalid_manifest" and error["file"].endswith(f"@{template.broken[:12]}:harness.json")
    assert preview(cli, root, "--to", "no-such-tag", expect=2)["error"]["code"] == "unknown_ref"
    # A damaged receipt names file and field.
    receipt = root / RECEIPT
    good = receipt.read_text()
    receipt.write_text(good.replace(template.c1, "abc"))
    error = preview(cli, root, expect=2)["error"]
    assert error["code"] == "malformed_source_receipt" and error["field"] == "/commit"
    receipt.write_text(good)
    # An unreachable repository is unavailable (exit 3).
    moved = template.bare.with_name("moved.git")
    template.bare.rename(moved)
    assert preview(cli, root, expect=3)["error"]["code"] == "source_unavailable"
    moved.rename(template.bare)
    # A headless run may not upgrade another workspace.
    plan = preview(cli, root)
    r = cli("alice-harness", "source", "apply", "--workspace", "aq", "--digest", plan["digest"], "--json",
            env={"ALICE_RUN_ID": "run-1", "ALICE_WORKSPACE_ID": "test-ws"})
    assert r.returncode == 4 and r.json()["error"]["code"] == "cross_workspace", r


def test_too_old_a_git_is_refused(template, tmp_path, monkeypatch):
    from openalice.core import git as gitmod
    from openalice.core.git import command as gitcommand
    from openalice.studio import source

    monkeypatch.setattr(gitcommand, "_version", (2, 37, 1))
    with pytest.raises(gitmod.GitError) as info:
        source.create_workspace(tmp_path / "old", str(template.bare), now=None)
    assert info.value.code == "git_too_old" and "2.38" in info.value.message
    assert not (tmp_path / "old").exists()
    monkeypatch.setattr(gitcommand, "_version", None)
    assert gitmod.version() >= (2, 38)


# -- git's own lock files ---------------------------------------------------------------------------------

def killed_git_leaves_index_lock(root: Path) -> Path:
    """A real git killed while it holds ``index.lock`` (its editor kills it): the lock stays."""
    r = subprocess.run(["git", "-C", str(root), "-c", "core.editor=kill -9 $PPID #", "commit", "-a",
                        "--allow-empty"],
                       capture_output=True, text=True, env={**os.environ, **GIT_ENV})
    assert r.returncode != 0, r
    lock = root / ".git" / "index.lock"
    assert lock.exists(), r
    return lock


def test_a_git_lock_left_by_a_killed_git_is_removed_under_the_checkout_lease(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    plan = preview(cli, root)
    lock = killed_git_leaves_index_lock(root)
    ref_lock = root / ".git" / "refs" / "openalice" / "source" / "incoming.lock"
    ref_lock.write_text("0" * 40 + "\n")                   # a fetch killed in its ref update
    again = cli("alice-harness", "source", "preview", "--json", cwd=root)
    assert again.returncode == 0, again                      # recovered, then fetched
    [recovered] = conforms("harness-source-upgrade", again.json())["recovered"]
    assert recovered == {"owner": "harness-source", "outcome": "git_lock_removed", "digest": None,
                         "paths": [".git/index.lock", ".git/refs/openalice/source/incoming.lock"]}
    assert not lock.exists() and not ref_lock.exists()
    lock = killed_git_leaves_index_lock(root)               # and again, before the apply itself
    done = apply(cli, root, plan["digest"])
    assert done["action"] == "applied" and done["recovered"][0]["paths"] == [".git/index.lock"]
    assert not lock.exists() and (root / "NEWS.md").exists()
    fact = [f for f in facts(cli, "harness.recovered") if f["outcome"] == "git_lock_removed"]
    assert [f["files"] for f in fact] == [[".git/index.lock"],         # newest first
                                          [".git/index.lock", ".git/refs/openalice/source/incoming.lock"]]


def test_a_git_lock_a_live_git_holds_is_never_removed(cli, template, tmp_path):
    root = create(cli, template, tmp_path)
    plan = preview(cli, root)
    before = snapshot(root)
    # The person's own `git commit`, its editor open: git holds index.lock meanwhile.
    editor = subprocess.Popen(["git", "-C", str(root), "-c", "core.editor=sleep 120 #", "commit", "-a",
                               "--allow-empty"],
                              env={**os.environ, **GIT_ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    lock = root / ".git" / "index.lock"
    try:
        for _ in range(500):
            if lock.exists():
                break
            time.sleep(0.01)
        assert lock.exists()
        os.utime(lock, (time.time() - 7200, time.time() - 7200))   # old: age alone proves nothing
        r = apply(cli, root, plan["digest"], expect=3)
        assert r["error"]["code"] == "git_locked" and r["error"]["file"] == str(lock), r
        assert "remove" in r["error"]["message"] and "Traceback" not in json.dumps(r)
        text = cli("alice-harness", "source", "apply", "--digest", plan["digest"], cwd=root)
        assert text.returncode == 3 and str(lock) in text.stderr and "Traceback" not in text.stderr, text
        assert lock.exists() and snapshot(root) == before
        assert [f for f in facts(cli, "harness.recovered") if f["outcome"] == "git_lock_removed"] == []
    finally:
        os.killpg(editor.pid, signal.SIGKILL)                # now it is a killed git's lock
        editor.wait()
    assert lock.exists()
    assert apply(cli, root, plan["digest"])["action"] == "applied" and not lock.exists()


def test_outside_the_lease_a_git_lock_is_named_with_how_to_proceed(tmp_path):
    from openalice.core import git as core_git

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    (root / "a.txt").write_text("a\n")
    with pytest.raises(core_git.GitLocked) as caught:
        core_git.commit_paths(root, ["a.txt"], "a")
    error = caught.value
    assert error.exit_code == 3 and error.code == "git_locked" and error.file == str(lock)
    assert f"remove {lock}" in error.message and lock.exists()
    assert isinstance(error, core_git.GitError)              # callers that roll back on a git failure still do
