"""`alice-inbox list --limit 50` must cost O(page): flat when the store grows 10×.

Builds stores of 10,000 and 100,000 entries by writing lines directly (valid,
id-sorted entries, as the writer would), then times the real CLI as a
subprocess at both sizes: `list --limit 50 --json`, `list --before <id>` deep
in the file, and `show <oldest id>` (bisection).  The baseline is the same
verb on the 10× smaller store (flat = ratio close to 1); `count` is shown too,
which is O(entries) by design.  Results are checked: the page holds exactly
the 50 newest ids, `show` finds the oldest entry.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from _common import growth_rows, isolated_env, median_runtime, report, run_json, tool

SIZES = (10_000, 100_000)
BASE_MS = 1_796_029_200_000
ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def entry_id(i: int) -> str:
    rand, out = i, []
    for _ in range(8):
        out.append(ALPHABET[rand & 31])
        rand >>= 5
    return f"inbox-{BASE_MS + i * 1000:013d}-{''.join(reversed(out))}"


def build(home: Path, n: int, *, all_read: bool = False) -> list[str]:
    inbox = home / "data" / "inbox"
    inbox.mkdir(parents=True)
    ids = [entry_id(i) for i in range(n)]
    body = ("# Nightly report {i}\\n\\nAll checks passed. See [[reports/run-{i}.md]] and "
            "[[charts/{i}.png]] for the details of this run." + " Lorem ipsum dolor sit amet." * 8)
    with open(inbox / "entries.jsonl", "w", encoding="utf-8") as fh:
        for i, eid in enumerate(ids):
            fh.write('{"id":"%s","ts":%d,"workspaceId":"notes","workspaceLabel":"Notes",'
                     '"body":"%s","fileRevisions":{},"origin":{"kind":"manual"}}\n'
                     % (eid, BASE_MS + i * 1000, body.format(i=i)))
    if all_read:
        (inbox / "read-state.json").write_text(json.dumps(
            {"version": 1, "read": {eid: BASE_MS for eid in ids}}, indent=2))
    return ids


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    inbox_tool = tool("alice-inbox")
    times: dict[str, dict[int, float]] = {}
    ok = True
    scratch = Path(tempfile.mkdtemp(prefix="bench-inbox-"))
    try:
        for n in SIZES:
            base = scratch / f"n{n}"
            env = isolated_env(base)
            ids = build(Path(env["OPENALICE_HOME"]), n)
            size_mb = (Path(env["OPENALICE_HOME"]) / "data/inbox/entries.jsonl").stat().st_size / 1e6
            print(f"built {n} entries ({size_mb:.1f} MB)", flush=True)
            page = run_json([inbox_tool, "list", "--limit", "50", "--json"], env)
            ok &= [e["id"] for e in page["entries"]] == ids[::-1][:50] and page["hasMore"]
            deep = run_json([inbox_tool, "list", "--limit", "50", "--before", ids[n // 10],
                             "--json"], env)
            ok &= [e["id"] for e in deep["entries"]] == ids[n // 10 - 1::-1][:50]
            shown = run_json([inbox_tool, "show", ids[0], "--no-verify", "--json"], env)
            ok &= shown["entry"]["id"] == ids[0]
            count = run_json([inbox_tool, "count", "--json"], env)
            ok &= count == {"total": n, "unread": n}
            cases = {
                "list --limit 50": [inbox_tool, "list", "--limit", "50", "--json"],
                "list --limit 50 --before <id at 10%>": [inbox_tool, "list", "--limit", "50",
                                                         "--before", ids[n // 10], "--json"],
                "show <oldest id>": [inbox_tool, "show", ids[0], "--no-verify", "--json"],
                "count (O(entries) by design)": [inbox_tool, "count", "--json"],
            }
            for name, argv in cases.items():
                times.setdefault(name, {})[n] = median_runtime(
                    argv, runs=runs if "count" not in name else max(5, runs // 3), env=env)
            # Every entry read: the read-state sidecar is loaded by list (O(read marks)).
            read_base = scratch / f"r{n}"
            read_env = isolated_env(read_base)
            build(Path(read_env["OPENALICE_HOME"]), n, all_read=True)
            times.setdefault("list --limit 50, every entry read", {})[n] = median_runtime(
                [inbox_tool, "list", "--limit", "50", "--json"], runs=runs, env=read_env)
            shutil.rmtree(base)
            shutil.rmtree(read_base)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    small, large = SIZES
    rows = growth_rows(times, small, large, "entries")
    flat = times["list --limit 50"][large] / times["list --limit 50"][small]
    rows.append(("results agree", "yes" if ok else "NO"))
    rows.append(("verdict", "list is flat (O(page))" if flat < 1.5 and ok
                 else f"list NOT flat ({flat:.2f}×)"))
    report("Inbox list at 10k vs 100k entries", rows)
    return 0 if ok and flat < 1.5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
