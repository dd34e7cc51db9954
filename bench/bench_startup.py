"""Start-up cost of the tools against a bare interpreter.

`alice --help`, `alice-schedule --help` and `harness-adapter --version`, each
as the ratio of medians to `python3 -I -c pass` (same interpreter).  Goal ≤ 1.3×.
Run from the bench venv (`make bench`) so the tools are the installed console
scripts, not the checkout launchers.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _common import isolated_env, median_runtime, report, tool

GOAL = 1.3


def main() -> int:
    env = isolated_env(Path(tempfile.mkdtemp()))
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    base = median_runtime([sys.executable, "-I", "-c", "pass"], runs=runs, env=env)
    rows = [("baseline `python3 -I -c pass`", f"{base * 1000:.1f} ms")]
    worst = 0.0
    for argv in (["alice", "--help"], ["alice-schedule", "--help"], ["harness-adapter", "--version"]):
        t = median_runtime([tool(argv[0]), *argv[1:]], runs=runs, env=env)
        ratio = t / base
        worst = max(worst, ratio)
        rows.append((f"`{' '.join(argv)}`", f"{t * 1000:.1f} ms = {ratio:.2f}× (goal ≤ {GOAL}×)"))
    rows.append(("verdict", "meets goal" if worst <= GOAL else f"MISSES goal (worst {worst:.2f}×)"))
    report("Start-up", rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
