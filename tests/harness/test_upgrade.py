"""Harness policy over the managed engine: the init projection, bundle, skill and
template upgrades, blockers, the lease (reference §8 items 22-30)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from openalice import harness, managed, workspaces
from openalice.core import proc
from openalice.core.errors import Busy, Conflict, Forbidden, InvalidInput
from openalice.workspaces.checkout import checkout
from tests.helpers.schemas import schema_errors

from .helpers import DEFAULT, LOCAL_EDIT, UPSTREAM_EDIT, edit_here_and_upstream, git, needs_git, new_bundle

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


def new_ws(tmp_path, name="ws", template="chat", git_repo=False, notes=None):
    root = tmp_path / name
    if git_repo:
        root.mkdir()
        git(root, "init", "-q")
    return workspaces.init(root, template=template, now=NOW, notes=notes)[0]


def read(ws, rel):
    return (Path(ws.path) / rel).read_text()


def test_a_new_chat_workspace_gets_guidance_skills_shims_and_state(tmp_path):
    ws = new_ws(tmp_path, git_repo=True)
    root = Path(ws.path)
    instruction = (DEFAULT / "templates/chat/files/instruction.md").read_bytes()
    assert (root / "AGENTS.md").read_bytes() == instruction == (root / "CLAUDE.md").read_bytes()
    for skill in ("alice", "self-scheduling", "file-delivery"):
        shipped = (DEFAULT / "skills" / skill / "SKILL.md").read_bytes()
        assert (root / ".agents/skills" / skill / "SKILL.md").read_bytes() == shipped
        assert (root / ".claude/skills" / skill / "SKILL.md").read_bytes() == shipped
    for tool in ("alice", "alice-inbox", "alice-schedule"):
        assert os.access(root / ".alice/bin" / tool, os.X_OK)
    version = json.loads(read(ws, ".alice/alice-harness-version.json"))
    assert schema_errors("harness-version", version) == []
    assert version["source"] == "creation" and version["appliedVersion"] == harness.load_bundle().version
    assert sorted(version["skillVersions"]) == ["alice", "file-delivery", "self-scheduling"]
    state = json.loads(read(ws, ".alice/template-upgrade/state.json"))
    assert schema_errors("harness-template-state", state) == [] and state["template"] == "chat"
    exclude = (root / ".git/info/exclude").read_text()
    for pattern in harness.GIT_EXCLUDES:
        assert pattern in exclude.splitlines()
    # Bookkeeping never shows as untracked; the guidance, skills and config would be committed.
    untracked = git(root, "status", "--porcelain", "--untracked-files=all").split("\n")
    assert not [line for line in untracked if "harness-version" in line or ".alice/bin" in line
                or "upgrade/" in line]
    assert harness.preview(ws, scope=harness.scope_for(), now=NOW).status == "current"


def test_a_blank_workspace_bundles_fewer_skills(tmp_path):
    ws = new_ws(tmp_path, template="blank")
    assert sorted(p.name for p in (Path(ws.path) / ".agents/skills").iterdir()) == ["alice", "self-scheduling"]
    assert read(ws, "AGENTS.md") == (DEFAULT / "templates/blank/files/instruction.md").read_text()


def test_init_never_overwrites_a_file_that_is_already_there(tmp_path):
    root = tmp_path / "existing"
    root.mkdir()
    (root / "CLAUDE.md").write_text("# my own notes\n")
    notes: list[str] = []
    ws = new_ws(tmp_path, "existing", notes=notes)
    assert read(ws, "CLAUDE.md") == "# my own notes\n"
    assert not (root / "AGENTS.md").exists()      # the pair stays identical: neither is written
    assert any("AGENTS.md" in n and "left as it is" in n for n in notes)
    p = harness.preview(ws, scope=harness.scope_for(template=True), now=NOW)
    assert p.status == "needs_resolution" and [i.path for i in p.plan.conflicts] == ["AGENTS.md"]
    assert (root / ".agents/skills/alice/SKILL.md").exists()     # the skills went in all the same


@needs_git
def test_a_local_edit_and_an_upstream_change_to_the_same_file_merge(tmp_path):
    ws = new_ws(tmp_path, git_repo=True)
    root = Path(ws.path)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "workspace")
    skill, bundle = edit_here_and_upstream(root, tmp_path)
    p = harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW)
    assert p.status == "ready" and p.plan.summary()["merged"] == 1 and not p.plan.conflicts
    result, applied = harness.apply(ws, scope=harness.scope_for(), bundle_dir=bundle, digest=p.digest, now=NOW)
    text = skill.read_text()
    assert LOCAL_EDIT in text and UPSTREAM_EDIT in text
    assert (root / ".claude/skills/alice/SKILL.md").read_text() == text
    assert git(root, "log", "-1", "--format=%s").strip() == f"harness: upgrade {p.from_version} -> 1.1.0"
    assert f"OpenAlice-Harness-Upgrade: {p.digest}" in git(root, "log", "-1", "--format=%B")
    assert sorted(git(root, "show", "--name-only", "--format=", "HEAD").split()) == [
        ".agents/skills/alice/SKILL.md", ".claude/skills/alice/SKILL.md"]
    version = json.loads(read(ws, ".alice/alice-harness-version.json"))
    assert version["appliedVersion"] == "1.1.0" and version["commit"] == applied.commit
    assert harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW).status == "current"


def test_scoped_install_and_remove_touch_only_that_skill_and_the_config(tmp_path):
    ws = new_ws(tmp_path, template="blank")
    root = Path(ws.path)
    harness.config_set(ws, ["cli.alice.groups.inbox=false"], now=NOW)
    before = json.loads(read(ws, ".alice/alice-harness-version.json"))
    alice_rev = before["skillVersions"]["alice"]
    harness.apply(ws, scope=harness.scope_for(skill="file-delivery", action="install"), now=NOW)
    config = json.loads(read(ws, ".alice/alice-harness-config.json"))
    assert config["skills"] == {"file-delivery": True}
    assert config["cli"] == {"alice": {"groups": {"inbox": False}}}        # the CLI switches are kept
    after = json.loads(read(ws, ".alice/alice-harness-version.json"))
    assert after["appliedVersion"] == before["appliedVersion"] and after["skillVersions"]["alice"] == alice_rev
    assert "file-delivery" in after["skillVersions"]
    assert (root / ".claude/skills/file-delivery/SKILL.md").exists()
    harness.apply(ws, scope=harness.scope_for(skill="file-delivery", action="remove"), now=NOW)
    assert not (root / ".agents/skills/file-delivery").exists() and not (root / ".claude/skills/file-delivery").exists()
    assert json.loads(read(ws, ".alice/alice-harness-config.json"))["skills"] == {"file-delivery": False}
    assert "file-delivery" not in json.loads(read(ws, ".alice/alice-harness-version.json"))["skillVersions"]
    with pytest.raises(Conflict) as info:
        harness.apply(ws, scope=harness.scope_for(skill="self-scheduling", action="remove"), now=NOW)
    assert info.value.code == "always_included"
    with pytest.raises(Conflict) as info:
        harness.preview(ws, scope=harness.scope_for(skill="file-delivery", action="update"), now=NOW)
    assert info.value.code == "skill_not_included"


def test_restore_puts_the_bundle_bytes_back_and_keeps_personal_files(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / ".agents/skills/alice/SKILL.md").write_text("scribbled\n")
    (root / ".agents/skills/alice/mine.md").write_text("personal\n")
    p = harness.preview(ws, scope=harness.scope_for(skill="alice", action="restore"), now=NOW)
    assert [i.reason for i in p.plan.changes] == ["restored from the template"]
    harness.apply(ws, scope=harness.scope_for(skill="alice", action="restore"), now=NOW)
    shipped = (DEFAULT / "skills/alice/SKILL.md").read_text()
    assert read(ws, ".agents/skills/alice/SKILL.md") == shipped == read(ws, ".claude/skills/alice/SKILL.md")
    assert read(ws, ".agents/skills/alice/mine.md") == "personal\n"


def test_excluding_a_locally_edited_skill_needs_a_resolution(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / ".agents/skills/file-delivery/SKILL.md").write_text("my version\n")
    harness.config_set(ws, ["skills.file-delivery=false"], now=NOW)
    p = harness.preview(ws, scope=harness.scope_for(), now=NOW)
    [conflict] = p.plan.conflicts
    assert (conflict.path, conflict.operation) == (".agents/skills/file-delivery/SKILL.md", "remove")
    with pytest.raises(InvalidInput) as info:
        harness.apply(ws, scope=harness.scope_for(), digest=p.digest, now=NOW)
    assert info.value.code == "unresolved_conflict"
    assert read(ws, ".agents/skills/file-delivery/SKILL.md") == "my version\n"
    harness.apply(ws, scope=harness.scope_for(), digest=p.digest, keep=[conflict.path], now=NOW)
    assert read(ws, ".agents/skills/file-delivery/SKILL.md") == "my version\n"
    assert harness.preview(ws, scope=harness.scope_for(), now=NOW).status == "current"


def test_a_config_change_after_the_preview_is_a_stale_plan(tmp_path):
    ws = new_ws(tmp_path)
    p = harness.preview(ws, scope=harness.scope_for(), now=NOW)
    harness.config_set(ws, ["cli.alice-inbox.enabled=false"], now=NOW)
    q = harness.preview(ws, scope=harness.scope_for(), now=NOW)
    assert q.digest != p.digest
    # A CLI-only change leaves every skill file as it was.
    assert [(i.path, i.status) for i in q.plan.items] == [(i.path, i.status) for i in p.plan.items]
    with pytest.raises(managed.StalePlan) as info:
        harness.apply(ws, scope=harness.scope_for(), digest=p.digest, now=NOW)
    assert info.value.code == "stale_plan" and info.value.details["digest"] == q.digest


def live_run(ws):
    from openalice.runs import admission, tasks

    record = admission.admit(ws, {"id": "live", "title": "Live", "assignee": "@new-each-run"}, fire="run-now",
                             now=NOW)
    tasks.update_task(record["taskId"], {"supervisor": {"pid": os.getpid(),
                                                        "startToken": proc.start_token(os.getpid())}})
    return record["taskId"]


def test_a_live_run_blocks_template_upgrades_but_not_skill_upgrades(tmp_path):
    from openalice.runs import admission

    ws = new_ws(tmp_path)
    (Path(ws.path) / "AGENTS.md").unlink()
    (Path(ws.path) / "CLAUDE.md").unlink()
    (Path(ws.path) / ".agents/skills/alice/SKILL.md").unlink()
    task = live_run(ws)
    try:
        template = harness.preview(ws, scope=harness.scope_for(template=True, ), now=NOW)
        assert template.status == "blocked" and template.blockers[0]["code"] == "live_run"
        assert template.live_runs == 1
        with pytest.raises(Busy) as info:
            harness.apply(ws, scope=harness.scope_for(template=True), now=NOW)
        assert info.value.code == "live_run" and info.value.exit_code == 3
        skill = harness.apply(ws, scope=harness.scope_for(skill="alice", action="install"), now=NOW)
        assert skill[1] is not None and (Path(ws.path) / ".agents/skills/alice/SKILL.md").exists()
    finally:
        admission.release(task)


@needs_git
def test_staged_changes_block_an_apply(tmp_path):
    ws = new_ws(tmp_path, git_repo=True)
    root = Path(ws.path)
    (root / "work.txt").write_text("in progress\n")
    git(root, "add", "work.txt")
    (root / ".agents/skills/alice/SKILL.md").unlink()
    p = harness.preview(ws, scope=harness.scope_for(), now=NOW)
    assert p.status == "blocked" and p.blockers[0]["code"] == "staged_changes"
    with pytest.raises(Conflict) as info:
        harness.apply(ws, scope=harness.scope_for(), now=NOW)
    assert info.value.code == "staged_changes" and info.value.exit_code == 2
    assert not (root / ".agents/skills/alice/SKILL.md").exists()


def test_a_held_checkout_lease_makes_apply_busy(tmp_path):
    ws = new_ws(tmp_path)
    with checkout(ws, "someone else", now=NOW):
        with pytest.raises(Busy) as info:
            harness.apply(ws, scope=harness.scope_for(skill="alice", action="restore"), now=NOW)
    assert info.value.code == "workspace_busy" and info.value.exit_code == 3
    harness.apply(ws, scope=harness.scope_for(skill="alice", action="restore"), now=NOW)  # free again


def test_a_headless_run_may_not_upgrade_another_workspace(tmp_path, monkeypatch):
    ws = new_ws(tmp_path)
    other = new_ws(tmp_path, "other")
    monkeypatch.setenv("ALICE_RUN_ID", "run-x")
    monkeypatch.setenv("ALICE_WORKSPACE_ID", other.id)
    with pytest.raises(Forbidden) as info:
        harness.apply(ws, scope=harness.scope_for(), now=NOW)
    assert info.value.code == "cross_workspace"          # the toolkit's one caller rule
    with pytest.raises(Forbidden) as info:
        harness.config_set(other, ["cli.alice.enabled=false"], now=NOW)
    assert info.value.code == "config_write_from_run"    # even its own: the config is the person's
    with pytest.raises(Forbidden) as info:
        harness.config_set(ws, ["cli.alice.enabled=false"], now=NOW)
    assert info.value.code == "cross_workspace"


def test_a_malformed_config_or_version_file_refuses_every_write(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / ".alice/alice-harness-config.json").write_text('{"schemaVersion": 1, "cli": {"alice": {"enabled": 0}}}')
    for call in (lambda: harness.apply(ws, scope=harness.scope_for(), now=NOW),
                 lambda: harness.config_set(ws, ["cli.alice.enabled=true"], now=NOW)):
        with pytest.raises(InvalidInput) as info:
            call()
        assert info.value.code == "harness_config_invalid" and info.value.field == "cli.alice.enabled"
    (root / ".alice/alice-harness-config.json").unlink()
    version = root / ".alice/alice-harness-version.json"
    version.write_text(json.dumps({**json.loads(version.read_text()), "skillVersions": {"alice": {}}}))
    with pytest.raises(InvalidInput) as info:
        harness.apply(ws, scope=harness.scope_for(), now=NOW)
    assert info.value.field == "skillVersions.alice" and info.value.file == str(version)
    status = harness.status(ws, now=NOW)
    assert any("skillVersions.alice" in p for p in status["problems"]) and status["upToDate"] is False


def test_a_third_party_bundle_is_opt_in_and_left_alone_by_the_default(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    extra = new_bundle(tmp_path, "2.0.0")
    (extra / "skills/trading").mkdir()
    (extra / "skills/trading/SKILL.md").write_text("---\nname: trading\ndescription: market data\n---\n# trading\n")
    # An unscoped upgrade from it does not pull the new skill in (no template bundles it) ...
    harness.apply(ws, scope=harness.scope_for(), bundle_dir=extra, now=NOW)
    assert not (root / ".agents/skills/trading").exists()
    # ... an explicit install does, and the shipped bundle's next upgrade (asked for: the
    # workspace now follows the other bundle) leaves it alone.
    harness.apply(ws, scope=harness.scope_for(skill="trading", action="install"), bundle_dir=extra, now=NOW)
    assert (root / ".claude/skills/trading/SKILL.md").exists()
    assert harness.preview(ws, scope=harness.scope_for(), now=NOW).status == "current"   # it follows extra
    p = harness.preview(ws, scope=harness.scope_for(), bundle_dir="default", now=NOW)
    assert not [i for i in p.plan.items if "trading" in i.path]
    harness.apply(ws, scope=harness.scope_for(), bundle_dir="default", now=NOW)
    assert (root / ".agents/skills/trading/SKILL.md").exists()
    version = json.loads(read(ws, ".alice/alice-harness-version.json"))
    assert version["skillVersions"]["trading"]["bundle"] == str(extra) and version["bundle"] == "default"
