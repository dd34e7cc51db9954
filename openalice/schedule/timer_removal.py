"""``alice-schedule uninstall-timer``: remove exactly what ``install-timer --write`` put in place.

- cron: the managed block (the marker comment and the line after it) leaves the
  crontab; every other byte stays as it was, so install then uninstall gives the
  crontab back byte for byte (:func:`timers.merge_crontab` appends without
  touching what was there).  A crontab left empty is removed (``crontab -r``),
  as it was before the first install.
- systemd: the timer is stopped and disabled when ``systemctl`` is there, the
  ``.service`` and ``.timer`` units are removed, systemd reloads.
- launchd: the agent is unloaded when ``launchctl`` is there, the plist removed.

The files are the ones :func:`timers.definition` names for this environment
(``HOME``, ``XDG_CONFIG_HOME``); nothing else is touched (the log directory in
the state home stays: it holds the scans' output).  Removing what is not there
is not an error: the result says nothing was removed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from openalice.core import executables, fs
from openalice.core.errors import OperationalError

from . import timers

__all__ = ["unmerge_crontab", "uninstall"]


def unmerge_crontab(existing: str, marker: str = timers.CRON_MARKER) -> str:
    """``existing`` without the managed block (``marker`` and the line after
    it); every other line, blank ones included, exactly as it was."""
    lines = existing.splitlines(keepends=True)
    kept: list[str] = []
    skip_next = False
    for line in lines:
        if skip_next:
            skip_next = False
            continue
        if line.strip() == marker:
            skip_next = True
            continue
        kept.append(line)
    return "".join(kept)


def _uninstall_cron(spec: dict, out: dict) -> None:
    current = timers.run_timer_tool(["crontab", "-l"])
    if current.returncode != 0:
        if "no crontab" in (current.stderr or "").lower():
            return  # nothing installed
        raise OperationalError(f"crontab -l failed: {current.stderr.strip()}", code="timer_tool_failed")
    marker = spec["files"][0]["content"].splitlines()[0]
    remaining = unmerge_crontab(current.stdout, marker)
    if remaining == current.stdout:
        return
    # A crontab that held only the managed block was made by install-timer: remove it.
    argv, text = (["crontab", "-r"], None) if not remaining.strip() else (["crontab", "-"], remaining)
    result = timers.run_timer_tool(argv, input_text=text)
    if result.returncode != 0:
        raise OperationalError(f"{' '.join(argv)} failed: {result.stderr.strip()}", code="timer_tool_failed")
    out["removed"].append("crontab")
    out["crontab"] = remaining


def _disable(spec: dict, out: dict) -> None:
    """Stop the timer before its files go (best effort: without the tool there is
    nothing running to stop; a failure is reported, the files still go)."""
    kind = spec["kind"]
    if kind == "systemd":
        steps = [["systemctl", "--user", "disable", "--now", f"{timers.UNIT_NAME}.timer"]]
    else:
        steps = [["launchctl", "unload", "-w", item["path"]] for item in spec["files"]]
    for argv in steps:
        if executables.which(argv[0]) is None:
            continue
        result = timers.run_timer_tool(argv)
        out["disabled"].append({"argv": argv, "ok": result.returncode == 0,
                                "detail": (result.stderr or "").strip()[:500]})


def uninstall(kind: str, *, environ: Mapping[str, str] | None = None) -> dict:
    """Remove the timer of ``kind`` that ``install-timer --write`` installed.
    ``{kind, removed: [...], disabled: [{argv, ok, detail}], crontab?}``;
    ``removed`` is empty when there was nothing to remove."""
    environ = os.environ if environ is None else environ
    spec = timers.definition(kind, environ=environ, command=["/alice-schedule"])
    out: dict = {"kind": kind, "removed": [], "disabled": []}
    if kind == "cron":
        _uninstall_cron(spec, out)
        return out
    present = [item["path"] for item in spec["files"] if os.path.lexists(item["path"])]
    if not present:
        return out
    _disable(spec, out)
    for path in present:
        fs.remove_file(path)
        out["removed"].append(path)
    if kind == "systemd" and executables.which("systemctl") is not None:
        timers.run_timer_tool(["systemctl", "--user", "daemon-reload"])
    return out
