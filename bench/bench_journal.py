"""`alice journal --after-seq` must cost O(page): flat when the journal grows 10×.

Builds journals of 100,000 and 1,000,000 records by writing lines directly
(the shape `record()` writes: dense agent turn facts with a sparse inbox
family), then times the real CLI as a subprocess at both sizes:
`journal --after-seq <last-100> --limit 100 --json`, and the default
newest-first page (whose total comes from the derived per-type counts: the
first read builds them, O(file); later reads cost O(new facts + page)).  The
baseline is the same verb on the 10× smaller journal (flat = ratio near 1).
Results are checked: the cursor read returns exactly the last 100 seqs and
the page total equals the number of records.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import growth_rows, isolated_env, median_runtime, report, run_json, tool

SIZES = (100_000, 1_000_000)


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
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    alice = tool("alice")
    times: dict[str, dict[int, float]] = {}
    first_page: dict[int, float] = {}
    ok = True
    scratch = Path(tempfile.mkdtemp(prefix="bench-journal-"))
    try:
        for n in SIZES:
            base = scratch / f"n{n}"
            env = isolated_env(base)
            build(Path(env["OPENALICE_HOME"]), n)
            size_mb = (Path(env["OPENALICE_HOME"]) / "state/agent-runtime.jsonl").stat().st_size / 1e6
            print(f"built {n:,} records ({size_mb:.0f} MB)", flush=True)
            cursor = [alice, "journal", "--after-seq", str(n - 100), "--limit", "100", "--json"]
            got = run_json(cursor, env)
            ok &= [r["seq"] for r in got["entries"]] == list(range(n - 99, n + 1))
            ok &= got["lastSeq"] == n
            start = time.perf_counter()
            page = run_json([alice, "journal", "--json"], env)  # builds the counts index
            first_page[n] = time.perf_counter() - start
            ok &= page["total"] == n and page["entries"][0]["seq"] == n
            fam = run_json([alice, "journal", "--family", "inbox", "--json"], env)
            ok &= fam["total"] == n // 50 and fam["entries"][0]["seq"] == n
            cases = {
                "journal --after-seq <last-100> --limit 100": cursor,
                "journal (page 1, total from the counts index)": [alice, "journal", "--json"],
                "journal --family inbox (sparse family page)": [alice, "journal", "--family",
                                                                 "inbox", "--json"],
            }
            for name, argv in cases.items():
                times.setdefault(name, {})[n] = median_runtime(argv, runs=runs, env=env)
            shutil.rmtree(base)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    small, large = SIZES
    rows = growth_rows(times, small, large, "records")
    rows.append(("first page read (builds the counts index once, O(file))",
                 f"{first_page[small]:.2f} s at {small:,} → {first_page[large]:.2f} s at {large:,}"))
    flat = times["journal --after-seq <last-100> --limit 100"][large] / \
        times["journal --after-seq <last-100> --limit 100"][small]
    rows.append(("results agree", "yes" if ok else "NO"))
    rows.append(("verdict", "--after-seq is flat (O(log size + page))" if flat < 1.5 and ok
                 else f"--after-seq NOT flat ({flat:.2f}×)"))
    report("Journal reads at 100k vs 1M records", rows)
    return 0 if ok and flat < 1.5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
