"""Applying a plan as one transaction; resolutions; git commits; crash recovery
(reference §5 and §8 items 24-27)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from openalice import managed
from openalice.core import git, resources
from openalice.core.errors import Conflict, InvalidInput
from openalice.core.schema import Validator
from tests.harness.helpers import GIT_ENV, needs_git
from tests.harness.helpers import git as sh  # git in a test repository

REPO = Path(__file__).resolve().parents[2]
HELPER = REPO / "tests" / "helpers" / "managed_apply.py"
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
SCOPE = ["a.md", "tree/"]


def make_repo(root: Path) -> None:
    root.mkdir(exist_ok=True)
    sh(root, "init", "-q")
    (root / ".gitignore").write_text(".state/\n")
    sh(root, "add", ".gitignore")
    sh(root, "commit", "-q", "-m", "init")


def files(root: Path) -> dict:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".git/", ".state/")):
            out[rel] = path.read_text()
    return out


def plan_for(root, targets, store, **kwargs):
    return managed.make_plan(root, targets={k: v.encode() for k, v in targets.items()}, baseline=store.baseline(),
                             scope=SCOPE, walk_trees=SCOPE, **kwargs)


def test_apply_writes_files_baseline_and_state_then_clears_the_journal(tmp_path):
    store = managed.Store(tmp_path, ".state")
    p = plan_for(tmp_path, {"a.md": "one\n", "tree/b.md": "two\n"}, store)
    applied = managed.apply_plan(p, store, owner="test", state={".state/v.json": {"v": 1, "commit": None}}, now=NOW)
    assert files(tmp_path) == {"a.md": "one\n", "tree/b.md": "two\n"}
    assert applied.changed == ["a.md", "tree/b.md"] and applied.commit is None
    assert set(store.baseline()) == {"a.md", "tree/b.md"}
    assert json.loads((tmp_path / ".state/v.json").read_text()) == {"v": 1}   # no commit: key dropped
    assert not store.txn_dir.exists() and store.pending() is None
    # Removing a file prunes the directories it emptied (inside the scope only).
    p = plan_for(tmp_path, {"a.md": "one\n"}, store)
    managed.apply_plan(p, store, owner="test", now=NOW)
    assert not (tmp_path / "tree").exists() and set(store.baseline()) == {"a.md"}
    assert plan_for(tmp_path, {"a.md": "one\n"}, store).current


def conflicted(tmp_path):
    store = managed.Store(tmp_path, ".state")
    managed.apply_plan(plan_for(tmp_path, {"a.md": "base\n", "tree/b.md": "base\n"}, store), store, owner="t",
                       now=NOW)
    (tmp_path / "a.md").write_text("local a\n")
    (tmp_path / "tree/b.md").write_text("local b\n")
    return store, plan_for(tmp_path, {"a.md": "new a\n", "tree/b.md": "new b\n"}, store)


def test_each_conflict_is_resolved_exactly_once(tmp_path):
    store, p = conflicted(tmp_path)
    assert [i.path for i in p.conflicts] == ["a.md", "tree/b.md"]
    with pytest.raises(InvalidInput) as info:
        managed.apply_plan(p, store, owner="t", keep=["a.md"], now=NOW)
    assert info.value.code == "unresolved_conflict" and info.value.details["unresolved"] == ["tree/b.md"]
    with pytest.raises(InvalidInput) as info:
        managed.apply_plan(p, store, owner="t", keep=["a.md", "nope.md"], use=["tree/b.md"], now=NOW)
    assert info.value.code == "invalid_resolutions" and info.value.details["unknown"] == ["nope.md"]
    with pytest.raises(InvalidInput) as info:
        managed.apply_plan(p, store, owner="t", keep=["a.md", "tree/b.md"], use=["a.md"], now=NOW)
    assert info.value.details["duplicate"] == ["a.md"]
    assert files(tmp_path) == {"a.md": "local a\n", "tree/b.md": "local b\n"}   # refusals wrote nothing
    applied = managed.apply_plan(p, store, owner="t", keep=["a.md"], use=["tree/b.md"], now=NOW)
    assert files(tmp_path) == {"a.md": "local a\n", "tree/b.md": "new b\n"}
    assert applied.kept == ["a.md"] and applied.changed == ["tree/b.md"]
    # The kept file's base is now the incoming side: the next plan preserves it, no new conflict.
    item = {i.path: i for i in plan_for(tmp_path, {"a.md": "new a\n", "tree/b.md": "new b\n"}, store).items}["a.md"]
    assert item.status == "preserved"


def test_unresolved_conflicts_can_be_left_for_later(tmp_path):
    store, p = conflicted(tmp_path)
    applied = managed.apply_plan(p, store, owner="t", unresolved="skip", now=NOW)
    assert applied.changed == [] and files(tmp_path)["a.md"] == "local a\n"
    # Still a conflict next time: the baseline was not moved for it.
    assert len(plan_for(tmp_path, {"a.md": "new a\n", "tree/b.md": "new b\n"}, store).conflicts) == 2


def test_use_template_is_refused_through_a_symlink(tmp_path):
    store = managed.Store(tmp_path, ".state")
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere.md"
    outside.write_text("not ours\n")
    os.symlink(outside, tmp_path / "a.md")
    p = plan_for(tmp_path, {"a.md": "template\n"}, store)
    with pytest.raises(InvalidInput) as info:
        managed.apply_plan(p, store, owner="t", use=["a.md"], now=NOW)
    assert info.value.code == "invalid_resolution"
    managed.apply_plan(p, store, owner="t", keep=["a.md"], now=NOW)
    assert os.path.islink(tmp_path / "a.md") and outside.read_text() == "not ours\n"


def test_a_change_after_the_plan_is_a_stale_plan(tmp_path):
    store = managed.Store(tmp_path, ".state")
    p = plan_for(tmp_path, {"a.md": "one\n"}, store)
    (tmp_path / "a.md").write_text("written meanwhile\n")
    with pytest.raises(managed.StalePlan) as info:
        managed.apply_plan(p, store, owner="t", now=NOW)
    assert info.value.code == "stale_plan" and info.value.exit_code == 2
    assert (tmp_path / "a.md").read_text() == "written meanwhile\n" and not store.txn_dir.exists()


@needs_git
def test_commits_exactly_the_touched_paths_with_the_digest_trailer(tmp_path):
    root = tmp_path / "ws"
    make_repo(root)
    (root / "unrelated.txt").write_text("left alone\n")
    (root / "staged.txt").write_text("staged by the user\n")
    sh(root, "add", "staged.txt")
    store = managed.Store(root, ".state")
    p = plan_for(root, {"a.md": "one\n", "tree/b.md": "two\n"}, store)
    applied = managed.apply_plan(p, store, owner="t", commit=managed.Commit("test: apply", "Test-Trailer"),
                                 state={".state/v.json": {"v": 1, "commit": None}}, now=NOW)
    assert applied.commit == sh(root, "rev-parse", "HEAD").strip()
    assert sh(root, "show", "--name-only", "--format=", "HEAD").split() == ["a.md", "tree/b.md"]
    message = sh(root, "log", "-1", "--format=%B")
    assert message.startswith("test: apply\n") and f"Test-Trailer: {p.digest}" in message
    assert sh(root, "log", "-1", "--format=%an <%ae>").strip() == "OpenAlice <launcher@local>"
    assert sh(root, "diff", "--cached", "--name-only").split() == ["staged.txt"]   # still staged, not committed
    assert json.loads((root / ".state/v.json").read_text()) == {"v": 1, "commit": applied.commit}
    assert git.head_has_trailer(root, "Test-Trailer", p.digest)


@needs_git
def test_a_failing_pre_commit_hook_restores_files_index_and_head(tmp_path):
    root = tmp_path / "ws"
    make_repo(root)
    (root / "a.md").write_text("committed before\n")
    sh(root, "add", "a.md")
    sh(root, "commit", "-q", "-m", "a")
    head = sh(root, "rev-parse", "HEAD")
    store = managed.Store(root, ".state")
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'hook says no' >&2\nexit 1\n")
    hook.chmod(0o755)
    p = plan_for(root, {"a.md": "upgraded\n", "tree/b.md": "new\n"}, store, force=["a.md"])
    with pytest.raises(git.GitError) as info:
        managed.apply_plan(p, store, owner="t", commit=managed.Commit("test: apply", "Test-Trailer"), now=NOW)
    assert "hook says no" in info.value.message
    assert files(root) == {".gitignore": ".state/\n", "a.md": "committed before\n"}
    assert sh(root, "rev-parse", "HEAD") == head
    assert sh(root, "status", "--porcelain") == ""          # index and work tree as they were
    assert not store.txn_dir.exists() and store.baseline() == {}


def test_a_malformed_journal_is_refused_naming_the_field(tmp_path):
    store = managed.Store(tmp_path, ".state")
    store.txn_dir.mkdir(parents=True)
    (tmp_path / "a.md").write_text("mine\n")
    for doc, field in (({"schemaVersion": 1}, None), ("[]", None)):
        store.journal_path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
        with pytest.raises(InvalidInput) as info:
            managed.recover(store)
        assert info.value.code == "malformed_journal" and info.value.file == str(store.journal_path)
    good = {"schemaVersion": 1, "owner": "t", "planDigest": "0" * 64, "touchedPaths": ["../escape"],
            "preparedAt": "2026-11-30T09:00:00Z", "phase": "prepared", "meta": {}, "state": {},
            "commitTrailer": None, "pruneWithin": []}
    store.journal_path.write_text(json.dumps(good))
    with pytest.raises(InvalidInput) as info:
        managed.recover(store)
    assert info.value.field == "touchedPaths/0"
    store.journal_path.write_text(json.dumps({**good, "touchedPaths": ["a.md"]}))
    with pytest.raises(InvalidInput) as info:       # no before snapshot: refuse rather than guess
        managed.recover(store)
    assert "before snapshot" in info.value.message
    assert (tmp_path / "a.md").read_text() == "mine\n"
    assert Validator(resources.schema("managed-journal")).errors({**good, "touchedPaths": ["a.md"]}) == []
    with pytest.raises(Conflict):                     # an apply never starts over a pending journal
        managed.apply_plan(plan_for(tmp_path, {"a.md": "x\n"}, store), store, owner="t", now=NOW)


# -- SIGKILL at every step ---------------------------------------------------------------------------

BEFORE = {"a.md": "a v1\n", "tree/b.md": "b v1\n", "tree/gone.md": "gone v1\n"}
AFTER = {"a.md": "a v2\n", "tree/b.md": "b v1\n", "tree/c.md": "c v2\n"}


def setup_workspace(root: Path, use_git: bool) -> managed.Store:
    if use_git:
        make_repo(root)
    else:
        root.mkdir()
    store = managed.Store(root, ".state")
    managed.apply_plan(plan_for(root, BEFORE, store), store, owner="t", state={".state/version.json": {"v": 1}},
                       commit=managed.Commit("v1", "Test-Trailer") if use_git else None, now=NOW)
    return store


def run_helper(root: Path, crash: str | None, tmp_path: Path, targets=AFTER, use_git=False):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"targets": targets, "scope": SCOPE, "commit": use_git, "v": 2}))
    env = {**os.environ, **GIT_ENV}
    env.pop("OPENALICE_TEST_CRASH_AFTER", None)
    if crash:
        env["OPENALICE_TEST_CRASH_AFTER"] = crash
    return subprocess.Popen([sys.executable, str(HELPER), str(root), str(spec), str(REPO)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def assert_whole(root: Path, store: managed.Store, targets=AFTER) -> str:
    """The workspace holds exactly the old state or exactly the new one."""
    now_files = {k: v for k, v in files(root).items() if k != ".gitignore"}
    version = json.loads((root / ".state/version.json").read_text())["v"]
    baseline = {k: e.content.decode() for k, e in store.baseline().items()}
    if now_files == BEFORE:
        assert version == 1 and baseline == BEFORE
        return "before"
    assert now_files == targets, now_files
    assert version == 2 and baseline == targets
    return "after"


STEPS = [("managed-prepared", "before"), ("managed-first-write", "before"), ("managed-written", "before"),
         ("managed-committed", "after"), ("managed-finalized", "after")]


@pytest.mark.parametrize("use_git,step,outcome",
                         [(False, s, o) for s, o in STEPS if s != "managed-committed"]   # no commit without git
                         + [pytest.param(True, s, o, marks=needs_git) for s, o in STEPS])
def test_sigkill_at_each_step_recovers_to_all_or_nothing(tmp_path, step, outcome, use_git):
    root = tmp_path / "ws"
    store = setup_workspace(root, use_git)
    child = run_helper(root, step, tmp_path, use_git=use_git)
    child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert store.pending() is not None
    recovery = managed.recover(store)
    assert recovery.outcome == ("finalized" if outcome == "after" else "rolled_back")
    assert assert_whole(root, store) == outcome
    assert store.pending() is None and not store.txn_dir.exists()
    if use_git:
        assert sh(root, "status", "--porcelain") == ""   # nothing left staged or dirty
        if outcome == "after":
            assert json.loads((root / ".state/version.json").read_text())["commit"] == \
                sh(root, "rev-parse", "HEAD").strip()


def test_recovery_refuses_a_file_that_holds_neither_side_and_touches_nothing(tmp_path):
    root = tmp_path / "ws"
    store = setup_workspace(root, False)
    child = run_helper(root, "managed-written", tmp_path)
    child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    (root / "a.md").write_text("edited after the crash\n")
    snapshot = files(root)
    with pytest.raises(managed.RecoveryRefused) as info:
        managed.recover(store)
    assert info.value.code == "recovery_refused" and info.value.field == "a.md" and info.value.exit_code == 2
    assert info.value.details["paths"][0]["before"] == managed.content_fingerprint(b"a v1\n")
    assert files(root) == snapshot and store.pending() is not None       # nothing touched, still pending
    (root / "a.md").write_text("a v2\n")                                   # the apply's own bytes again
    assert managed.recover(store).outcome == "rolled_back"
    assert assert_whole(root, store) == "before"


def test_a_journal_file_store_rolls_back_and_finalizes(tmp_path):
    """The one-file layout (stickers): before bytes and after hashes in the journal,
    the owner's state document as its baseline."""
    root = tmp_path / "ws"
    (root / "tree").mkdir(parents=True)
    (root / "a.md").write_text("a v1\n")
    store = managed.JournalFile(root, ".state/txn.json")
    baseline = {"a.md": managed.hashed_entry(managed.content_fingerprint(b"a v1\n")[5:])}
    plan = managed.make_plan(root, targets={"a.md": b"a v2\n", "tree/c.md": b"c\n"}, baseline=baseline,
                             scope=SCOPE, merge=False)

    def state(next_baseline):
        return {".state/owned.json": {"files": {p: e.fingerprint for p, e in sorted(next_baseline.items())}}}

    applied = managed.apply_plan(plan, store, state=state, owner="t", now=NOW)
    assert applied.changed == ["a.md", "tree/c.md"] and not store.journal_path.exists()
    owned = json.loads((root / ".state/owned.json").read_text())["files"]
    assert owned == {"a.md": managed.content_fingerprint(b"a v2\n"), "tree/c.md": managed.content_fingerprint(b"c\n")}
    # A journal as a crash leaves it: rolled back from its own before bytes.
    plan = managed.make_plan(root, targets={"a.md": b"a v3\n"}, baseline={}, scope=SCOPE, merge=False)
    assert plan.conflicts and "no line merge" not in plan.conflicts[0].reason    # merge=False: no merge tried
    plan = managed.make_plan(root, targets={"a.md": b"a v3\n"},
                             baseline={"a.md": managed.file_entry(b"a v2\n")}, scope=SCOPE, merge=False)
    journal = {"schemaVersion": 1, "owner": "t", "planDigest": plan.digest, "touchedPaths": ["a.md"],
               "preparedAt": "2026-11-30T09:00:00Z", "phase": "prepared", "meta": {}, "state": {},
               "commitTrailer": None, "pruneWithin": SCOPE}
    store.prepare(journal, {"a.md": managed.file_entry(b"a v2\n")}, {"a.md": managed.file_entry(b"a v3\n")}, {})
    (root / "a.md").write_text("a v3\n")
    assert managed.recover(store).outcome == "rolled_back"
    assert (root / "a.md").read_text() == "a v2\n" and not store.journal_path.exists()


def test_sigkill_at_random_moments_never_leaves_a_mix(tmp_path):
    rng = random.Random(42)
    many = {f"tree/f{n:03}.md": f"file {n} v2\n" for n in range(150)}
    outcomes = set()
    for n in range(12):
        root = tmp_path / f"ws{n}"
        store = setup_workspace(root, False)
        child = run_helper(root, None, tmp_path, targets=many)
        time.sleep(rng.uniform(0.0, 0.25))  # an arbitrary moment of the apply (not timing anything)
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
        managed.recover(store)
        outcomes.add(assert_whole(root, store, targets=many))
    # Each run ended whole; which side depends on the moment of the kill.
    assert outcomes <= {"before", "after"} and outcomes
