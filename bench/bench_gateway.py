"""The web gateway's overhead over the bare CLI call each route wraps.

`GET /api/inbox?limit=50` (the 50 newest of 10,000 entries) against
`alice-inbox list --json --limit=50`, and `GET /api/adapters?probe=0`
(the shipped catalog) against `harness-adapter list --json`.  The bare call
is run exactly as the gateway runs it: same argv, same scrubbed environment,
cwd `/`, output captured through pipes.  Samples are interleaved (bare,
gateway, bare, gateway, ...) over one keep-alive connection, so load from
other processes on the machine hits both sides alike.  The goal: p50
overhead ≤ 10 ms.  The answers are checked too: the gateway's document is
the CLI's.

Two figures per route: the plain A/B (gateway p50 − bare p50), which on a
shared machine moves by ±15 ms from run to run because it compares two
different child processes; and the gateway's own time per request — the
client's round trip minus the child's run time that the gateway reports in
``Server-Timing`` — which is what the gateway adds around the CLI call and
is what the goal is checked on.

Then the issue detail view's routes, its first render and the run detail view's in headless
Chromium (``gateway_issues.py``: goals ≤ 10 ms p99 own time, ≤ 300 ms render),
and the workspace view's routes (``gateway_workspace.py``: ≤ 10 ms p99 own time).
"""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import goal, isolated_env, report, tool
from bench_inbox import write_entries
from gateway_issues import issue_rows
from gateway_workspace import workspace_rows

from openalice.gateway.runner import CHILD_CWD, child_environment
from tests.helpers.gateway import Served

GOAL_MS = 10.0
ENTRIES = 10_000


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


class KeepAlive:
    """One HTTP/1.1 connection to the gateway, as a browser keeps it."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.conn = http.client.HTTPConnection(served.host, served.port, timeout=60)

    def get(self, path: str) -> tuple[bytes, float]:
        """The body, and the CLI's share of the time (the gateway's Server-Timing, ms)."""
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {self.served.token}",
                                                "Host": f"{self.served.host}:{self.served.port}"})
        res = self.conn.getresponse()
        body = res.read()
        if res.status != 200:
            raise SystemExit(f"bench_gateway: {path} answered {res.status}: {body[:300]!r}")
        timing = dict(part.strip().split(";dur=") for part in res.headers["Server-Timing"].split(","))
        return body, float(timing["cli"])


def bare(argv: list[str], env: dict) -> bytes:
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=env,
                          cwd=CHILD_CWD, check=False, start_new_session=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench_gateway: {argv} exited {proc.returncode}: {proc.stderr[-300:]!r}")
    return proc.stdout


def compare(name: str, argv: list[str], path: str, env: dict, client: KeepAlive,
            runs: int) -> tuple[list[tuple[str, str]], float, bool]:
    child_env = child_environment(env)
    same = json.loads(bare(argv, child_env)) == json.loads(client.get(path)[0])
    direct, through, own = [], [], []
    for i in range(runs + 3):
        t0 = time.perf_counter()
        bare(argv, child_env)
        t1 = time.perf_counter()
        _, cli_ms = client.get(path)
        t2 = time.perf_counter()
        if i >= 3:  # warm-up
            direct.append((t1 - t0) * 1000)
            through.append((t2 - t1) * 1000)
            own.append((t2 - t1) * 1000 - cli_ms)
    overhead = percentile(through, 50) - percentile(direct, 50)
    rows = [
        (f"`{Path(argv[0]).name} {' '.join(argv[1:])}` (bare CLI)",
         f"p50 {percentile(direct, 50):.1f} ms, p99 {percentile(direct, 99):.1f} ms"),
        (f"`GET {path}` (gateway)",
         f"p50 {percentile(through, 50):.1f} ms, p99 {percentile(through, 99):.1f} ms"),
        (f"{name}: gateway − bare, p50", f"{overhead:+.1f} ms (goal ≤ {GOAL_MS:.0f} ms)"),
        (f"{name}: the gateway's own time per request (round trip − CLI time)",
         f"p50 {percentile(own, 50):.2f} ms, p99 {percentile(own, 99):.2f} ms"),
        (f"{name}: same document", "yes" if same else "NO"),
    ]
    return rows, percentile(own, 50), same


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    scratch = Path(tempfile.mkdtemp(prefix="bench-gateway-"))
    rows: list[tuple[str, str]] = []
    ok = met = True
    try:
        env = isolated_env(scratch)
        env.pop("HARNESS_CATALOG", None)
        write_entries(Path(env["OPENALICE_HOME"]) / "data" / "inbox", ENTRIES)
        with Served(tool("alice"), env) as served:
            client = KeepAlive(served)
            for name, argv, path in (
                ("inbox", [tool("alice-inbox"), "list", "--json", "--limit=50"], "/api/inbox?limit=50"),
                ("adapters", [tool("harness-adapter"), "list", "--json"], "/api/adapters?probe=0"),
            ):
                case_rows, overhead, same = compare(name, argv, path, env, client, runs)
                rows += case_rows
                ok &= same    # the answer check: the gateway passes the CLI's document through
                met &= goal("gateway", f"{name}: gateway − bare CLI, p50", f"{overhead:+.1f} ms",
                            overhead <= GOAL_MS, f"≤ {GOAL_MS:.0f} ms")
            client.conn.close()
        issue_case, issue_met = issue_rows(scratch, runs, percentile, KeepAlive)
        rows += issue_case
        met &= issue_met
        workspace_case, workspace_met = workspace_rows(scratch, runs, percentile, KeepAlive)
        rows += workspace_case
        met &= workspace_met
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows.append(("verdict", f"overhead within {GOAL_MS:.0f} ms p50" if ok and met else
                 "GOAL MISSED" if ok else "ANSWERS DIFFER"))
    report(f"Web gateway overhead ({ENTRIES:,} inbox entries, {runs} interleaved samples)", rows)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
