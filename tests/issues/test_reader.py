"""Reading a workspace: one bad file never hides its neighbours (items 1, 2, 13, 16-18, 21)."""

from __future__ import annotations

import os

import pytest

from openalice.core.errors import InvalidInput, NotFound, PathEscape
from openalice.issues import Issue, load_issue, read_issues
from openalice.issues.reader import LEGACY_FILE_MESSAGE

from .conftest import make_ws

GOOD = "---\ntitle: Good\n---\nDo it.\n"


def errors_of(found, issue_id):
    item = next(i for i in found.invalid if i.id == issue_id)
    return [(e.field, e.reason) for e in item.errors]


def test_no_issues_dir_is_absent(tmp_path):                        # item 1
    root = tmp_path / "w"
    root.mkdir()
    ws = make_ws(root)
    os.rmdir(root / ".alice" / "issues")
    found = read_issues(ws)
    assert (found.state, found.issues, found.invalid, found.error) == ("absent", [], [], None)


def test_only_legacy_issue_json_is_an_invalid_workspace(tmp_path):  # item 2
    ws = make_ws(tmp_path / "w")
    os.rmdir(tmp_path / "w" / ".alice" / "issues")
    (tmp_path / "w" / ".alice" / "issue.json").write_text("{}")
    found = read_issues(ws)
    assert found.state == "invalid" and found.reason == "legacy_issue_json"
    assert found.error == LEGACY_FILE_MESSAGE
    assert ".alice/issue.json" in found.error and ".alice/issues/" in found.error


def test_missing_workspace_directory_is_not_absent(tmp_path):
    ws = make_ws(tmp_path / "w")
    import shutil
    shutil.rmtree(tmp_path / "w")
    found = read_issues(ws)
    assert found.state == "invalid" and found.reason == "missing" and not found.readable


def test_issues_path_that_is_a_file(tmp_path):
    ws = make_ws(tmp_path / "w")
    os.rmdir(tmp_path / "w" / ".alice" / "issues")
    (tmp_path / "w" / ".alice" / "issues").write_text("x")
    found = read_issues(ws)
    assert found.state == "invalid" and found.reason == "not_a_directory"


def test_bad_files_never_hide_good_ones(ws, write):                 # item 16
    write("good", GOOD)
    write("no-title", "---\nstatus: todo\n---\n")
    write("bad-yaml", "---\ntitle: [unclosed\n---\n")
    write("no-frontmatter", "Just text\n")
    found = read_issues(ws)
    assert found.state == "ok"
    assert [i.id for i in found.issues] == ["good"]
    assert sorted(i.id for i in found.invalid) == ["bad-yaml", "no-frontmatter", "no-title"]
    assert errors_of(found, "no-title") == [("title", "is required")]
    assert errors_of(found, "no-frontmatter")[0][0] == "frontmatter"
    assert "missing YAML frontmatter" in errors_of(found, "no-frontmatter")[0][1]
    assert errors_of(found, "bad-yaml")[0][0] == "frontmatter"


def test_too_large_file(ws, write):                                 # item 17
    write("good", GOOD)
    write("huge", "---\ntitle: Big\n---\n" + "x" * (70 * 1024))
    found = read_issues(ws)
    assert [i.id for i in found.issues] == ["good"]
    field, reason = errors_of(found, "huge")[0]
    assert field == "file" and reason.startswith("issue file too large (") and "65536" in reason


def test_ten_megabyte_file_is_refused_without_reading(ws, write):
    path = write("big", b"---\ntitle: x\n---\n" + b"y" * (10 * 1024 * 1024))
    found = read_issues(ws)
    assert errors_of(found, "big")[0][1].startswith(f"issue file too large ({path.stat().st_size} bytes")


def test_a_file_of_exactly_64_kib_is_read(ws, write):
    head = "---\ntitle: Edge\n---\n"
    write("edge", head + "z" * (64 * 1024 - len(head)))
    assert [i.id for i in read_issues(ws).issues] == ["edge"]


def test_other_files_are_ignored(ws, write):                        # item 18
    write("good", GOOD)
    write("x", "not an issue", name="README.txt")
    write("x", '{"version": 1}', name="good.comments.json")
    write("x", "---\ntitle: Hidden\n---\n", name=".hidden.md")
    write("x", "garbage", name=".tmp-good.md.abc123")
    found = read_issues(ws)
    assert [i.id for i in found.issues] == ["good"] and found.invalid == []


def test_extension_is_case_insensitive_and_names_are_sorted(ws, write):
    write("b", "---\ntitle: B\n---\n", name="b.MD")
    write("a", "---\ntitle: A\n---\n")
    assert [i.id for i in read_issues(ws).issues] == ["a", "b"]
    assert load_issue(ws, "b").title == "B"


def test_bom_crlf_and_body_rule_are_fine(ws, write):                # item 21
    write("w", b"\xef\xbb\xbf---\r\ntitle: Windows\r\n---\r\nPart one\r\n---\r\nPart two\r\n")
    issue = load_issue(ws, "w")
    assert issue.title == "Windows" and issue.what == "Part one\n---\nPart two"


@pytest.mark.parametrize("content, needle", [
    (b"\x00\x01\x02\xff\xfe garbage", "not valid UTF-8"),
    (bytes(range(256)) * 4, "not valid UTF-8"),
    (b"\x00\x01\x02 garbage", "missing YAML frontmatter"),
    (b"---\ntitle: \x00\n---\n", "U+0000"),
    (b"---\ntitle: \xff\xfe\n---\n", "not valid UTF-8"),
    ("---\ntitle: &a X\nother: *a\n---\n", "anchors are not supported"),
    ("---\ntitle: !!str X\n---\n", "tags are not supported"),
    ("---\ntitle: X\ntitle: Y\n---\n", "duplicate key 'title'"),
    ("---\nwhen:\n\tkind: every\ntitle: X\n---\n", "tab character"),
    ("---\ntitle: 'X\n---\n", "unterminated"),
    ("---\ntitle: \"X\n---\n", "unterminated"),
    ("---\ntitle: X\nnested: " + "{a: " * 10000 + "}" * 10000 + "\n---\n", "nesting deeper"),
    ("---\ntitle: X\nnested: " + "[" * 10000 + "]" * 10000 + "\n---\n", "nesting deeper"),
    ("---\ntitle: X\n", "unclosed frontmatter"),
    ("---\n---\n", "not a mapping"),
    ("---\n- a\n---\n", "not a mapping"),
])
def test_hostile_yaml_is_an_invalid_file(ws, write, content, needle):
    write("good", GOOD)
    write("evil", content)
    found = read_issues(ws)
    assert [i.id for i in found.issues] == ["good"]
    reasons = " ".join(r for _, r in errors_of(found, "evil"))
    assert needle in reasons


def test_symlinked_issue_file_is_not_followed(ws, write, tmp_path):
    secret = tmp_path / "outside.md"
    secret.write_text("---\ntitle: Outside secret\n---\nSECRET\n")
    write("good", GOOD)
    os.symlink(secret, ws.root / ".alice" / "issues" / "link.md")
    found = read_issues(ws)
    assert [i.id for i in found.issues] == ["good"]
    assert errors_of(found, "link") == [("file", "is a symbolic link; issue files are never "
                                                 "followed (make it a regular file)")]
    with pytest.raises(InvalidInput) as err:
        load_issue(ws, "link")
    assert "symbolic link" in str(err.value) and "SECRET" not in str(err.value)


def test_issues_dir_symlinked_outside_is_refused(tmp_path):
    ws = make_ws(tmp_path / "w")
    os.rmdir(tmp_path / "w" / ".alice" / "issues")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.md").write_text(GOOD)
    os.symlink(elsewhere, tmp_path / "w" / ".alice" / "issues")
    found = read_issues(ws)
    assert found.state == "invalid" and found.reason == "path_escape" and found.issues == []
    with pytest.raises(PathEscape):
        load_issue(ws, "x")


def test_issues_dir_symlinked_inside_is_read(tmp_path):
    ws = make_ws(tmp_path / "w")
    os.rmdir(tmp_path / "w" / ".alice" / "issues")
    (tmp_path / "w" / "tracked").mkdir()
    (tmp_path / "w" / "tracked" / "x.md").write_text(GOOD)
    os.symlink(tmp_path / "w" / "tracked", tmp_path / "w" / ".alice" / "issues")
    assert [i.id for i in read_issues(ws).issues] == ["x"]


def test_directory_and_fifo_named_md(ws):
    (ws.root / ".alice" / "issues" / "dir.md").mkdir()
    os.mkfifo(ws.root / ".alice" / "issues" / "pipe.md")
    found = read_issues(ws)
    assert errors_of(found, "dir") == [("file", "is not a regular file")]
    assert errors_of(found, "pipe") == [("file", "is not a regular file")]


def test_unaddressable_stem_is_reported_not_dropped(ws, write):
    write("x", "---\ntitle: Spaced\n---\n", name="My File.md")
    found = read_issues(ws)
    assert found.issues == []
    field, reason = errors_of(found, "My File")[0]
    assert field == "id" and "cannot be addressed" in reason


def test_second_telegram_connector_is_invalid(ws, write):           # item 13 (two files)
    write("a", "---\ntitle: A\ntelegramConnector: true\n---\n")
    write("b", "---\ntitle: B\ntelegramConnector: true\n---\n")
    found = read_issues(ws)
    assert [i.id for i in found.issues] == ["a"]
    assert errors_of(found, "b")[0][0] == "telegramConnector"
    assert "`a` already does" in errors_of(found, "b")[0][1]


def test_load_issue_errors(ws, write):
    with pytest.raises(NotFound) as err:
        load_issue(ws, "missing")
    assert err.value.code == "unknown_issue" and err.value.exit_code == 2
    with pytest.raises(NotFound):
        load_issue(ws, "../etc/passwd")
    write("bad", "---\ntitle: 2026\ntimeout: 20m\n---\n")
    with pytest.raises(InvalidInput) as err:
        load_issue(ws, "bad")
    assert err.value.field == "title" and err.value.file.endswith("bad.md")
    assert [e["field"] for e in err.value.details["errors"]] == ["title", "timeout"]


def test_issue_carries_path_and_workspace(ws, write):
    path = write("good", GOOD)
    issue = load_issue(ws, "good")
    assert isinstance(issue, Issue) and issue.path == path and issue.workspace_id == "ws"


def test_reading_a_thousand_files_is_one_pass(ws, write, monkeypatch):
    """Each file is opened once and parsed once (no second YAML pass)."""
    from openalice.core import frontmatter
    for n in range(50):
        write(f"i{n:03d}", f"---\ntitle: Issue {n}\nwhen: {{kind: every, every: 30m}}\n---\nBody\n")
    calls = []
    real = frontmatter.parse
    monkeypatch.setattr(frontmatter, "parse", lambda *a, **k: calls.append(1) or real(*a, **k))
    found = read_issues(ws)
    assert len(found.issues) == 50 and len(calls) == 50


def test_unreadable_directory_is_reported_and_others_still_read(tmp_path, monkeypatch):
    """Permissions cannot be tested as root, so the directory read itself fails here."""
    from openalice.issues import board, reader

    from .conftest import NOW
    good = make_ws(tmp_path / "good", "good")
    (tmp_path / "good" / ".alice" / "issues" / "a.md").write_text(GOOD)
    locked = make_ws(tmp_path / "locked", "locked")
    real_listdir = os.listdir

    def listdir(where):  # the issues directory is listed through its descriptor
        name = os.readlink(f"/proc/self/fd/{where}") if isinstance(where, int) else str(where)
        if "locked" in name:
            raise PermissionError(13, "Permission denied")
        return real_listdir(where)

    monkeypatch.setattr(reader.os, "listdir", listdir)
    found = read_issues(locked)
    assert (found.state, found.reason, found.readable) == ("invalid", "unreadable", False)
    assert "Permission denied" in found.error
    doc = board.board([locked, good], NOW)
    assert [(w["id"], w["state"]) for w in doc["workspaces"]] == [("locked", "unreadable"),
                                                                  ("good", "ok")]
    assert [i["id"] for c in doc["columns"] for i in c["issues"]] == ["a"]


def test_a_crashing_workspace_does_not_break_the_board(tmp_path, monkeypatch):
    from openalice.core.errors import OperationalError
    from openalice.issues import board, index

    from .conftest import NOW
    good = make_ws(tmp_path / "good", "good")
    bad = make_ws(tmp_path / "bad", "bad")
    real = index.snapshot

    def read(ws):  # list and board read through the issue index
        if ws.id == "bad":
            raise OperationalError("disk on fire")
        return real(ws)

    monkeypatch.setattr(index, "snapshot", read)
    doc = board.listing([bad, good], NOW)
    assert doc["workspaces"][0] == {"id": "bad", "label": "Bad", "path": str(bad.path),
                                    "state": "unreadable", "error": "cannot read issues: disk on fire"}
    assert doc["workspaces"][1]["state"] == "ok"
