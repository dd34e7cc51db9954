"""The Inbox's read paths must cost O(page), whatever the size and the read state.

Stores of 10,000 and 100,000 entries are written directly (valid, id-sorted
entries, as the writer would); read state is then made by the library itself
(`mark_all_read` at a point of the file, `mark_read`/`mark_unread` of scattered
entries), in the states users are in: nothing read, half read, most read (95%),
each with a few hundred marks of their own.

Measured in-process (CPU time, `time.process_time`, the two sizes taking turns
in every round, median of the rounds), each answer checked against a model
built from how the state was made (never from the code under test):

- `list_entries(limit=50)` (the newest page, with read flags) for every state:
  goal ≤ 5 ms at 100,000 entries and flat: ≤ 1.2× from 10,000 to 100,000;
- `counts()` from the files (the recount; `bench_inbox_count.py` times the
  unread counter) and `mark_all_read()` with the same number of entries (500) after
  the watermark at both sizes: goal flat (≤ 1.2×), i.e. O(entries since the
  watermark), not O(entries);
- for comparison, the same `list` with a version-1 sidecar (one mark per read
  entry, what every list parsed before) — reported, no goal;
- `alice-inbox list --limit 50 --json` as a process at both sizes (CPU time,
  interleaved): reported, flat.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

from _common import REPO, goal, interleaved, interleaved_calls, isolated_env, report, tool

sys.path.insert(0, str(REPO))

SIZES = (10_000, 100_000)
TAIL = 500  # entries after the watermark in the count / mark-all-read state
BASE_MS = 1_796_029_200_000
ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
PAGE_GOAL_S = 0.005
FLAT = 1.2


def entry_id(i: int) -> str:
    rand, out = i, []
    for _ in range(8):
        out.append(ALPHABET[rand & 31])
        rand >>= 5
    return f"inbox-{BASE_MS + i * 1000:013d}-{''.join(reversed(out))}"


def write_entries(directory: Path, n: int) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    ids = [entry_id(i) for i in range(n)]
    body = ("# Nightly report {i}\\n\\nAll checks passed. See [[reports/run-{i}.md]] and "
            "[[charts/{i}.png]] for the details of this run." + " Lorem ipsum dolor sit amet." * 8)
    with open(directory / "entries.jsonl", "w", encoding="utf-8") as fh:
        for i, eid in enumerate(ids):
            fh.write('{"id":"%s","ts":%d,"workspaceId":"ws%d","workspaceLabel":"Notes",'
                     '"body":"%s","fileRevisions":{},"origin":{"kind":"manual"}}\n'
                     % (eid, BASE_MS + i * 1000, i % 3, body.format(i=i)))
    return ids


def make_state(directory: Path, ids: list[str], read_upto: int, rng: random.Random) -> dict:
    """Read state made by the library: mark-all-read of the first ``read_upto``
    entries, then own marks of scattered later entries and unread marks of
    scattered earlier ones.  Returns the model ``{id: readAt}``."""
    from openalice import inbox

    model: dict[str, int] = {}
    if read_upto:
        # mark-all-read as of when only the first entries existed: cut the file, mark, restore
        entries = directory / "entries.jsonl"
        full = entries.read_bytes()
        cut = sum(len(line) for line in full.splitlines(keepends=True)[:read_upto])
        entries.write_bytes(full[:cut])
        inbox.mark_all_read(inbox.InboxStore(directory), now_ms=BASE_MS + 10)
        entries.write_bytes(full)
        model.update({i: BASE_MS + 10 for i in ids[:read_upto]})
    store = inbox.InboxStore(directory)
    later = ids[read_upto:]
    for n, eid in enumerate(rng.sample(later, min(200, len(later)))):
        inbox.mark_read(store, eid, now_ms=BASE_MS + 20 + n)
        model[eid] = BASE_MS + 20 + n
    for eid in rng.sample(ids[:read_upto], min(100, read_upto)):
        inbox.mark_unread(store, eid)
        model.pop(eid, None)
    return model


def check_page(directory: Path, ids: list[str], model: dict) -> bool:
    from openalice import inbox

    page = inbox.list_entries(inbox.InboxStore(directory), limit=50)
    want = ids[::-1][:50]
    return ([e["id"] for e in page["entries"]] == want and page["hasMore"]
            and all(e["read"] == (e["id"] in model) and e.get("readAt") == model.get(e["id"])
                    for e in page["entries"]))


def main() -> int:
    from openalice import inbox

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    rng = random.Random(15)
    scratch = Path(tempfile.mkdtemp(prefix="bench-inbox-"))
    ok = True
    rows = []
    try:
        states = {"nothing read": 0.0, "half read": 0.5, "most read (95%)": 0.95}
        dirs: dict[tuple[str, int], Path] = {}
        models: dict[tuple[str, int], dict] = {}
        ids_of: dict[int, list[str]] = {}
        for n in SIZES:
            for name, fraction in states.items():
                d = scratch / f"{name[:4]}-{n}"
                ids_of[n] = write_entries(d, n)
                models[name, n] = make_state(d, ids_of[n], int(n * fraction), rng)
                dirs[name, n] = d
                ok &= check_page(d, ids_of[n], models[name, n])
            # version 1 (before): one mark per read entry, 95% read
            d = scratch / f"v1-{n}"
            write_entries(d, n)
            (d / "read-state.json").write_text(json.dumps(
                {"version": 1, "read": {i: BASE_MS for i in ids_of[n][: int(n * 0.95)]}}))
            dirs["v1", n] = d
            models["v1", n] = {i: BASE_MS for i in ids_of[n][: int(n * 0.95)]}
            ok &= check_page(d, ids_of[n], models["v1", n])
            # the count / mark-all-read state: TAIL entries after the watermark
            d = scratch / f"tail-{n}"
            write_entries(d, n)
            models["tail", n] = make_state(d, ids_of[n], n - TAIL, rng)
            dirs["tail", n] = d
            print(f"built {n:,} entries ({(d / 'entries.jsonl').stat().st_size / 1e6:.0f} MB) in "
                  f"{len(states) + 2} read states", flush=True)

        small, large = SIZES
        for name in [*states, "v1"]:
            t = interleaved_calls({n: (lambda d=dirs[name, n]: inbox.list_entries(
                inbox.InboxStore(d), limit=50)) for n in SIZES}, rounds=rounds)
            ratio = t[large] / t[small]
            label = "version-1 sidecar, most read (before)" if name == "v1" else name
            rows.append((f"list 50, {label}", f"{t[small] * 1e3:.2f} ms at {small:,} → "
                         f"{t[large] * 1e3:.2f} ms at {large:,} = {ratio:.2f}× (CPU, in-process)"))
            if name != "v1":
                goal("inbox", f"list 50 of 100k, {name}", f"{t[large] * 1e3:.2f} ms",
                     t[large] <= PAGE_GOAL_S, "≤ 5 ms in-process")
                goal("inbox", f"list 50 flat per 10×, {name}", f"{ratio:.2f}×", ratio <= FLAT,
                     f"≤ {FLAT}×")

        for n in SIZES:
            fresh = inbox.InboxStore(dirs["tail", n])
            model = models["tail", n]
            want = {"total": n, "unread": n - len(model)}
            ok &= inbox.counts(fresh) == want
        def from_files(d):  # the recount the counter saves (bench_inbox_count.py times the counter)
            store = inbox.InboxStore(d)
            return inbox.counts(store, inbox.load_read_state(store))

        t = interleaved_calls({n: (lambda d=dirs["tail", n]: from_files(d)) for n in SIZES},
                              rounds=rounds)
        ratio = t[large] / t[small]
        rows.append((f"count, {TAIL} entries after the watermark",
                     f"{t[small] * 1e3:.2f} ms at {small:,} → {t[large] * 1e3:.2f} ms at {large:,} "
                     f"= {ratio:.2f}×"))
        goal("inbox", f"count flat per 10× ({TAIL} entries since the watermark)", f"{ratio:.2f}×",
             ratio <= FLAT, f"≤ {FLAT}× (O(entries since the watermark))")

        saved = {n: (dirs["tail", n] / "read-state.json").read_bytes() for n in SIZES}

        def mark_all(n):
            d = dirs["tail", n]
            (d / "read-state.json").write_bytes(saved[n])
            return inbox.mark_all_read(inbox.InboxStore(d), now_ms=BASE_MS + 99)

        for n in SIZES:
            result = mark_all(n)
            unread_before = n - len(models["tail", n])
            ok &= result == {"marked": unread_before, "total": n, "unread": 0}
        t = interleaved_calls({n: (lambda n=n: mark_all(n)) for n in SIZES}, rounds=rounds)
        ratio = t[large] / t[small]
        rows.append((f"mark-all-read, {TAIL} entries after the watermark",
                     f"{t[small] * 1e3:.2f} ms at {small:,} → {t[large] * 1e3:.2f} ms at "
                     f"{large:,} = {ratio:.2f}× (one atomic write each)"))
        goal("inbox", f"mark-all-read flat per 10× ({TAIL} entries since the watermark)",
             f"{ratio:.2f}×", ratio <= FLAT, f"≤ {FLAT}×")
        for n in SIZES:
            (dirs["tail", n] / "read-state.json").write_bytes(saved[n])

        # The tool as a process, most read: what the web gateway pays per request.
        commands, envs = {}, {}
        for n in SIZES:
            home = scratch / f"home-{n}"
            (home / "openalice" / "data").mkdir(parents=True)
            os.rename(dirs["most read (95%)", n], home / "openalice" / "data" / "inbox")
            envs[n] = isolated_env(home)
            envs[n]["OPENALICE_HOME"] = str(home / "openalice")
            commands[n] = ["env", f"OPENALICE_HOME={home / 'openalice'}", tool("alice-inbox"),
                           "list", "--limit", "50", "--json"]
        out = json.loads(__import__("subprocess").run(commands[large][2:], env=envs[large],
                                                      capture_output=True, text=True).stdout)
        ok &= [e["id"] for e in out["entries"]] == ids_of[large][::-1][:50]
        s = interleaved(commands, rounds=rounds, env=envs[small])
        rows.append(("`alice-inbox list --limit 50 --json`, most read (process)",
                     f"cpu {s[small].cpu_median * 1e3:.0f} ms at {small:,} → "
                     f"{s[large].cpu_median * 1e3:.0f} ms at {large:,} = "
                     f"{s[large].cpu_median / s[small].cpu_median:.2f}×"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows.append(("answers agree with the model (pages, read flags, counts, marked)",
                 "yes" if ok else "NO"))
    report("Inbox reads at 10k vs 100k entries", rows)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
