"""Run every bench/bench_*.py in turn (what `make bench` calls)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"# {script.name}", flush=True)
        rc = subprocess.run([sys.executable, str(script)], cwd=HERE).returncode
        if rc != 0:
            failed.append(script.name)
    if failed:
        print(f"benchmarks that failed their own checks: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
