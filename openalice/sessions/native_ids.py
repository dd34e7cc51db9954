"""How each engine's own session id becomes known when a person opens a new session.

A later ``open`` or scheduled run resumes the same conversation only if the
engine's id is recorded, so it is recorded as soon as it is known:

========  ===================================================================
claude    given up front: ``--session-id <uuid4>`` (recorded before launch)
codex     its rollout file ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``
          (first line ``session_meta``: ``payload.id``, ``payload.cwd``)
pi        its session file in the workspace's session directory
          (``--session-dir``, else pi's default one; first line ``{"type":
          "session", "id", "cwd"}``)
opencode  ``opencode session list --format json`` after the CLI exits
          (an entry of this directory created since the launch)
wrapper   what the wrapper wrote to ``$HARNESS_SESSION_FILE`` (a file in the
          session's private launch directory; docs/WRAPPER-CONTRACT.md)
========  ===================================================================

Each finder reads names and the first line of files the engine wrote since the
launch, never a credential or a transcript's content.  A finder that finds
nothing returns None: the next ``open`` then starts a fresh conversation
(documented; never a guess at somebody else's session).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from openalice.agents.pi import native_session_dir

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Callable, Mapping, Sequence

__all__ = ["UP_FRONT", "fresh_native_id", "finder_for", "FIRST_LINE_BYTES", "SESSION_FILE_VAR"]

#: The variable naming the file a catalog wrapper may write its engine's new session id to.
SESSION_FILE_VAR = "HARNESS_SESSION_FILE"

#: Engines that accept a new session's id up front, and the flag that gives it.
UP_FRONT = {"claude": "--session-id"}
FIRST_LINE_BYTES = 64 * 1024
LIST_TIMEOUT = 15.0


def fresh_native_id() -> str:
    import uuid  # lazy: only a new claude session names its id

    return str(uuid.uuid4())


def _first_record(path: Path) -> dict | None:
    try:
        with open(path, "rb") as handle:
            line = handle.readline(FIRST_LINE_BYTES)
        record = json.loads(line)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _same_dir(a: object, b: Path) -> bool:
    return isinstance(a, str) and os.path.realpath(a) == os.path.realpath(b)


def _newer_files(directory: Path, pattern: str, since: float) -> list[Path]:
    try:
        found = [(p.stat().st_mtime, p) for p in directory.glob(pattern)]
    except OSError:
        return []
    return [p for mtime, p in sorted(found, reverse=True) if mtime >= since]


def _codex(env: Mapping[str, str], argv: Sequence[str], workspace: Path, since: float) -> str | None:
    home = Path(env.get("CODEX_HOME") or Path(env.get("HOME") or os.path.expanduser("~")) / ".codex")
    for path in _newer_files(home / "sessions", "*/*/*/rollout-*.jsonl", since):
        record = _first_record(path)
        payload = (record or {}).get("payload")
        if (record or {}).get("type") == "session_meta" and isinstance(payload, dict) \
                and _same_dir(payload.get("cwd"), workspace) and isinstance(payload.get("id"), str):
            return payload["id"]
    return None


def _pi(env: Mapping[str, str], argv: Sequence[str], workspace: Path, since: float) -> str | None:
    argv = list(argv)
    if "--session-dir" in argv and argv.index("--session-dir") + 1 < len(argv):
        directory = Path(argv[argv.index("--session-dir") + 1])
    elif env.get("PI_CODING_AGENT_SESSION_DIR"):
        directory = Path(env["PI_CODING_AGENT_SESSION_DIR"])
    else:
        directory = native_session_dir(env, workspace)
    for path in _newer_files(directory, "*.jsonl", since):
        record = _first_record(path) or {}
        if record.get("type") == "session" and isinstance(record.get("id"), str) \
                and (record.get("cwd") is None or _same_dir(record.get("cwd"), workspace)):
            return record["id"]
    return None


def _created_ms(entry: dict) -> float | None:
    for value in (entry.get("created"), (entry.get("time") or {}).get("created")
                  if isinstance(entry.get("time"), dict) else None, entry.get("updated")):
        if isinstance(value, (int, float)):
            return float(value)
    return None


def _opencode(env: Mapping[str, str], argv: Sequence[str], workspace: Path, since: float) -> str | None:
    import subprocess  # lazy: only a new opencode session asks the CLI for its sessions

    try:
        done = subprocess.run([argv[0], "session", "list", "--format", "json"], cwd=workspace, env=dict(env),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=LIST_TIMEOUT)
        entries = json.loads(done.stdout or b"[]")
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    if isinstance(entries, dict):
        entries = entries.get("sessions") or []
    best: tuple[float, str] | None = None
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        if entry.get("directory") is not None and not _same_dir(entry.get("directory"), workspace):
            continue
        created = _created_ms(entry)
        if created is None or created < since * 1000 - 1000:
            continue
        if best is None or created > best[0]:
            best = (created, entry["id"])
    return None if best is None else best[1]


_FINDERS: dict[str, tuple[Callable[..., str | None], bool]] = {
    # engine: (finder, may run while the CLI is open)
    "codex": (_codex, True),
    "pi": (_pi, True),
    "opencode": (_opencode, False),
}


def _wrapper(env: Mapping[str, str], argv: Sequence[str], workspace: Path, since: float) -> str | None:
    try:
        with open(env[SESSION_FILE_VAR], "rb") as handle:
            value = handle.read(1024).decode("utf-8", "replace").strip()
    except (KeyError, OSError):
        return None
    return value or None


def finder_for(agent: str, env: Mapping[str, str] | None = None) -> tuple[Callable[..., str | None], bool] | None:
    """``(finder(env, argv, workspace, since_epoch) -> id | None, live)`` for ``agent``, or None."""
    if env is not None and env.get(SESSION_FILE_VAR):
        return (_wrapper, True)
    return _FINDERS.get(agent)
