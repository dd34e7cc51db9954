"""`alice issue list --all --json` over 100 workspaces × 10 issues, against a bare interpreter.

Builds the workspaces in a temp home (a mix of unscheduled, `every` and cron
issues, block and flow YAML, a few unknown keys), then times the command as
the ratio of medians to `python3 -I -c pass` on the same interpreter.

Check: every issue the command prints is read again independently with
PyYAML (`yaml.safe_load` on the frontmatter) and its title, status, priority,
`when` and unknown keys must agree; the script exits 1 on any disagreement.

    python bench/bench_issues.py [RUNS]

Bytecode: the timed runs may write `__pycache__` (PYTHONDONTWRITEBYTECODE is
dropped from their environment) so a checkout measures what an installed
copy does; the warm-up runs fill the cache.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import isolated_env, median_call, report, tool

WORKSPACES = 100
ISSUES = 10


def build(home: Path, rng: random.Random) -> list[Path]:
    from openalice.core import fs

    roots = []
    records = []
    for w in range(WORKSPACES):
        root = home.parent / "spaces" / f"ws-{w:03d}"
        directory = root / ".alice" / "issues"
        directory.mkdir(parents=True)
        for i in range(ISSUES):
            (directory / f"issue-{i:02d}.md").write_text(issue_text(rng, w, i), encoding="utf-8")
        roots.append(root)
        records.append({"id": f"ws-{w:03d}", "label": f"Workspace {w}", "path": str(root.resolve()),
                        "template": "blank", "createdAt": "2026-01-01T00:00:00Z"})
    fs.atomic_write_json(home / "workspaces.json", {"version": 1, "workspaces": records})
    return roots


def issue_text(rng: random.Random, w: int, i: int) -> str:
    lines = [f"title: Issue {i} of workspace {w}",
             f"status: {rng.choice(['backlog', 'todo', 'todo', 'in_progress', 'done'])}",
             f"priority: {rng.choice(['urgent', 'high', 'medium', 'low', 'none'])}"]
    kind = i % 3
    if kind == 1:
        lines.append(f"when: {{kind: every, every: {rng.choice(['30m', '2h', '1h30m'])}}}")
    elif kind == 2:
        lines += ["when:", "  kind: cron", f"  cron: \"{rng.randint(0, 59)} {rng.randint(0, 23)} * * 1-5\"",
                  f"  timezone: {rng.choice(['UTC', 'Europe/Paris', 'America/New_York'])}"]
    if rng.random() < 0.5:
        lines.append(f"agent: {rng.choice(['claude', 'codex'])}")
    if rng.random() < 0.2:
        lines.append("# a person's note\nteam: ops")
    body = "\n".join(f"Step {n}: do part {n} of the work." for n in range(rng.randint(1, 8)))
    return "---\n" + "\n".join(lines) + "\n---\n\n" + body + "\n"


def check(output: str) -> int:
    import yaml

    doc = json.loads(output)
    bad = 0
    if doc["invalid"] or len(doc["issues"]) != WORKSPACES * ISSUES:
        print(f"MISMATCH: {len(doc['issues'])} issues, {len(doc['invalid'])} invalid")
        return 1
    for issue in doc["issues"]:
        text = Path(issue["path"]).read_text(encoding="utf-8")
        data = yaml.safe_load(text.split("---\n")[1])
        want = {"title": data["title"], "status": data.get("status", "todo"),
                "priority": data.get("priority", "none")}
        got = {k: issue[k] for k in want}
        when = data.get("when")
        if when and when["kind"] == "cron":
            when = {**when, "catchUp": when.get("catchUp", True)}
        extra = {k: v for k, v in data.items() if k not in (
            "title", "status", "priority", "when", "agent")}
        if got != want or issue["when"] != when or issue["extra"] != extra \
                or issue["agent"] != data.get("agent"):
            bad += 1
            if bad <= 3:
                print(f"MISMATCH {issue['path']}: {got} {issue['when']} vs {want} {when}")
    return bad


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    base = Path(tempfile.mkdtemp(prefix="bench-issues-"))
    env = isolated_env(base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["ALICE_NOW"] = "2026-06-01T12:00:00Z"
    home = Path(env["OPENALICE_HOME"])
    os.environ["OPENALICE_HOME"] = str(home)   # for the in-process scan
    home.mkdir(parents=True)
    build(home, random.Random(42))
    argv = [tool("alice"), "issue", "list", "--all", "--json"]
    result = subprocess.run(argv, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        print(result.stderr)
        return 1
    mismatches = check(result.stdout)
    baseline, listing = interleaved([sys.executable, "-I", "-c", "pass"], argv, runs, env)
    scan = in_process_scan()
    report("Issues", [
        ("workspaces × issues", f"{WORKSPACES} × {ISSUES} = {WORKSPACES * ISSUES} files"),
        ("baseline `python3 -I -c pass`", f"{baseline * 1000:.1f} ms"),
        ("`alice issue list --all --json`", f"{listing * 1000:.1f} ms = {listing / baseline:.1f}×"),
        ("per issue file (minus baseline)", f"{(listing - baseline) * 1e6 / (WORKSPACES * ISSUES):.0f} µs"),
        ("`read_issues` in process, 1000 files", f"{scan * 1000:.1f} ms ({scan * 100:.1f} ms per 100 files)"),
        ("check against PyYAML", "all 1000 agree" if not mismatches else f"{mismatches} DISAGREE"),
    ])
    return 1 if mismatches else 0


def interleaved(base_argv: list[str], argv: list[str], runs: int, env: dict,
                warmup: int = 3) -> tuple[float, float]:
    """Medians of the two commands run alternately, so load drift hits both alike."""
    base, cmd = [], []
    for i in range(warmup + runs):
        for argv_, out in ((base_argv, base), (argv, cmd)):
            start = time.perf_counter()
            subprocess.run(argv_, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            if i >= warmup:
                out.append(time.perf_counter() - start)
    return statistics.median(base), statistics.median(cmd)


def in_process_scan() -> float:
    from openalice import workspaces
    from openalice.issues import read_issues

    spaces = workspaces.list_workspaces()
    return median_call(lambda: [read_issues(ws) for ws in spaces], repeats=9)


if __name__ == "__main__":
    raise SystemExit(main())
