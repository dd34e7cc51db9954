"""`alice-schedule scan` in the states a per-minute timer finds.

1. **Nothing due** — 100 workspaces × 10 issues (cron schedules not due, `at`
   instants in the future, unscheduled and finished issues), the cache primed:
   the tool against `python3 -I -c pass`, goal ≤ 2× (issue 28).  Check: the cached
   report equals a cache-less scan's, nothing fired.
2. **Due issues** — 10, 30, 100 and 300 due issues (cron `0 10 * * *`, ten per
   workspace, the agent installed, launching switched off): the scanner
   in-process, each size on a fresh copy of a primed home, the sizes taking
   turns; CPU per due issue = (the due scan − the nothing-due scan of the same
   home a minute later) / due issues.  Goal ≤ 2 ms, flat (300 vs 10 ≤ 1.2×).
   Check: every due issue fired exactly once (one task record each).
3. **Waiting for capacity** — the home of 1. plus 5 due issues and capacity 0,
   so every due issue waits each minute: against the nothing-due scan, goal ≤ 1.5× (issue 28).
   Check: all 5 reported as `capacity`, nothing fired.
4. **After an edit** — one issue file edited before each scan, 100 and 1,000
   workspaces: against the nothing-due scan of the same home (both started
   through `sh -c`), goal ≤ 1.5×.  Check: the edit is seen (the issue's title).
5. **Real supervised runs** — 10 due issues, the supervisor launched for real
   with the stand-in `claude` of the test suite (it replays a recorded
   stream): wall time from the scan until every run is `done`, per run;
   reported, no goal.  Check: 10 runs, all done.

Processes are timed as CPU time (user + system from `wait4`) with the
commands taking turns in every round; ratios are medians of per-round ratios.
Run from the bench venv (`make bench`) so the tool is the installed script.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, goal, interleaved, interleaved_calls, isolated_env, paired_ratio, report

sys.path.insert(0, str(REPO))

WORKSPACES = 100
ISSUES = 10
NOW = "2026-03-02T10:00:30Z"
DUE_SIZES = (10, 30, 100, 300)

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


def build(base: Path, env: dict, workspaces: int = WORKSPACES) -> None:
    registry = []
    for w in range(workspaces):
        root = base / f"ws{w:04d}"
        issues = root / ".alice" / "issues"
        issues.mkdir(parents=True)
        for i in range(ISSUES):
            extra = _KINDS[i % len(_KINDS)]
            (issues / f"task-{i:02d}.md").write_text(
                f"---\ntitle: Task {w}-{i}\n{extra}\n---\n\nDo task {w}-{i} and report.\n")
        registry.append({"id": f"ws{w:04d}", "label": f"WS {w}", "path": str(root),
                         "template": "blank", "createdAt": "2026-01-01T00:00:00Z"})
    home = Path(env["OPENALICE_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "workspaces.json").write_text(json.dumps({"version": 1, "workspaces": registry}))


def agent_stubs(directory: Path) -> str:
    """Executables named like the agent CLIs (the scanner only checks they exist)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("claude", "codex", "opencode", "pi"):
        stub = directory / name
        stub.write_text("#!/bin/sh\nexit 97\n")
        stub.chmod(0o755)
    return f"{directory}{os.pathsep}{os.environ.get('PATH', '')}"


def run_scan(argv: list[str], env: dict, *extra: str) -> dict:
    out = subprocess.run(argv + ["scan", "--json", *extra], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def nothing_due(base: Path, argv: list[str], rounds: int, rows: list) -> tuple[bool, dict]:
    env = isolated_env(base)
    env.update(ALICE_NOW=NOW, OPENALICE_TEST_LAUNCH="none")
    build(base, env)
    start = time.perf_counter()
    first = run_scan(argv, env)
    cold = time.perf_counter() - start
    cached = run_scan(argv, env)
    (Path(env["OPENALICE_HOME"]) / "state" / "schedule" / "scan-cache.marshal").unlink()
    uncached = run_scan(argv, env)
    agree = (first["fired"] == [] and cached == uncached and cached["fired"] == []
             and len(cached["workspaces"]) == WORKSPACES)
    run_scan(argv, env)  # leave the cache primed
    s = interleaved({"base": [sys.executable, "-I", "-c", "pass"], "scan": argv + ["scan"],
                     "json": argv + ["scan", "--json"]}, rounds=rounds, env=env)
    ratio = paired_ratio(s["scan"].cpu, s["base"].cpu)
    rows.append(("nothing due, 100 × 10 issues: `alice-schedule scan`",
                 f"cpu {s['scan'].cpu_median * 1e3:.1f} ms = {ratio:.2f}× `python3 -I -c pass` "
                 f"({s['base'].cpu_median * 1e3:.1f} ms); `--json` "
                 f"{paired_ratio(s['json'].cpu, s['base'].cpu):.2f}×; first scan, no cache "
                 f"{cold * 1e3:.0f} ms"))
    goal("scan", "nothing due (100 × 10)", f"{ratio:.2f}× cpu", ratio <= 2.0, "≤ 2× (issue 28)")
    return agree, env


def due_scans(base: Path, rounds: int, rows: list) -> bool:
    """CPU per due issue, in-process, flat from 10 to 300 due."""
    from datetime import datetime, timezone

    from openalice.runs import tasks
    from openalice.schedule import scan

    ok = True
    homes: dict[int, Path] = {}
    path = agent_stubs(base / "stubs")
    saved = {k: os.environ.get(k) for k in ("OPENALICE_HOME", "HARNESS_HOME", "PATH",
                                            "OPENALICE_TEST_LAUNCH", "OPENALICE_RUN_CAPACITY")}
    os.environ.update(PATH=path, OPENALICE_TEST_LAUNCH="none", OPENALICE_RUN_CAPACITY="1000",
                      HARNESS_HOME=str(base / "harness"))
    before = datetime(2026, 3, 2, 9, 59, 30, tzinfo=timezone.utc)
    due_at = datetime(2026, 3, 2, 10, 0, 30, tzinfo=timezone.utc)
    later = datetime(2026, 3, 2, 10, 1, 30, tzinfo=timezone.utc)
    try:
        for k in DUE_SIZES:
            template = base / f"due{k}" / "template"
            registry = []
            for w in range((k + ISSUES - 1) // ISSUES):
                root = base / f"due{k}" / f"ws{w:03d}"
                (root / ".alice" / "issues").mkdir(parents=True)
                for i in range(min(ISSUES, k - w * ISSUES)):
                    (root / ".alice" / "issues" / f"t{i:02d}.md").write_text(
                        f"---\ntitle: Due {w}-{i}\nagent: claude\n"
                        "when: {kind: cron, cron: '0 10 * * *', timezone: UTC}\n---\nDo it.\n")
                registry.append({"id": f"ws{w:03d}", "label": f"ws{w}", "path": str(root),
                                 "template": "blank", "createdAt": "2026-01-01T00:00:00Z"})
            template.mkdir(parents=True)
            (template / "workspaces.json").write_text(json.dumps({"version": 1,
                                                                  "workspaces": registry}))
            os.environ["OPENALICE_HOME"] = str(template)
            primed = scan.scan(now=before)  # cursors first seen, cache primed: nothing due yet
            ok &= primed["fired"] == []
            homes[k] = template
        results: dict[int, list[float]] = {k: [] for k in DUE_SIZES}

        def one(k):
            home = homes[k].parent / "run"
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(homes[k], home)
            os.environ["OPENALICE_HOME"] = str(home)
            c0 = time.process_time()
            fired = scan.scan(now=due_at)
            c1 = time.process_time()
            again = scan.scan(now=later)
            c2 = time.process_time()
            results[k].append(((c1 - c0) - (c2 - c1)) / k)
            return fired, again

        for k in DUE_SIZES:
            fired, again = one(k)
            records = tasks.list_tasks(limit=10_000)
            ok &= (len(fired["fired"]) == k and again["fired"] == [] and len(records) == k
                   and len({(r["workspaceId"], r["issueId"]) for r in records}) == k)
            results[k].clear()
        interleaved_calls({k: (lambda k=k: one(k)) for k in DUE_SIZES}, rounds=rounds)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    import statistics

    per = {k: statistics.median(v) for k, v in results.items()}
    rows.append(("due issues, CPU per due issue (in-process, launching off)",
                 ", ".join(f"{per[k] * 1e3:.2f} ms at {k}" for k in DUE_SIZES)))
    worst = max(per.values())
    goal("scan", "CPU per due issue, 10-300 due", f"≤ {worst * 1e3:.2f} ms", worst <= 0.002,
         "≤ 2 ms")
    flat = per[DUE_SIZES[-1]] / per[DUE_SIZES[0]]
    goal("scan", "CPU per due issue flat from 10 to 300 due", f"{flat:.2f}×", flat <= 1.2, "≤ 1.2×")
    return ok


def waiting_for_capacity(base: Path, env: dict, argv: list[str], rounds: int, rows: list) -> bool:
    home_env = dict(env)
    waiting = base / "waiting"
    shutil.copytree(Path(env["OPENALICE_HOME"]).parent, waiting, symlinks=True)
    registry = json.loads((Path(env["OPENALICE_HOME"]) / "workspaces.json").read_text())
    home_env.update(OPENALICE_HOME=str(waiting / "home"), OPENALICE_RUN_CAPACITY="0",
                    PATH=agent_stubs(base / "stubs-waiting"))
    for ws in registry["workspaces"]:
        ws["path"] = ws["path"].replace(str(Path(env["OPENALICE_HOME"]).parent), str(waiting))
    (waiting / "home" / "workspaces.json").write_text(json.dumps(registry))
    for w in (10, 20, 30, 40, 50):
        (waiting / f"ws{w:04d}" / ".alice" / "issues" / "due.md").write_text(
            "---\ntitle: Due\nagent: claude\nwhen: {kind: every, every: 30m}\n---\nDo it.\n")
    (waiting / "home" / "state" / "schedule" / "scan-cache.marshal").unlink(missing_ok=True)
    first = run_scan(argv, home_env)
    report_ = run_scan(argv, home_env)
    ok = (first["fired"] == [] and report_["fired"] == []
          and sorted(s["reason"] for s in report_["skipped"] if s["issueId"] == "due") == ["capacity"] * 5)
    s = interleaved({"nothing": ["env", f"OPENALICE_HOME={env['OPENALICE_HOME']}", *argv, "scan"],
                     "waiting": ["env", f"OPENALICE_HOME={home_env['OPENALICE_HOME']}", *argv, "scan"]},
                    rounds=rounds, env=home_env)
    ratio = paired_ratio(s["waiting"].cpu, s["nothing"].cpu)
    rows.append(("5 due issues waiting for capacity, 100 × 10 issues",
                 f"cpu {s['waiting'].cpu_median * 1e3:.1f} ms = {ratio:.2f}× the nothing-due scan "
                 f"({s['nothing'].cpu_median * 1e3:.1f} ms)"))
    goal("scan", "waiting for capacity (5 due, capacity 0)", f"{ratio:.2f}× the nothing-due scan",
         ratio <= 1.5, "≤ 1.5× (issue 28)")
    return ok


def _cached_stat(env: dict, ws_id: str, name: str):
    """What the scan cache recorded for one issue file (the scan re-read it)."""
    from openalice.schedule import fastpath

    saved = os.environ.get("OPENALICE_HOME")
    os.environ["OPENALICE_HOME"] = env["OPENALICE_HOME"]
    try:
        return fastpath.load_cache()["workspaces"][ws_id]["files"][name]
    finally:
        if saved is None:
            os.environ.pop("OPENALICE_HOME", None)
        else:
            os.environ["OPENALICE_HOME"] = saved


def after_an_edit(base: Path, argv: list[str], rounds: int, rows: list) -> bool:
    ok = True
    for count in (100, 1000):
        root = base / f"edit{count}"
        env = isolated_env(root)
        env.update(ALICE_NOW=NOW, OPENALICE_TEST_LAUNCH="none")
        build(root, env, workspaces=count)
        run_scan(argv, env)
        run_scan(argv, env)
        target = root / f"ws{count // 2:04d}" / ".alice" / "issues" / "task-03.md"
        flip = (f"f={target}; if grep -q edited \"$f\"; then sed -i 's/ edited//' \"$f\"; "
                f"else sed -i 's/^title: \\(.*\\)$/title: \\1 edited/' \"$f\"; fi")
        scan_cmd = " ".join(f"'{a}'" for a in argv) + " scan >/dev/null"
        subprocess.run(["sh", "-c", flip], check=True)
        seen = run_scan(argv, env)
        ok &= seen["fired"] == [] and _cached_stat(env, f"ws{count // 2:04d}", "task-03.md") == [
            target.stat().st_mtime_ns, target.stat().st_size, target.stat().st_ino]
        subprocess.run(["sh", "-c", flip], check=True)
        run_scan(argv, env)
        s = interleaved({"nothing": ["sh", "-c", f"true; exec {scan_cmd}"],
                         "edit": ["sh", "-c", f"{flip}; exec {scan_cmd}"]},
                        rounds=rounds, env=env)
        ratio = paired_ratio(s["edit"].cpu, s["nothing"].cpu)
        rows.append((f"one issue file edited, {count} × 10 issues",
                     f"cpu {s['edit'].cpu_median * 1e3:.1f} ms = {ratio:.2f}× the nothing-due scan "
                     f"({s['nothing'].cpu_median * 1e3:.1f} ms)"))
        goal("scan", f"scan after an edit ({count} workspaces)", f"{ratio:.2f}× the nothing-due scan",
             ratio <= 1.5, "≤ 1.5×")
    return ok


def supervised_runs(base: Path, argv: list[str], rows: list) -> bool:
    """Ten due issues run for real by the supervisor and the stand-in claude."""
    from tests.runs.standins import StandIns, fixtures_dir

    engines = StandIns(base / "standin-bin", fixtures_dir())
    root = base / "runs"
    env = isolated_env(root)
    env.update(PATH=engines.path_env(os.environ.get("PATH", "/usr/bin:/bin")),
               OPENALICE_RUN_CAPACITY="10")
    registry = []
    for w in range(10):
        ws = root / f"ws{w}"
        (ws / ".alice" / "issues").mkdir(parents=True)
        (ws / ".alice" / "issues" / "report.md").write_text(
            "---\ntitle: Report\nagent: claude\nwhen: {kind: every, every: 1h}\n---\n"
            "Summarize the day.\n")
        registry.append({"id": f"ws{w}", "label": f"ws{w}", "path": str(ws), "template": "blank",
                         "createdAt": "2026-01-01T00:00:00Z"})
    home = Path(env["OPENALICE_HOME"])
    home.mkdir(parents=True)
    (home / "workspaces.json").write_text(json.dumps({"version": 1, "workspaces": registry}))
    start = time.perf_counter()
    fired = run_scan(argv, env)
    scan_done = time.perf_counter() - start
    runs = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        out = subprocess.run(argv + ["runs", "--limit", "50", "--json"], env=env,
                             capture_output=True, text=True)
        runs = json.loads(out.stdout)["runs"] if out.returncode == 0 else []
        if len(runs) == 10 and all(r["status"] not in ("running", "queued") for r in runs):
            break
        time.sleep(0.05)
    total = time.perf_counter() - start
    ok = len(fired["fired"]) == 10 and len(runs) == 10 and all(r["status"] == "done" for r in runs)
    bare = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([str(engines.bin / "claude"), "-p", "Summarize the day.", "--output-format",
                        "stream-json", "--verbose"], env=env, capture_output=True)
        bare.append(time.perf_counter() - t0)
    rows.append(("10 real supervised runs (stand-in claude replaying a recorded stream)",
                 f"scan {scan_done * 1e3:.0f} ms; all done after {total * 1e3:.0f} ms = "
                 f"{total / 10 * 1e3:.0f} ms per run, 10 at once on 2 cores (the stand-in alone: "
                 f"{min(bare) * 1e3:.0f} ms)"))
    if not ok:
        print("supervised runs:", fired["fired"][:2], [(r.get("taskId"), r.get("status")) for r in runs])
    return ok


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 25
    base = Path(tempfile.mkdtemp(prefix="bench-scan-"))
    env = isolated_env(base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    import compileall

    import openalice

    compileall.compile_dir(os.path.dirname(openalice.__file__), quiet=1)
    argv = command()
    rows: list = []
    checks = {}
    try:
        checks["nothing due: cached report = uncached, nothing fired"], main_env = nothing_due(
            base / "main", argv, rounds, rows)
        checks["due: every due issue fired once"] = due_scans(base / "due", max(5, rounds // 4), rows)
        checks["waiting: 5 × capacity, nothing fired"] = waiting_for_capacity(
            base, main_env, argv, rounds, rows)
        checks["edit: the edit is seen"] = after_an_edit(base, argv, rounds, rows)
        checks["supervised: 10 runs, all done"] = supervised_runs(base, argv, rows)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for name, passed in checks.items():
        rows.append((f"check: {name}", "yes" if passed else "NO"))
    report("Scheduling: scans", rows)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
