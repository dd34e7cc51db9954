"""The issue detail view's routes and first render (issue 26 item 3), and the
run detail view's first render (item 1), for ``bench_gateway.py``.

Over the browser tests' site (tests/helpers/web_site.py: real CLIs, stand-in
engines), each new route's gateway time per request — the client's round trip
minus the child's run time the gateway reports in ``Server-Timing`` — and the
issue detail view's first render in headless Chromium: from the moment the
last API answer of the view arrived to the next frame after the view says
``ready`` (goal ≤ 300 ms).
"""

from __future__ import annotations

import time
from pathlib import Path

from _common import goal, tool

from tests.helpers.gateway import Served
from tests.helpers.web_site import Site

OWN_GOAL_MS = 10.0
RENDER_GOAL_MS = 300.0
ROUTES = ("/api/issues/notes/daily", "/api/issues/notes/daily/next",
          "/api/issues/notes/daily/thread", "/api/runs?workspace=notes&issue=daily&limit=20",
          "/api/credentials", "/api/models", "/api/agents")

#: One first render: the hash is set, the view fetches, renders and says ``ready``.
RENDER_JS = """
const [target, viewId, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const view = document.getElementById(viewId);
view.dataset.state = 'stale';
performance.clearResourceTimings();
const t0 = performance.now();
location.hash = target;
const check = () => {
  if (view.dataset.state === 'ready' && window.openaliceBusy === 0) {
    requestAnimationFrame(() => {
      const t1 = performance.now();
      const api = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/'));
      const last = Math.max(t0, ...api.map((e) => e.responseEnd));
      done({ total: t1 - t0, afterApi: t1 - last, calls: api.length });
    });
  } else setTimeout(check, 2);
};
check();
"""


def own_time(label: str, once, runs: int, percentile) -> tuple[tuple[str, str], bool]:
    """The gateway's own time of one request kind (``once(i)`` makes the i-th request and returns
    the child's run time in ms, from ``Server-Timing``): its row and whether the goal is met."""
    own = []
    for i in range(runs + 2):          # two warm-ups
        t0 = time.perf_counter()
        cli_ms = once(i)
        if i >= 2:
            own.append((time.perf_counter() - t0) * 1000 - cli_ms)
    p50, p99 = percentile(own, 50), percentile(own, 99)
    met = goal("gateway", f"{label}: gateway's own time, p99", f"{p99:.2f} ms",
               p99 <= OWN_GOAL_MS, f"≤ {OWN_GOAL_MS:.0f} ms")
    return (f"`{label}`: the gateway's own time", f"p50 {p50:.2f} ms, p99 {p99:.2f} ms"), met


def issue_rows(scratch: Path, runs: int, percentile, keep_alive) -> tuple[list[tuple[str, str]], bool]:
    site = Site(scratch / "site").build()
    site.engines.behave("ok")
    tasks = []
    for behaviour in ("ok", "error"):    # one run that ended well, one that failed (its reason shown)
        site.engines.behave(behaviour)
        task = site.json("alice-schedule", "run-now", "notes/daily")["task"]["taskId"]
        site.run("alice-schedule", "run", task, "--wait", "--timeout", "60", "--json")
        tasks.append(task)
    site.engines.behave("ok")
    site.run("alice", "issue", "comment", "daily", "--workspace", "notes", "--body", "Why?",
             "--wait", "--timeout", "60", "--json")
    rows: list[tuple[str, str]] = []
    met = True
    with Served(tool("alice"), site.env) as served:
        client = keep_alive(served)
        for path in ROUTES:
            row, ok = own_time(f"GET {path}", lambda i, path=path: client.get(path)[1], runs, percentile)
            rows.append(row)
            met &= ok
        client.conn.close()
        rows += render_rows(served, runs, percentile, tasks)
    return rows, met


def render_rows(served: Served, runs: int, percentile, tasks: list[str]) -> list[tuple[str, str]]:
    from tests.helpers.browser import find_browser, new_driver

    views = (("issue detail", "issue-view", ["#issue/notes/daily", "#issue/notes/login-bug"]),
             ("run detail", "run-detail", [f"#runs/{task}" for task in tasks]))
    if find_browser()[2]:
        return [(f"{name} first render", f"not measured: {find_browser()[2]}") for name, _, _ in views]
    driver = new_driver(None)
    rows = []
    try:
        driver.set_script_timeout(60)
        driver.get(served.url)
        deadline = time.monotonic() + 30
        while driver.execute_script("return document.getElementById('live').textContent") != "live":
            if time.monotonic() > deadline:
                raise SystemExit("bench_gateway: the page never went live")
            time.sleep(0.05)
        for name, view_id, targets in views:
            after, total = [], []
            for i in range(max(10, runs // 3) + 2):   # alternating targets: each render a fresh one
                got = driver.execute_async_script(RENDER_JS, targets[i % 2], view_id)
                if i >= 2:
                    after.append(got["afterApi"])
                    total.append(got["total"])
            p50, p99 = percentile(after, 50), percentile(after, 99)
            goal("gateway", f"{name}: first render after the API answers, p99", f"{p99:.1f} ms",
                 p99 <= RENDER_GOAL_MS, f"≤ {RENDER_GOAL_MS:.0f} ms")
            rows += [(f"{name} view: first render after the last API answer (headless Chromium)",
                      f"p50 {p50:.1f} ms, p99 {p99:.1f} ms ({len(after)} renders)"),
                     (f"{name} view: hash change to rendered, API calls included",
                      f"p50 {percentile(total, 50):.0f} ms, p99 {percentile(total, 99):.0f} ms")]
    finally:
        driver.quit()
    return rows
