"""``alice-harness stickers`` through the installed tools.

The issue's by-hand run end to end (a chat workspace has stickers; a custom pack
is imported from a zip; the workspace switches to it with a previewed digest; a
personal sticker survives; an Inbox entry references a sticker and records its
revision), every bad input of the issue (exit 2 naming file and field, nothing
written), SIGKILL at each step of the transaction, and the caller rule.
"""

from __future__ import annotations

import base64
import hashlib
import json
import signal
from pathlib import Path

import pytest

from tests.helpers.schemas import conforms
from tests.stickers.helpers import make_pack, make_zip, pack_members, tiny_png, tiny_webp, tree_bytes

SKILL = ".agents/skills/alice-stickers/SKILL.md"
MIRROR = ".claude/skills/alice-stickers/SKILL.md"


def init(cli, path, template="chat") -> Path:
    r = cli("alice", "workspace", "init", str(path), "--template", template, "--json")
    assert r.returncode == 0, r
    return Path(r.json()["workspace"]["path"])


def test_help_lists_the_verbs_with_examples(cli):
    top = cli("alice-harness", "--help")
    assert top.returncode == 0 and "  stickers" in top.stdout
    group = cli("alice-harness", "stickers", "--help")
    assert group.returncode == 0 and "examples:" in group.stdout
    for verb in ("list", "show", "cat", "import", "enable", "disable", "status"):
        assert verb in group.stdout
        r = cli("alice-harness", "stickers", verb, "--help")
        assert r.returncode == 0 and "examples:" in r.stdout, r


def test_the_by_hand_run_import_switch_keep_a_personal_sticker_push_a_reference(cli, tmp_path, isolated_homes):
    desk = init(cli, tmp_path / "desk")
    status = cli("alice-harness", "stickers", "status", "--json", cwd=desk)
    doc = conforms("stickers-status", status.json())["workspaces"][0]
    assert status.returncode == 0 and doc["enabled"] and doc["packId"] == "alice-color" and doc["upToDate"]
    assert sorted(p.name for p in (desk / "sticker").iterdir()) == ["check.png", "heart.png", "laugh.png",
                                                                    "sparkles.png", "star.png", "wave.png"]
    assert "- [[sticker/wave.png]] — " in (desk / SKILL).read_text()

    listing = cli("alice-harness", "stickers", "list", "--json")
    assert [p["id"] for p in conforms("stickers-list", listing.json())["packs"]] == ["alice-color", "alice-ink"]
    assert "alice-color (default)" in cli("alice-harness", "stickers", "list").stdout
    shown = cli("alice-harness", "stickers", "show", "alice-ink", "--json")
    assert conforms("stickers-show", shown.json())["stickers"][0]["reference"] == "[[sticker/wave.png]]"
    # cat: one image's bytes, checked against the pack (the page's thumbnails)
    cat = conforms("stickers-cat", cli("alice-harness", "stickers", "cat", "alice-ink", "wave.png", "--json").json())
    raw = base64.b64decode(cat["content"])
    assert raw.startswith(b"\x89PNG") and hashlib.sha256(raw).hexdigest() == cat["sha256"] == \
        shown.json()["stickers"][0]["sha256"] and cat["bytes"] == len(raw)
    missing = cli("alice-harness", "stickers", "cat", "alice-ink", "nope.png", "--json")
    assert missing.returncode == 2 and missing.json()["error"]["code"] == "unknown_sticker"

    # A custom pack, zipped inside one top-level directory.
    cats = make_pack(tmp_path / "cats", stickers={"wave.png": tiny_png(11), "purr.png": tiny_png(12),
                                                  "nap.webp": tiny_webp(13)})
    archive = make_zip(tmp_path / "cats.zip", pack_members(cats), top="cats/")
    imported = cli("alice-harness", "stickers", "import", str(archive), "--json")
    assert imported.returncode == 0, imported
    rev = conforms("stickers-import", imported.json())["revision"]

    # A personal sticker, then the switch: preview, then apply with its digest.
    (desk / "sticker" / "mine.png").write_bytes(tiny_png(99))
    preview = cli("alice-harness", "stickers", "enable", "--pack", "cats", "--json", cwd=desk)
    p = conforms("stickers-apply", preview.json())["preview"]
    assert preview.returncode == 0 and p["status"] == "ready" and p["to"]["revision"] == rev
    assert (desk / "sticker" / "star.png").exists()                 # a preview writes nothing
    human = cli("alice-harness", "stickers", "enable", "--pack", "cats", cwd=desk)
    assert "digest: " + p["digest"] in human.stdout and "--apply --digest" in human.stdout
    applied = cli("alice-harness", "stickers", "enable", "--pack", "cats", "--apply", "--digest", p["digest"],
                  "--json", cwd=desk)
    assert applied.returncode == 0, applied
    assert conforms("stickers-apply", applied.json())["action"] == "applied"
    assert sorted(p.name for p in (desk / "sticker").iterdir()) == ["mine.png", "nap.webp", "purr.png", "wave.png"]
    assert (desk / "sticker" / "mine.png").read_bytes() == tiny_png(99)
    assert (desk / SKILL).read_bytes() == (desk / MIRROR).read_bytes()
    assert "[[sticker/purr.png]]" in (desk / SKILL).read_text()
    status = cli("alice-harness", "stickers", "status", "--json", cwd=desk)
    doc = conforms("stickers-status", status.json())["workspaces"][0]
    assert doc["packId"] == "cats" and doc["revision"] == rev and doc["personal"] == ["sticker/mine.png"]

    # An Inbox entry that references a sticker: resolved in the workspace, its revision recorded.
    pushed = cli("alice", "inbox", "push", "--body", "Done! [[sticker/wave.png]]", "--json", cwd=desk)
    assert pushed.returncode == 0, pushed
    entry = conforms("inbox-push", pushed.json())
    wave = hashlib.sha256((desk / "sticker" / "wave.png").read_bytes()).hexdigest()
    assert [(f["path"], f["revision"], f["available"]) for f in entry["files"]] == \
        [("sticker/wave.png", f"sha256:{wave}", True)]
    files = cli("alice-inbox", "files", entry["id"], "--json")
    assert files.json()["files"][0]["matchesRevision"] is True
    # ...and a sticker that leads out of the workspace is refused by the same containment.
    (desk / "sticker" / "evil.png").symlink_to(tmp_path / "cats" / "purr.png")
    escape = cli("alice", "inbox", "push", "--body", "[[sticker/evil.png]]", "--json", cwd=desk)
    assert escape.json()["files"][0]["available"] is False
    assert escape.json()["files"][0]["reason"] == "path_escape"
    (desk / "sticker" / "evil.png").unlink()

    # Disable: the skill goes, the images stay; a blank workspace never got stickers.
    off = cli("alice-harness", "stickers", "disable", "--json", cwd=desk)
    assert off.returncode == 0 and conforms("stickers-apply", off.json())["action"] == "applied"
    assert not (desk / SKILL).exists() and not (desk / MIRROR).exists() and (desk / "sticker/wave.png").exists()
    plain = init(cli, tmp_path / "plain", template="blank")
    assert not (plain / "sticker").exists()
    journal = cli("alice", "journal", "--json")
    types = [f["type"] for f in journal.json()["entries"]]
    assert "stickers.imported" in types and types.count("stickers.applied") == 2


def test_an_owned_edit_and_an_unowned_file_through_the_cli(cli, tmp_path):
    desk = init(cli, tmp_path / "desk")
    (desk / "sticker" / "heart.png").write_bytes(tiny_png(3))
    r = cli("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--apply", "--json", cwd=desk)
    assert r.returncode == 2 and r.json()["error"]["code"] == "restore_required"
    assert r.json()["error"]["field"] == "sticker/heart.png"
    human = cli("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--apply", cwd=desk)
    assert "hint: add --restore" in human.stderr
    r = cli("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--apply", "--restore", cwd=desk)
    assert r.returncode == 0, r
    plain = init(cli, tmp_path / "plain", template="blank")
    (plain / "sticker").mkdir()
    (plain / "sticker" / "wave.png").write_bytes(tiny_png(4))
    r = cli("alice-harness", "stickers", "enable", "--apply", "--restore", "--json", cwd=plain)
    assert r.returncode == 2 and r.json()["error"]["code"] == "unowned_file"
    assert (plain / "sticker" / "wave.png").read_bytes() == tiny_png(4)
    r = cli("alice-harness", "stickers", "enable", "--digest", "0" * 64, "--json", cwd=plain)
    assert r.returncode == 2 and r.json()["error"]["code"] == "apply_required"


# -- bad input: exit 2 naming file and field, nothing written ---------------------------------------

def _bad_packs(tmp_path: Path):
    big = tiny_png(pad=513 * 1024)
    yield "png named .webp", make_pack(tmp_path / "a", stickers={"wave.webp": tiny_png()}), "wave.webp", \
        "stickers/0/file"
    yield "text named .png", make_pack(tmp_path / "b", stickers={"wave.png": b"plain text\n"}), "wave.png", \
        "stickers/0/file"
    yield "513 KiB image", make_pack(tmp_path / "c", stickers={"wave.png": big}), "wave.png", "stickers/0/file"
    yield "101 images", make_pack(tmp_path / "d", stickers={f"s{n}.png": tiny_png(n) for n in range(101)}), \
        "pack.json", "stickers"
    yield "33 MiB pack", make_pack(tmp_path / "e", stickers={f"s{n}.png": tiny_png(n, pad=510 * 1024)
                                                              for n in range(67)}), "pack.json", "stickers"
    bad_id = make_pack(tmp_path / "f", pack_id="Bad_ID")
    yield "bad id", bad_id, "pack.json", "id"
    corrupt = make_pack(tmp_path / "g")
    (corrupt / "pack.json").write_text('{"schemaVersion": 1, "id": "cats", "stickers": [')
    yield "corrupt pack.json", corrupt, "pack.json", None
    members = pack_members(make_pack(tmp_path / "h"))
    yield "zip with ..", make_zip(tmp_path / "evil.zip", {**members, "../evil.png": tiny_png()}), "../evil.png", None


def test_every_bad_pack_of_the_issue_is_exit_2_naming_file_and_field_and_writes_nothing(cli, tmp_path,
                                                                                      isolated_homes):
    home = isolated_homes["OPENALICE_HOME"]
    desk = init(cli, tmp_path / "desk")
    before_home, before_ws = tree_bytes(home), tree_bytes(desk)
    for what, source, file, field in _bad_packs(tmp_path / "packs"):
        r = cli("alice-harness", "stickers", "import", str(source), "--json")
        assert r.returncode == 2, (what, r)
        error = r.json()["error"]
        assert error["exit"] == 2 and file in error["file"], (what, error)
        assert error.get("field") == field, (what, error)
        human = cli("alice-harness", "stickers", "import", str(source))
        assert human.returncode == 2 and "Traceback" not in human.stderr and file in human.stderr, (what, human)
        assert tree_bytes(home) == before_home and tree_bytes(desk) == before_ws, what


def test_a_corrupt_ownership_file_is_exit_2_naming_file_and_field_and_writes_nothing(cli, tmp_path):
    desk = init(cli, tmp_path / "desk")
    state = json.loads((desk / ".alice/stickers.json").read_text())
    state["files"]["../outside.png"] = "0" * 64
    (desk / ".alice/stickers.json").write_text(json.dumps(state))
    before = tree_bytes(desk)
    for argv in (("enable", "--pack", "alice-ink"), ("enable", "--pack", "alice-ink", "--apply"), ("disable",)):
        r = cli("alice-harness", "stickers", *argv, "--json", cwd=desk)
        assert r.returncode == 2, r
        error = r.json()["error"]
        assert error["code"] == "malformed_sticker_state" and error["file"] == str(desk / ".alice/stickers.json")
        assert error["field"] == "files/../outside.png" and "ownership" in error["message"]
    status = cli("alice-harness", "stickers", "status", "--json", cwd=desk)
    assert status.returncode == 3 and "ownership" in status.json()["workspaces"][0]["problems"][0]
    assert tree_bytes(desk) == before


def test_symlinked_sticker_directory_through_the_cli(cli, tmp_path):
    desk = init(cli, tmp_path / "desk")
    (desk / "sticker").rename(tmp_path / "real-stickers")
    (desk / "sticker").symlink_to(tmp_path / "real-stickers")
    r = cli("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--json", cwd=desk)
    assert r.returncode == 2 and r.json()["error"]["code"] == "symlink_refused"
    assert "symlink" in r.json()["error"]["message"]


def test_imports_are_refused_inside_a_headless_run_and_builtin_ids_always(cli, tmp_path):
    desk = init(cli, tmp_path / "desk")
    source = make_pack(tmp_path / "cats")
    r = cli("alice-harness", "stickers", "import", str(source), "--json", cwd=desk,
            env={"ALICE_RUN_ID": "task-1", "ALICE_WORKSPACE_ID": "desk"})
    assert r.returncode == 4 and r.json()["error"]["code"] == "cross_workspace"
    r = cli("alice-harness", "stickers", "import", str(make_pack(tmp_path / "fake", pack_id="alice-ink")), "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "builtin_pack"
    r = cli("alice-harness", "stickers", "show", "nope", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "unknown_pack"


# -- SIGKILL at each step ---------------------------------------------------------------------------

@pytest.mark.parametrize("step,outcome", [("managed-prepared", "before"), ("managed-first-write", "before"),
                                          ("managed-written", "before"), ("managed-finalized", "after")])
def test_sigkill_at_each_step_of_a_switch_recovers_to_all_or_nothing(cli, tmp_path, step, outcome):
    desk = init(cli, tmp_path / "desk")
    before = tree_bytes(desk)
    r = cli("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--apply", cwd=desk,
            env={"OPENALICE_TEST_CRASH_AFTER": f"alice-stickers:{step}"})
    assert r.returncode == -signal.SIGKILL, r
    assert (desk / ".alice/sticker-transaction.json").exists()
    journal = json.loads((desk / ".alice/sticker-transaction.json").read_text())
    conforms("sticker-transaction", journal)
    status = cli("alice-harness", "stickers", "status", "--json", cwd=desk)
    doc = status.json()["workspaces"][0]
    assert doc["recovered"][0]["outcome"] == ("finalized" if outcome == "after" else "rolled_back"), doc
    now = tree_bytes(desk)
    if outcome == "before":
        assert now == before
    else:
        fresh = tmp_path / "fresh"
        init(cli, fresh)
        assert cli("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--apply", cwd=fresh).returncode == 0
        theirs = {k: v for k, v in tree_bytes(fresh).items() if k.startswith(("sticker/", ".agents/skills/alice-st",
                                                                              ".claude/skills/alice-st"))}
        assert {k: now[k] for k in theirs} == theirs and doc["packId"] == "alice-ink"
    assert not (desk / ".alice/sticker-transaction.json").exists() and doc["upToDate"]


def test_a_crash_point_of_another_owner_does_not_fire(cli, tmp_path):
    desk = init(cli, tmp_path / "desk")
    r = cli("alice-harness", "stickers", "enable", "--pack", "alice-ink", "--apply", cwd=desk,
            env={"OPENALICE_TEST_CRASH_AFTER": "alice-harness:managed-first-write"})
    assert r.returncode == 0, r
