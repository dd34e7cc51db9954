"""Worker for the Inbox concurrency and crash tests: drives the real API.

    inbox_worker.py REPO push WORKSPACE_ID N TAG      push N entries, print "done"
    inbox_worker.py REPO forever WORKSPACE_ID TAG     push until killed (prints "ready" after the first)
    inbox_worker.py REPO mark-all-read N              run mark-all-read N times, print each result as JSON
    inbox_worker.py REPO read ID                      mark one entry read
"""

import json
import sys
from datetime import datetime, timezone

sys.path.insert(0, sys.argv[1])

from openalice import inbox, workspaces
from openalice.core import clock


def now():
    return datetime.now(timezone.utc)


mode = sys.argv[2]
store = inbox.InboxStore()
if mode == "push":
    ws = workspaces.get(sys.argv[3])
    for i in range(int(sys.argv[4])):
        inbox.push(f"{sys.argv[5]} #{i} [[notes/a.md]]", workspace=ws, origin={"kind": "manual"},
                   now=now())
    print("done", flush=True)
elif mode == "forever":
    ws = workspaces.get(sys.argv[3])
    i = 0
    while True:
        inbox.push(f"{sys.argv[4]} #{i} " + "x" * (i * 997 % 20000), workspace=ws,
                   origin={"kind": "manual"}, now=now())
        if i == 0:
            print("ready", flush=True)
        i += 1
elif mode == "mark-all-read":
    for _ in range(int(sys.argv[3])):
        print(json.dumps(inbox.mark_all_read(store, now_ms=clock.to_ms(now()))), flush=True)
elif mode == "read":
    inbox.mark_read(store, sys.argv[3], now_ms=clock.to_ms(now()))
    print("done", flush=True)
else:
    raise SystemExit(f"unknown mode {mode}")
