"""Stub wrappers and catalogs written into a test's tmp dir.

Each stub is a tiny POSIX sh script that implements (part of) the wrapper
contract and leaves evidence of being run: it appends its argv to
``<name>.calls`` beside itself, so a test can prove a wrapper was, or was
never, executed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

HEADER = '#!/bin/sh\nprintf \'%s\\n\' "$*" >> "$(dirname "$0")/$(basename "$0").calls"\n'

BODIES = {
    # --health ok with a status line; --list-models three ids.
    "healthy": """case "$1" in
  --health) echo '{"ok":true,"detail":"all good","latencyMs":7}'; exit 0 ;;
  --list-models) printf 'm-1\\nm-2\\n\\nm-3\\n'; exit 0 ;;
esac
exit 0
""",
    # Down, and the reason carries credentials that must be redacted.
    "down-leaky": """case "$1" in
  --health) echo '{"ok":false,"detail":"auth failed: api_key=sk-LEAKED0123456789abcdef Authorization: Bearer tok_abcdefghijkl"}'; exit 3 ;;
esac
exit 3
""",
    # Down, reason on stderr only; and echoes the env file's values (must be scrubbed).
    "down-echo-env": """case "$1" in
  --health) [ -f "$HARNESS_ENV_FILE" ] && cat "$HARNESS_ENV_FILE" >&2; echo "engine refused" >&2; exit 3 ;;
esac
exit 3
""",
    # Never finishes (a probe must kill its whole group).
    "hang": """sleep 30 &
echo $! > "$0.child-pid"
wait
""",
    # Exits 1: neither healthy nor a declared 'unavailable'.
    "broken": """echo "segfault-ish" >&2
exit 1
""",
    # JSON model list of objects and strings.
    "json-models": """case "$1" in
  --health) exit 0 ;;
  --list-models) echo '{"models": [{"id": "x-large"}, "x-small"]}'; exit 0 ;;
esac
exit 0
""",
    # --list-models fails (after a list was cached, the stale list is served).
    "list-fails": """case "$1" in
  --health) exit 0 ;;
  --list-models) echo "rate limited; token=abcd1234secret" >&2; exit 1 ;;
esac
exit 0
""",
    # Prints its argv and environment presence for canary checks.
    "env-dump": """case "$1" in
  --health) env > "$(dirname "$0")/$(basename "$0").env-seen"; exit 0 ;;
esac
exit 0
""",
}


def write_stub(directory: Path, name: str, kind: str) -> Path:
    path = Path(directory) / name
    path.write_text(HEADER + BODIES[kind], encoding="utf-8")
    os.chmod(path, 0o755)
    return path


def calls(stub: Path) -> list[str]:
    log = Path(str(stub) + ".calls")
    return log.read_text().splitlines() if log.exists() else []


def adapter(adapter_id: str, wrapper: str, models=("m-1", "m-2"), **extra) -> dict:
    entry = {"id": adapter_id, "kind": "cli", "wrapper": wrapper, "models": list(models)}
    entry.update(extra)
    return entry


def write_catalog(directory: Path, adapters: list[dict], name: str = "adapters.json") -> Path:
    path = Path(directory) / name
    path.write_text(json.dumps({"version": "adapters/v1", "adapters": adapters}, indent=2),
                    encoding="utf-8")
    return path


def standard_catalog(directory: Path) -> Path:
    """A catalog of stubs covering every health and model-list behaviour."""
    directory = Path(directory)
    wrappers = directory / "wrappers"
    wrappers.mkdir(parents=True, exist_ok=True)
    write_stub(wrappers, "good.sh", "healthy")
    write_stub(wrappers, "leaky.sh", "down-leaky")
    write_stub(wrappers, "hang.sh", "hang")
    write_stub(wrappers, "nohealth.sh", "healthy")
    write_stub(wrappers, "flaky.sh", "list-fails")
    return write_catalog(directory, [
        adapter("good", "wrappers/good.sh", models=["m-1", "m-2", "m-3"], health=True,
                listModels=True, envFile="secrets/GOOD.env", env=["GOOD_API_KEY"]),
        adapter("leaky", "wrappers/leaky.sh", health=True),
        adapter("hang", "wrappers/hang.sh", health=True),
        adapter("nohealth", "wrappers/nohealth.sh", models=["n-1"]),
        adapter("flaky", "wrappers/flaky.sh", health=True, listModels=True,
                envFile="wrappers/FLAKY.env"),
    ])
