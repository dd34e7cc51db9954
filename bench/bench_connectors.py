"""Connectors: delivering the Inbox to a loopback Telegram server and webhook.

1. **Delivery CPU per entry** — 1,000 text entries, a Telegram connector and a
   webhook connector (``--backfill``), both far sides answering at once from
   another process (their CPU is not counted): the toolkit's own CPU
   (``time.process_time`` of :func:`openalice.connectors.delivery.deliver`)
   per delivered entry, goal ≤ 2 ms.  Check: each server got every entry
   exactly once, in order.
2. **The scan with connectors configured and nothing to send** — the added
   cost of the connectors' check in ``alice-schedule scan``: in a fresh
   interpreter that has loaded the scan's own modules, the check the scan adds
   (:func:`openalice.schedule.fastpath.connectors_quiet`), median of 30,
   goal ≤ 1 ms.  Reported beside it: the
   whole nothing-due scan with and without the connectors configured
   (child CPU, interleaved rounds).  Check: the quiet answer is "nothing to do"
   and the scan sends nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, goal, interleaved, isolated_env, report

sys.path.insert(0, str(REPO))

ENTRIES = 1000
TOKEN = "123456:bench-token-bench-token-bench"
NOW = "2026-11-30T09:00:00Z"

SERVER = r'''
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
seen = []
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def log_message(self, *a): pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/count":
            data = json.dumps(seen).encode()
        else:
            doc = json.loads(body)
            seen.append(doc.get("text") or doc.get("entry", {}).get("body"))
            data = json.dumps({"ok": True, "result": {"message_id": len(seen)}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
'''


def start_server() -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    return proc, int(proc.stdout.readline())


def seen(port: int) -> list:
    import urllib.request
    req = urllib.request.Request(f"http://127.0.0.1:{port}/count", data=b"{}", method="POST")
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())


def delivery_cpu(base: Path) -> tuple[float, bool]:
    os.environ.update(isolated_env(base))
    from openalice import inbox, workspaces
    from openalice.connectors import admin, delivery
    from openalice.core import clock

    now = clock.parse_instant(NOW)
    ws, _ = workspaces.init(base / "ws", label="Bench", now=now)
    store = inbox.InboxStore()
    bodies = [f"# Report {n}\n\nNothing unusual today ({n})." for n in range(ENTRIES)]
    for body in bodies:
        inbox.push(body, workspace=ws, origin={"kind": "manual"}, now=now, store=store,
                   record_fact=False)
    tg, tg_port = start_server()
    hook, hook_port = start_server()
    try:
        rec = admin.build_record("telegram", "phone", workspace_ids=[], chat_ids=["1"],
                                 api_base=f"http://127.0.0.1:{tg_port}")
        admin.add(rec, secret=TOKEN, backfill=True, replace=False, now=now)
        rec = admin.build_record("webhook", "hook", workspace_ids=[],
                                 url=f"http://127.0.0.1:{hook_port}/hook")
        admin.add(rec, secret=None, backfill=True, replace=False, now=now)
        start = time.process_time()
        result = delivery.deliver(now_ms=clock.to_ms(now))
        cpu = time.process_time() - start
        sent = sum(r["sent"] for r in result["connectors"])
        ok = sent == 2 * ENTRIES and seen(tg_port) == bodies and seen(hook_port) == bodies
        return cpu / (2 * ENTRIES), ok
    finally:
        tg.kill()
        hook.kill()


# What the scan has imported by then (its own modules) is imported first; the
# timer covers what the connectors add: importing their check and running it.
QUIET = ("import time, sys\nfrom openalice.cli import schedule_scan\n"
         "from openalice.schedule import fastpath, scan_entry\n"
         "t = time.process_time()\nr = fastpath.connectors_quiet(int(sys.argv[1]))\n"
         "print(time.process_time() - t, r)")


def scan_cost(base: Path) -> tuple[float, dict, bool]:
    """Nothing to send: the quiet check in a fresh interpreter, and the whole scan A/B."""
    env = isolated_env(base)
    env["ALICE_NOW"] = NOW
    alice = str(Path(sys.executable).parent / "alice")
    sched = str(Path(sys.executable).parent / "alice-schedule")
    subprocess.run([alice, "workspace", "init", str(base / "ws"), "--label", "W"], env=env,
                   check=True, capture_output=True)
    bare = dict(env, OPENALICE_HOME=str(base / "bare"))
    shutil.copytree(base / "home", base / "bare")
    subprocess.run([alice, "connector", "add", "webhook", "hook", "--url",
                    "http://127.0.0.1:9/never"], env=env, check=True, capture_output=True)
    subprocess.run([alice, "connector", "add", "desktop", "bell"], env=env, check=True,
                   capture_output=True)
    for e in (env, bare):  # prime the scan cache and the quiet marker
        subprocess.run([sched, "scan"], env=e, check=True, capture_output=True)
        subprocess.run([sched, "scan"], env=e, check=True, capture_output=True)
    now_ms = 1796029200000
    samples, answers = [], set()
    for _ in range(30):
        out = subprocess.run([sys.executable, "-c", QUIET, str(now_ms)], env=env, check=True,
                             capture_output=True, text=True, cwd=str(REPO)).stdout.split()
        samples.append(float(out[0]))
        answers.add(out[1])
    last = json.loads(subprocess.run([sched, "scan", "--json"], env=env, check=True,
                                     capture_output=True, text=True).stdout)
    runs = interleaved({"with connectors": ["env", f"OPENALICE_HOME={env['OPENALICE_HOME']}",
                                            sched, "scan"],
                        "without": ["env", f"OPENALICE_HOME={bare['OPENALICE_HOME']}", sched,
                                    "scan"]}, rounds=30, env=env)
    with_cpu, without_cpu = runs["with connectors"].cpu, runs["without"].cpu
    figures = {"with connectors": statistics.median(with_cpu),
               "without": statistics.median(without_cpu),
               "difference (median of per-round differences)":
                   statistics.median(a - b for a, b in zip(with_cpu, without_cpu))}
    ok = answers == {"True"} and "connectors" not in last
    return statistics.median(samples), figures, ok


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        per_entry, ok1 = delivery_cpu(Path(tmp) / "deliver")
    with tempfile.TemporaryDirectory() as tmp:
        quiet_cpu, ab, ok2 = scan_cost(Path(tmp))
    rows = [("delivery CPU per entry (1,000 entries x telegram + webhook)",
             f"{per_entry * 1000:.2f} ms"),
            ("nothing to send: the scan's connectors check (fresh interpreter, median of 30)",
             f"{quiet_cpu * 1000:.3f} ms")]
    for name, value in ab.items():
        rows.append((f"nothing-due scan, {name} (child CPU)", f"{value * 1000:.2f} ms"))
    report("connectors", rows)
    goal("connectors", "delivery CPU per entry", f"{per_entry * 1000:.2f} ms", per_entry <= 0.002,
         "≤ 2 ms")
    goal("connectors", "scan's added cost, nothing to send", f"{quiet_cpu * 1000:.3f} ms",
         quiet_cpu <= 0.001, "≤ 1 ms")
    if not (ok1 and ok2):
        print("CHECK FAILED: delivered entries or the quiet answer are wrong", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
