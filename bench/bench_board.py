"""`alice issue board --json` through the issue index (issue 28 item 2).

A home of 100 workspaces × 100 issues = 10,000 issue files (the mix of
`bench_issues.py`: unscheduled, `every` never fired, cron in zones), left to
age past the index's racy window (`openalice.issues.index.RACY_NS`), then:

1. **Per unchanged issue, in process**: `board.board_json` over 1,000 and
   10,000 issues (the first 10 / all 100 workspaces), the index warm, CPU time
   (`time.process_time`), the two sizes taking turns; µs per issue =
   (t(10,000) − t(1,000)) / 9,000.  Goal ≤ 10 µs.
2. **The 10,000-issue board as a process**: `alice issue board --json`, CPU
   time of the child (`wait4`), interleaved with a clean `python -I -c pass`
   of the same interpreter.  Goal ≤ 0.15 s of CPU.
3. **A changed file costs one parse**: one file rewritten, the next board
   parses exactly that file (counted in process).

Checks (exit 1 on any disagreement): the warm board's JSON equals, character
for character, the cold board's (index deleted) and the reader-only board's
(`openalice.issues.reader` per workspace, no index); the process's output
equals the in-process one.

    python bench/bench_board.py [ROUNDS]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, goal, interleaved, isolated_env, paired_ratio, report, tool

sys.path.insert(0, str(REPO))

WORKSPACES = 100
ISSUES = 100
NOW = "2026-06-01T12:00:00Z"


def build(home: Path) -> None:
    import bench_issues

    bench_issues.WORKSPACES, bench_issues.ISSUES = WORKSPACES, ISSUES
    bench_issues.build(home, random.Random(28))


def reader_only(spaces, now) -> str:
    """The board as the reader alone answers it (no index): the oracle."""
    from openalice.issues import board, reader
    from openalice.issues.declaration import PRIORITY_RANK, STATUSES
    from openalice.issues.views import invalid_json, issue_json, workspace_json

    states, invalid, columns = [], [], {s: [] for s in STATUSES}
    for ws in spaces:
        found = reader.read_issues(ws)
        states.append(workspace_json(ws, found))
        for i in found.issues:
            columns[i.status].append((PRIORITY_RANK[i.priority], i.id, ws.id,
                                      board.with_deliveries(issue_json(i, now, workspace_id=ws.id), i)))
        invalid.extend(invalid_json(i, ws.id) for i in found.invalid)
    doc = {"workspaces": states, "columns": [{"status": s, "issues": [r[3] for r in sorted(
        columns[s], key=lambda r: r[:3])]} for s in STATUSES], "invalid": invalid}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    base = Path(tempfile.mkdtemp(prefix="bench-board-"))
    env = isolated_env(base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["ALICE_NOW"] = NOW
    home = Path(env["OPENALICE_HOME"])
    home.mkdir(parents=True)
    os.environ["OPENALICE_HOME"] = str(home)
    rows: list = []
    checks: dict = {}
    try:
        build(home)
        from openalice import workspaces
        from openalice.core import clock
        from openalice.issues import board, index, reader

        time.sleep(index.RACY_NS / 1e9 + 0.2)  # files older than the racy window: stamps are trusted
        now = clock.parse_clock(NOW, field="now")
        spaces = workspaces.list_workspaces()
        small = spaces[:WORKSPACES // 10]
        cold_start = time.process_time()
        cold = board.board_json(spaces, now)
        cold_cpu = time.process_time() - cold_start
        warm = board.board_json(spaces, now)
        checks["warm board = cold board = reader-only board"] = warm == cold == reader_only(spaces, now)

        import gc

        samples: dict = {"small": [], "large": []}
        for round_ in range(rounds + 2):
            for name, chosen in (("small", small), ("large", spaces))[::1 if round_ % 2 else -1]:
                gc.collect()
                start = time.process_time()
                board.board_json(chosen, now)
                if round_ >= 2:
                    samples[name].append(time.process_time() - start)
        t_small, t_large = statistics.median(samples["small"]), statistics.median(samples["large"])
        per_issue = (t_large - t_small) / ((len(spaces) - len(small)) * ISSUES)
        rows.append(("in process, index warm: 1,000 / 10,000 issues",
                     f"{t_small * 1e3:.1f} / {t_large * 1e3:.1f} ms CPU; "
                     f"{per_issue * 1e6:.2f} µs per unchanged issue"))
        rows.append(("first board (cold: every file parsed, the index written)", f"{cold_cpu * 1e3:.0f} ms CPU"))
        goal("board", "CPU per unchanged issue (10,000 issues)", f"{per_issue * 1e6:.2f} µs",
             per_issue <= 10e-6, "≤ 10 µs")

        argv = [tool("alice"), "issue", "board", "--json"]
        import subprocess

        out = subprocess.run(argv, env=env, capture_output=True, text=True)
        checks["the process prints the same board"] = out.returncode == 0 and out.stdout == warm + "\n"
        s = interleaved({"base": [sys.executable, "-I", "-c", "pass"], "board": argv},
                        rounds=rounds, env=env)
        cpu = s["board"].cpu_median
        rows.append(("`alice issue board --json`, 10,000 issues, index warm",
                     f"{cpu * 1e3:.0f} ms CPU = {paired_ratio(s['board'].cpu, s['base'].cpu):.1f}× "
                     f"`python -I -c pass` ({s['base'].cpu_median * 1e3:.1f} ms); "
                     f"{len(warm) / 1e6:.1f} MB of JSON"))
        goal("board", "10,000-issue board, process CPU", f"{cpu:.3f} s", cpu <= 0.15, "≤ 0.15 s")

        target = spaces[5].root / ".alice" / "issues" / "issue-07.md"
        target.write_text(target.read_text(encoding="utf-8").replace("title: ", "title: Edited "),
                          encoding="utf-8")
        parsed = []
        real = reader.judge_bytes
        reader.judge_bytes = lambda *a, **k: parsed.append(a[2]) or real(*a, **k)
        try:
            edited = board.board_json(spaces, now)
        finally:
            reader.judge_bytes = real
        checks["an edited file costs one parse"] = parsed == ["issue-07"] and "Edited Issue 7" in edited
        rows.append(("after one edit", f"parsed {parsed}"))
        rows.append(("machine load (1/5/15 min)", " / ".join(f"{x:.1f}" for x in os.getloadavg())))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for name, passed in checks.items():
        rows.append((f"check: {name}", "yes" if passed else "NO"))
    report("Issue board through the index", rows)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
