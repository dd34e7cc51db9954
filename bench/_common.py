"""Small shared helpers for the benchmark scripts (not part of the product)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def median_runtime(argv: list[str], *, runs: int = 30, env: dict | None = None,
                   warmup: int = 3) -> float:
    """Median wall time of running ``argv`` to completion, in seconds."""
    samples = []
    for i in range(warmup + runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        elapsed = time.perf_counter() - start
        if i >= warmup:
            samples.append(elapsed)
    return statistics.median(samples)


def median_call(fn, *, repeats: int = 7) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run_json(argv: list[str], env: dict) -> object:
    """Run a tool with --json and return its one document."""
    import json

    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out)


def growth_rows(times: dict[str, dict[int, float]], small: int, large: int,
                unit: str) -> list[tuple[str, str]]:
    """One report row per timed command: its time at both sizes and the ratio
    (flat = close to 1)."""
    rows = []
    for name, by_size in times.items():
        ratio = by_size[large] / by_size[small]
        rows.append((f"`{name}`", f"{by_size[small] * 1000:.0f} ms at {small:,} → "
                     f"{by_size[large] * 1000:.0f} ms at {large:,} {unit} = {ratio:.2f}×"))
    return rows


def tool(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else str(REPO / "bin" / name)


def report(name: str, rows: list[tuple[str, str]]) -> None:
    print(f"## {name}")
    for key, value in rows:
        print(f"- {key}: {value}")
    print(flush=True)


def isolated_env(base: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(OPENALICE_HOME=str(base / "home"), HARNESS_HOME=str(base / "harness"))
    return env
