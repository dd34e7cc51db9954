"""Apply one managed plan in a child process (the SIGKILL tests).

    python managed_apply.py ROOT SPEC.json

SPEC: {"targets": {path: text}, "scope": [...], "commit": bool}.  Set
OPENALICE_TEST_CRASH_AFTER=<step> to die by SIGKILL right after that step.
Prints "applied <digest>" when it finishes.
"""

import json
import sys
from datetime import datetime, timezone
from pathlib import Path

root, spec_path = Path(sys.argv[1]), Path(sys.argv[2])
sys.path.insert(0, sys.argv[3])
from openalice import managed

spec = json.loads(spec_path.read_text())
store = managed.Store(root, ".state")
plan = managed.make_plan(root, targets={k: v.encode() for k, v in spec["targets"].items()},
                         baseline=store.baseline(), scope=spec["scope"], walk_trees=spec["scope"])
commit = managed.Commit("test: apply", "Test-Trailer") if spec["commit"] else None
managed.apply_plan(plan, store, owner="test", commit=commit, state={".state/version.json": {"v": spec["v"],
                                                                                           "commit": None}},
                   now=datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc))
print("applied", plan.digest, flush=True)
