"""Where skills live in a workspace: the one skill-folder layout.

Every skill the toolkit projects (the harness bundle's, :mod:`openalice.harness`;
the generated ``alice-stickers``, :mod:`openalice.stickers`) sits in two trees::

    .agents/skills/<name>/...     the primary tree (what every agent CLI but Claude Code reads)
    .claude/skills/<name>/...     its byte-identical mirror (Claude Code's)

Plans name the primary paths only; ``SKILL_MIRRORS`` makes the managed engine
keep the mirror identical (:func:`openalice.managed.make_plan`, ``mirrors=``).
Both the harness and stickers import this module; it sits in ``workspaces/``
because it is a fact about a workspace's files that neither owns.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["SKILL_PRIMARY", "SKILL_MIRROR", "SKILL_MIRRORS", "skill_trees", "skill_targets", "primary_of",
           "mirror_of"]

SKILL_PRIMARY = ".agents/skills/"
SKILL_MIRROR = ".claude/skills/"
SKILL_MIRRORS = ((SKILL_PRIMARY, SKILL_MIRROR),)   # the primary tree and its byte-identical mirror


def skill_trees(name: str) -> list[str]:
    """The two directories a skill is projected to (the plan's scope for it)."""
    return [f"{SKILL_PRIMARY}{name}/", f"{SKILL_MIRROR}{name}/"]


def skill_targets(name: str, files: Mapping[str, bytes]) -> dict[str, bytes]:
    """A skill's files as plan targets: primary paths only; ``SKILL_MIRRORS``
    makes the plan keep the ``.claude/skills/`` copy byte-identical."""
    return {f"{SKILL_PRIMARY}{name}/{rel}": data for rel, data in files.items()}


def primary_of(rel: str) -> str:
    """The primary path of a mirror path (any other path is its own)."""
    return SKILL_PRIMARY + rel[len(SKILL_MIRROR):] if rel.startswith(SKILL_MIRROR) else rel


def mirror_of(rel: str) -> str:
    """The mirror path of a primary path (any other path is its own)."""
    return SKILL_MIRROR + rel[len(SKILL_PRIMARY):] if rel.startswith(SKILL_PRIMARY) else rel
