"""Run every bench/bench_*.py in turn (what `make bench` calls), then print
one summary: every goal with its verdict (a missed goal says MISSES) and the
benchmarks whose own answer checks failed.  Only a failed check makes the run
fail: a missed goal is a measured fact to report, not a broken benchmark.

    python bench/run_all.py [NAME ...]     # e.g. startup inbox (bench_startup.py, bench_inbox.py)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import SUMMARY_ENV

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    wanted = sys.argv[1:] if argv is None else argv
    scripts = sorted(HERE.glob("bench_*.py"))
    if wanted:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
    failed = []
    fd, summary = tempfile.mkstemp(prefix="bench-summary-", suffix=".jsonl")
    os.close(fd)
    env = {**os.environ, SUMMARY_ENV: summary}
    for script in scripts:
        print(f"# {script.name}", flush=True)
        rc = subprocess.run([sys.executable, str(script)], cwd=HERE, env=env).returncode
        if rc != 0:
            failed.append(script.name)
    with open(summary, encoding="utf-8") as fh:
        goals = [json.loads(line) for line in fh if line.strip()]
    os.unlink(summary)
    print("# summary")
    for g in goals:
        verdict = "meets" if g["met"] else "MISSES"
        print(f"{verdict:6}  {g['benchmark']}: {g['what']}: {g['measured']} (goal {g['goal']})")
    missed = [g for g in goals if not g["met"]]
    print(f"{len(goals) - len(missed)} of {len(goals)} goals met" +
          (f"; MISSES: {', '.join(g['benchmark'] + ' ' + g['what'] for g in missed)}" if missed else ""))
    if failed:
        print(f"benchmarks that failed their own checks: {', '.join(failed)}")
        return 1
    print("every benchmark's answers checked out")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
