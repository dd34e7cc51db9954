"""The journal's newest page and cursor reads must cost O(page).

Journals of 100,000 and 1,000,000 records are written directly (the shape
`record()` writes: dense agent turn facts, one inbox fact in 50), as a journal
written before the counts were kept would be.  Then:

- the first page read ever builds the per-type counts once, O(file): timed and
  reported;
- 1,000 facts are appended through `journal.record` (the recorder keeps the
  counts in step), and the newest page with its total is read in-process
  (CPU time, the two sizes taking turns, median of the rounds): goal ≤ 5 ms at
  1,000,000 records and flat (≤ 1.2× per 10×); the same for the sparse family
  (`--family inbox`, one fact in 50: flat, no time goal) and the cursor read
  (`--after-seq <last-100>`, a bisection: ≤ 5 ms, ≤ 1.5× per 10×);
- the CLI as a process (`alice journal --json`, `--after-seq`), interleaved:
  reported.

Checks: every page holds the newest seqs, every total equals the number of
records (and of inbox facts), the cursor read returns exactly the last 100.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from _common import REPO, goal, interleaved, interleaved_calls, isolated_env, report, run_json, tool

sys.path.insert(0, str(REPO))

SIZES = (100_000, 1_000_000)
APPENDED = 1_000
PAGE_GOAL_S = 0.005
FLAT = 1.2


def build(home: Path, n: int) -> None:
    state = home / "state"
    state.mkdir(parents=True)
    text = ('{"seq":%d,"ts":"2026-11-30T09:00:00.%03dZ","type":"runtime.turn.text","payload":'
            '{"workspaceId":"notes","resumeId":"resume-calm-oak-fox-a1b2c3","taskId":"run-AbCd1234",'
            '"text":"Reading the repository and running the tests before the report."}}\n')
    inbox = ('{"seq":%d,"ts":"2026-11-30T09:00:00.%03dZ","type":"inbox.received","payload":'
             '{"workspaceId":"notes","inboxEntryId":"inbox-1796029200000-0000000a",'
             '"documentCount":1,"summary":"Nightly report"}}\n')
    with open(state / "agent-runtime.jsonl", "w", encoding="utf-8") as fh:
        chunk = []
        for seq in range(1, n + 1):
            chunk.append((inbox if seq % 50 == 0 else text) % (seq, seq % 1000))
            if len(chunk) >= 10_000:
                fh.write("".join(chunk))
                chunk.clear()
        fh.write("".join(chunk))


def main() -> int:
    from openalice import journal

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    scratch = Path(tempfile.mkdtemp(prefix="bench-journal-"))
    homes: dict[int, Path] = {}
    ok = True
    rows = []

    def at(n):
        os.environ["OPENALICE_HOME"] = str(homes[n])

    try:
        for n in SIZES:
            homes[n] = scratch / f"n{n}" / "home"
            build(homes[n], n)
            size_mb = (homes[n] / "state/agent-runtime.jsonl").stat().st_size / 1e6
            print(f"built {n:,} records ({size_mb:.0f} MB)", flush=True)
        first = {}
        for n in SIZES:
            at(n)
            start = time.perf_counter()
            page = journal.read_page(1)
            first[n] = time.perf_counter() - start
            ok &= page["total"] == n and page["entries"][0]["seq"] == n
        now = datetime(2026, 11, 30, 10, tzinfo=timezone.utc)
        for n in SIZES:
            at(n)
            for i in range(APPENDED):
                journal.record("inbox.received" if i % 50 == 0 else "runtime.turn.text",
                               {"workspaceId": "notes", "i": i}, now=now)
        inbox_facts = {n: n // 50 + APPENDED // 50 for n in SIZES}
        for n in SIZES:
            at(n)
            total = n + APPENDED
            page = journal.read_page(1)
            ok &= page["total"] == total and [r["seq"] for r in page["entries"]] == \
                list(range(total, total - 50, -1))
            fam = journal.read_page(1, where=journal.make_filter(family="inbox"))
            newest_inbox = n + 1 + max(i for i in range(APPENDED) if i % 50 == 0)
            ok &= fam["total"] == inbox_facts[n] and fam["entries"][0]["seq"] == newest_inbox
            after = journal.read_after(total - 100, limit=100)
            ok &= [r["seq"] for r in after["entries"]] == list(range(total - 99, total + 1))
        small, large = SIZES

        def timed(label, call, page_goal, flat=FLAT):
            t = interleaved_calls({n: (lambda n=n: (at(n), call())) for n in SIZES}, rounds=rounds)
            ratio = t[large] / t[small]
            rows.append((label, f"{t[small] * 1e3:.2f} ms at {small:,} → {t[large] * 1e3:.2f} ms at "
                         f"{large:,} records = {ratio:.2f}× (CPU, in-process)"))
            if page_goal:
                goal("journal", f"{label} of 1M records", f"{t[large] * 1e3:.2f} ms",
                     t[large] <= PAGE_GOAL_S, "≤ 5 ms in-process")
            goal("journal", f"{label} flat per 10×", f"{ratio:.2f}×", ratio <= flat, f"≤ {flat}×")

        timed(f"newest page with its total, after {APPENDED:,} recorded facts",
              lambda: journal.read_page(1), True)
        # One fact in 50: the page walks back 50 × 50 lines (O(page / density)), flat.
        timed("newest page of the sparse family (--family inbox)",
              lambda: journal.read_page(1, where=journal.make_filter(family="inbox")), False)
        # A bisection: O(log size + page), a few more probes per 10× (the goal it always had).
        timed("--after-seq <last-100> --limit 100",
              lambda: journal.read_after(journal.last_seq() - 100, limit=100), True, flat=1.5)
        rows.append(("first page read ever (builds the counts once, O(file))",
                     f"{first[small]:.2f} s at {small:,} → {first[large]:.2f} s at {large:,}"))
        alice = tool("alice")
        envs = {n: {**isolated_env(homes[n].parent), "OPENALICE_HOME": str(homes[n])} for n in SIZES}
        for n in SIZES:
            got = run_json([alice, "journal", "--json"], envs[n])
            ok &= got["total"] == n + APPENDED
        for argv, label in ((["journal", "--json"], "`alice journal --json` (process)"),
                            (["journal", "--after-seq", "100", "--limit", "100", "--json"],
                             "`alice journal --after-seq 100 --limit 100 --json` (process)")):
            s = interleaved({n: ["env", f"OPENALICE_HOME={homes[n]}", alice, *argv] for n in SIZES},
                            rounds=max(5, rounds // 2), env=envs[small])
            rows.append((label, f"cpu {s[small].cpu_median * 1e3:.0f} ms at {small:,} → "
                         f"{s[large].cpu_median * 1e3:.0f} ms at {large:,} = "
                         f"{s[large].cpu_median / s[small].cpu_median:.2f}×"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows.append(("answers agree (pages, totals, family totals, cursor reads)", "yes" if ok else "NO"))
    report("Journal reads at 100k vs 1M records", rows)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
