"""The workspace view's routes (issue 26 item 4), for ``bench_gateway.py``.

Over the browser tests' site (tests/helpers/web_site.py: real CLIs), each
route the workspace view calls — harness status, config, the upgrade
preview, sticker status, library, pack and one thumbnail, Studio status and
log, sessions, connectors — and one state change (``config set``, a skill
switched on and off in turns): the gateway's own time per request, the
client's round trip minus the child's run time the gateway reports in
``Server-Timing`` (goal ≤ 10 ms p99).
"""

from __future__ import annotations

import json
from pathlib import Path

from _common import tool
from gateway_issues import own_time

from tests.helpers.gateway import Served
from tests.helpers.web_site import Site

ROUTES = ("/api/workspaces/notes/harness", "/api/workspaces/notes/harness/config",
          "/api/workspaces/notes/harness/upgrade", "/api/workspaces/notes/stickers", "/api/stickers",
          "/api/stickers/alice-ink", "/api/stickers/alice-ink/files/wave.png",
          "/api/workspaces/notes/studio", "/api/workspaces/notes/studio/logs",
          "/api/workspaces/notes/sessions", "/api/connectors")
CONFIG = "/api/workspaces/notes/harness/config"


def _post(client, path: str, body: dict) -> float:
    """One state change over the keep-alive connection; the CLI's share (ms)."""
    served = client.served
    client.conn.request("POST", path, body=json.dumps(body).encode(), headers={
        "Authorization": f"Bearer {served.token}", "Host": f"{served.host}:{served.port}",
        "X-OpenAlice-Token": served.token, "Origin": served.origin, "Content-Type": "application/json"})
    res = client.conn.getresponse()
    data = res.read()
    if res.status != 200:
        raise SystemExit(f"bench_gateway: POST {path} answered {res.status}: {data[:300]!r}")
    timing = dict(part.strip().split(";dur=") for part in res.headers["Server-Timing"].split(","))
    return float(timing["cli"])


def workspace_rows(scratch: Path, runs: int, percentile, keep_alive) -> tuple[list[tuple[str, str]], bool]:
    site = Site(scratch / "site-ws").build()
    site.run("alice", "session", "new", "--agent", "claude", "--workspace", "notes")
    site.run("alice", "connector", "add", "desktop", "bell", "--workspace", "notes")
    rows: list[tuple[str, str]] = []
    met = True
    with Served(tool("alice"), site.env) as served:
        client = keep_alive(served)

        def measure(label: str, once) -> None:
            nonlocal met
            row, ok = own_time(label, once, runs, percentile)
            rows.append(row)
            met &= ok

        for path in ROUTES:
            measure(f"GET {path}", lambda i, path=path: client.get(path)[1])
        measure(f"POST {CONFIG} (a skill switch)",
                lambda i: _post(client, CONFIG, {"set": {"skills.file-delivery": i % 2 == 0}}))
        client.conn.close()
    return rows, met
