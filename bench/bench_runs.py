"""`alice-schedule runs` stays O(page): the newest page of one issue, of one
workspace and of everything, with 10,000 and with 100,000 task records.

The registry is built by writing its files directly (records and the three
append-only indexes, in the layout of openalice/runs/tasks.py), then each
listing runs as a subprocess at both sizes.  Check: each page holds exactly
the expected newest task ids.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO, isolated_env, median_runtime, report

ISSUES = 100
LIMIT = 20


def command() -> list[str]:
    installed = Path(sys.executable).parent / "alice-schedule"
    return [str(installed)] if installed.exists() else [sys.executable, str(REPO / "bin" / "alice-schedule")]


def build(home: Path, count: int) -> None:
    runs = home / "state" / "runs"
    (runs / "by-issue" / "ws").mkdir(parents=True)
    (runs / "by-workspace").mkdir(parents=True)
    every, per_issue = [], {}
    for n in range(count):
        task_id = f"run-{n:08d}"
        issue = f"i{n % ISSUES:03d}"
        line = json.dumps({"taskId": task_id, "workspaceId": "ws", "issueId": issue,
                           "createdAt": "2026-01-01T00:00:00Z", "fire": "schedule"})
        every.append(line)
        per_issue.setdefault(issue, []).append(line)
        directory = runs / "tasks" / task_id
        directory.mkdir(parents=True)
        (directory / "task.json").write_text(json.dumps(
            {"version": 1, "taskId": task_id, "status": "done", "workspaceId": "ws", "issueId": issue,
             "createdAt": "2026-01-01T00:00:00Z", "prompt": "x" * 200,
             "trigger": {"kind": "issue", "workspaceId": "ws", "issueId": issue, "fire": "schedule"}}))
    (runs / "index.jsonl").write_text("\n".join(every) + "\n")
    (runs / "by-workspace" / "ws.jsonl").write_text("\n".join(every) + "\n")
    for issue, lines in per_issue.items():
        (runs / "by-issue" / "ws" / f"{issue}.jsonl").write_text("\n".join(lines) + "\n")
    registry = {"version": 1, "workspaces": [{"id": "ws", "label": "ws", "path": str(home.parent / "ws"),
                                               "template": "blank", "createdAt": "2026-01-01T00:00:00Z"}]}
    (home / "workspaces.json").write_text(json.dumps(registry))
    (home.parent / "ws" / ".alice" / "issues").mkdir(parents=True)


QUERIES = {
    "`runs --issue ws/i007 --limit 20`": ["--issue", "ws/i007"],
    "`runs --workspace ws --limit 20`": ["--workspace", "ws"],
    "`runs --limit 20`": [],
}


def expected(count: int, args: list[str]) -> list[str]:
    ids = range(count - 1, -1, -1)
    if args and args[0] == "--issue":
        ids = (n for n in ids if n % ISSUES == 7)
    return [f"run-{n:08d}" for n in ids][:LIMIT]


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    argv = command()
    rows, ok = [], True
    times: dict[str, list[float]] = {}
    for count in (10_000, 100_000):
        base = Path(tempfile.mkdtemp(prefix="bench-runs-"))
        env = isolated_env(base)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        build(Path(env["OPENALICE_HOME"]), count)
        for name, args in QUERIES.items():
            full = argv + ["runs", *args, "--limit", str(LIMIT), "--json"]
            out = subprocess.run(full, env=env, capture_output=True, text=True, check=True)
            got = [r["taskId"] for r in json.loads(out.stdout)["runs"]]
            ok = ok and got == expected(count, args)
            times.setdefault(name, []).append(median_runtime(full, runs=runs, env=env))
    for name, (small, big) in times.items():
        rows.append((name, f"{small * 1000:.0f} ms at 10,000 → {big * 1000:.0f} ms at 100,000 "
                           f"({big / small:.2f}×)"))
    rows.append(("pages hold exactly the newest ids", "yes" if ok else "NO"))
    report("Scheduling: runs listing, 10,000 vs 100,000 records", rows)
    from _common import goal

    worst = max(big / small for small, big in times.values())
    goal("runs", "runs listing flat from 10k to 100k records (worst listing)", f"{worst:.2f}×",
         worst <= 1.5, "≤ 1.5× (flat)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
