"""Small shared helpers for the benchmark scripts (not part of the product).

How figures are taken here (a 2-core machine that other jobs load):

- :func:`interleaved` runs several commands (a baseline, sizes of a growth
  test, two variants) in turn inside every round, so a load spike hits them
  alike; it records both wall and CPU time (the child's user + system time
  from ``wait4``), and a ratio is the median of the per-round ratios.
- CPU time is the figure goals are judged on: on a loaded machine wall time
  measures the queue for a core as much as the command.
- :func:`goal` prints one verdict line (``meets`` or ``MISSES``) and appends
  it to the summary file ``run_all.py`` prints at the end, so a missed goal is
  always listed, while only a failed *check* (a wrong answer) fails the run.
"""

from __future__ import annotations

import json
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


SUMMARY_ENV = "OPENALICE_BENCH_SUMMARY"


def run_timed(argv: list[str], *, env: dict | None = None, cwd: str | None = None) -> tuple[float, float]:
    """(wall, cpu) seconds of one run of ``argv``; cpu is the child's user +
    system time as the kernel accounted it (``wait4``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime


class Samples:
    """Wall and CPU samples of one command."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)


def interleaved(commands: dict[str, list[str]], *, rounds: int = 30, warmup: int = 3,
                env: dict | None = None, cwd: str | None = None) -> dict[str, Samples]:
    """Every command once per round, in turn (the order rotates each round)."""
    names = list(commands)
    out = {name: Samples() for name in names}
    for round_ in range(warmup + rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            wall, cpu = run_timed(commands[name], env=env, cwd=cwd)
            if round_ >= warmup:
                out[name].wall.append(wall)
                out[name].cpu.append(cpu)
    return out


def paired_ratio(a: list[float], b: list[float]) -> float:
    """Median of the per-round ratios a[i] / b[i] (same round, same load)."""
    return statistics.median(x / y for x, y in zip(a, b) if y > 0)


def interleaved_calls(calls: dict[str, "object"], *, rounds: int = 9, repeat: int = 1) -> dict[str, float]:
    """In-process: the median CPU time (``time.process_time``) of each callable,
    the callables taking turns in every round."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for round_ in range(rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            fn = calls[name]
            start = time.process_time()
            for _ in range(repeat):
                fn()
            samples[name].append((time.process_time() - start) / repeat)
    return {name: statistics.median(v) for name, v in samples.items()}


def goal(benchmark: str, what: str, measured: str, met: bool, goal_text: str) -> bool:
    """Print one verdict and record it for the summary; returns ``met``."""
    verdict = "meets" if met else "MISSES"
    print(f"- goal: {what}: {measured} (goal {goal_text}): {verdict}", flush=True)
    path = os.environ.get(SUMMARY_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"benchmark": benchmark, "what": what, "measured": measured,
                                 "goal": goal_text, "met": met}) + "\n")
    return met
