"""The README's tour runs as pasted: its first block, in a fresh HOME, in a real bash.

Every command ends and exits 0 (``alice doctor`` may say "needs attention": exit 3);
nothing prints an internal error.  The second block is marked as needing your own
values (``<PLACEHOLDER>``) or running until Ctrl-C, and is not run."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.conftest import tool_path

REPO = Path(__file__).resolve().parents[2]


def tour_blocks() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    tour = text[text.index("## A short tour"):]
    tour = tour[:tour.index("\n## ", 5)]
    return re.findall(r"```sh\n(.*?)```", tour, re.S)


def commands(block: str) -> list[str]:
    return [c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip()]


def test_the_first_block_runs_as_pasted(tmp_path):
    runnable, with_values = tour_blocks()
    home = tmp_path / "home"
    home.mkdir()
    lines = []
    for n, command in enumerate(commands(runnable)):
        lines += [command, f'echo "tour-exit {n} $?" >&2']
    env = {"HOME": str(home), "PATH": f"{os.path.dirname(tool_path('alice'))}:/usr/bin:/bin",
           "LANG": "C.UTF-8", "ALICE_NOW": "2026-03-02T09:00:00Z"}
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", "\n".join(lines)], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=600)
    exits = dict(re.findall(r"^tour-exit (\d+) (\d+)$", r.stderr, re.M))
    cmds = commands(runnable)
    assert len(exits) == len(cmds), r.stderr
    for n, command in enumerate(cmds):
        allowed = {"0", "3"} if command.startswith("alice doctor") else {"0"}
        assert exits[str(n)] in allowed, (command, r.stdout, r.stderr)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    assert (home / "projects" / "notes" / ".alice").is_dir() and (home / ".openalice").is_dir()
    # The other block says which values are yours.
    assert "<BUNDLE_DIR>" in with_values and "Ctrl-C" in with_values
    for command in commands(with_values):
        assert "<" in command or "$ANTHROPIC_API_KEY" in command or "Ctrl-C" in command \
            or "uninstall-timer" in command, command
