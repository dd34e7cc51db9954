"""Conversations: delivering comments to sessions, and what the scan pays when none waits.

1. **Delivery** — 10 sessions (10 issues of one workspace, each session born
   by a scheduled run of the stand-in ``claude`` of the test suite, which
   replays a recorded stream), 10 pending comments each (100 in all); the
   scan's delivery pass (``conversations.deliver_pending``) run in-process with
   the turns inline until nothing is pending.  The toolkit's own CPU per
   delivered comment = this process's CPU time (admission, the claim, the
   supervisor's bookkeeping, the normalizer, settling, the reply comment; the
   engine's own CPU is a child's and is not counted) / 100.  Goal ≤ 5 ms.
   Check: 100 comments replied, one reply each, in order per session, no
   marker left.
2. **Nothing pending** — ``alice-schedule scan`` on `bench_scan`'s nothing-due
   home (100 × 10 issues, cache primed): without the pending directory (a
   home that never had a comment) against with it present and empty (a home
   whose comments were all delivered), the two taking turns; goal: within
   noise (≤ 1.03×).  Also the in-process cost of the fast path's one check
   (``fastpath.comments_pending``).

Run from the bench venv (`make bench`).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from _common import REPO, goal, interleaved, isolated_env, paired_ratio, report
from bench_scan import build, command, run_scan

sys.path.insert(0, str(REPO))

SESSIONS = 10
PER_SESSION = 10
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def delivery(base: Path, rows: list) -> bool:
    from tests.runs.standins import StandIns, fixtures_dir

    engines = StandIns(base / "standin-bin", fixtures_dir())
    os.environ.update(isolated_env(base))
    os.environ.update(PATH=engines.path_env(os.environ.get("PATH", "/usr/bin:/bin")),
                      ALICE_NOW="2026-03-02T09:00:00Z", OPENALICE_RUN_CAPACITY="20")
    from openalice import conversations, workspaces
    from openalice.issues import comments, load_issue, store
    from openalice.issues import delivery as deliveries
    from openalice.runs import admission, supervisor

    ws, _ = workspaces.init(base / "ws", label="Bench", now=NOW)
    for n in range(SESSIONS):
        store.create(ws, {"title": f"Report {n}", "when": {"kind": "every", "every": "1h"},
                          "agent": "claude", "model": "fake-model"}, "Summarize the day.",
                     issue_id=f"report-{n}", now=NOW)
        record = admission.admit(ws, load_issue(ws, f"report-{n}"), fire="schedule", now=NOW)
        supervisor.run_task(record["taskId"])
    for i in range(PER_SESSION):
        for n in range(SESSIONS):
            comments.add_comment(ws, f"report-{n}", f"question {i} for session {n}",
                                 author="human", now=NOW)
    in_runs = [0.0]
    run_task = supervisor.run_task

    def supervised(*args, **kwargs):  # the supervised turn itself: what any run costs
        start = time.process_time()
        try:
            return run_task(*args, **kwargs)
        finally:
            in_runs[0] += time.process_time() - start

    supervisor.run_task = supervised
    cpu0, wall0 = time.process_time(), time.perf_counter()
    delivered = passes = 0
    while deliveries.pending_markers() and passes < PER_SESSION * 3:
        delivered += len(conversations.deliver_pending(now=NOW, launch="inline",
                                                      limit=SESSIONS)["delivered"])
        passes += 1
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    supervisor.run_task = run_task
    ok = delivered == SESSIONS * PER_SESSION and not deliveries.pending_markers()
    for n in range(SESSIONS):
        thread = comments.list_comments(ws, f"report-{n}")
        asked = [c for c in thread if c["author"] == "human"]
        replies = [c for c in thread if c.get("replyTo")]
        ok = ok and all(c["delivery"]["state"] == "replied" for c in asked)
        ok = ok and [r["replyTo"] for r in replies] == [c["id"] for c in asked]
    per = cpu / max(delivered, 1)
    runs = in_runs[0] / max(delivered, 1)
    rows.append((f"{delivered} comments delivered to {SESSIONS} sessions (stand-in claude, turns "
                 f"inline, {passes} scan passes)",
                 f"toolkit cpu {per * 1e3:.2f} ms per comment ({cpu:.2f} s in all): the supervised "
                 f"turn {runs * 1e3:.2f} ms (as any run), the delivery layer {(per - runs) * 1e3:.2f} "
                 f"ms; wall {wall / max(delivered, 1) * 1e3:.0f} ms per comment, the engine included"))
    goal("comments", "toolkit CPU per delivered comment", f"{per * 1e3:.2f} ms", per <= 0.005, "≤ 5 ms")
    return ok


def nothing_pending(base: Path, rounds: int, rows: list) -> bool:
    env = isolated_env(base)
    env.update(ALICE_NOW="2026-03-02T10:00:30Z", OPENALICE_TEST_LAUNCH="none")
    build(base, env)
    argv = command()
    run_scan(argv, env)
    run_scan(argv, env)  # the cache primed
    pending = Path(env["OPENALICE_HOME"]) / "state" / "conversations" / "pending"
    plain = run_scan(argv, env)
    pending.mkdir(parents=True)
    emptied = run_scan(argv, env)
    agree = plain == emptied and "comments" not in emptied and emptied["fired"] == []
    # The same command both ways; the directory is switched between runs, the order alternating.
    samples = {"without": [], "with": []}
    for round_ in range(rounds):
        order = ("without", "with") if round_ % 2 == 0 else ("with", "without")
        for name in order:
            if name == "with":
                pending.mkdir(parents=True, exist_ok=True)
            elif pending.exists():
                pending.rmdir()
            s = interleaved({name: argv + ["scan"]}, rounds=1, warmup=0, env=env)
            samples[name].append(s[name].cpu[0])
    ratio = paired_ratio(samples["with"], samples["without"])
    os.environ["OPENALICE_HOME"] = env["OPENALICE_HOME"]
    from openalice.schedule import fastpath

    start = time.process_time()
    for _ in range(10000):
        fastpath.comments_pending()
    check = (time.process_time() - start) / 10000
    median = sorted(samples["without"])[len(samples["without"]) // 2]
    rows.append(("nothing due and nothing pending, 100 × 10 issues: `alice-schedule scan`",
                 f"with an empty pending directory {ratio:.3f}× the scan without one "
                 f"({median * 1e3:.1f} ms cpu); the fast path's check {check * 1e6:.1f} µs"))
    goal("comments", "nothing-pending scan vs nothing-due scan", f"{ratio:.3f}× cpu",
         ratio <= 1.03, "within noise (≤ 1.03×)")
    return agree


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 25
    base = Path(tempfile.mkdtemp(prefix="bench-comments-"))
    rows: list = []
    checks = {}
    try:
        checks["scan: the same report with or without the pending directory"] = nothing_pending(
            base / "scan", rounds, rows)
        checks["delivery: 100 replied, one reply each, in order, no marker left"] = delivery(
            base / "deliver", rows)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for name, passed in checks.items():
        rows.append((f"check: {name}", "yes" if passed else "NO"))
    report("Conversations: comment delivery", rows)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
