"""`make demo` (scripts/demo.py) runs the whole loop and exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_demo_runs_the_loop_end_to_end(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALICE_")}
    env["TMPDIR"] = str(tmp_path)
    result = subprocess.run([sys.executable, str(REPO / "scripts" / "demo.py")], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "fired demo/demo-report run-" in out
    # Commands are printed shell-quoted: each can be pasted as it is shown.
    assert ("$ alice issue create --title 'Demo report' --id demo-report --every 1h --agent demo-writer "
            "--model demo-1 --body 'Write reports/demo.md and publish it to the Inbox.'    #") in out
    import shlex

    for line in out.splitlines():
        if line.startswith("$ "):
            shlex.split(line[2:].split("    # ")[0])  # parses back
    assert "  done  demo/demo-report" in out
    assert "Wrote reports/demo.md and published it to the Inbox as inbox-" in out
    assert "ok  reports/demo.md  sha256:" in out
    assert "origin:    headless run run-" in out
    assert "# Demo report" in out
    for fact in ("session.born", "runtime.started", "runtime.turn.tool", "inbox.received", "runtime.stopped"):
        assert fact in out, fact
    assert "healthy" in out
    assert out.rstrip().endswith("demo finished")
    assert list(tmp_path.iterdir()) == []      # the temp home is removed
