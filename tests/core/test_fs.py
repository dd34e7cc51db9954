import json
import os
import stat
import time
from pathlib import Path

import pytest

from openalice.core import fs
from openalice.core.errors import Conflict, InvalidInput, NotFound


def test_atomic_write_json_roundtrip_and_trailing_newline(tmp_path):
    target = tmp_path / "sub" / "state.json"
    fs.atomic_write_json(target, {"b": 1, "a": [1, 2], "é": "ü"})
    text = target.read_text(encoding="utf-8")
    assert text.endswith("\n")
    assert json.loads(text) == {"b": 1, "a": [1, 2], "é": "ü"}
    assert list(json.loads(text)) == ["b", "a", "é"]  # key order kept


def test_atomic_write_leaves_no_temp_files(tmp_path):
    for i in range(20):
        fs.atomic_write_text(tmp_path / "f.txt", f"v{i}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]
    assert (tmp_path / "f.txt").read_text() == "v19"


def test_mode_kept_from_existing_file_and_secret_mode(tmp_path):
    target = tmp_path / "x"
    target.write_text("old")
    os.chmod(target, 0o640)
    fs.atomic_write_text(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    secret = tmp_path / "s.env"
    fs.atomic_write_text(secret, "K='v'\n", mode=0o600)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_new_directories_are_private(tmp_path):
    fs.atomic_write_text(tmp_path / "newdir" / "f", "x")
    assert stat.S_IMODE((tmp_path / "newdir").stat().st_mode) == 0o700


def test_failed_write_keeps_old_content(tmp_path, monkeypatch):
    target = tmp_path / "f.json"
    fs.atomic_write_json(target, {"v": 1})

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(Exception) as info:
        fs.atomic_write_json(target, {"v": 2})
    assert "No space left" in str(info.value)
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]  # temp cleaned up


def test_read_json_errors_name_file_and_reason(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1,\n "b": }')
    with pytest.raises(InvalidInput) as info:
        fs.read_json(bad)
    err = info.value
    assert err.file == str(bad)
    assert "line 2" in err.message and err.exit_code == 2
    with pytest.raises(NotFound):
        fs.read_json(tmp_path / "missing.json")
    assert fs.read_json(tmp_path / "missing.json", missing=None) is None
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InvalidInput, match="UTF-8"):
        fs.read_json(tmp_path / "bin.json")
    (tmp_path / "deep.json").write_text("[" * 100000)
    with pytest.raises(InvalidInput):
        fs.read_json(tmp_path / "deep.json")
    with pytest.raises(InvalidInput, match="directory"):
        fs.read_json(tmp_path)


def test_read_bytes_size_cap(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1000)
    with pytest.raises(InvalidInput, match="too large"):
        fs.read_bytes(big, max_bytes=999)
    assert len(fs.read_bytes(big, max_bytes=1000)) == 1000


def test_locked_update_json_default_and_no_write_on_error(tmp_path):
    target = tmp_path / "counter.json"
    fs.locked_update_json(target, lambda d: {**d, "n": d["n"] + 1}, default=lambda: {"n": 0})
    fs.locked_update_json(target, lambda d: {**d, "n": d["n"] + 1}, default=lambda: {"n": 0})
    assert json.loads(target.read_text()) == {"n": 2}

    def fail(d):
        d["n"] = 99
        raise ValueError("no")

    with pytest.raises(ValueError):
        fs.locked_update_json(target, fail, default=lambda: {"n": 0})
    assert json.loads(target.read_text()) == {"n": 2}
    with pytest.raises(NotFound):
        fs.locked_update_json(tmp_path / "absent.json", lambda d: d)


def test_locked_update_is_serialized_across_processes(tmp_path):
    import subprocess
    import sys

    target = tmp_path / "n.json"
    code = (
        "import sys; sys.path.insert(0, sys.argv[2])\n"
        "from openalice.core import fs\n"
        "for _ in range(50):\n"
        "    fs.locked_update_json(sys.argv[1], lambda d: {'n': d['n'] + 1}, default=lambda: {'n': 0})\n"
    )
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(target), repo]) for _ in range(4)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    assert json.loads(target.read_text()) == {"n": 200}


def test_sweep_removes_only_old_temp_files(tmp_path):
    old = tmp_path / ".tmp-state.json.abc"
    young = tmp_path / ".tmp-state.json.def"
    keep = tmp_path / "state.json"
    for p in (old, young, keep):
        p.write_text("x")
    past = time.time() - 7200
    os.utime(old, (past, past))
    removed = fs.sweep_temp_files(tmp_path, older_than=3600)
    assert removed == [old]
    assert young.exists() and keep.exists() and not old.exists()


def test_create_exclusive(tmp_path):
    target = tmp_path / "once"
    assert fs.create_exclusive(target, b"first") is True
    assert fs.create_exclusive(target, b"second") is False
    assert target.read_bytes() == b"first"
    assert [p.name for p in tmp_path.iterdir()] == ["once"]


def test_ensure_dir_gives_every_created_level_the_mode(tmp_path):
    # os.makedirs / Path.mkdir(parents=True) leave the intermediate levels 0755: a fresh
    # $OPENALICE_HOME created on the way to state/schedule/ was world-readable.
    import stat as _stat

    from openalice.core import flock

    target = tmp_path / "home" / "state" / "schedule"
    fs.ensure_dir(target)
    for level in (tmp_path / "home", tmp_path / "home" / "state", target):
        assert _stat.S_IMODE(level.stat().st_mode) == 0o700, level
    fd = flock.open_lock_file(str(tmp_path / "other" / "locks" / "scan.lock"))
    os.close(fd)
    assert _stat.S_IMODE((tmp_path / "other").stat().st_mode) == 0o700
    (tmp_path / "afile").write_text("x")
    with pytest.raises(InvalidInput) as info:
        fs.ensure_dir(tmp_path / "afile" / "sub")
    assert info.value.code == "not_a_directory"


def test_stamps_record_an_instant_without_following_symlinks(tmp_path):
    from openalice.core import stamps

    path = tmp_path / "state" / "beat"
    assert stamps.read(str(path)) is None
    stamps.touch(str(path), 1_700_000_000_123_000_000)
    assert stamps.read(str(path)) == 1_700_000_000_123_000_000
    assert path.read_bytes() == b"" and (path.stat().st_mode & 0o777) == 0o600
    stamps.touch(str(path), 1_800_000_000_000_000_000)
    assert stamps.read(str(path)) == 1_800_000_000_000_000_000
    target = tmp_path / "target"
    target.write_text("keep")
    before = target.stat().st_mtime_ns
    link = tmp_path / "link"
    link.symlink_to(target)
    assert stamps.read(str(link)) is None  # a symlink is not a stamp
    stamps.touch(str(link), 1_000_000_000)
    assert target.stat().st_mtime_ns == before


# -- issue 16: abandoned temps, strict state JSON, rooted writes, private homes -----------

def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def temp_of(directory, target: str, pid: int) -> "os.PathLike":
    path = directory / f"{fs.TEMP_PREFIX}{target}.{pid}.{fs.temps._HOST}.0123abcd"
    path.write_text("half a write")
    return path


def test_the_next_writer_of_a_directory_removes_temps_whose_writer_is_gone(tmp_path):
    directory = tmp_path / "d"
    directory.mkdir()
    temp_of(directory, "other.json", dead_pid())         # any target in the directory
    running = temp_of(directory, "state.json", os.getppid())     # a writer still in flight
    legacy_young = directory / ".tmp-state.json.k2j4h5g6"        # no pid: the age decides
    legacy_young.write_text("x")
    legacy_old = directory / ".tmp-state.json.a1b2c3d4"
    legacy_old.write_text("x")
    past = time.time() - fs.TEMP_MAX_AGE - 1
    os.utime(legacy_old, (past, past))
    fs.temps._swept.clear()
    fs.atomic_write_json(directory / "state.json", {"v": 1})
    left = sorted(p.name for p in directory.iterdir())
    assert left == sorted(["state.json", running.name, legacy_young.name]), left
    os.utime(running, (past, past))                              # an hour later
    fs.temps._swept.clear()
    fs.remove_file(directory / "missing.json")                   # removing is writing too
    assert sorted(p.name for p in directory.iterdir()) == sorted(["state.json",
                                                                   legacy_young.name])


def test_the_sweep_runs_once_per_process_and_directory(tmp_path, monkeypatch):
    fs.temps._swept.clear()
    calls = []
    real = fs.temps._sweep_fd
    monkeypatch.setattr(fs.temps, "_sweep_fd", lambda *a, **k: calls.append(1) or real(*a, **k))
    for i in range(5):
        fs.atomic_write_json(tmp_path / "a" / "x.json", {"i": i})
        fs.atomic_write_json(tmp_path / "b" / "x.json", {"i": i})
    assert len(calls) == 2


def test_temp_names_carry_the_writer(tmp_path, monkeypatch):
    seen = []
    real = os.replace

    def spy(src, dst, **kw):
        seen.append(src)
        return real(src, dst, **kw)

    monkeypatch.setattr(os, "replace", spy)
    fs.atomic_write_text(tmp_path / "f.txt", "x")
    assert fs.temps._temp_owner(seen[0]) == (os.getpid(), fs.temps._HOST)
    assert fs.temps._temp_target(seen[0]) == "f.txt"
    assert fs.temps._temp_target(".tmp-f.txt.ab12cd34") == "f.txt"  # mkstemp's names of before


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failed_write_removes_its_temp_at_once(tmp_path, monkeypatch, failure):
    def boom(*a, **k):
        raise failure

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises((OSError, KeyboardInterrupt, Exception)):
        fs.atomic_write_text(tmp_path / "k.env", "API_KEY='sk-x'\n", mode=0o600)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text,kind", [("null", "null"), ("[]", "an array"), ("3", "a number"),
                                       ('"x"', "a string"), ("true", "a boolean")])
def test_a_state_file_that_is_not_an_object_is_malformed_never_absent(tmp_path, text, kind):
    path = tmp_path / "state.json"
    path.write_text(text)
    with pytest.raises(InvalidInput) as info:
        fs.read_json(path, missing=None)
    err = info.value
    assert err.file == str(path) and err.code == "malformed_json" and kind in err.message
    with pytest.raises(InvalidInput):
        fs.locked_update_json(path, lambda d: {"replaced": True}, default=dict)
    assert path.read_text() == text  # never silently replaced
    assert fs.read_json(tmp_path / "none.json", missing=None) is None


def test_new_files_under_a_home_are_private_whatever_the_umask(tmp_path, monkeypatch):
    home = tmp_path / "openalice"
    monkeypatch.setenv("OPENALICE_HOME", str(home))
    old = os.umask(0)
    fs.writes._umask_cache = None
    try:
        fs.atomic_write_json(home / "state" / "x.json", {})
        fs.atomic_write_json(tmp_path / "elsewhere" / "y.json", {})
    finally:
        os.umask(old)
        fs.writes._umask_cache = None
    assert stat.S_IMODE((home / "state" / "x.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((home / "state").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "elsewhere" / "y.json").stat().st_mode) == 0o666


def test_private_directories_are_exactly_0700_even_under_a_umask_that_takes_owner_bits(tmp_path):
    old = os.umask(0o277)
    try:
        fs.ensure_dir(tmp_path / "a" / "b", 0o700)
    finally:
        os.umask(old)
    for p in (tmp_path / "a", tmp_path / "a" / "b"):
        assert stat.S_IMODE(p.stat().st_mode) == 0o700


def test_rooted_writes_and_reads_never_leave_the_root(tmp_path):
    root = tmp_path / "ws"
    (root / ".alice").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / ".alice" / "issues")
    target = root / ".alice" / "issues" / "x.md"
    from openalice.core.errors import PathEscape

    for write in (lambda: fs.atomic_write_text(target, "x", root=root),
                  lambda: fs.create_exclusive(target, b"x", root=root),
                  lambda: fs.read_bytes(target, root=root),
                  lambda: fs.locked_update_json(target, dict, default=dict, root=root)):
        with pytest.raises(PathEscape):
            write()
    assert list(outside.iterdir()) == []
    os.unlink(root / ".alice" / "issues")
    fs.atomic_write_text(target, "inside", root=root, dir_mode=0o755)
    assert fs.read_text(target, root=root) == "inside"
    assert stat.S_IMODE((root / ".alice" / "issues").stat().st_mode) == 0o755 & ~fs.writes._umask()


def test_atomic_write_many_replaces_each_file_and_leaves_no_temp_files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "old.txt").write_text("old")
    os.chmod(tmp_path / "a" / "old.txt", 0o640)
    seen = []
    fs.atomic_write_many([(tmp_path / "a" / "old.txt", b"new"), (tmp_path / "b" / "c" / "fresh.bin", b"\0\1")],
                         dir_mode=0o755, after_each=seen.append)
    assert (tmp_path / "a" / "old.txt").read_bytes() == b"new" and seen == [0, 1]
    assert os.stat(tmp_path / "a" / "old.txt").st_mode & 0o777 == 0o640       # the old mode is kept
    assert (tmp_path / "b" / "c" / "fresh.bin").read_bytes() == b"\0\1"
    assert [p.name for p in tmp_path.rglob(".tmp-*")] == []


def test_atomic_write_many_stopped_midway_leaves_each_file_old_or_new(tmp_path):
    for name in ("x", "y"):
        (tmp_path / name).write_text(f"{name} old")

    def stop(n):
        raise RuntimeError("stopped after the first rename")

    with pytest.raises(RuntimeError):
        fs.atomic_write_many([(tmp_path / "x", b"x new"), (tmp_path / "y", b"y new")], after_each=stop)
    assert (tmp_path / "x").read_text() == "x new" and (tmp_path / "y").read_text() == "y old"
    assert [p.name for p in tmp_path.glob(".tmp-*")] == []                     # the unrenamed temp is gone


def test_staged_dir_appears_whole_or_not_at_all(tmp_path):
    target = tmp_path / "rev" / "abc"
    with fs.staged_dir(target) as staging:
        (staging / "f").write_text("1")
        assert not target.exists()
    assert (target / "f").read_text() == "1"
    with pytest.raises(Conflict):
        with fs.staged_dir(target):
            pass
    other = tmp_path / "rev" / "def"
    with pytest.raises(RuntimeError):
        with fs.staged_dir(other) as staging:
            (staging / "f").write_text("partial")
            raise RuntimeError("failed midway")
    assert not other.exists() and [p.name for p in (tmp_path / "rev").iterdir()] == ["abc"]


def test_staged_dir_may_replace_an_empty_directory_and_sweeps_a_killed_build(tmp_path):
    """``init --from-git`` clones through it: an empty target is taken over at the
    rename (never a non-empty one), and the staging directory of a build whose
    writer is gone is removed by the next build of the same target."""
    import subprocess
    import sys

    target = tmp_path / "ws"
    target.mkdir()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    killed = tmp_path / f"{fs.TEMP_PREFIX}ws.{child.pid}.{fs.temps._HOST}.00ff00ff"
    (killed / ".git").mkdir(parents=True)
    with fs.staged_dir(target, replace_empty=True) as staging:
        assert not killed.exists()
        (staging / "f").write_text("1")
        assert target.is_dir() and not any(target.iterdir())     # still the empty one meanwhile
    assert (target / "f").read_text() == "1"
    with pytest.raises(Conflict):
        with fs.staged_dir(target, replace_empty=True):
            pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]


def test_staged_dir_sweeps_a_dead_build_of_another_target_but_not_a_live_one(tmp_path):
    """A killed import of one sticker revision is never built again under that
    name (the next import is another revision): in the toolkit's own state the
    next build in the same directory removes it, but never a build whose
    writer still runs, and never another target's in a user's directory."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()

    def builds(directory):
        dead = directory / f"{fs.TEMP_PREFIX}rev-a.{child.pid}.{fs.temps._HOST}.00ff00ff"
        live = directory / f"{fs.TEMP_PREFIX}rev-b.{os.getppid()}.{fs.temps._HOST}.00ff00ff"
        for d in (dead, live):
            (d / "pack.json").parent.mkdir(parents=True)
            (d / "pack.json").write_text("{}")
        with fs.staged_dir(directory / "rev-c") as staging:
            (staging / "pack.json").write_text("{}")
        assert (directory / "rev-c" / "pack.json").exists()
        return dead, live

    revisions = Path(os.environ["OPENALICE_HOME"]) / "data" / "stickers" / "packs" / "p" / "revisions"
    dead, live = builds(revisions)
    assert not dead.exists() and live.is_dir()
    dead, live = builds(tmp_path / "user-dir")
    assert dead.is_dir() and live.is_dir()


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc (Linux)")
def test_a_temp_whose_pid_now_belongs_to_a_younger_process_is_abandoned(tmp_path):
    """A pid is reused (32,768 of them on a busy machine): a process that started
    after the temp was last written cannot be its writer."""
    import subprocess
    import sys

    younger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        reused = tmp_path / f"{fs.TEMP_PREFIX}f.{younger.pid}.{fs.temps._HOST}.00ff00ff"
        reused.write_text("half")
        minute_ago = time.time() - 60
        os.utime(reused, (minute_ago, minute_ago))
        older = tmp_path / f"{fs.TEMP_PREFIX}g.{os.getppid()}.{fs.temps._HOST}.00ff00ff"
        older.write_text("in flight")            # its writer (alive, started before it) may still write it
        removed = fs.sweep_temp_files(tmp_path)
        assert removed == [reused] and older.exists()
    finally:
        younger.kill()
        younger.wait()


class _KilledAfterRename(BaseException):
    """Stands for a SIGKILL landing after a write's rename (in its directory fsync)."""


@pytest.mark.parametrize("write", ["atomic_write_json", "atomic_write_many", "create_exclusive",
                                   "remove_file"])
def test_a_writer_killed_right_after_its_change_has_swept_the_directory_already(tmp_path, monkeypatch,
                                                                                 write):
    # The scan writer's leftovers (docs/reliability.md): a writer killed while
    # writing a record `done` leaves its temp; the next process renames `done`
    # into place and is killed in the directory fsync after the rename.  No one
    # writes that directory again, so its first change must sweep first.
    directory = tmp_path / "task"
    directory.mkdir()
    (directory / "task.json").write_text('{"status": "running"}\n')
    gone = temp_of(directory, "task.json", dead_pid())
    fs.temps._swept.clear()

    def killed(_fd):
        raise _KilledAfterRename

    # the writers call the directory fsync from their own modules of the fs package
    monkeypatch.setattr(fs.writes, "fsync_fd", killed)
    monkeypatch.setattr(fs.moves, "fsync_fd", killed)
    target = directory / ("task.json" if write != "create_exclusive" else "new.json")
    with pytest.raises(_KilledAfterRename):
        if write == "atomic_write_json":
            fs.atomic_write_json(target, {"status": "done"})
        elif write == "atomic_write_many":
            fs.atomic_write_many([(target, b'{"status": "done"}\n')])
        elif write == "create_exclusive":
            fs.create_exclusive(target, b"{}\n")
        else:
            fs.remove_file(target)
    assert not gone.exists()
    assert [p.name for p in directory.iterdir() if p.name.startswith(fs.TEMP_PREFIX)] == []


def test_sweep_once_removes_only_abandoned_temps_and_only_once(tmp_path, monkeypatch):
    directory = tmp_path / "d"
    directory.mkdir()
    temp_of(directory, "log.jsonl", dead_pid())           # its writer was killed
    live = temp_of(directory, "log.jsonl", os.getppid())         # a writer in flight
    mine = temp_of(directory, "log.jsonl", os.getpid())          # this process's own
    other_host = directory / f"{fs.TEMP_PREFIX}log.jsonl.{dead_pid()}.zzzz.0123abcd"
    other_host.write_text("x")                                   # another host: only age decides
    old = temp_of(directory, "x.json", os.getppid())
    past = time.time() - fs.TEMP_MAX_AGE - 1
    os.utime(old, (past, past))                                  # an hour old: abandoned whoever wrote it
    (directory / "not-a-temp").write_text("kept")
    (directory / f"{fs.TEMP_PREFIX}adir").mkdir()                # only regular files are temps
    fs.temps._swept.clear()
    fs.sweep_once(directory)
    assert sorted(p.name for p in directory.iterdir()) == sorted(
        [live.name, mine.name, other_host.name, "not-a-temp", f"{fs.TEMP_PREFIX}adir"])
    again = temp_of(directory, "log.jsonl", dead_pid())
    fs.sweep_once(directory)                                     # once per process and directory
    assert again.exists()
    fs.sweep_once(directory / "missing")                         # a missing directory: nothing
    fs.temps._swept.clear()
    fs.sweep_once(directory)                                     # a fresh process sweeps again
    assert not again.exists() and live.exists() and mine.exists()
