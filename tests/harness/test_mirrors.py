"""Skill mirrors stay true (issue 27 item 6): after any apply `.claude/skills` is byte-identical to
`.agents/skills`, a resolution is never asked twice, and an edited primary whose mirror was
deleted is a case an upgrade resolves on its own."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from openalice import harness, workspaces

from .helpers import LOCAL_EDIT, edit_here_and_upstream, new_bundle

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
PRIMARY = ".agents/skills/alice/SKILL.md"
MIRROR = ".claude/skills/alice/SKILL.md"


def new_ws(tmp_path):
    return workspaces.init(tmp_path / "ws", template="chat", now=NOW)[0]


def overlapping(root: Path, tmp_path: Path) -> Path:
    """The workspace and a new bundle change the same line of the alice skill: a conflict."""
    skill = root / PRIMARY
    text = skill.read_text()
    line = next(l for l in text.splitlines() if l.startswith("# alice"))
    skill.write_text(text.replace(line, LOCAL_EDIT))
    bundle = new_bundle(tmp_path)
    shipped = bundle / "skills/alice/SKILL.md"
    shipped.write_text(shipped.read_text().replace(line, "# alice: upstream's own title"))
    return bundle


def test_a_conflict_kept_with_keep_workspace_carries_the_edit_to_the_mirror_and_is_asked_once(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    bundle = overlapping(root, tmp_path)
    p = harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW)
    assert [i.path for i in p.plan.conflicts] == [PRIMARY]
    harness.apply(ws, scope=harness.scope_for(), bundle_dir=bundle, digest=p.digest, keep=[PRIMARY], now=NOW)
    assert LOCAL_EDIT in (root / PRIMARY).read_text()
    assert (root / MIRROR).read_bytes() == (root / PRIMARY).read_bytes()
    again = harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW)
    assert again.plan.conflicts == [] and again.status == "current", [i.to_json() for i in again.plan.items
                                                                      if i.status != "unchanged"]
    status = harness.status(ws, bundle_dir=bundle, now=NOW)
    assert not [d for d in status["drift"] if d["kind"] == "copy-differs"]


def test_an_edited_skill_removed_with_keep_workspace_leaves_identical_copies(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    primary, mirror = root / ".agents/skills/file-delivery/SKILL.md", root / ".claude/skills/file-delivery/SKILL.md"
    primary.write_text(primary.read_text() + "\nOur own rule: deliver every report as PDF.\n")
    scope = harness.scope_for(skill="file-delivery", action="remove")
    p = harness.preview(ws, scope=scope, now=NOW)
    assert [i.path for i in p.plan.conflicts] == [".agents/skills/file-delivery/SKILL.md"]
    harness.apply(ws, scope=scope, digest=p.digest, keep=[".agents/skills/file-delivery/SKILL.md"], now=NOW)
    assert "Our own rule" in primary.read_text() and mirror.read_bytes() == primary.read_bytes()
    for scope in (harness.scope_for(skill="file-delivery", action="remove"), harness.scope_for()):
        assert harness.preview(ws, scope=scope, now=NOW).plan.conflicts == []


def test_an_edited_primary_with_a_deleted_mirror_does_not_block_an_unrelated_upgrade(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / PRIMARY).write_text((root / PRIMARY).read_text() + "\nTeam rule: report by 9:00.\n")
    (root / MIRROR).unlink()
    bundle = new_bundle(tmp_path)                        # upstream changes another skill only
    other = bundle / "skills/file-delivery/SKILL.md"
    other.write_text(other.read_text() + "\nA new line from upstream.\n")
    p = harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW)
    assert p.plan.conflicts == [] and p.status == "ready"
    harness.apply(ws, scope=harness.scope_for(), bundle_dir=bundle, digest=p.digest, now=NOW)
    assert "Team rule" in (root / PRIMARY).read_text()
    assert (root / MIRROR).read_bytes() == (root / PRIMARY).read_bytes()      # the mirror follows the edit
    assert (root / ".claude/skills/file-delivery/SKILL.md").read_bytes() == other.read_bytes()
    assert harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW).status == "current"


def test_an_edited_primary_with_a_deleted_mirror_and_an_upstream_change_merges(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    skill, bundle = edit_here_and_upstream(root, tmp_path)
    (root / MIRROR).unlink()
    p = harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW)
    assert p.plan.conflicts == [] and p.plan.summary()["merged"] == 1
    harness.apply(ws, scope=harness.scope_for(), bundle_dir=bundle, digest=p.digest, now=NOW)
    assert LOCAL_EDIT in skill.read_text() and (root / MIRROR).read_bytes() == skill.read_bytes()


def test_copies_edited_differently_keep_the_copy_the_resolution_names_in_both(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    bundle = overlapping(root, tmp_path)
    (root / MIRROR).write_text((root / MIRROR).read_text() + "\nedited in the mirror only\n")
    p = harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW)
    [conflict] = p.plan.conflicts
    assert conflict.reason == "the copies were changed differently"
    mirror_text = (root / MIRROR).read_bytes()
    harness.apply(ws, scope=harness.scope_for(), bundle_dir=bundle, digest=p.digest, keep=[MIRROR], now=NOW)
    assert (root / PRIMARY).read_bytes() == (root / MIRROR).read_bytes() == mirror_text
    assert harness.preview(ws, scope=harness.scope_for(), bundle_dir=bundle, now=NOW).plan.conflicts == []
