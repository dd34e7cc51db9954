"""Start-up cost of the tools against a bare interpreter.

`alice --help`, `alice-schedule --help` and `harness-adapter --version`, each
as the ratio of medians to `python3 -I -c pass` (same interpreter).  Goal ≤ 1.3×.

Two ways of starting each tool are measured: the installed console script
(pip writes that wrapper, and it imports `re` before our code runs: several
milliseconds we cannot remove) and the checkout launcher `bin/<tool>`, which
is our own code from the first line.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _common import REPO, isolated_env, median_runtime, report, tool

GOAL = 1.3


def main() -> int:
    env = isolated_env(Path(tempfile.mkdtemp()))
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    base = median_runtime([sys.executable, "-I", "-c", "pass"], runs=runs, env=env)
    rows = [("baseline `python3 -I -c pass`", f"{base * 1000:.1f} ms")]
    worst = {"console script": 0.0, "bin/ launcher": 0.0}
    for argv in (["alice", "--help"], ["alice-schedule", "--help"], ["harness-adapter", "--version"]):
        for how, command in (("console script", [tool(argv[0])]),
                             ("bin/ launcher", [sys.executable, str(REPO / "bin" / argv[0])])):
            t = median_runtime([*command, *argv[1:]], runs=runs, env=env)
            ratio = t / base
            worst[how] = max(worst[how], ratio)
            rows.append((f"`{' '.join(argv)}` ({how})", f"{t * 1000:.1f} ms = {ratio:.2f}× (goal ≤ {GOAL}×)"))
    for how, ratio in worst.items():
        verdict = "meets goal" if ratio <= GOAL else "misses goal"
        rows.append((f"verdict, {how}", f"worst {ratio:.2f}×: {verdict}"))
    report("Start-up", rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
