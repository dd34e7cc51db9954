"""`make demo`: the toolkit end to end in a throwaway home.

Everything happens under a temp directory (both homes and the workspace), so
the demo never touches your real ~/.openalice or ~/.harness.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def tool(name: str) -> str:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else str(REPO / "bin" / name)


def step(title: str, *argv: str, env: dict, cwd: Path | None = None, check: bool = True) -> str:
    print(f"\n$ {' '.join([Path(argv[0]).name, *argv[1:]])}    # {title}", flush=True)
    result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if check and result.returncode != 0:
        raise SystemExit(f"demo step failed (exit {result.returncode}): {title}")
    return result.stdout


def main() -> int:
    keep = os.environ.get("DEMO_KEEP")
    base = Path(tempfile.mkdtemp(prefix="openalice-demo-"))
    env = dict(os.environ, OPENALICE_HOME=str(base / "home"), HARNESS_HOME=str(base / "harness"))
    env.pop("ALICE_NOW", None)
    ws = base / "workspaces" / "demo"
    try:
        print(f"demo home: {base}")
        step("create a workspace", tool("alice"), "workspace", "init", str(ws), "--label", "Demo", env=env)
        step("list workspaces", tool("alice"), "workspace", "list", env=env)
        print("\ndemo finished")
    finally:
        if keep:
            print(f"(kept {base})")
        else:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
