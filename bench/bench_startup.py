"""Start-up cost of every read verb (and of `--help`/`--version`) against a
bare interpreter, `python3 -I -c pass` on the same interpreter.

Goal: every read verb ≤ 2.5× the bare interpreter (stretch ≤ 2×), as the
installed console script and as the checkout launcher `bin/<tool>`; the
static `--help`/`--version` ≤ 1.3×.  The web gateway and scripts call these
per request, so what counts is the whole process.

The floor — `import json, pathlib`, which every verb reading state pays — is
measured the same way and reported.

Method: the verbs listed in `bench/read_verbs.py` run against a small home
built with the tools themselves (three workspaces with issues, Inbox entries
mostly read, journal facts).  For each verb the baseline, the console script
and the launcher take turns in every round (20 rounds after 3 warm-ups); the
ratio is the median of the per-round CPU-time ratios (user + system, from
`wait4`: on a loaded machine wall time measures the wait for a core).  Check:
every verb exits 0 and its `--json` output parses, before any timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO, goal, interleaved, isolated_env, paired_ratio, report, tool
from read_verbs import READ_VERBS, STATIC, build_state, fill

GOAL = 2.5
STRETCH = 2.0
STATIC_GOAL = 1.3


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    base = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    env = isolated_env(base)
    env["HOME"] = str(base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    values = build_state(base, env, lambda name: [tool(name)])
    baseline = [sys.executable, "-I", "-c", "pass"]
    ok = True
    rows = []
    worst = {"console script": 0.0, "bin/ launcher": 0.0}
    stretch_met = True
    for kind, verbs in (("static", STATIC), ("read", READ_VERBS)):
        for name, argv, where in verbs:
            argv = fill(argv, values)
            cwd = values["workspace"] if where == "workspace" else str(base)
            console = [tool(name), *argv]
            launcher = [sys.executable, str(REPO / "bin" / name), *argv]
            check = subprocess.run(console, env=env, cwd=cwd, capture_output=True, text=True)
            if check.returncode != 0 or ("--json" in argv and not _parses(check.stdout)):
                print(f"CHECK FAILED: {name} {' '.join(argv)}: exit {check.returncode} "
                      f"{check.stderr.strip()[:200]}", flush=True)
                ok = False
                continue
            s = interleaved({"base": baseline, "console": console, "launcher": launcher},
                            rounds=rounds, env=env, cwd=cwd)
            label = f"`{name} {' '.join(argv)}`"
            limit = STATIC_GOAL if kind == "static" else GOAL
            for how, key in (("console script", "console"), ("bin/ launcher", "launcher")):
                ratio = paired_ratio(s[key].cpu, s["base"].cpu)
                wall = paired_ratio(s[key].wall, s["base"].wall)
                if kind == "read":
                    worst[how] = max(worst[how], ratio)
                    stretch_met &= ratio <= STRETCH
                rows.append((f"{label} ({how})",
                             f"cpu {s[key].cpu_median * 1000:.1f} ms = {ratio:.2f}×, wall "
                             f"{s[key].wall_median * 1000:.1f} ms = {wall:.2f}× (baseline cpu "
                             f"{s['base'].cpu_median * 1000:.1f} ms)"))
                goal("startup", f"{name} {' '.join(argv)} ({how})", f"{ratio:.2f}× cpu",
                     ratio <= limit, f"≤ {limit}×")
    # What any verb that reads state as JSON through paths pays before its own
    # first line: json (re, enum, functools, collections) and pathlib (urllib.parse,
    # ipaddress, fnmatch).  Reported so the ratios above can be read against it.
    floor = interleaved({"base": baseline, "floor": [sys.executable, "-I", "-c", "import json, pathlib"]},
                        rounds=rounds, env=env)
    rows.append(("floor: `python3 -I -c 'import json, pathlib'`",
                 f"{paired_ratio(floor['floor'].cpu, floor['base'].cpu):.2f}× cpu"))
    rows.append(("worst read verb", ", ".join(f"{how} {r:.2f}×" for how, r in worst.items())
                 + f"; stretch ≤ {STRETCH}× {'met' if stretch_met else 'not met'} by every verb"))
    rows.append(("every verb ran and its output parsed", "yes" if ok else "NO"))
    report("Start-up of every read verb", rows)
    return 0 if ok else 1


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    raise SystemExit(main())
