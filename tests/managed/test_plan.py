"""Managed paths, fingerprints, snapshots and the three-way plan (reference §4-5, §8 items 22-23, 31-32)."""

from __future__ import annotations

import gzip
import json
import os
import threading

import pytest

from openalice import managed
from openalice.core import resources
from openalice.core.errors import InvalidInput, PathEscape
from openalice.core.schema import Validator

MIRRORS = [("AGENTS.md", "CLAUDE.md"), (".agents/skills/", ".claude/skills/")]
SCOPE = ["README.md", "AGENTS.md", "CLAUDE.md", ".agents/skills/s/", ".claude/skills/s/"]
TREES = [".agents/skills/s/", ".claude/skills/s/"]
TEXT = "".join(f"line {i}\n" for i in range(1, 11))


def edit(text: str, number: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[number - 1] = new + "\n"
    return "".join(lines)


def put(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def plan(root, targets, baseline=None, **kwargs):
    kwargs.setdefault("scope", SCOPE)
    kwargs.setdefault("walk_trees", TREES)
    kwargs.setdefault("mirrors", MIRRORS)
    return managed.make_plan(root, targets={k: v.encode() for k, v in targets.items()},
                             baseline=baseline or {}, **kwargs)


def snapshot_of(files: dict) -> dict:
    return {rel: managed.file_entry(text.encode()) for rel, text in files.items()}


def by_path(p):
    return {i.path: i for i in p.items}


# -- paths -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["", "/tmp/AGENTS.md", ".agents//skills/x", ".agents/skills/../../AGENTS.md",
                                 "./AGENTS.md", "a/./b", "a\x00b", "a\\b", "a/", "..", "a/.."])
def test_managed_paths_are_plain_relative_paths(bad):
    with pytest.raises((InvalidInput, PathEscape)):
        managed.check_path(bad)


def test_absolute_and_dotdot_paths_are_path_escapes():
    for bad in ("/tmp/AGENTS.md", ".agents/skills/../../AGENTS.md"):
        with pytest.raises(PathEscape):
            managed.check_path(bad)
    assert managed.check_path(".agents/skills/alice/SKILL.md") == ".agents/skills/alice/SKILL.md"


def test_within_roots():
    roots = ["AGENTS.md", ".agents/skills/alice/"]
    assert managed.within("AGENTS.md", roots) and managed.within(".agents/skills/alice/x/y.md", roots)
    assert not managed.within("AGENTS.md.bak", roots) and not managed.within(".agents/skills/alicex/a", roots)


# -- fingerprints ---------------------------------------------------------------------------------------

def test_fingerprints_by_content_never_following_a_link(tmp_path):
    put(tmp_path, "a/file.md", "hello")
    (tmp_path / "outside").mkdir()
    put(tmp_path, "outside/target.md", "elsewhere")
    os.symlink(tmp_path / "outside" / "target.md", tmp_path / "a" / "link.md")
    os.symlink(tmp_path / "outside", tmp_path / "linked-dir")
    (tmp_path / "a" / "sub").mkdir()
    os.mkfifo(tmp_path / "a" / "fifo")
    file = managed.inspect(tmp_path, "a/file.md")
    assert file.kind == "file" and file.fingerprint == managed.content_fingerprint(b"hello")
    assert managed.inspect(tmp_path, "a/none.md") == managed.MISSING
    assert managed.inspect(tmp_path, "nope/deeper/x.md") == managed.MISSING
    link = managed.inspect(tmp_path, "a/link.md")
    assert link.kind == "other" and link.detail.startswith("symlink -> ") and link.fingerprint.startswith("other:")
    assert managed.inspect(tmp_path, "a/sub").detail == "directory"
    assert managed.inspect(tmp_path, "a/fifo").detail == "special file"
    parent = managed.inspect(tmp_path, "linked-dir/target.md")
    assert parent.kind == "other" and "unsafe parent: linked-dir is a symlink" in parent.detail
    assert "is not a directory" in managed.inspect(tmp_path, "a/file.md/x").detail
    # Same content, same fingerprint; one byte more, another.
    put(tmp_path, "b.md", "hello")
    assert managed.inspect(tmp_path, "b.md").fingerprint == file.fingerprint
    put(tmp_path, "b.md", "hello!")
    assert managed.inspect(tmp_path, "b.md").fingerprint != file.fingerprint


def test_snapshots_round_trip_and_refuse_damage(tmp_path):
    files = {"a.md": managed.file_entry("text ü\n".encode()), "bin": managed.file_entry(b"\xff\x00\x01"),
             "gone": managed.MISSING}
    path = tmp_path / "baseline.json.gz"
    managed.write_snapshot(path, files)
    assert managed.read_snapshot(path) == files
    doc = json.loads(gzip.decompress(path.read_bytes()))
    assert Validator(resources.schema("managed-snapshot")).errors(doc) == []
    assert doc["files"]["bin"]["contentBase64"] == "/wAB"
    assert managed.read_snapshot(tmp_path / "none.json.gz", missing={}) == {}

    def damaged(document=None, raw=None):
        target = tmp_path / "bad.json.gz"
        target.write_bytes(raw if raw is not None else gzip.compress(json.dumps(document).encode()))
        with pytest.raises(InvalidInput) as info:
            managed.read_snapshot(target)
        assert info.value.file == str(target)
        return info.value

    assert damaged(raw=b"not gzip").code == "malformed_snapshot"
    assert damaged(raw=gzip.compress(b"{nope")).code == "malformed_snapshot"
    assert damaged(raw=gzip.compress(b"{}")[:-4]).code == "malformed_snapshot"      # truncated
    wrong = {**doc, "files": {**doc["files"], "a.md": {**doc["files"]["a.md"], "content": "tampered"}}}
    err = damaged(wrong)
    assert err.field == "files/a.md" and "fingerprint does not match" in err.message
    assert damaged({**doc, "schemaVersion": 2}).field == "schemaVersion"
    assert damaged({**doc, "files": {"../x": doc["files"]["a.md"]}}).field == "files/../x"
    assert damaged({**doc, "extra": 1}).code == "malformed_snapshot"


# -- the decision table ---------------------------------------------------------------------------------

def test_the_decision_table(tmp_path):
    base = {"README.md": TEXT, "AGENTS.md": TEXT, "CLAUDE.md": TEXT, ".agents/skills/s/SKILL.md": TEXT,
            ".claude/skills/s/SKILL.md": TEXT, ".agents/skills/s/gone.md": "old\n",
            ".claude/skills/s/gone.md": "old\n", ".agents/skills/s/deleted.md": "x\n",
            ".claude/skills/s/deleted.md": "x\n"}
    for rel, text in base.items():
        put(tmp_path, rel, text)
    # Local: AGENTS.md/CLAUDE.md edited at line 2, SKILL.md at line 2, deleted.md removed, a personal file.
    put(tmp_path, "AGENTS.md", edit(TEXT, 2, "local"))
    put(tmp_path, "CLAUDE.md", edit(TEXT, 2, "local"))
    put(tmp_path, ".agents/skills/s/SKILL.md", edit(TEXT, 2, "local"))
    put(tmp_path, ".claude/skills/s/SKILL.md", edit(TEXT, 2, "local"))
    (tmp_path / ".agents/skills/s/deleted.md").unlink()
    (tmp_path / ".claude/skills/s/deleted.md").unlink()
    put(tmp_path, ".agents/skills/s/mine.md", "personal\n")
    incoming = {"README.md": edit(TEXT, 9, "upstream"),            # upstream only → ready
                "AGENTS.md": edit(TEXT, 2, "upstream"),            # both, same line → conflict
                ".agents/skills/s/SKILL.md": edit(TEXT, 9, "upstream"),  # both, far apart → merged
                ".agents/skills/s/deleted.md": "x\n",              # deleted locally, unchanged upstream
                ".agents/skills/s/new.md": "new\n"}                # new upstream → add
    p = plan(tmp_path, incoming, snapshot_of(base))
    items = by_path(p)
    assert (items["README.md"].status, items["README.md"].operation) == ("ready", "update")
    assert (items["AGENTS.md"].status, items["AGENTS.md"].copies) == ("conflict", ("CLAUDE.md",))
    assert items["AGENTS.md"].can_use_template and "overlapping" in items["AGENTS.md"].reason
    merged = items[".agents/skills/s/SKILL.md"]
    assert (merged.status, merged.operation) == ("merged", "merge")
    assert merged.result.content.decode() == edit(edit(TEXT, 2, "local"), 9, "upstream")
    assert set(merged.writes) == {".agents/skills/s/SKILL.md", ".claude/skills/s/SKILL.md"}
    assert (items[".agents/skills/s/gone.md"].status, items[".agents/skills/s/gone.md"].operation) == (
        "ready", "remove")
    assert (items[".agents/skills/s/deleted.md"].status, items[".agents/skills/s/deleted.md"].reason) == (
        "preserved", "deleted in the workspace")
    assert (items[".agents/skills/s/new.md"].status, items[".agents/skills/s/new.md"].operation) == ("ready", "add")
    mine = items[".agents/skills/s/mine.md"]
    assert (mine.status, mine.operation, mine.writes) == ("preserved", "keep", ())
    assert p.summary() == {"ready": 3, "merged": 1, "preserved": 2, "conflicts": 1, "unchanged": 0}
    # Nothing was written by planning.
    assert (tmp_path / "README.md").read_text() == TEXT and not (tmp_path / ".agents/skills/s/new.md").exists()


def test_local_equals_incoming_is_unchanged_and_a_local_only_change_is_preserved(tmp_path):
    put(tmp_path, "README.md", "same\n")
    put(tmp_path, "AGENTS.md", "mine\n")
    put(tmp_path, "CLAUDE.md", "mine\n")
    base = snapshot_of({"README.md": "old\n", "AGENTS.md": "old\n", "CLAUDE.md": "old\n"})
    items = by_path(plan(tmp_path, {"README.md": "same\n", "AGENTS.md": "old\n"}, base))
    assert items["README.md"].status == "unchanged"
    assert (items["AGENTS.md"].status, items["AGENTS.md"].reason) == ("preserved", "changed in the workspace")


def test_an_edit_in_one_copy_is_the_local_side_for_all_copies(tmp_path):
    base = {".agents/skills/s/SKILL.md": TEXT, ".claude/skills/s/SKILL.md": TEXT}
    for rel, text in base.items():
        put(tmp_path, rel, text)
    put(tmp_path, ".claude/skills/s/SKILL.md", edit(TEXT, 1, "edited in the mirror"))
    item = by_path(plan(tmp_path, {".agents/skills/s/SKILL.md": edit(TEXT, 10, "upstream")},
                        snapshot_of(base)))[".agents/skills/s/SKILL.md"]
    assert item.status == "merged"
    assert item.result.content.decode() == edit(edit(TEXT, 1, "edited in the mirror"), 10, "upstream")
    assert set(item.writes) == {".agents/skills/s/SKILL.md", ".claude/skills/s/SKILL.md"}
    # No upstream change: the edit is kept and carried to the copy that still has the old bytes.
    item = by_path(plan(tmp_path, {".agents/skills/s/SKILL.md": TEXT}, snapshot_of(base)))[
        ".agents/skills/s/SKILL.md"]
    assert (item.status, item.writes) == ("preserved", (".agents/skills/s/SKILL.md",))


def test_copies_edited_differently_are_a_conflict(tmp_path):
    base = {"AGENTS.md": TEXT, "CLAUDE.md": TEXT}
    put(tmp_path, "AGENTS.md", edit(TEXT, 1, "a"))
    put(tmp_path, "CLAUDE.md", edit(TEXT, 1, "b"))
    item = by_path(plan(tmp_path, {"AGENTS.md": TEXT}, snapshot_of(base)))["AGENTS.md"]
    assert (item.status, item.reason, item.can_use_template) == ("conflict", "the copies were changed differently",
                                                                 True)


def test_a_symlinked_parent_is_a_conflict_the_template_cannot_resolve(tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    (outside / "skills" / "s").mkdir(parents=True)
    (outside / "skills" / "s" / "SKILL.md").write_text("theirs\n")
    os.symlink(outside, tmp_path / ".agents")
    item = by_path(plan(tmp_path, {".agents/skills/s/SKILL.md": "new\n"}))[".agents/skills/s/SKILL.md"]
    assert item.status == "conflict" and item.can_use_template is False
    assert "unsafe parent: .agents is a symlink" in item.reason


def test_a_symlinked_skill_file_is_a_conflict_and_its_target_is_untouched(tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-target.md"
    outside.write_text(TEXT)
    (tmp_path / ".agents/skills/s").mkdir(parents=True)
    os.symlink(outside, tmp_path / ".agents/skills/s/SKILL.md")
    base = snapshot_of({".agents/skills/s/SKILL.md": TEXT})
    for targets in ({}, {".agents/skills/s/SKILL.md": "restored\n"}):       # remove, restore
        item = by_path(plan(tmp_path, targets, base, force=[".agents/skills/s/SKILL.md"]))[
            ".agents/skills/s/SKILL.md"]
        assert item.status == "conflict" and item.can_use_template is False, item
    assert outside.read_text() == TEXT


def test_forced_items_take_the_incoming_bytes_over_local_edits(tmp_path):
    put(tmp_path, "README.md", "edited\n")
    item = by_path(plan(tmp_path, {"README.md": "bundle\n"}, snapshot_of({"README.md": "bundle\n"}),
                        force=["README.md"]))["README.md"]
    assert (item.status, item.reason, item.writes) == ("ready", "restored from the template", ("README.md",))


def test_binary_files_changed_on_both_sides_conflict(tmp_path):
    (tmp_path / "README.md").write_bytes(b"\x00local")
    item = by_path(plan(tmp_path, {"README.md": "\x00incoming"}, snapshot_of({"README.md": "\x00base"})))[
        "README.md"]
    assert item.status == "conflict" and "not text" in item.reason


def test_targets_outside_the_scope_are_refused(tmp_path):
    with pytest.raises(InvalidInput):
        plan(tmp_path, {"elsewhere.md": "x"})
    with pytest.raises(PathEscape):
        plan(tmp_path, {"../x.md": "x"}, scope=["../x.md"])


def test_the_digest_is_deterministic_and_moves_with_any_input(tmp_path):
    put(tmp_path, "README.md", TEXT)
    base = snapshot_of({"README.md": TEXT})
    digests = []

    def one():
        digests.append(plan(tmp_path, {"README.md": edit(TEXT, 1, "up")}, base, identity={"v": 1}).digest)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(digests)) == 1 and len(digests[0]) == 64
    first = digests[0]
    assert plan(tmp_path, {"README.md": edit(TEXT, 1, "up")}, base, identity={"v": 2}).digest != first
    assert plan(tmp_path, {"README.md": edit(TEXT, 1, "other")}, base, identity={"v": 1}).digest != first
    put(tmp_path, "README.md", TEXT + "local\n")
    assert plan(tmp_path, {"README.md": edit(TEXT, 1, "up")}, base, identity={"v": 1}).digest != first
