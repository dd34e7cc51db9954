"""`alice-schedule scan` over 100 workspaces × 10 issues with nothing due,
against a bare interpreter (`python3 -I -c pass`).  Goal ≤ 2.5×.

The issues are real files (cron schedules that are not due, `at` instants in
the future, unscheduled and finished issues).  One scan primes the scan cache
and the cron cursors; the measured scans then find nothing due, which is what
a per-minute timer sees almost every minute.  The first (cold) scan is timed
too, for information.  Agreement check: the cached scan's report equals that
of a scan with the cache deleted, and nothing fired.

Run from the bench venv (`make bench`) so the tool is the installed console
script; from a checkout the interpreter runs `bin/alice-schedule`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, isolated_env, report

GOAL = 2.5
WORKSPACES = 100
ISSUES = 10
NOW = "2026-03-02T10:00:30Z"

_KINDS = [
    "when: {kind: cron, cron: '0 3 * * *', timezone: UTC}",
    "when: {kind: cron, cron: '30 8 * * 1-5', timezone: America/New_York}",
    "when: {kind: cron, cron: '*/30 1-5 * * *', timezone: Europe/Paris}",
    "when: {kind: cron, cron: '0 0 1 * *', timezone: local}",
    "when: {kind: at, at: '2027-01-01T09:00:00Z'}",
    "when: {kind: cron, cron: '15 22 * * 0', timezone: Asia/Kolkata, catchUp: false}",
    "",
    "status: done\nwhen: {kind: every, every: 30m}",
    "priority: high",
    "when: {kind: cron, cron: '0 12 * * *', timezone: UTC}",
]


def command() -> list[str]:
    installed = Path(sys.executable).parent / "alice-schedule"
    if installed.exists():
        return [str(installed)]
    return [sys.executable, str(REPO / "bin" / "alice-schedule")]


def build(base: Path, env: dict) -> None:
    registry = []
    for w in range(WORKSPACES):
        root = base / f"ws{w:03d}"
        issues = root / ".alice" / "issues"
        issues.mkdir(parents=True)
        for i in range(ISSUES):
            extra = _KINDS[i % len(_KINDS)]
            (issues / f"task-{i:02d}.md").write_text(
                f"---\ntitle: Task {w}-{i}\n{extra}\n---\n\nDo task {w}-{i} and report.\n")
        registry.append({"id": f"ws{w:03d}", "label": f"WS {w}", "path": str(root),
                         "template": "blank", "createdAt": "2026-01-01T00:00:00Z"})
    home = Path(env["OPENALICE_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "workspaces.json").write_text(json.dumps({"version": 1, "workspaces": registry}))


def interleaved(commands: list[list[str]], runs: int, env: dict) -> list[float]:
    """Median wall time of each command, the commands taking turns in every
    round so that load from other processes hits them alike."""
    import statistics

    samples: list[list[float]] = [[] for _ in commands]
    for round_ in range(runs + 3):
        for i, command_ in enumerate(commands):
            start = time.perf_counter()
            subprocess.run(command_, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if round_ >= 3:
                samples[i].append(time.perf_counter() - start)
    return [statistics.median(s) for s in samples]


def run_scan(argv: list[str], env: dict) -> dict:
    out = subprocess.run(argv + ["scan", "--json"], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    base = Path(tempfile.mkdtemp(prefix="bench-scan-"))
    env = isolated_env(base)
    env.update(ALICE_NOW=NOW, OPENALICE_TEST_LAUNCH="none")
    # An installed package has its bytecode compiled; a checkout gets it here,
    # so neither side pays for compiling sources on every start.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    import compileall
    import openalice

    compileall.compile_dir(os.path.dirname(openalice.__file__), quiet=1)
    build(base, env)
    argv = command()
    start = time.perf_counter()
    first = run_scan(argv, env)
    cold = time.perf_counter() - start
    assert first["fired"] == [], first["fired"][:3]
    cached = run_scan(argv, env)
    (Path(env["OPENALICE_HOME"]) / "state" / "schedule" / "scan-cache.marshal").unlink()
    uncached = run_scan(argv, env)
    agree = cached == uncached and cached["fired"] == [] and len(cached["workspaces"]) == WORKSPACES
    scheduled = sum(w["scheduled"] for w in cached["workspaces"])
    run_scan(argv, env)  # leave the cache primed
    base_time, scan_time, json_time = interleaved(
        [[sys.executable, "-I", "-c", "pass"], argv + ["scan"], argv + ["scan", "--json"]], runs, env)
    ratio = scan_time / base_time
    report("Scheduling: scan, nothing due", [
        ("setup", f"{WORKSPACES} workspaces × {ISSUES} issues ({scheduled} scheduled, none due)"),
        ("command", " ".join(Path(a).name if os.path.isabs(a) else a for a in argv) + " scan"),
        ("baseline `python3 -I -c pass`", f"{base_time * 1000:.1f} ms"),
        ("scan, cache primed (median, interleaved with the baseline)", f"{scan_time * 1000:.1f} ms = {ratio:.2f}× (goal ≤ {GOAL}×)"),
        ("scan --json, cache primed", f"{json_time * 1000:.1f} ms = {json_time / base_time:.2f}× "
                                      "(the json module costs its import)"),
        ("first scan, no cache (once)", f"{cold * 1000:.0f} ms"),
        ("reports agree (cached vs. uncached)", "yes" if agree else "NO"),
        ("verdict", "meets goal" if ratio <= GOAL else "MISSES goal"),
    ])
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
