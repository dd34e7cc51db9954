"""Writer for the issue index's crash test: edits issues and rewrites the index until killed.

    python index_writer.py WORKSPACE_DIR SEED
"""

import os
import random
import sys
from datetime import datetime, timezone

from openalice.issues import board
from openalice.workspaces import Workspace

root = sys.argv[1]
rng = random.Random(sys.argv[2])
ws = Workspace(id=os.path.basename(root), label="W", path=root, template="blank",
               createdAt="2026-01-01T00:00:00Z")
issues = os.path.join(root, ".alice", "issues")
now = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
i = 0
while True:
    i += 1
    name = f"k{rng.randint(0, 30)}.md"
    with open(os.path.join(issues, name), "w", encoding="utf-8") as fh:
        fh.write(f"---\ntitle: K {i}\nwhen: {{kind: every, every: 2h}}\n---\n\n{'x' * rng.randint(0, 3000)}\n")
    board.listing([ws], now)  # rewrites the index: the file changed
    if i == 1:
        print("ready", flush=True)
