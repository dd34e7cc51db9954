"""How the Inbox verbs print: origins, file tables, problems (``alice-inbox`` and ``alice inbox``)."""

from __future__ import annotations

from openalice.core.output import table
from openalice.inbox.store import READ_STATE_FILE

from ._dispatch import Context

__all__ = ["warn_problems", "iso", "origin_text", "files_table"]


def warn_problems(ctx: Context, problems: list[dict]) -> None:
    for p in problems:
        if p["file"].endswith(READ_STATE_FILE):
            ctx.warn(f"{p['file']}: {p['reason']}")
        else:
            ctx.warn(f"skipped line at byte {p['offset']} of {p['file']}: {p['reason']}")


def iso(ms: int) -> str:
    from openalice.core import clock  # lazy: only human output prints times; --json must not load the clock

    return clock.to_iso(clock.from_ms(ms))


def origin_text(origin: dict | None) -> str:
    if origin is None:
        return "(none: not stamped)"
    if origin.get("kind") != "headless":
        return origin.get("kind", "?")
    parts = [f"headless run {origin.get('runId')}", f"session {origin.get('resumeId')}"]
    if origin.get("agent"):
        parts.append(f"agent {origin['agent']}")
    if origin.get("issueId"):
        parts.append(f"issue {origin.get('issueWorkspaceId', '?')}/{origin['issueId']}")
    return ", ".join(parts)


def short(revision: str | None) -> str:
    return revision[:19] + "…" if revision else "-"


_STATE_WORDS = {"missing": "missing", "path_escape": "escapes", "not_regular_file": "not-file",
                "unreadable": "unreadable", "workspace_unavailable": "no-workspace"}


def files_table(files: list[dict]) -> str:
    if not files:
        return "  (no file references)"
    rows = []
    for f in files:
        if f["available"]:
            match = f.get("matchesRevision")
            state = "ok" if match else ("changed" if match is False else "new")
            if match is None and "currentRevision" not in f:
                state = "available"
            note = short(f.get("revision"))
            if match is False:
                note += f" → now {short(f['currentRevision'])}"
            if f.get("revision") is None:
                note = "no published revision (unavailable at push time)"
        else:
            state = _STATE_WORDS.get(f.get("reason", ""), "unavailable")
            note = short(f.get("revision")) if f.get("revision") else "no published revision"
        rows.append([state, f["path"], note])
    return "\n".join("  " + line for line in table(rows).splitlines())
