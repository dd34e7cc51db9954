"""Shared by the harness and managed-engine tests: git in a test repository,
and a copy of the shipped bundle at another version."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from openalice.core import resources

__all__ = ["GIT_ENV", "needs_git", "git", "new_bundle", "DEFAULT"]

DEFAULT = resources.data_root("default")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_NOSYSTEM": "1"}
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git (.ci/run installs it)")


def git(root, *args) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}, check=True).stdout


def new_bundle(tmp_path: Path, version: str = "1.1.0") -> Path:
    """A copy of the shipped bundle that says it is ``version``."""
    root = tmp_path / f"bundle-{version}"
    shutil.copytree(DEFAULT, root)
    manifest = json.loads((root / "alice-harness.json").read_text())
    (root / "alice-harness.json").write_text(json.dumps({**manifest, "version": version}))
    return root


LOCAL_EDIT = "# alice: the Inbox and issues (team rule: report by 9:00)"
UPSTREAM_EDIT = "Issue statuses: `backlog`"


def edit_here_and_upstream(root: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The issue's by-hand case: the workspace edits the alice skill's title line,
    a new bundle version changes another part of the same file.  Returns
    (the workspace's SKILL.md, the new bundle)."""
    skill = root / ".agents/skills/alice/SKILL.md"
    skill.write_text(skill.read_text().replace("# alice: the Inbox and issues of this workspace", LOCAL_EDIT))
    bundle = new_bundle(tmp_path)
    shipped = bundle / "skills/alice/SKILL.md"
    shipped.write_text(shipped.read_text().replace("Statuses: `backlog`", UPSTREAM_EDIT))
    return skill, bundle
