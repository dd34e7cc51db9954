"""Every shipped SKILL.md documents only commands that exist: each of its
```sh blocks runs, line by line, in a fresh chat workspace (temp homes)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from openalice.core import resources
from tests.conftest import tool_path

SKILLS = sorted((resources.data_root("default") / "skills").glob("*/SKILL.md"))
BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
TOOLS = ("alice", "alice-inbox", "alice-schedule", "alice-harness")


def commands(skill: Path) -> list[str]:
    return [line for block in BLOCK.findall(skill.read_text()) for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_every_skill_has_runnable_examples():
    assert [p.parent.name for p in SKILLS] == ["alice", "file-delivery", "self-scheduling"]
    for skill in SKILLS:
        lines = commands(skill)
        assert lines, skill
        used = {word for line in lines for word in re.findall(r"(?:^|[\s(])(alice[a-z-]*)\b", line)}
        assert used and used <= set(TOOLS), (skill, used)


@pytest.mark.parametrize("skill", SKILLS, ids=lambda p: p.parent.name)
def test_skill_examples_run(skill, tmp_path, cli):
    ws = tmp_path / "desk"
    assert cli("alice", "workspace", "init", str(ws), "--template", "chat").returncode == 0
    env = dict(cli.env)
    env["PATH"] = os.pathsep.join([str(Path(tool_path("alice")).parent), env.get("PATH", "")])
    env["ALICE_NOW"] = "2026-11-30T09:00:00Z"
    lines = commands(skill)
    # One shell for the whole skill (later lines use what earlier ones made); the
    # first command that fails stops it and is named.
    script = "set -eo pipefail\ntrap 'echo \"example failed: $BASH_COMMAND\" >&2' ERR\n" + "\n".join(lines) + "\n"
    result = subprocess.run(["bash", "-c", script], cwd=ws, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{skill.parent.name}:\n{result.stdout}\n{result.stderr}"
    assert "example failed" not in result.stderr
