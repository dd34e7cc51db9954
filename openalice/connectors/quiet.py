"""Is there anything for the connectors to do?  Two ``stat`` calls and one
small read, for the timer's scan (``schedule/scan_entry.py``).

The marker ``state/connectors/quiet`` (written by :mod:`.state` after a full
delivery pass) records the entries file's size and mtime, the connectors
directory's, the earliest retry instant and whether any connector polls a
chat.  Nothing to do means: no connectors directory at all, or a marker that
still matches, with no retry due and no inbound poll.  Anything else (no
marker, a changed file, a damaged marker) means "look": the delivery pass
decides.  Imports only ``os`` and the plain-string homes.
"""

from __future__ import annotations

import os

from openalice.core.homes import openalice_home

__all__ = ["nothing_to_do"]


def _stat_key(path: str) -> str:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def nothing_to_do(now_ms: int) -> bool:
    home = openalice_home()
    connectors = os.path.join(home, "connectors")
    connectors_key = _stat_key(connectors)
    if connectors_key == "-":
        return True  # no connector was ever added
    try:
        with open(os.path.join(home, "state", "connectors", "quiet"), "rb") as fh:
            fields = fh.read(256).decode("ascii").split()
    except (OSError, UnicodeDecodeError):
        return False
    if len(fields) != 5 or fields[0] != "v1" or fields[4] != "0":
        return False
    entries = os.path.join(home, "data", "inbox", "entries.jsonl")
    if fields[1] != _stat_key(entries) or fields[2] != connectors_key:
        return False
    due = fields[3]
    return due == "-" or (due.isdigit() and int(due) > now_ms)
