"""The inbox's own rules, through its API: the revision check of ``cat`` and
the confinement of writes inside a headless run."""

import hashlib
import io

import pytest

from openalice.core.errors import Conflict, Forbidden, InvalidInput
from openalice.inbox import access, cat

DATA = b"# Close\nall green\n"
REVISION = "sha256:" + hashlib.sha256(DATA).hexdigest()
RUN = {"ALICE_RUN_ID": "run-abc", "ALICE_WORKSPACE_ID": "notes", "ALICE_RESUME_ID": "resume-x"}


def test_copy_checked_emits_only_bytes_that_match_when_required():
    out = io.BytesIO()
    assert cat.copy_checked(io.BytesIO(DATA), out, path="a.md", published=REVISION,
                            require_revision=True) == REVISION
    assert out.getvalue() == DATA
    out = io.BytesIO()
    with pytest.raises(Conflict) as caught:
        cat.copy_checked(io.BytesIO(DATA + b"!"), out, path="a.md", published=REVISION,
                         require_revision=True)
    assert caught.value.code == "revision_mismatch" and out.getvalue() == b""
    with pytest.raises(Conflict) as caught:
        cat.copy_checked(io.BytesIO(DATA), out, path="a.md", published=None, require_revision=True)
    assert caught.value.code == "no_revision" and out.getvalue() == b""


def test_copy_unchecked_streams_and_returns_the_current_revision():
    out = io.BytesIO()
    current = cat.copy_checked(io.BytesIO(DATA + b"!"), out, path="a.md", published=REVISION,
                               require_revision=False)
    assert out.getvalue() == DATA + b"!" and current != REVISION
    assert current == "sha256:" + hashlib.sha256(DATA + b"!").hexdigest()


def test_document_says_whether_the_bytes_match_and_encodes_binary():
    doc = cat.document(io.BytesIO(DATA), entry_id="e", path="a.md", published=REVISION,
                       require_revision=True)
    assert doc == {"id": "e", "path": "a.md", "currentRevision": REVISION, "matchesRevision": True,
                   "size": len(DATA), "encoding": "utf-8", "content": DATA.decode(),
                   "revision": REVISION}
    binary = cat.document(io.BytesIO(b"\xff\x00"), entry_id="e", path="b.png", published=None,
                          require_revision=False)
    assert binary["encoding"] == "base64" and binary["content"] == "/wA="
    assert binary["matchesRevision"] is None and "revision" not in binary
    with pytest.raises(Conflict):
        cat.document(io.BytesIO(b"other"), entry_id="e", path="a.md", published=REVISION,
                     require_revision=True)
    with pytest.raises(InvalidInput):
        cat.document(io.BytesIO(b"x" * (cat.DOCUMENT_MAX + 1)), entry_id="e", path="a.md",
                     published=None, require_revision=False)


def test_a_run_writes_only_its_own_workspaces_entries():
    access.confine_write("notes", env=RUN)
    access.confine_write("other", env={})           # outside a run: the person's own
    with pytest.raises(Forbidden) as caught:
        access.confine_write("other", env=RUN)
    assert caught.value.code == "cross_workspace"


def test_mark_all_read_inside_a_run_covers_only_the_runs_workspace():
    assert access.mark_all_read_scope(None, env={}) is None
    assert access.mark_all_read_scope("other", env={}) == "other"
    assert access.mark_all_read_scope(None, env=RUN) == "notes"
    assert access.mark_all_read_scope("notes", env=RUN) == "notes"
    with pytest.raises(Forbidden):
        access.mark_all_read_scope("other", env=RUN)
