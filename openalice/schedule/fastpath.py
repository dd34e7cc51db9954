"""The scan when nothing is due: one stat per file, no parsing, no imports.

A timer runs ``alice-schedule scan`` every minute and almost every time
nothing is due, so that case must cost little more than starting Python.
:func:`quick_scan` answers it from the scan cache alone: if the workspace
registry and every issue file still have the (mtime_ns, size, inode) the
cache recorded, and no cached issue is due, the report is built from the
cache and nothing else is read or imported.  Otherwise it returns None and
the full scanner (:mod:`.scan`) runs, holding the lock this module took.

It imports only ``os``, ``fcntl`` (via :mod:`openalice.core.flock`), ``marshal`` and
``zlib`` (via :mod:`openalice.core.derived`, the derived-data envelope it shares with the
issue index); :mod:`openalice.core.clock` (``datetime``, the one instant parser and the exact
millisecond arithmetic) only for an unusual ``--now`` (:func:`quick_now` reads the system clock
and ``YYYY-MM-DDTHH:MM:SSZ`` without it): ``json`` alone (through ``re`` and ``enum``) would cost more
than the rest of the scan.  Hence two deliberate departures from the house
style, both confined to this module:

- the cache is stored with :mod:`marshal` (``scan-cache.marshal``), not JSON.
  It is private, derived data in the user's own 0700 state directory; its
  structure is documented by ``spec/schedule-scan-cache.schema.json`` (of the
  decoded value), it records the Python version that wrote it, and anything
  unreadable is simply rebuilt;
- the scan lock is taken with the bare primitive :mod:`openalice.core.flock`
  rather than through :mod:`openalice.core.locks` (whose ``threading`` import
  costs more than this whole scan): :mod:`~openalice.core.locks` is built on
  the same primitive and lock file, so both kinds of scanner exclude each other.

The report it builds is, field for field, the one the full scanner builds for
the same state (a test compares them).
"""

from __future__ import annotations

import os

from openalice.core import derived
from openalice.core.errors import InvalidInput
from openalice.core.homes import openalice_home  # the plain-string form: no pathlib

__all__ = ["CACHE_VERSION", "openalice_home", "cache_file", "lock_file", "registry_file",
           "heartbeat_file", "list_issue_files", "file_stat", "load_cache",
           "decode_cache", "take_lock", "release_lock", "quick_scan", "write_heartbeat",
           "read_heartbeat", "timer_heartbeat_file", "TIMER_VAR", "TIMER_KINDS", "epoch_ms", "quick_now", "parse_now", "iso",
           "comments_pending", "connectors_quiet"]

CACHE_VERSION = 2
_held_fd: int | None = None




def cache_file() -> str:
    return os.path.join(openalice_home(), "state", "schedule", "scan-cache.marshal")


def lock_file() -> str:
    return os.path.join(openalice_home(), "locks", "scan.lock")


def registry_file() -> str:
    return os.path.join(openalice_home(), "workspaces.json")


def heartbeat_file() -> str:
    """The scan's heartbeat: an empty file whose mtime is the instant of the
    last scan that ran (``alice doctor`` reads it to tell a timer that fires
    from one that is only installed)."""
    return os.path.join(openalice_home(), "state", "schedule", "heartbeat")


def comments_pending() -> bool:
    """Whether a comment waits for delivery (or a comment turn for settling):
    a marker in ``state/conversations/pending`` (openalice.issues.delivery).
    One listing of a directory that is usually empty or absent."""
    try:
        with os.scandir(os.path.join(openalice_home(), "state", "conversations", "pending")) as it:
            return any(not entry.name.startswith(".") for entry in it)
    except (FileNotFoundError, NotADirectoryError):
        return False


# Set by every line ``install-timer`` writes (cron, systemd, launchd) to its kind: a scan
# it starts also renews ``heartbeat.<kind>``, so doctor tells a timer that fires from
# scans started by hand (openalice.schedule.timers.definition).
TIMER_VAR = "OPENALICE_SCAN_TIMER"
TIMER_KINDS = ("cron", "systemd", "launchd")


def timer_heartbeat_file(kind: str) -> str:
    """The stamp of the last scan a timer of ``kind`` started."""
    return heartbeat_file() + "." + kind


def write_heartbeat(now_ms: int, timer: str | None = None) -> None:
    """Renew the heartbeat (one ``utime`` call once the file exists), and the
    timer's own when ``timer`` (the scan's ``$OPENALICE_SCAN_TIMER``) names a kind."""
    from openalice.core import stamps  # lazy: only a heartbeat write needs it

    stamps.touch(heartbeat_file(), now_ms * 1_000_000)
    if timer in TIMER_KINDS:
        stamps.touch(timer_heartbeat_file(timer), now_ms * 1_000_000)


def read_heartbeat(timer: str | None = None) -> int | None:
    """The last scan's instant in epoch milliseconds (with ``timer``: the last
    scan a timer of that kind started), or None (never)."""
    from openalice.core import stamps  # lazy: only a heartbeat read needs it

    ns = stamps.read(timer_heartbeat_file(timer) if timer else heartbeat_file())
    return None if ns is None else ns // 1_000_000


def quick_now(text: str | None) -> tuple[int, str] | None:
    """``(epoch ms, ISO text)`` of the scan's instant without ``datetime``
    for the usual cases -- the system clock, or ``--now``/``ALICE_NOW`` written
    ``YYYY-MM-DDTHH:MM:SSZ`` -- else None (then :func:`parse_now` decides).
    The same instant and text :mod:`openalice.core.clock` gives (tested)."""
    if text is None:
        text = os.environ.get("ALICE_NOW") or None
    if text is None:
        import time  # lazy: (built in: free)

        ms = time.time_ns() // 1_000_000
        whole, part = divmod(ms, 1000)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
        return ms, stamp + (f".{part:03d}Z" if part else "Z")
    if (len(text) != 20 or text[4] != "-" or text[7] != "-" or text[10] != "T" or text[13] != ":"
            or text[16] != ":" or text[19] != "Z"):
        return None
    digits = text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19]
    if not (digits.isascii() and digits.isdigit()):
        return None
    year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
    hour, minute, second = int(text[11:13]), int(text[14:16]), int(text[17:19])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days_in = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if not (1970 <= year < 9000 and 1 <= month <= 12 and 1 <= day <= days_in[month - 1]
            and hour < 24 and minute < 60 and second < 60):
        return None
    # days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil)
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000, text


def parse_now(text: str | None):
    """The scan's instant (aware UTC, whole milliseconds) from ``--now`` /
    ``ALICE_NOW`` / the system clock; None when the text is refused (the
    caller asks :func:`openalice.core.clock.parse_clock` again to explain why)."""
    from openalice.core import clock  # lazy: quick_now answers the usual clock without datetime

    if text is None:
        text = os.environ.get("ALICE_NOW") or None
    try:
        value = clock.now() if text is None else clock.parse_clock(text, field="--now")
    except InvalidInput:
        return None
    return clock.floor_ms(value)


def iso(value) -> str:
    """:func:`openalice.core.clock.to_iso`."""
    from openalice.core import clock  # lazy: (as parse_now)

    return clock.to_iso(value)


def epoch_ms(value) -> int | None:
    """Epoch milliseconds of an aware datetime, exactly (:func:`openalice.core.clock.to_ms`)."""
    from openalice.core import clock  # lazy: (as parse_now)

    return None if value is None else clock.to_ms(value)


def file_stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


def list_issue_files(root: str) -> dict[str, list[int]] | None:
    """``{file name: [mtime_ns, size, inode]}`` of the workspace's issue files
    (``*.md``, not dot files); None when the issues directory is missing.
    Other OS errors propagate."""
    directory = os.path.join(root, ".alice", "issues")
    out: dict[str, list[int]] = {}
    try:
        entries = os.scandir(directory)
    except FileNotFoundError:
        return None
    with entries:
        for entry in entries:
            name = entry.name
            if name[-3:].lower() != ".md" or name[0] == ".":
                continue
            try:
                st = entry.stat()
            except FileNotFoundError:
                continue
            out[name] = [st.st_mtime_ns, st.st_size, st.st_ino]
    return out


# The cache file is the derived-data envelope of openalice.core.derived: CACHE_MAGIC,
# the CRC-32 of the payload, then the marshal payload.
CACHE_MAGIC = b"OASCAN\x00\x02"


def decode_cache(raw: bytes) -> object:
    """The scan cache's value (:func:`openalice.core.derived.decode`); ValueError for anything else."""
    return derived.decode(CACHE_MAGIC, raw)


def load_cache() -> dict:
    """The scan cache, or ``{}`` when it is missing, damaged or stale."""
    data = derived.load(cache_file(), CACHE_MAGIC, max_bytes=64 * 1024 * 1024)
    if (not isinstance(data, dict) or data.get("version") != CACHE_VERSION
            or data.get("environment") != derived.environment_key()
            or not isinstance(data.get("workspaces"), dict) or not isinstance(data.get("order"), list)):
        return {}  # derived data: a damaged cache is rebuilt, never trusted
    return data


def take_lock() -> bool:
    """Take the scan lock without waiting; False when another scan holds it.
    Held until :func:`release_lock` or the process exits."""
    global _held_fd
    from openalice.core import flock  # lazy: only a non-dry-run scan takes the lock

    fd = flock.open_lock_file(lock_file())
    if not flock.try_lock(fd):
        os.close(fd)
        return False
    _held_fd = fd
    return True


def release_lock() -> None:
    global _held_fd
    if _held_fd is not None:
        fd, _held_fd = _held_fd, None
        os.close(fd)  # closing the only descriptor drops the flock


def _stat_key(path: str) -> str:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def connectors_quiet(now_ms: int) -> bool:
    """True when the connectors certainly have nothing to do: none was ever
    added, or the quiet marker their last full pass wrote
    (``state/connectors/quiet``: ``v1 <entries size:mtime> <connectors dir
    size:mtime> <next retry ms|-> <polls a chat 0|1>``, written by
    :func:`openalice.connectors.state.write_quiet`) still matches, with no retry
    due and no chat to poll.  Two ``stat`` calls and one small read, so the
    minute scan pays next to nothing for connectors with nothing to send."""
    home = openalice_home()
    connectors_key = _stat_key(os.path.join(home, "connectors"))
    if connectors_key == "-":
        return True
    try:
        with open(os.path.join(home, "state", "connectors", "quiet"), "rb") as fh:
            fields = fh.read(256).decode("ascii").split()
    except (OSError, UnicodeDecodeError):
        return False
    if len(fields) != 5 or fields[0] != "v1" or fields[4] != "0":
        return False
    if (fields[1] != _stat_key(os.path.join(home, "data", "inbox", "entries.jsonl"))
            or fields[2] != connectors_key):
        return False
    return fields[3] == "-" or (fields[3].isdigit() and int(fields[3]) > now_ms)


def quick_scan(cache: dict, *, now_ms: int, now_iso: str, dry_run: bool) -> dict | None:
    """The scan report when the cache proves nothing is due, else None."""
    if not cache or cache.get("registry") != file_stat(registry_file()):
        return None
    spaces = cache["workspaces"]
    skipped: list[dict] = []
    invalid: list[dict] = []
    ws_report: list[dict] = []
    for item in cache["order"]:
        ws_id, path = item
        entry = spaces.get(ws_id)
        if entry is None or entry.get("path") != path:
            return None
        try:
            files = list_issue_files(path)
        except OSError:
            return None
        if entry.get("state") == "absent":
            if (files is not None or not os.path.isdir(path)
                    # openalice.issues.reader.legacy_issue_file, without importing the reader
                    or os.path.lexists(os.path.join(path, ".alice", "issue.json"))):
                return None
            ws_report.append({"id": ws_id, "state": "absent", "issues": 0, "scheduled": 0})
            continue
        if entry.get("state") != "ok" or files is None or files != entry.get("files"):
            return None
        issues = entry["issues"]
        report = {"id": ws_id, "state": "ok", "issues": len(issues) + len(entry["invalid"]),
                  "scheduled": 0}
        ws_report.append(report)
        for bad in entry["invalid"]:
            invalid.append({"workspaceId": ws_id, **bad})
        for issue_id in sorted(issues):
            issue = issues[issue_id]
            if not issue.get("scheduled"):
                continue
            report["scheduled"] += 1
            if issue.get("terminal"):
                continue
            if issue.get("problem"):
                skipped.append({"workspaceId": ws_id, "issueId": issue_id, "reason": "never_fires",
                                "detail": issue["problem"]})
                continue
            due_at = issue.get("nextDue")
            if issue.get("recheck") or (due_at is not None and due_at <= now_ms):
                return None
    report = {"status": "ok", "now": now_iso, "dryRun": dry_run, "fired": [], "skipped": skipped,
              "repaired": [], "invalid": invalid, "workspaces": ws_report}
    last_scan = cache.get("lastScanMs")
    if isinstance(last_scan, int) and last_scan > now_ms:
        report["clockBackwards"] = True
    return report
