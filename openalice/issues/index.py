"""The issue index: each workspace's parsed issues, so an unchanged file is
never parsed twice (docs/issues.md, "The issue index").

``state/issues/index/<workspace-id>.marshal`` (the derived-data envelope of
:mod:`openalice.core.derived`: magic, CRC-32, marshal) holds, per issue file
name, the file's identity when it was read -- ``(mtime_ns, size, inode,
ctime_ns)`` from one ``lstat`` -- the CRC-32 of its bytes, and what the reader
made of them: the issue's listing view and the rest of its fields, or the
invalid file's reasons.  It is never the source of truth:

- a file whose identity differs is read and parsed again (one parse); any
  write, ``touch`` or rename changes the ctime or the inode, and ctime cannot be
  set back, so an edit that keeps the size and restores the mtime is seen too;
- a file whose ctime was within :data:`RACY_NS` of the listing when it was
  read ("racily clean": a second write inside one tick of the file system's
  clock leaves the same stamps) is read again on every use and its CRC-32
  compared until it is older than that; then the entry is trusted on its stamps;
- a missing, truncated or damaged index (the checksum), another version, another
  Python or local zone, or another workspace root is dropped and rebuilt; an
  entry of the wrong shape is parsed again;
- the directory is opened below the workspace root as the reader opens it; when
  it cannot be (absent, a link out, a legacy file) the cold reader answers.

The listing view also caches each issue's ``schedule`` summary with its inputs:
the file (its identity), the cursor's identity for ``every``, and the window of
instants it holds for (a cron slot holds from the instant it was computed until
that slot; a future ``at`` until it passes).  Comment counts are cached with
the sidecar's identity.  Answers equal the cold reader's (tests/issues/test_index.py).
"""

from __future__ import annotations

import json
import os
import time
import zlib
from pathlib import Path

from openalice.core import derived
from openalice.core.errors import AliceError
from openalice.core.homes import openalice_home
from openalice.core.paths import safe_name

from . import reader
from .declaration import FieldError, InvalidIssue, Issue

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from datetime import datetime

__all__ = ["INDEX_VERSION", "MAGIC", "RACY_NS", "index_file", "snapshot", "read_issues", "load_issue",
           "Snapshot"]

INDEX_VERSION = 1
MAGIC = b"OAISSX\x00\x01"
#: A file changed this recently (ctime, nanoseconds before the listing) is
#: "racily clean": its stamps cannot prove it unchanged, so its bytes are compared.
RACY_NS = 3_000_000_000
# An entry: [(mtime_ns, size, inode, ctime_ns), crc32, racy, kind, data, schedule, deliveries]
ENTRY_KEY, ENTRY_CRC, ENTRY_RACY, ENTRY_KIND, ENTRY_DATA, ENTRY_SCHED, ENTRY_DELIV = range(7)
_WIDTH = 7
_COMMENTS = ".comments.json"


def index_file(workspace_id: str) -> str:
    return os.path.join(openalice_home(), "state", "issues", "index", safe_name(workspace_id) + ".marshal")


def file_identity(st: os.stat_result) -> tuple[int, int, int, int]:
    """A file's identity: any write, ``touch``, ``chmod`` or rename changes the ctime or the inode."""
    return st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns


class Snapshot:
    """A workspace's issues as the index and the files agree on them.

    ``cold`` is the reader's own IssueSet when the directory could not be
    opened (then nothing is indexed); else ``rows`` lists, in file-name order,
    ``(entry, name)`` for valid issues and ``InvalidIssue`` for invalid ones."""

    __slots__ = ("ws_id", "root", "directory", "cold", "rows", "files", "dirty", "stamp_ns", "cursor_dir")

    def __init__(self, ws_id: str | None, root: Path, directory: Path) -> None:
        self.ws_id = ws_id
        self.root = root
        self.directory = directory
        self.cold = None
        self.rows: list = []
        self.files: dict = {}
        self.dirty = False
        self.stamp_ns = 0
        self.cursor_dir = None

    # -- the answers ---------------------------------------------------------

    def issue_set(self) -> reader.IssueSet:
        """What :func:`openalice.issues.reader.read_issues` returns for the workspace."""
        if self.cold is not None:
            return self.cold
        issues, invalid = [], []
        for row in self.rows:
            if isinstance(row, InvalidIssue):
                invalid.append(row)
            else:
                issues.append(issue_from_entry(row[0][ENTRY_DATA], self.directory / row[1]))
        return reader.IssueSet("ok", issues, invalid, directory=self.directory)

    def invalid(self) -> list[InvalidIssue]:
        if self.cold is not None:
            return list(self.cold.invalid)
        return [row for row in self.rows if isinstance(row, InvalidIssue)]

    def views(self, now: datetime, now_ms: int, status: str | None = None) -> list[tuple[list, str]]:
        """``(meta, JSON text)`` of each valid issue as ``list``/``board``
        print it (schedule and comment counts included, cached with their
        inputs: :mod:`.index_views`), in file-name order; ``meta`` is [id,
        status, priority, telegramConnector]."""
        from .index_views import views  # lazy: health, next and the scan need no views

        return views(self, now, now_ms, status)

    def save(self) -> None:
        """Write the index back if anything changed (a failure costs only the next reader's parse)."""
        if not self.dirty or self.cold is not None or self.ws_id is None:
            return
        self.dirty = False
        value = {"version": INDEX_VERSION, "environment": derived.environment_key(),
                 "root": str(self.root), "files": self.files}
        try:
            derived.store(index_file(self.ws_id), MAGIC, value)
        except (OSError, AliceError, ValueError):
            pass

# A valid issue's data: [meta, head, tail, rest].  ``meta`` is [id, status,
# priority, telegramConnector]; ``head`` and ``tail`` are its listing view
# (views.issue_view) as compact JSON around the value of ``schedule`` ('{...,"schedule":'
# and ',"what":...,"extra":{...}}'), so a listing prints it without decoding or
# encoding it; ``rest`` is what the view does not say: [body (None when it is
# "\n" + what + "\n"), legacy_what,
# extra as read when JSON does not spell it alike, the issue's workspace_id].
dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def issue_from_entry(data: list, path: Path) -> Issue:
    view = json.loads(data[1] + "null" + data[2])
    body, legacy_what, raw_extra, ws_id = data[3]
    if body is None:  # the usual body: the prompt between two newlines
        body = "\n" + view["what"] + "\n"
    return Issue(id=view["id"], path=path, title=view["title"], status=view["status"],
                 priority=view["priority"], assignee=view["assignee"], when=view["when"],
                 agent=view["agent"], credential=view["credential"],
                 credential_source=view["credentialSource"], model=view["model"], effort=view["effort"],
                 timeout=view["timeout"], timeout_seconds=view["timeoutSeconds"],
                 comment_prompt=view["commentPrompt"], what=view["what"], body=body,
                 extra=view["extra"] if raw_extra is None else raw_extra,
                 telegram_connector=view["telegramConnector"], legacy_what=legacy_what,
                 workspace_id=ws_id)


def _entry_data(result: Issue | InvalidIssue, ws_id: str | None) -> tuple[str, list]:
    if isinstance(result, InvalidIssue):
        return "bad", [result.id, [[e.field, e.reason] for e in result.errors]]
    from .views import issue_view  # lazy: only a parse builds a view

    view = issue_view(result, workspace_id=ws_id)
    keys = list(view)
    cut = keys.index("schedule")
    head = "{" + ",".join(dumps(k) + ":" + dumps(view[k]) for k in keys[:cut]) + ',"schedule":'
    tail = "".join("," + dumps(k) + ":" + dumps(view[k]) for k in keys[cut + 1:]) + "}"
    raw_extra = None if json.loads(dumps(view["extra"])) == result.extra else result.extra
    meta = [result.id, result.status, result.priority, bool(result.telegram_connector)]
    body = None if result.body == "\n" + result.what + "\n" else result.body
    return "ok", [meta, head, tail, [body, result.legacy_what, raw_extra, result.workspace_id]]


def _fresh(entry: object, key: tuple) -> bool:
    return type(entry) is list and len(entry) == _WIDTH and entry[0] == key and not entry[ENTRY_RACY]


def _load(ws_id: str | None, root: Path) -> dict:
    if ws_id is None:
        return {}
    data = derived.load(index_file(ws_id), MAGIC)
    if (type(data) is not dict or data.get("version") != INDEX_VERSION
            or data.get("root") != str(root) or type(data.get("files")) is not dict
            or data.get("environment") != derived.environment_key()):
        return {}
    return data["files"]


def snapshot(ws) -> Snapshot:
    """The workspace's issues (anything with ``.path`` and ``.id``), from the
    index where the files prove it current; call :meth:`Snapshot.save` after use."""
    root = reader.workspace_directory(ws)
    directory = root / ".alice" / "issues"
    ws_id = getattr(ws, "id", None)
    snap = Snapshot(ws_id, root, directory)
    try:
        where = reader.issues_root(ws)
    except (OSError, AliceError):
        snap.cold = reader.read_issues(ws)  # absent, a link out, legacy, unreadable: as the reader says
        return snap
    with where:
        snap.stamp_ns = time.time_ns()
        try:
            found, comments = _listing(where.fd)
        except OSError:
            snap.cold = reader.read_issues(ws)
            return snap
        old = _load(ws_id, root)
        try:
            _fill(snap, where, found, comments, old)
        except (TypeError, ValueError, KeyError, IndexError):  # an entry of the wrong shape
            snap.rows, snap.files = [], {}
            _fill(snap, where, found, comments, {})
            snap.dirty = True
    return snap


def _fill(snap: Snapshot, where, found: dict, comments: dict, old: dict) -> None:
    files: dict = {}
    owner = None
    directory = snap.directory
    rows = snap.rows
    for name in sorted(found):
        st = found[name]
        key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        entry = old.get(name)
        if type(entry) is not list or len(entry) != _WIDTH or entry[0] != key or entry[2]:
            entry, keep = _current(snap, where, name, key, entry)  # changed, new, or racily clean
            if entry is None:
                continue
            if keep:
                files[name] = entry
        else:
            files[name] = entry
        data = entry[ENTRY_DATA]
        if entry[ENTRY_KIND] == "bad":
            rows.append(InvalidIssue(data[0], directory / name, [FieldError(f, r) for f, r in data[1]]))
            continue
        meta = data[0]
        if meta[3]:
            if owner is not None:
                rows.append(reader.telegram_conflict(meta[0], directory / name, owner))
                continue
            owner = meta[0]
        rows.append((entry, name, comments.get(name[:-3])))
    if len(files) != len(old) or not snap.dirty and files.keys() != old.keys():
        snap.dirty = True
    snap.files = files


def _listing(fd: int) -> tuple[dict, dict]:
    """``({issue file name: lstat}, {issue id: lstat of its comments file})``."""
    found: dict = {}
    comments: dict = {}
    lstat = os.lstat
    for name in os.listdir(fd):
        if name[0] == ".":
            continue
        if name[-3:].lower() == ".md":
            try:
                found[name] = lstat(name, dir_fd=fd)
            except FileNotFoundError:
                continue
        elif name.endswith(_COMMENTS):
            try:
                comments[name[:-len(_COMMENTS)]] = lstat(name, dir_fd=fd)
            except FileNotFoundError:
                continue
    return found, comments


def _current(snap: Snapshot, where, name: str, key: tuple, entry: object) -> tuple[list | None, bool]:
    """``(entry, keep)`` of a file whose stamps do not prove its entry
    current: its bytes read (and compared by CRC-32 when the entry is only
    racily clean), parsed only when they differ; entry None when the file
    vanished; ``keep`` False when the result is for this call only (the file
    could not be read, or marshal cannot hold its values)."""
    path = snap.directory / name
    data = reader.read_issue_bytes(path, where)
    if data is None:
        return None, False
    racy = key[3] > snap.stamp_ns - RACY_NS or key[0] > snap.stamp_ns - RACY_NS
    if (type(entry) is list and len(entry) == _WIDTH and entry[0] == key and isinstance(data, bytes)
            and zlib.crc32(data) == entry[ENTRY_CRC]):
        if not racy:
            entry[ENTRY_RACY] = False
            snap.dirty = True
        return entry, True
    result = reader.judge_bytes(data, path, name[:-3], workspace_id=snap.ws_id)
    kind, payload = _entry_data(result, snap.ws_id)
    keep = isinstance(data, bytes) and _marshallable(payload)
    snap.dirty = snap.dirty or keep
    return [key, zlib.crc32(data) if isinstance(data, bytes) else 0, racy, kind, payload, None, None], keep


def _marshallable(value: object) -> bool:
    import marshal  # lazy: (built in: free; only a parse checks)

    try:
        marshal.dumps(value)
    except ValueError:
        return False
    return True


def read_issues(ws, *, save: bool = True) -> reader.IssueSet:
    """:func:`openalice.issues.reader.read_issues` through the index."""
    snap = snapshot(ws)
    if save:
        snap.save()
    return snap.issue_set()


def load_issue(ws, issue_id: str) -> Issue:
    """:func:`openalice.issues.reader.load_issue` through the index: a valid
    ``<id>.md`` whose identity matches its entry is not parsed; anything else
    (another case of the extension, an invalid file, no entry) is the reader's
    answer, its errors exactly as they are."""
    ws_id = getattr(ws, "id", None)
    if ws_id is not None and reader.is_valid_id(issue_id):
        name = f"{issue_id}.md"
        try:
            with reader.issues_root(ws) as where:
                st = where.lstat(name)
                stamp = time.time_ns()
        except (OSError, AliceError):
            st = None
        if st is not None:
            root = reader.workspace_directory(ws)
            entry = _load(ws_id, root).get(name)
            key = file_identity(st)
            if (_fresh(entry, key) and entry[ENTRY_KIND] == "ok"
                    and key[3] <= stamp - RACY_NS):
                try:
                    return issue_from_entry(entry[ENTRY_DATA], root / ".alice" / "issues" / name)
                except (TypeError, ValueError, KeyError):
                    pass
    return reader.load_issue(ws, issue_id)
