"""The issue index (openalice/issues/index.py): warm answers equal cold ones.

A randomized home of several workspaces (valid and invalid issues, comment
sidecars, cursors) is edited, renamed, deleted and rewritten in place -- the
same size with the mtime put back -- and after every step `list`, `board`
(dicts and the --json text), `health`, `next` (load_issue) and the scan answer
through the index exactly as the cold reader does.  A corrupt, truncated,
stale or foreign index is rebuilt with the same answers; a writer killed in
the middle of writing the index leaves a usable one.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from openalice.core import derived, fs
from openalice.issues import board, cursors, index, reader
from openalice.issues.views import issue_json

from .conftest import NOW, make_ws

REPO = Path(__file__).resolve().parents[2]
WRITER = REPO / "tests" / "helpers" / "index_writer.py"

STATUSES = ["backlog", "todo", "in_progress", "done", "canceled"]


def issue_text(rng: random.Random, n: int) -> str:
    lines = [f"title: Issue {n} {'x' * rng.randint(0, 9)}",
             f"status: {rng.choice(STATUSES + ['todo'])}",
             f"priority: {rng.choice(['urgent', 'high', 'medium', 'low', 'none'])}"]
    kind = rng.randrange(7)
    if kind == 1:
        lines.append(f"when: {{kind: every, every: {rng.choice(['30m', '2h', 'soon'])}}}")
    elif kind == 2:
        lines += ["when:", "  kind: cron", f"  cron: '{rng.randint(0, 59)} {rng.randint(0, 23)} * * *'",
                  f"  timezone: {rng.choice(['UTC', 'Europe/Paris', 'local'])}"]
    elif kind == 3:
        lines.append(f"when: {{kind: cron, cron: '*/{rng.choice([5, 15])} * * * *', catchUp: false}}")
    elif kind == 4:
        at = NOW + timedelta(hours=rng.randint(-48, 48))
        lines.append(f"when: {{kind: at, at: '{at.strftime('%Y-%m-%dT%H:%M:%SZ')}'}}")
    elif kind == 5:
        lines.append("when: {kind: cron, cron: '0 0 30 2 *'}")
    if rng.random() < 0.2:
        lines.append("telegramConnector: true")
    if rng.random() < 0.3:
        lines.append(rng.choice(["team: ops", "weight: .inf", "1: one", "tags: [a, b]"]))
    if rng.random() < 0.15:
        lines.append(f"what: legacy prompt {n}")
    body = "\n".join(f"Step {k}." for k in range(rng.randint(0, 4)))
    if rng.random() < 0.1:
        body += "\n\n## Comments\n\nold"
    return "---\n" + "\n".join(lines) + "\n---\n\n" + body + ("\n" if body else "")


BAD = ["---\nstatus: nope\ntitle: t\n---\n", "---\ntitle: [unclosed\n---\n", "no frontmatter at all\n",
       "---\ntitle: t\nwhen: {kind: at}\ntimezone: Mars/Base\n---\n", b"---\ntitle: \xff\n---\n"]


def comments_doc(rng: random.Random) -> dict:
    states = [rng.choice(["pending", "failed", "delivered", None]) for _ in range(rng.randint(0, 4))]
    return {"version": 1, "comments": [
        {"id": f"c{k}", "author": "me", "body": "hi", "createdAt": "2026-06-01T00:00:00Z",
         **({"delivery": {"state": s}} if s else {})} for k, s in enumerate(states)]}


class Home:
    def __init__(self, tmp_path: Path, rng: random.Random, spaces: int = 3) -> None:
        self.rng = rng
        self.spaces = [make_ws(tmp_path / f"w{k}", f"w{k}") for k in range(spaces)]
        self.now = NOW
        self.n = 0
        for ws in self.spaces:
            for _ in range(rng.randint(2, 7)):
                self.add(ws)

    def dir(self, ws) -> Path:
        return ws.root / ".alice" / "issues"

    def files(self, ws) -> list[Path]:
        return sorted(p for p in self.dir(ws).iterdir() if p.suffix.lower() == ".md")

    def add(self, ws) -> None:
        self.n += 1
        name = f"i{self.n}.md" if self.rng.random() < 0.9 else self.rng.choice(
            [f"-bad{self.n}.md", f"I{self.n}.MD"])
        content = issue_text(self.rng, self.n) if self.rng.random() < 0.8 else self.rng.choice(BAD)
        path = self.dir(ws) / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())

    def step(self) -> str:
        rng = self.rng
        ws = rng.choice(self.spaces)
        files = self.files(ws)
        op = rng.choice(["add", "edit", "same_size", "delete", "rename", "comments", "cursor",
                         "clock", "symlink"])
        if not files and op not in ("clock", "cursor"):
            op = "add"
        if op == "add":
            self.add(ws)
        elif op == "edit":
            rng.choice(files).write_text(issue_text(rng, self.n), encoding="utf-8")
        elif op == "same_size":
            same_size_edit(rng.choice(files), rng)
        elif op == "delete":
            rng.choice(files).unlink()
        elif op == "rename":
            victim = rng.choice(files)
            self.n += 1
            victim.rename(victim.with_name(f"r{self.n}.md"))
        elif op == "comments":
            victim = rng.choice(files)
            sidecar = victim.with_name(victim.name[:-3] + ".comments.json")
            if sidecar.exists() and rng.random() < 0.3:
                sidecar.unlink()
            else:
                sidecar.write_text(json.dumps(comments_doc(rng)), encoding="utf-8")
        elif op == "cursor":
            issue_id = f"i{rng.randint(1, max(1, self.n))}"
            slot = self.now - timedelta(minutes=rng.randint(0, 300))
            fs.atomic_write_json(cursors.cursor_path(ws.id, issue_id),
                                 cursors.fired(None, ws.id, issue_id, slot=slot, now=self.now,
                                               task_id="t1", missed=0))
        elif op == "clock":
            self.now += timedelta(minutes=rng.choice([1, 7, 60, 600, 3000]))
        elif op == "symlink" and files:
            self.n += 1
            os.symlink(files[0].name, self.dir(ws) / f"l{self.n}.md")
        return op


def same_size_edit(path: Path, rng: random.Random) -> None:
    """New bytes of the same length, the old mtime (and atime) put back."""
    st = path.lstat()
    if path.is_symlink():
        return
    raw = bytearray(path.read_bytes())
    for k in range(len(raw)):
        if raw[k:k + 4] == b"todo":
            raw[k:k + 4] = b"done"
            break
        if raw[k:k + 4] == b"done":
            raw[k:k + 4] = b"todo"
            break
    else:
        raw[-1:] = b"!" if raw[-1:] != b"!" else b"?"
    with open(path, "r+b") as fh:  # in place: same inode
        fh.write(bytes(raw))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


# -- the cold answers (the reader alone, as before the index) ------------------

def cold_listing(spaces, now) -> dict:
    issues, invalid, states = [], [], []
    for ws in spaces:
        found = reader.read_issues(ws)
        states.append(board.workspace_json(ws, found))
        issues.extend(board.with_deliveries(issue_json(i, now, workspace_id=ws.id), i) for i in found.issues)
        invalid.extend(board.invalid_json(i, ws.id) for i in found.invalid)
    return {"issues": issues, "invalid": invalid, "workspaces": states}


def cold_board(spaces, now) -> dict:
    listing = cold_listing(spaces, now)
    columns = {name: [] for name in STATUSES}
    for item in listing["issues"]:
        columns[item["status"]].append(item)
    rank = {name: k for k, name in enumerate(["urgent", "high", "medium", "low", "none"])}
    return {"workspaces": listing["workspaces"],
            "columns": [{"status": name, "issues": sorted(
                columns[name], key=lambda i: (rank[i["priority"]], i["id"], i["workspaceId"]))}
                for name in STATUSES],
            "invalid": listing["invalid"]}


def same_set(a, b) -> None:
    assert (a.state, a.error, a.reason, a.directory) == (b.state, b.error, b.reason, b.directory)
    assert a.issues == b.issues
    assert a.invalid == b.invalid


def compact(doc) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def check_all(home: Home) -> None:
    from openalice.schedule.health import health_report
    from openalice.schedule.scan import scan

    spaces, now = home.spaces, home.now
    for _ in range(2):  # the first call may rebuild entries, the second reads them
        listing = cold_listing(spaces, now)
        assert board.listing(spaces, now) == listing
        assert board.listing_json(spaces, now) == compact(listing)
        assert board.listing_json(spaces, now, status="todo") == compact(
            {**listing, "issues": [i for i in listing["issues"] if i["status"] == "todo"]})
        cold = cold_board(spaces, now)
        assert board.board(spaces, now) == cold
        assert board.board_json(spaces, now) == compact(cold)
        for ws in spaces:
            same_set(index.read_issues(ws), reader.read_issues(ws))
            for path in home.files(ws):
                issue_id = path.name[:-3]
                try:
                    want = reader.load_issue(ws, issue_id)
                except Exception as exc:
                    with pytest.raises(type(exc)) as got:
                        index.load_issue(ws, issue_id)
                    assert str(got.value) == str(exc)
                else:
                    assert index.load_issue(ws, issue_id) == want
        assert (health_report(now=now, workspaces=spaces)
                == health_report(now=now, workspaces=spaces, reader=reader.read_issues))
        warm = scan(now=now, dry_run=True, workspaces=spaces, use_cache=False)
        assert warm == scan(now=now, dry_run=True, workspaces=spaces, use_cache=False,
                            reader=reader.read_issues)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("trusted", [False, True], ids=["racy", "trusted"])
def test_warm_answers_equal_cold_answers_on_a_randomized_home(tmp_path, monkeypatch, seed, trusted):
    """``racy``: every file was written moments ago, so entries are checked by
    their bytes; ``trusted``: entries are trusted on their stamps (no racy
    window), the file system's clock ticking between each read and the next
    change, as it does between a real edit and a real read."""
    if trusted:
        monkeypatch.setattr(index, "RACY_NS", 0)
    home = Home(tmp_path, random.Random(seed))
    check_all(home)
    for _ in range(30):
        if trusted:
            wait_for_a_later_ctime(None, tmp_path)
        home.step()
        check_all(home)


def test_trusted_stamps_see_an_edit_that_keeps_size_and_mtime(tmp_path, monkeypatch):
    """Past the racy window the entry is trusted on its stamps alone: the
    ctime (which no one can set back) still tells the in-place edit."""
    ws = make_ws(tmp_path / "w", "w")
    path = ws.root / ".alice" / "issues" / "a.md"
    path.write_text("---\ntitle: A\nstatus: todo\n---\n", encoding="utf-8")
    monkeypatch.setattr(index, "RACY_NS", 0)
    assert [i.status for i in index.read_issues(ws).issues] == ["todo"]
    wait_for_a_later_ctime(path)
    same_size_edit(path, random.Random(0))
    assert path.read_text().count("done") == 1
    assert [i.status for i in index.read_issues(ws).issues] == ["done"]


def test_racy_entries_are_compared_by_their_bytes(tmp_path, monkeypatch):
    """An entry read moments after its file was written is checked by CRC:
    an edit inside the same tick of the file system clock (same stamps) is seen."""
    ws = make_ws(tmp_path / "w", "w")
    path = ws.root / ".alice" / "issues" / "a.md"
    path.write_text("---\ntitle: A\nstatus: todo\n---\n", encoding="utf-8")
    assert [i.status for i in index.read_issues(ws).issues] == ["todo"]
    st = path.stat()
    same_size_edit(path, random.Random(0))
    real_lstat = os.lstat

    def frozen(name, *args, **kwargs):  # the same tick: every stamp as before the edit
        out = real_lstat(name, *args, **kwargs)
        if name == "a.md":
            return SimpleNamespace(st_ino=st.st_ino, st_size=st.st_size, st_mtime_ns=st.st_mtime_ns,
                                   st_ctime_ns=st.st_ctime_ns)
        return out

    monkeypatch.setattr(index.os, "lstat", frozen)
    assert [i.status for i in index.read_issues(ws).issues] == ["done"]


def wait_for_a_later_ctime(path: Path | None, where: Path | None = None) -> None:
    """Until the file system's clock has ticked past ``path``'s ctime (or past
    the present instant: a probe's own first ctime), a few ms at most."""
    probe = (where or path.parent) / ".probe"
    probe.write_bytes(b"")
    since = path.stat().st_ctime_ns if path is not None else probe.stat().st_ctime_ns
    for _ in range(1_000_000):
        probe.write_bytes(b"")
        if probe.stat().st_ctime_ns > since:
            probe.unlink()
            return
    raise AssertionError("the file system clock never moved")


def damage(kind: str, where: Path) -> None:
    raw = where.read_bytes()
    if kind == "truncated":
        where.write_bytes(raw[:len(raw) // 2])
    elif kind == "flipped":
        where.write_bytes(raw[:-5] + bytes([raw[-5] ^ 0x55]) + raw[-4:])
    elif kind == "garbage":
        where.write_bytes(b"\x00" * 40)
    elif kind == "empty":
        where.write_bytes(b"")
    elif kind == "other_version":
        value = derived.decode(index.MAGIC, raw)
        where.write_bytes(derived.encode(index.MAGIC, {**value, "version": 99}))
    elif kind == "other_root":
        value = derived.decode(index.MAGIC, raw)
        where.write_bytes(derived.encode(index.MAGIC, {**value, "root": "/elsewhere"}))
    elif kind == "wrong_shape":
        value = derived.decode(index.MAGIC, raw)
        files = {name: [entry[0], 0, False, "ok", ["x"], [1], None]
                 for name, entry in value["files"].items()}
        where.write_bytes(derived.encode(index.MAGIC, {**value, "files": files}))
    elif kind == "stale":  # a valid index of older contents under the same stamps
        value = derived.decode(index.MAGIC, raw)
        files = {}
        for name, entry in value["files"].items():
            data = entry[4]
            if entry[3] == "ok":
                data = [data[0], data[1].replace('"title":"', '"title":"STALE '), data[2], data[3]]
            # made from other bytes (their CRC-32 differs) under the very same stamps
            files[name] = [entry[0], entry[1] ^ 1, entry[2], entry[3], data, None, None]
        where.write_bytes(derived.encode(index.MAGIC, {**value, "files": files}))


@pytest.mark.parametrize("kind", ["truncated", "flipped", "garbage", "empty", "other_version",
                                  "other_root", "wrong_shape"])
def test_a_damaged_index_is_rebuilt_with_the_same_answers(tmp_path, kind):
    home = Home(tmp_path, random.Random(7))
    check_all(home)
    for ws in home.spaces:
        damage(kind, Path(index.index_file(ws.id)))
    check_all(home)
    for ws in home.spaces:  # and it is whole again
        assert derived.load(index.index_file(ws.id), index.MAGIC)["version"] == index.INDEX_VERSION


def test_a_stale_entry_under_matching_stamps_is_caught_while_racy(tmp_path, monkeypatch):
    """Entries written moments after their files changed are never trusted on
    stamps alone: an index with the right stamps and other contents is
    caught by the CRC-32 of the bytes."""
    monkeypatch.setattr(index, "RACY_NS", 10 ** 15)  # every entry stays racily clean
    home = Home(tmp_path, random.Random(8))
    check_all(home)
    for ws in home.spaces:
        damage("stale", Path(index.index_file(ws.id)))
    check_all(home)


def test_an_unchanged_file_is_not_parsed_again_and_a_changed_one_once(tmp_path, monkeypatch):
    ws = make_ws(tmp_path / "w", "w")
    for k in range(5):
        (ws.root / ".alice" / "issues" / f"i{k}.md").write_text(f"---\ntitle: I{k}\n---\n")
    monkeypatch.setattr(index, "RACY_NS", 0)
    index.read_issues(ws)
    parsed = []
    real = reader.judge_bytes
    monkeypatch.setattr(reader, "judge_bytes", lambda *a, **k: parsed.append(a[2]) or real(*a, **k))
    board.board([ws], NOW)
    assert parsed == []
    wait_for_a_later_ctime(ws.root / ".alice" / "issues" / "i4.md")
    (ws.root / ".alice" / "issues" / "i2.md").write_text("---\ntitle: changed\n---\n")
    assert [i["title"] for i in board.listing([ws], NOW)["issues"]] == ["I0", "I1", "changed", "I3", "I4"]
    board.listing([ws], NOW)
    assert parsed == ["i2"]


def test_a_writer_killed_mid_write_leaves_a_usable_index(tmp_path):
    home = Home(tmp_path, random.Random(9), spaces=1)
    ws = home.spaces[0]
    rng = random.Random(99)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(int(os.environ.get("OPENALICE_CRASH_ITERATIONS", "15"))):
        writer = subprocess.Popen([sys.executable, str(WRITER), ws.path, str(rng.random())],
                                  stdout=subprocess.PIPE, text=True, env=env)
        assert writer.stdout.readline().strip() == "ready"
        # The kill must land at an arbitrary point of the write loop, so this
        # one test does wait a random few milliseconds (it is not timing anything).
        time.sleep(rng.uniform(0, 0.03))
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        check_all(home)


def test_a_moved_workspace_is_not_answered_from_its_old_place(tmp_path):
    """Moving the workspace directory keeps every file's stamps and inode;
    the index records the root it was built for and is rebuilt for another."""
    home = Home(tmp_path, random.Random(10), spaces=1)
    check_all(home)
    old = home.spaces[0]
    (tmp_path / "w0").rename(tmp_path / "moved")
    home.spaces = [make_ws(tmp_path / "moved", old.id)]
    check_all(home)
    assert all("/moved/" in i["path"] for i in board.listing(home.spaces, NOW)["issues"])


def test_comment_counts_follow_their_sidecar(tmp_path, monkeypatch):
    monkeypatch.setattr(index, "RACY_NS", 0)
    ws = make_ws(tmp_path / "w", "w")
    issues = ws.root / ".alice" / "issues"
    (issues / "a.md").write_text("---\ntitle: A\n---\n")
    sidecar = issues / "a.comments.json"
    for states in (["pending"], ["failed", "failed", "pending"], []):
        wait_for_a_later_ctime(None, tmp_path)
        sidecar.write_text(json.dumps({"version": 1, "comments": [
            {"id": f"c{k}", "delivery": {"state": s}} for k, s in enumerate(states)]}))
        wait_for_a_later_ctime(sidecar)
        for _ in range(2):
            got = board.listing([ws], NOW)["issues"][0]["deliveries"]
            assert got == {"unanswered": states.count("pending"), "failed": states.count("failed")}
            assert board.listing([ws], NOW) == cold_listing([ws], NOW)
    sidecar.unlink()
    assert "deliveries" not in board.listing([ws], NOW)["issues"][0]


def test_an_every_summary_follows_the_cursor(tmp_path, monkeypatch):
    monkeypatch.setattr(index, "RACY_NS", 0)
    ws = make_ws(tmp_path / "w", "w")
    (ws.root / ".alice" / "issues" / "e.md").write_text("---\ntitle: E\nwhen: {kind: every, every: 2h}\n---\n")
    wanted = []
    for minutes in (None, 30, 90):
        wait_for_a_later_ctime(None, tmp_path)
        if minutes is not None:
            fs.atomic_write_json(cursors.cursor_path(ws.id, "e"), cursors.fired(
                None, ws.id, "e", slot=NOW - timedelta(minutes=minutes), now=NOW, task_id="t", missed=0))
        for _ in range(2):
            summary = board.listing([ws], NOW)["issues"][0]["schedule"]
            assert board.listing([ws], NOW) == cold_listing([ws], NOW)
        wanted.append(summary["nextFireAt"])
    assert len(set(wanted)) == 3


def test_the_index_file_conforms_to_its_schema(tmp_path):
    """spec/issues-index.schema.json describes the decoded value (tuples as arrays)."""
    from tests.helpers.schemas import conforms, schema_errors

    home = Home(tmp_path, random.Random(11))
    (home.dir(home.spaces[0]) / "x.comments.json").write_text('{"comments": []}')
    (home.dir(home.spaces[0]) / "x.md").write_text("---\ntitle: X\nwhen: {kind: every, every: 1h}\n---\n")
    check_all(home)
    kinds = set()
    for ws in home.spaces:
        value = derived.load(index.index_file(ws.id), index.MAGIC)
        conforms("issues-index", json.loads(json.dumps(value)))
        kinds.update(entry[3] for entry in value["files"].values())
    assert kinds == {"ok", "bad"}
    value["files"]["a.md"] = [[1, 2, 3, 4], 5, False, "ok", ["not", "an", "issue"], None, None]
    assert schema_errors("issues-index", json.loads(json.dumps(value)))
