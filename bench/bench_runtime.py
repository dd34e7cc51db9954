"""Cost of preparing a headless launch against the cost of the launch itself.

Per launch the runner loads the frozen binding, resolves its credential and
projects argv/env (in-process).  Baseline: spawning `/bin/true`, the least a
launch can cost.  Goal: preparation <= 0.5x one bare spawn.  Also times
`alice session new` against `python3 -I -c pass`.  Checks that every
projection agrees (same argv, the key only in env).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import isolated_env, median_call, median_runtime, report, tool

GOAL = 0.5
KEY = "sk-bench-key"


def main() -> int:
    base = Path(tempfile.mkdtemp())
    env = isolated_env(base)
    os.environ.update(OPENALICE_HOME=env["OPENALICE_HOME"], HARNESS_HOME=env["HARNESS_HOME"])
    from datetime import datetime, timezone

    from openalice import agents, credentials, sessions, workspaces

    now = datetime(2026, 11, 30, 9, tzinfo=timezone.utc)
    ws, _ = workspaces.init(base / "ws", now=now)
    credentials.add("or-1", vendor="openrouter", secret=KEY, now=now)
    ids = {a: sessions.create_session(ws, agent=a, credential={"source": "vault", "credentialSlug": "or-1"},
                                      effort="high", now=now).resume_id for a in ("claude", "codex", "opencode", "pi")}
    run_dir = base / "run"
    run_dir.mkdir()
    seen: dict[str, list] = {}
    loops = 200

    def prepare_all():
        for _ in range(loops):
            for agent, rid in ids.items():
                binding = sessions.load_session(ws, rid)
                p = agents.get_adapter(agent).project(binding, prompt="go", workspace=ws.root,
                                                      run_env={"ALICE_RUN_ID": "run-x"}, base_env=os.environ,
                                                      run_dir=run_dir)
                seen.setdefault(agent, []).append(p.argv)
                assert KEY in p.env.values() and not any(KEY in a for a in p.argv)

    per_launch = median_call(prepare_all, repeats=5) / (loops * len(ids))
    agree = all(all(argv == runs[0] for argv in runs) for runs in seen.values())

    spawn_samples = []
    for _ in range(60):
        start = time.perf_counter()
        subprocess.run(["/bin/true"], check=False)
        spawn_samples.append(time.perf_counter() - start)
    spawn_samples.sort()
    spawn = spawn_samples[len(spawn_samples) // 2]
    ratio = per_launch / spawn

    py = median_runtime([sys.executable, "-I", "-c", "pass"], runs=15, env=env)
    cli_env = {**env, "ALICE_NOW": "2026-11-30T09:00:00Z"}
    new = median_runtime([tool("alice"), "session", "new", "--workspace", str(ws.root), "--agent", "codex"],
                         runs=15, env=cli_env)
    report("Runtime launch preparation", [
        ("load binding + resolve credential + project (per launch)", f"{per_launch * 1e6:.0f} µs"),
        ("baseline: spawn `/bin/true`", f"{spawn * 1e6:.0f} µs"),
        ("ratio", f"{ratio:.2f}× (goal ≤ {GOAL}×)"),
        ("`alice session new`", f"{new * 1000:.1f} ms = {new / py:.2f}× `python3 -I -c pass`"),
        ("projections agree", "yes" if agree else "NO"),
    ])
    from _common import goal

    goal("runtime", "launch preparation vs spawning /bin/true", f"{ratio:.2f}×", ratio <= GOAL,
         f"≤ {GOAL}×")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
