"""The one skill-folder layout (:mod:`openalice.workspaces.skills`), shared by the harness and
stickers: the primary tree, its mirror, and no other module spelling them."""

from __future__ import annotations

import ast

from openalice.harness import planning, upgrade
from openalice.stickers import ownership, projection
from openalice.workspaces import skills
from tests.conftest import REPO


def test_trees_targets_and_the_mirror_mapping():
    assert skills.skill_trees("alice") == [".agents/skills/alice/", ".claude/skills/alice/"]
    assert skills.skill_targets("alice", {"SKILL.md": b"x", "ref/a.md": b"y"}) == {
        ".agents/skills/alice/SKILL.md": b"x", ".agents/skills/alice/ref/a.md": b"y"}
    assert skills.SKILL_MIRRORS == ((".agents/skills/", ".claude/skills/"),)
    assert skills.primary_of(".claude/skills/alice/SKILL.md") == ".agents/skills/alice/SKILL.md"
    assert skills.mirror_of(".agents/skills/alice/SKILL.md") == ".claude/skills/alice/SKILL.md"
    for own in ("AGENTS.md", "sticker/a.png", ".agents/skillsX/a"):
        assert skills.primary_of(own) == own and skills.mirror_of(own) == own


def test_harness_and_stickers_plan_with_the_same_layout():
    assert projection.SKILL_MIRRORS is skills.SKILL_MIRRORS is planning.SKILL_MIRRORS
    assert upgrade.SKILL_PRIMARY is skills.SKILL_PRIMARY and upgrade.SKILL_MIRROR is skills.SKILL_MIRROR
    assert ownership.SKILL_TREES == tuple(skills.skill_trees("alice-stickers"))


def test_no_other_module_spells_the_skill_trees():
    """A path constant starting with a skill tree is built from this module, not written again."""
    spelled = []
    for path in sorted((REPO / "openalice").rglob("*.py")):
        if path == REPO / "openalice" / "workspaces" / "skills.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and node.value.startswith((".agents/skills", ".claude/skills"))):
                spelled.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}")
    assert spelled == []
