"""Containment and revisions of [[path]] references (items 55-56, escapes)."""

import hashlib
import os
import stat

import pytest

from openalice import inbox
from openalice.core.errors import PathEscape
from openalice.inbox import files

from .conftest import T0


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def test_item_56_revision_is_sha256_of_the_bytes_and_missing_gets_no_key(ws, store):
    (ws.root / "research").mkdir()
    (ws.root / "research" / "a.md").write_bytes(b"# Published\n")
    result = inbox.push("See [[research/a.md]] and [[research/missing.md]]", workspace=ws,
                        origin={"kind": "manual"}, now=T0, store=store)
    assert result.entry["fileRevisions"] == {"research/a.md": sha(b"# Published\n")}
    states = {f.path: f for f in result.files}
    assert states["research/a.md"].available and states["research/a.md"].revision
    assert not states["research/missing.md"].available
    assert states["research/missing.md"].reason == "missing"


def test_large_file_is_hashed_in_chunks(ws):
    data = os.urandom(files.CHUNK * 2 + 123)
    (ws.root / "big.bin").write_bytes(data)
    assert files.digest_reference(ws.root, "big.bin") == sha(data)


@pytest.fixture
def outside(tmp_path):
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "private.txt").write_text("secret")
    return secret


def state(ws, rel):
    return files.inspect(ws.root, rel, None)


def test_item_55_unresolved_references(ws, outside):
    (ws.root / "link.txt").symlink_to(outside / "private.txt")
    (ws.root / "linkdir").symlink_to(outside, target_is_directory=True)
    (ws.root / "adir").mkdir()
    assert state(ws, "missing.md").reason == "missing"
    assert state(ws, "link.txt").reason == "path_escape"
    assert state(ws, "linkdir/private.txt").reason == "path_escape"
    assert state(ws, "adir").reason == "not_regular_file"
    # '..' and absolute paths never reach the disk: the grammar refuses them,
    # and the path check refuses them again if called directly.
    assert inbox.parse_references("[[../outside/private.txt]] [[/etc/hostname]]").paths == ()
    assert state(ws, "../outside/private.txt").reason == "path_escape"
    assert state(ws, "/etc/hostname").reason == "path_escape"


def test_symlinks_that_stay_inside_are_followed(ws):
    (ws.root / "real").mkdir()
    (ws.root / "real" / "a.md").write_text("inside")
    (ws.root / "alias").symlink_to(ws.root / "real", target_is_directory=True)
    (ws.root / "a-link.md").symlink_to(ws.root / "real" / "a.md")
    assert state(ws, "alias/a.md").current == sha(b"inside")
    assert state(ws, "a-link.md").current == sha(b"inside")


def test_fifo_is_refused_without_blocking(ws):
    os.mkfifo(ws.root / "pipe.md")
    assert state(ws, "pipe.md").reason == "not_regular_file"


def test_devices_are_refused(ws):
    (ws.root / "null.md").symlink_to("/dev/null")
    assert state(ws, "null.md").reason == "path_escape"
    try:
        os.mknod(ws.root / "dev.md", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot create a device node here (needs CAP_MKNOD)")
    assert state(ws, "dev.md").reason == "not_regular_file"


def test_unreadable_file(ws):
    target = ws.root / "locked.md"
    target.write_text("x")
    target.chmod(0)
    try:
        if os.access(target, os.R_OK):
            pytest.skip("running as root: permissions do not stop reads")
        assert state(ws, "locked.md").reason == "unreadable"
    finally:
        target.chmod(0o600)


def test_open_reference_refuses_a_file_or_parent_swapped_for_a_symlink_out(ws, outside):
    (ws.root / "reports").mkdir()
    (ws.root / "reports" / "a.md").write_text("fine")
    os.close(files.open_reference(ws.root, "reports/a.md"))
    os.unlink(ws.root / "reports" / "a.md")
    os.symlink(outside / "private.txt", ws.root / "reports" / "a.md")
    with pytest.raises(PathEscape):
        files.open_reference(ws.root, "reports/a.md")
    os.rename(ws.root / "reports", ws.root / "reports.real")
    os.symlink(outside, ws.root / "reports", target_is_directory=True)
    (outside / "a.md").write_text("outside")
    with pytest.raises(PathEscape):  # no check apart from the open: nothing to race
        files.open_reference(ws.root, "reports/a.md")


def test_show_reports_changes_since_publication(ws, store):
    (ws.root / "a.md").write_text("v1")
    entry = inbox.push("[[a.md]] [[b.md]]", workspace=ws, origin=None, now=T0,
                       store=store).entry
    (ws.root / "a.md").write_text("v2")
    (ws.root / "b.md").write_text("arrived later")
    got = {f["path"]: f for f in inbox.describe(store, entry["id"])["files"]}
    assert got["a.md"] == {"path": "a.md", "available": True, "revision": sha(b"v1"),
                           "currentRevision": sha(b"v2"), "matchesRevision": False}
    assert got["b.md"] == {"path": "b.md", "available": True,
                           "currentRevision": sha(b"arrived later"), "matchesRevision": None}
    quick = inbox.describe(store, entry["id"], verify=False)["files"]
    assert quick[0] == {"path": "a.md", "available": True, "revision": sha(b"v1")}
