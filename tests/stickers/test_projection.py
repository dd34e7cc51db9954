"""A pack in a workspace: projection, ownership, conflicts, transactions, recovery
(reference §6 and §8 items 33-35)."""

from __future__ import annotations

import base64
import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from openalice import harness, managed, stickers, workspaces
from openalice.core import resources
from openalice.core.errors import Busy, Conflict, Forbidden, InvalidInput
from openalice.core.schema import Validator
from openalice.stickers import projection
from openalice.workspaces.checkout import checkout
from tests.harness.helpers import new_bundle
from tests.stickers.helpers import make_pack, tiny_png, tree_bytes

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
SKILL, MIRROR = projection.SKILL_FILES


def new_ws(tmp_path, name="ws", template="chat"):
    return workspaces.init(tmp_path / name, template=template, now=NOW)[0]


def state(ws) -> dict:
    doc = json.loads((Path(ws.path) / ".alice/stickers.json").read_text())
    assert Validator(resources.schema("stickers-state")).errors(doc) == []
    return doc


def stickers_of(ws) -> dict[str, bytes]:
    root = Path(ws.path) / "sticker"
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())} if root.is_dir() else {}


def workspace_bytes(ws) -> dict[str, bytes]:
    return tree_bytes(Path(ws.path))


def switch(ws, pack_id="alice-ink", **kwargs):
    return stickers.apply(ws, action="enable", pack_id=pack_id, now=NOW, **kwargs)


def test_a_new_chat_workspace_has_the_default_pack_and_other_templates_none(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    color = stickers.get_pack("alice-color")
    assert stickers_of(ws) == {s.file: s.data for s in color.stickers}
    assert (root / SKILL).read_bytes() == color.skill == (root / MIRROR).read_bytes()
    doc = state(ws)
    assert doc["enabled"] and doc["packId"] == "alice-color" and doc["revision"] == color.revision
    assert sorted(doc["files"]) == sorted([SKILL, MIRROR] + [f"sticker/{s.file}" for s in color.stickers])
    assert doc["files"]["sticker/wave.png"] == next(s.sha256 for s in color.stickers if s.file == "wave.png")
    assert not (root / projection.JOURNAL_FILE).exists()
    blank = new_ws(tmp_path, "plain", template="blank")
    assert not (Path(blank.path) / "sticker").exists() and stickers.read_state(blank.path) is None
    assert not (Path(blank.path) / SKILL).exists()
    assert stickers.preview(blank, action="disable", now=NOW).status == "current"


def test_switching_packs_replaces_owned_images_and_keeps_personal_ones(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / "sticker/mine.png").write_bytes(tiny_png(5))          # a personal sticker
    before = workspace_bytes(ws)
    preview = stickers.preview(ws, action="enable", pack_id="alice-ink", now=NOW)
    doc = preview.to_json()
    assert Validator(resources.schema("stickers-apply")).errors({"ok": True, "action": "preview",
                                                                 "preview": doc}) == []
    assert doc["status"] == "ready" and doc["from"]["packId"] == "alice-color" and doc["to"]["packId"] == "alice-ink"
    assert doc["summary"]["ready"] == 7 and doc["conflicts"] == []
    assert workspace_bytes(ws) == before                           # a preview writes nothing
    assert stickers.preview(ws, action="enable", pack_id="alice-ink", now=NOW).digest == preview.digest
    result, applied = switch(ws, digest=preview.digest)
    ink = stickers.get_pack("alice-ink")
    assert stickers_of(ws) == {**{s.file: s.data for s in ink.stickers}, "mine.png": tiny_png(5)}
    assert (root / SKILL).read_bytes() == ink.skill == (root / MIRROR).read_bytes()
    assert state(ws)["packId"] == "alice-ink" and "sticker/mine.png" not in state(ws)["files"]
    assert len(applied.changed) == 8                               # 6 images + the skill and its mirror
    assert switch(ws)[1] is None                                   # already current: a noop
    assert stickers.status(ws, now=NOW)["personal"] == ["sticker/mine.png"]


def test_an_unowned_file_at_a_target_path_blocks_even_with_restore(tmp_path):
    ws = new_ws(tmp_path, template="blank")
    root = Path(ws.path)
    (root / "sticker").mkdir()
    (root / "sticker/wave.png").write_bytes(tiny_png(3))            # yours, not the pack's
    before = workspace_bytes(ws)
    for restore in (False, True):
        preview = stickers.preview(ws, action="enable", restore=restore, now=NOW)
        assert preview.status == "blocked"
        conflict = preview.to_json()["conflicts"][0]
        assert conflict["path"] == "sticker/wave.png" and conflict["owned"] is False
        assert conflict["resolve"] == "move-away" and preview.to_json()["nextCommand"] is None
        with pytest.raises(Conflict) as info:
            stickers.apply(ws, action="enable", restore=restore, now=NOW)
        assert info.value.code == "unowned_file" and info.value.field == "sticker/wave.png"
        with pytest.raises(Conflict):
            stickers.apply(ws, action="enable", keep=["sticker/wave.png"], now=NOW)
    assert workspace_bytes(ws) == before
    # The same bytes as the pack's are simply adopted.
    (root / "sticker/wave.png").write_bytes(next(s.data for s in stickers.get_pack("alice-color").stickers
                                                 if s.file == "wave.png"))
    stickers.apply(ws, action="enable", now=NOW)
    assert "sticker/wave.png" in state(ws)["files"]


def test_an_owned_file_edited_here_needs_restore_or_keep(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / "sticker/heart.png").write_bytes(tiny_png(8))           # edited here
    preview = stickers.preview(ws, action="enable", pack_id="alice-ink", now=NOW)
    assert preview.status == "needs_restore"
    [conflict] = preview.to_json()["conflicts"]
    assert conflict == {"path": "sticker/heart.png", "status": "conflict", "operation": "update", "owned": True,
                        "resolve": "restore", "reason": "changed here; --restore replaces it with the pack's, "
                                                        "--keep keeps yours"}
    assert "--keep sticker/heart.png" in preview.to_json()["nextCommand"]
    before = workspace_bytes(ws)
    with pytest.raises(Conflict) as info:
        switch(ws)
    assert info.value.code == "restore_required" and workspace_bytes(ws) == before
    # --keep: yours stays (and is still owned, as the pack's new version: it shows as modified).
    result, applied = switch(ws, keep=["sticker/heart.png"], digest=preview.digest)
    assert (root / "sticker/heart.png").read_bytes() == tiny_png(8) and applied.kept == ["sticker/heart.png"]
    assert {d["path"]: d["kind"] for d in stickers.status(ws, now=NOW)["drift"]} == {"sticker/heart.png": "modified"}
    # --restore: the pack's bytes win.
    restored = stickers.preview(ws, action="enable", pack_id="alice-ink", restore=True, now=NOW)
    assert restored.status == "ready" and restored.digest != preview.digest
    switch(ws, restore=True, digest=restored.digest)
    ink = {s.file: s.data for s in stickers.get_pack("alice-ink").stickers}
    assert (root / "sticker/heart.png").read_bytes() == ink["heart.png"]
    assert stickers.status(ws, now=NOW)["drift"] == []


def test_edits_the_pack_leaves_alone_are_kept_and_restore_brings_deleted_ones_back(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / "sticker/star.png").unlink()
    (root / SKILL).write_text("my own notes\n")
    preview = stickers.preview(ws, action="enable", now=NOW)
    reasons = {i["path"]: i["reason"] for i in preview.to_json()["preserved"]}
    assert reasons["sticker/star.png"].startswith("deleted here") and preview.status == "ready"
    assert SKILL in [i["path"] for i in preview.to_json()["changes"]]   # the mirror follows the edited copy
    stickers.apply(ws, action="enable", now=NOW)
    assert not (root / "sticker/star.png").exists()
    assert (root / MIRROR).read_text() == "my own notes\n"             # copies kept byte-identical
    kinds = {d["path"]: d["kind"] for d in stickers.status(ws, now=NOW)["drift"]}
    assert kinds == {"sticker/star.png": "deleted", SKILL: "modified", MIRROR: "modified"}
    stickers.apply(ws, action="enable", restore=True, now=NOW)
    color = stickers.get_pack("alice-color")
    assert (root / "sticker/star.png").read_bytes() == next(s.data for s in color.stickers if s.file == "star.png")
    assert (root / SKILL).read_bytes() == color.skill == (root / MIRROR).read_bytes()


def test_disable_removes_the_skill_and_keeps_the_images(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / "sticker/mine.png").write_bytes(tiny_png(5))
    images = stickers_of(ws)
    result, applied = stickers.apply(ws, action="disable", now=NOW)
    assert sorted(applied.changed) == sorted([SKILL, MIRROR])
    assert not (root / ".agents/skills/alice-stickers").exists() and not (root / ".claude/skills/alice-stickers").exists()
    assert (root / ".agents/skills/alice").is_dir()                 # the harness's skills are untouched
    assert stickers_of(ws) == images
    doc = state(ws)
    assert doc["enabled"] is False and doc["packId"] == "alice-color" and len(doc["files"]) == 6
    assert stickers.apply(ws, action="disable", now=NOW)[1] is None   # already disabled
    result, applied = stickers.apply(ws, action="enable", now=NOW)
    assert sorted(applied.changed) == sorted([SKILL, MIRROR]) and state(ws)["enabled"] is True
    # An edited skill: disabling it needs --restore (or --keep), like any owned edit.
    (root / SKILL).write_text("edited\n")
    (root / MIRROR).write_text("edited\n")
    with pytest.raises(Conflict) as info:
        stickers.apply(ws, action="disable", now=NOW)
    assert info.value.code == "restore_required"
    stickers.apply(ws, action="disable", keep=[SKILL], now=NOW)
    assert (root / SKILL).read_text() == "edited\n" and SKILL not in state(ws)["files"]  # yours now


@pytest.mark.parametrize("link", ["sticker", ".agents/skills/alice-stickers", ".claude/skills", ".alice"])
def test_a_symlinked_directory_on_the_way_is_refused(tmp_path, link):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    elsewhere = tmp_path / "elsewhere"
    target = root / link
    os.rename(target, elsewhere)
    target.symlink_to(elsewhere)
    before, outside = workspace_bytes(ws), tree_bytes(elsewhere)
    with pytest.raises(InvalidInput) as info:
        stickers.preview(ws, action="enable", pack_id="alice-ink", now=NOW)
    assert info.value.code in ("symlink_refused",) and "symlink" in info.value.message
    with pytest.raises(InvalidInput):
        stickers.apply(ws, action="disable", now=NOW)
    assert workspace_bytes(ws) == before and tree_bytes(elsewhere) == outside
    assert any(link in p for p in stickers.status(ws, now=NOW)["problems"])


def test_a_symlink_or_directory_at_a_target_path_blocks(tmp_path):
    ws = new_ws(tmp_path, template="blank")
    root = Path(ws.path)
    (root / "sticker").mkdir()
    (tmp_path / "secret.png").write_bytes(b"secret")
    (root / "sticker/wave.png").symlink_to(tmp_path / "secret.png")
    (root / "sticker/heart.png").mkdir()
    preview = stickers.preview(ws, action="enable", now=NOW)
    assert preview.status == "blocked"
    reasons = {c["path"]: c["reason"] for c in preview.to_json()["conflicts"]}
    assert "symlink" in reasons["sticker/wave.png"] and "directory" in reasons["sticker/heart.png"]
    with pytest.raises(Conflict):
        stickers.apply(ws, action="enable", restore=True, now=NOW)
    assert (tmp_path / "secret.png").read_bytes() == b"secret" and (root / "sticker/wave.png").is_symlink()


@pytest.mark.parametrize("path", ["../escape.png", "sticker/../../escape.png", "AGENTS.md", "sticker/a/b.png",
                                  "sticker/wave.gif", ".agents/skills/alice/SKILL.md"])
def test_a_corrupt_ownership_file_is_refused_naming_file_and_field(tmp_path, path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    doc = state(ws)
    doc["files"][path] = "0" * 64
    (root / ".alice/stickers.json").write_text(json.dumps(doc))
    before = workspace_bytes(ws)
    for call in (lambda: stickers.preview(ws, action="enable", pack_id="alice-ink", now=NOW),
                 lambda: stickers.apply(ws, action="disable", now=NOW)):
        with pytest.raises(InvalidInput) as info:
            call()
        assert info.value.code == "malformed_sticker_state" and "ownership" in info.value.message
        assert info.value.file == str(root / ".alice/stickers.json") and info.value.field == f"files/{path}"
    assert workspace_bytes(ws) == before


def test_other_damage_to_the_ownership_file(tmp_path):
    ws = new_ws(tmp_path)
    path = Path(ws.path) / ".alice/stickers.json"
    good = state(ws)
    for bad, field in (({**good, "enabled": "yes"}, "enabled"), ({**good, "packId": "Bad Id"}, "packId"),
                       ({**good, "files": {SKILL: "xyz"}}, f"files/{SKILL}"), ({**good, "extra": 1}, "extra"),
                       ({k: v for k, v in good.items() if k != "revision"}, "revision")):
        path.write_text(json.dumps(bad))
        with pytest.raises(InvalidInput) as info:
            stickers.read_state(ws.path)
        assert info.value.field == field
    path.write_text("{not json")
    with pytest.raises(InvalidInput) as info:
        stickers.read_state(ws.path)
    assert info.value.code == "malformed_json"


def test_a_stale_digest_a_busy_lease_and_the_caller_rule(tmp_path, monkeypatch):
    ws = new_ws(tmp_path)
    preview = stickers.preview(ws, action="enable", pack_id="alice-ink", now=NOW)
    (Path(ws.path) / "sticker/mine.png").write_bytes(tiny_png(1))   # not part of the plan: same digest
    assert stickers.preview(ws, action="enable", pack_id="alice-ink", now=NOW).digest == preview.digest
    (Path(ws.path) / "sticker/wave.png").write_bytes(tiny_png(2))   # part of it
    with pytest.raises(managed.StalePlan) as info:
        switch(ws, digest=preview.digest, restore=True)
    assert info.value.code == "stale_plan"
    with checkout(ws, "someone else", now=NOW):
        with pytest.raises(Busy) as busy:
            switch(ws, restore=True)
        assert busy.value.code == "workspace_busy"
    other = new_ws(tmp_path, "other", template="blank")
    monkeypatch.setenv("ALICE_RUN_ID", "task-1")
    monkeypatch.setenv("ALICE_WORKSPACE_ID", other.id)
    with pytest.raises(Forbidden) as refused:
        switch(ws, restore=True)
    assert refused.value.code == "cross_workspace"


def test_a_re_import_is_a_new_revision_and_the_workspace_keeps_the_old_until_applied(tmp_path):
    source = make_pack(tmp_path / "cats")
    first = stickers.import_pack(source, now=NOW)
    ws = new_ws(tmp_path)
    switch(ws, pack_id="cats")
    assert state(ws)["revision"] == first["revision"]
    (source / "wave.png").write_bytes(tiny_png(77))
    second = stickers.import_pack(source, now=NOW)
    assert (Path(ws.path) / "sticker/wave.png").read_bytes() == tiny_png(1)   # the workspace's bytes stay
    doc = stickers.status(ws, now=NOW)
    assert doc["updateAvailable"] and doc["revision"] == first["revision"] and not doc["upToDate"]
    assert doc["pack"]["revision"] == second["revision"]
    preview = stickers.preview(ws, action="enable", now=NOW)                 # the current pack's new revision
    assert [c["path"] for c in preview.to_json()["changes"]] == ["sticker/wave.png"]    # the skill is the same
    stickers.apply(ws, action="enable", digest=preview.digest, now=NOW)
    assert (Path(ws.path) / "sticker/wave.png").read_bytes() == tiny_png(77)
    assert state(ws)["revision"] == second["revision"] and stickers.status(ws, now=NOW)["upToDate"]


def test_harness_upgrades_never_touch_the_sticker_paths(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    (root / "sticker/mine.png").write_bytes(tiny_png(4))
    sticker_files = {rel: data for rel, data in workspace_bytes(ws).items()
                     if rel.startswith(("sticker/", ".agents/skills/alice-stickers/", ".claude/skills/alice-stickers/",
                                        ".alice/stickers.json"))}
    assert len(sticker_files) == 10
    bundle = new_bundle(tmp_path)
    shipped = bundle / "skills/alice/SKILL.md"
    shipped.write_text(shipped.read_text() + "\nOne more line.\n")
    for scope in (harness.scope_for(), harness.scope_for(template=True),
                  harness.scope_for(skill="alice", action="restore")):
        preview = harness.preview(ws, scope=scope, bundle_dir=bundle, now=NOW)
        planned = {loc for item in preview.plan.items for loc in item.locations}
        assert not {p for p in planned if "sticker" in p}, (scope, planned)
        harness.apply(ws, scope=scope, bundle_dir=bundle, now=NOW)
    assert "One more line." in (root / ".agents/skills/alice/SKILL.md").read_text()
    assert {rel: data for rel, data in workspace_bytes(ws).items() if rel in sticker_files} == sticker_files
    assert stickers.status(ws, now=NOW)["upToDate"]
    # A bundle may not ship the sticker skill (it would then plan those paths).
    (bundle / "skills/alice-stickers").mkdir()
    (bundle / "skills/alice-stickers/SKILL.md").write_text("---\nname: alice-stickers\ndescription: x\n---\n")
    with pytest.raises(InvalidInput) as info:
        harness.load_bundle(bundle)
    assert info.value.code == "malformed_bundle" and "reserved" in info.value.message


# -- the journal and recovery -----------------------------------------------------------------------

def interrupted(ws, pack_id="alice-ink") -> dict:
    """A switch cut short after its first write (as SIGKILL leaves it), done in process:
    the journal as apply_plan writes it, the first file written, nothing finalized."""
    root = Path(ws.path)
    result = stickers.preview(ws, action="enable", pack_id=pack_id, now=NOW)
    store = projection.journal_store(root)
    writes = [(loc, item.result) for item in result.plan.changes for loc in item.writes]
    before = {loc: managed.inspect(root, loc) for loc, _ in writes}
    journal = {"schemaVersion": 1, "owner": projection.OWNER, "planDigest": result.digest,
               "touchedPaths": sorted(before), "preparedAt": "2026-11-30T09:00:00Z", "phase": "prepared",
               "meta": {}, "state": result.state_docs(result.plan.baseline), "commitTrailer": None,
               "pruneWithin": list(result.plan.scope)}
    store.prepare(journal, before, dict(writes), {})
    loc, entry = writes[0]
    (root / loc).write_bytes(entry.content)
    return json.loads(store.journal_path.read_text())


def test_the_journal_records_before_bytes_and_after_hashes(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    color = {s.file: s.data for s in stickers.get_pack("alice-color").stickers}
    journal = interrupted(ws)
    assert Validator(resources.schema("sticker-transaction")).errors(journal) == []
    assert base64.b64decode(journal["before"]["sticker/wave.png"]) == color["wave.png"]
    ink = {s.file: s.sha256 for s in stickers.get_pack("alice-ink").stickers}
    assert journal["after"]["sticker/wave.png"] == ink["wave.png"]
    assert projection.journal_store(root).pending()["before"] == journal["before"]


def test_recovery_after_an_interrupted_switch_restores_before(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    before = workspace_bytes(ws)
    journal = interrupted(ws)
    first = journal["touchedPaths"][0]
    assert (root / first).read_bytes() != before[first]
    partial = root / ".agents/skills/alice-stickers" / ".tmp-SKILL.md.x1y2z3"   # a write cut short
    partial.write_text("---\nname: alice-sti")
    doc = stickers.status(ws, now=NOW)                       # recovers first
    assert doc["recovered"] and doc["recovered"][0]["outcome"] == "rolled_back"
    assert workspace_bytes(ws) == before and not partial.exists()
    assert not (root / projection.JOURNAL_FILE).exists()


def test_recovery_refuses_when_a_file_matches_neither_side(tmp_path):
    ws = new_ws(tmp_path)
    root = Path(ws.path)
    journal = interrupted(ws)
    victim = journal["touchedPaths"][-1]
    (root / victim).write_bytes(b"edited after the crash")
    with pytest.raises(managed.RecoveryRefused) as info:
        stickers.preview(ws, action="enable", now=NOW)
    assert info.value.code == "recovery_refused" and info.value.field == victim
    assert victim in info.value.message and "neither" in info.value.message
    assert (root / victim).read_bytes() == b"edited after the crash"        # nothing touched
    assert (root / projection.JOURNAL_FILE).exists()
    doc = stickers.status(ws, now=NOW)
    assert not doc["upToDate"] and doc["pendingTransaction"] and any("neither" in p for p in doc["problems"])
    (root / victim).write_bytes(base64.b64decode(journal["before"][victim]))   # put one side back
    assert stickers.status(ws, now=NOW)["recovered"][0]["outcome"] == "rolled_back"


def test_a_malformed_journal_is_refused_naming_the_field(tmp_path):
    ws = new_ws(tmp_path)
    journal = interrupted(ws)
    path = Path(ws.path) / projection.JOURNAL_FILE
    for bad, field in (({**journal, "before": {}}, f"before/{journal['touchedPaths'][0]}"),
                       ({**journal, "after": {**journal["after"], "x.png": None}}, "after/x.png"),
                       ({**journal, "before": {**journal["before"], journal["touchedPaths"][0]: "%%%"}},
                        f"before/{journal['touchedPaths'][0]}")):
        path.write_text(json.dumps(bad))
        with pytest.raises(InvalidInput) as info:
            stickers.preview(ws, action="enable", now=NOW)
        assert info.value.code == "malformed_journal" and info.value.field == field
