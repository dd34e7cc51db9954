"""The unread badge at a million entries: `count` through the counter (issue 28, item 3).

A store of 1,000,000 entries is written directly (valid, id-sorted lines, as
the writer would, never through the CLI), with a read state made by the same
fast synthetic writer: a watermark and one segment closing the first 950,000
entries, so 50,000 entries (5%) are unread after the watermark — the tail the
old `count` read on every call.

Measured in-process (CPU time, `time.process_time`, interleaved, median):

- before: the count computed from the files (`readstate.counts(store,
  readstate.load(store))`, what every `count` did before the counter);
- the first count after a change (the counter repaired and written back);
- after: `inbox.counts()` with the counter current: goal ≤ 1 ms;
- `mark_all_read()` of the 50,000 (reported: O(entries since the watermark));

and as a process: `alice-inbox count --json` against a clean `python -I -c
pass` of the base interpreter (not the venv's, whose `.pth` hook makes a bare
start 2.2× dearer), CPU time, interleaved; reported as the ratio.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO, goal, interleaved, interleaved_calls, isolated_env, paired_ratio, report, tool

sys.path.insert(0, str(REPO))

N = 1_000_000
UNREAD = N // 20
BASE_MS = 1_796_029_200_000
ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
GOAL_S = 0.001


def entry_id(i: int) -> str:
    rand, out = i, []
    for _ in range(8):
        out.append(ALPHABET[rand & 31])
        rand >>= 5
    return f"inbox-{BASE_MS + i * 1000:013d}-{''.join(reversed(out))}"


def build(directory: Path) -> None:
    """1M entries and a read state whose watermark closes the first N - UNREAD."""
    directory.mkdir(parents=True)
    offset = last_offset = 0
    last_id = ""
    read_upto = N - UNREAD
    with open(directory / "entries.jsonl", "w", encoding="utf-8") as fh:
        chunk = []
        for i in range(N):
            eid = entry_id(i)
            line = ('{"id":"%s","ts":%d,"workspaceId":"ws%d","body":"Nightly report %d: all '
                    'checks passed.","fileRevisions":{}}\n' % (eid, BASE_MS + i * 1000, i % 3, i))
            if i == read_upto - 1:
                last_offset, last_id = offset, eid
            offset += len(line)
            chunk.append(line)
            if len(chunk) == 10_000:
                fh.write("".join(chunk))
                chunk = []
        fh.write("".join(chunk))
    state = {"version": 2,
             "watermark": {"line": last_offset, "id": last_id, "entries": read_upto, "problems": []},
             "segments": [{"through": last_id, "readAt": BASE_MS + N * 1000}],
             "unread": {}, "read": {}}
    (directory / "read-state.json").write_text(json.dumps(state))


def main() -> int:
    from openalice.inbox import InboxStore, counter, counts, mark_all_read, readstate

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    scratch = Path(tempfile.mkdtemp(prefix="bench-inbox-count-"))
    rows = []
    ok = True
    try:
        home = scratch / "home" / "openalice"
        directory = home / "data" / "inbox"
        build(directory)
        want = {"total": N, "unread": UNREAD}
        print(f"built {N:,} entries ({(directory / 'entries.jsonl').stat().st_size / 1e6:.0f} MB), "
              f"{UNREAD:,} unread after the watermark", flush=True)

        def cold():
            store = InboxStore(directory)
            return readstate.counts(store, readstate.load(store))

        def repair():
            (directory / counter.COUNTER_FILE).unlink(missing_ok=True)
            return counts(InboxStore(directory))

        def warm():
            return counts(InboxStore(directory))

        ok &= cold() == want and repair() == want and warm() == want
        ok &= json.loads((directory / counter.COUNTER_FILE).read_text())["unread"] == UNREAD
        slow = interleaved_calls({"before": cold, "repair": repair}, rounds=max(3, rounds // 3))
        warm()
        fast = interleaved_calls({"after": warm}, rounds=rounds, repeat=200)
        rows.append((f"count at {N:,} entries, {UNREAD:,} unread after the watermark, before "
                     "(from the files, every call)", f"{slow['before'] * 1e3:.1f} ms (CPU, in-process)"))
        rows.append(("the first count after a change (repairs and writes the counter)",
                     f"{slow['repair'] * 1e3:.1f} ms"))
        rows.append(("after: count with the counter current", f"{fast['after'] * 1e6:.0f} µs "
                     f"({slow['before'] / fast['after']:.0f}× less)"))
        goal("inbox", "count at 1M entries, 5% unread (in-process, counter current)",
             f"{fast['after'] * 1e3:.3f} ms", fast["after"] <= GOAL_S, "≤ 1 ms")

        # mark-all-read: reads the 50,000 after the watermark once, and leaves the counter current
        saved = (directory / "read-state.json").read_bytes()

        def mark_all():
            (directory / "read-state.json").write_bytes(saved)
            return mark_all_read(InboxStore(directory), now_ms=BASE_MS + N * 2000)

        ok &= mark_all() == {"marked": UNREAD, "total": N, "unread": 0}
        ok &= counter.valid_for(counter.load(InboxStore(directory)),
                                counter.identity(directory / "entries.jsonl"),
                                counter.identity(directory / "read-state.json"))
        t = interleaved_calls({"mark": mark_all}, rounds=3)
        rows.append((f"mark-all-read of the {UNREAD:,} (one read of them, counter left current)",
                     f"{t['mark'] * 1e3:.0f} ms"))
        (directory / "read-state.json").write_bytes(saved)
        warm()  # repair for the state the process rows measure

        env = isolated_env(scratch)
        env["OPENALICE_HOME"] = str(home)
        command = [tool("alice-inbox"), "count", "--json"]
        out = json.loads(subprocess.run(command, env=env, capture_output=True, text=True).stdout)
        ok &= out == want
        clean = getattr(sys, "_base_executable", sys.executable)
        s = interleaved({"bare": [clean, "-I", "-c", "pass"], "count": command}, rounds=rounds, env=env)
        ratio = paired_ratio(s["count"].cpu, s["bare"].cpu)
        rows.append(("`alice-inbox count --json` (process, CPU) over a clean `python -I -c pass`",
                     f"{s['count'].cpu_median * 1e3:.1f} ms vs {s['bare'].cpu_median * 1e3:.1f} ms "
                     f"= {ratio:.2f}×"))
        # Before, as a process: every call recounts (a directory where the counter goes
        # makes each load a miss and each write-back fail, as if there were no counter).
        (directory / counter.COUNTER_FILE).unlink()
        (directory / counter.COUNTER_FILE).mkdir()
        out = json.loads(subprocess.run(command, env=env, capture_output=True, text=True).stdout)
        ok &= out == want
        b = interleaved({"bare": [clean, "-I", "-c", "pass"], "count": command},
                        rounds=max(3, rounds // 3), warmup=1, env=env)
        (directory / counter.COUNTER_FILE).rmdir()
        rows.append(("the same, before (every call recounts the 50,000)",
                     f"{b['count'].cpu_median * 1e3:.1f} ms vs {b['bare'].cpu_median * 1e3:.1f} ms "
                     f"= {paired_ratio(b['count'].cpu, b['bare'].cpu):.2f}×"))
        rows.append(("load average while measured", " ".join(f"{x:.1f}" for x in os.getloadavg())))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows.append(("answers agree (cold, repaired, warm, the process)", "yes" if ok else "NO"))
    report("Inbox unread count at 1M entries", rows)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
