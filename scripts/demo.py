"""`make demo`: the whole work-and-delivery loop in a throwaway home.

A workspace gets a scheduled issue; `alice-schedule scan` finds it due and
starts a supervised headless run; the agent -- a small stand-in engine
registered as a harness-adapter catalog entry (a wrapper following Wrapper
contract v1, so no model, key or network is needed) -- writes
`reports/demo.md` and publishes it with `alice inbox push` and a
`[[reports/demo.md]]` reference.  The demo then shows the run, the Inbox
entry with its pinned revision, the activity journal and the automation
health.

Everything lives under one temp directory (both homes, the catalog and the
workspace), so the demo never touches your real ~/.openalice or ~/.harness.
Set DEMO_KEEP=1 to keep it for a look around.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# The stand-in agent: Wrapper contract v1 (docs/WRAPPER-CONTRACT.md).  It runs
# with cwd = the workspace and ALICE_RUN_ID/ALICE_RESUME_ID/ALICE_WORKSPACE_ID
# set, so `alice inbox push` knows the workspace and stamps the run's origin.
WRAPPER = r'''#!{python}
"""Demo engine wrapper: writes reports/demo.md and publishes it to the Inbox."""
import json, os, subprocess, sys

def emit(**event):
    print(json.dumps(event), flush=True)

args = sys.argv[1:]
def option(name):
    if name in args:
        i = args.index(name)
        return args[i + 1] if i + 1 < len(args) else None
    return None

model = option("--model")
if not model:
    print("demo-writer: --model is required", file=sys.stderr)
    sys.exit(2)
prompt_file = option("--prompt-file")
prompt = open(prompt_file).read() if prompt_file else sys.stdin.read()
session = option("--resume") or "demo-session-" + os.environ.get("ALICE_RUN_ID", "local")
emit(type="session", id=session)
emit(type="text", text="On it: " + prompt.strip())

emit(type="tool", id="t1", name="write_file", status="running", input={{"path": "reports/demo.md"}})
os.makedirs("reports", exist_ok=True)
with open("reports/demo.md", "w", encoding="utf-8") as fh:
    fh.write("# Demo report\n\n"
             f"- run: {{os.environ.get('ALICE_RUN_ID')}}\n"
             f"- session: {{os.environ.get('ALICE_RESUME_ID')}}\n"
             f"- model: {{model}}\n\n"
             "Everything is fine. This file was written by the demo agent.\n")
emit(type="tool", id="t1", name="write_file", status="completed", output="wrote reports/demo.md")

emit(type="tool", id="t2", name="alice inbox push", status="running")
body = "The demo report is ready: [[reports/demo.md]]\n"
pushed = subprocess.run(["alice", "inbox", "push", "--body-file", "-", "--json"], input=body,
                        capture_output=True, text=True)
if pushed.returncode != 0:
    emit(type="tool", id="t2", name="alice inbox push", status="failed", output=pushed.stderr)
    emit(type="error", message="could not publish the report: " + pushed.stderr.strip())
    sys.exit(1)
entry = json.loads(pushed.stdout)
emit(type="tool", id="t2", name="alice inbox push", status="completed", output="published " + entry["id"])
emit(type="text", text="Wrote reports/demo.md and published it to the Inbox as " + entry["id"] + ".")
'''

CATALOG = {
    "version": "adapters/v1",
    "adapters": [{
        "id": "demo-writer", "kind": "cli", "label": "Demo writer (stand-in agent)",
        "description": "Writes reports/demo.md and publishes it to the Inbox; needs no model or key.",
        "wrapper": "demo-writer", "models": ["demo-1"], "stream": "wrapper-jsonl",
    }],
}


def tool(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else str(REPO / "bin" / name)


def step(title: str, *argv: str, env: dict, cwd: Path | None = None, show: bool = True) -> str:
    if show:
        # Shell-quoted, so a line can be pasted as it is printed.
        print(f"\n$ {shlex.join([Path(argv[0]).name, *argv[1:]])}    # {title}", flush=True)
    result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    if show:
        sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        if not show:
            sys.stdout.write(result.stdout)
        raise SystemExit(f"demo step failed (exit {result.returncode}): {title}")
    return result.stdout


def main() -> int:
    keep = os.environ.get("DEMO_KEEP")
    base = Path(tempfile.mkdtemp(prefix="openalice-demo-"))
    catalog_dir = base / "catalog"
    catalog_dir.mkdir()
    wrapper = catalog_dir / "demo-writer"
    wrapper.write_text(WRAPPER.format(python=sys.executable), encoding="utf-8")
    wrapper.chmod(0o755)
    (catalog_dir / "adapters.json").write_text(json.dumps(CATALOG, indent=2) + "\n", encoding="utf-8")
    env = dict(os.environ, OPENALICE_HOME=str(base / "home"), HARNESS_HOME=str(base / "harness"),
               HARNESS_CATALOG=str(catalog_dir / "adapters.json"), NO_COLOR="1")
    for name in ("ALICE_NOW", "ALICE_RUN_ID", "ALICE_RESUME_ID", "ALICE_WORKSPACE_ID"):
        env.pop(name, None)
    ws = base / "workspaces" / "demo"
    try:
        print(f"demo home: {base}")
        step("create a workspace", tool("alice"), "workspace", "init", str(ws), "--label", "Demo", env=env)
        step("check the stand-in agent's catalog entry", tool("harness-adapter"), "validate", env=env)
        step("schedule an issue for the stand-in agent", tool("alice"), "issue", "create",
             "--title", "Demo report", "--id", "demo-report", "--every", "1h",
             "--agent", "demo-writer", "--model", "demo-1",
             "--body", "Write reports/demo.md and publish it to the Inbox.", env=env, cwd=ws)
        step("scan: the issue is due, so a supervised run starts", tool("alice-schedule"), "scan", env=env)
        runs = json.loads(step("runs", tool("alice-schedule"), "runs", "--issue", "demo/demo-report", "--json",
                               env=env, show=False))["runs"]
        if len(runs) != 1:
            raise SystemExit(f"demo: expected one run of demo-report, found {len(runs)}")
        task_id = runs[0]["taskId"]
        step("wait for it (the supervisor runs detached)", tool("alice-schedule"), "run", task_id, "--wait",
             "--timeout", "60", env=env, show=False)
        step("the run", tool("alice-schedule"), "run", task_id, env=env)
        run = json.loads(step("run as JSON", tool("alice-schedule"), "run", task_id, "--json", env=env,
                              show=False))
        if run["task"]["status"] != "done":
            raise SystemExit(f"demo: the run ended {run['task']['status']}")
        entries = json.loads(step("inbox", tool("alice"), "inbox", "list", "--json", env=env, show=False))
        items = entries.get("entries", entries) if isinstance(entries, dict) else entries
        if not items:
            raise SystemExit("demo: the agent published nothing")
        step("the Inbox", tool("alice"), "inbox", "list", env=env)
        step("the entry, with the pinned revision of reports/demo.md", tool("alice"), "inbox", "show",
             items[0]["id"], env=env)
        step("the referenced file, as the agent published it", tool("alice"), "inbox", "cat", items[0]["id"],
             "reports/demo.md", env=env)
        step("the activity journal", tool("alice"), "journal", "--limit", "10", env=env)
        step("automation health", tool("alice-schedule"), "health", env=env)
        print("\ndemo finished")
    finally:
        if keep:
            print(f"(kept {base})")
        else:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
