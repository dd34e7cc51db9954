"""The library: built-in packs, imports into $OPENALICE_HOME/data/stickers/packs/, revisions."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from openalice import stickers
from openalice.core import resources
from openalice.core.errors import Conflict, InvalidInput, NotFound
from openalice.core.schema import Validator
from openalice.stickers import library
from tests.stickers.helpers import make_pack, make_zip, pack_members, tiny_png, tree_bytes

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
LATER = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)


def test_import_a_directory_then_a_new_revision_keeps_the_old_one(tmp_path):
    source = make_pack(tmp_path / "cats")
    first = stickers.import_pack(source, now=NOW)
    assert first["id"] == "cats" and first["newRevision"] and first["previousRevision"] is None
    assert Validator(resources.schema("stickers-import")).errors(first) == []
    current = json.loads(library.current_path("cats").read_text())
    assert Validator(resources.schema("sticker-pack-current")).errors(current) == []
    assert current == {"schemaVersion": 1, "id": "cats", "revision": first["revision"],
                       "importedAt": "2026-11-30T09:00:00Z"}
    stored = library.revision_dir("cats", first["revision"])
    assert sorted(p.name for p in stored.iterdir()) == ["nap.webp", "pack.json", "purr.png", "wave.png"]
    assert stickers.get_pack("cats").revision == first["revision"]

    again = stickers.import_pack(source, now=LATER)               # same bytes: same revision, nothing new
    assert not again["newRevision"] and again["revision"] == again["previousRevision"] == first["revision"]

    (source / "wave.png").write_bytes(tiny_png(42))
    second = stickers.import_pack(source, now=LATER)
    assert second["newRevision"] and second["previousRevision"] == first["revision"]
    assert second["revision"] != first["revision"]
    assert stored.is_dir()                                        # the old revision stays
    assert stickers.get_pack("cats").revision == second["revision"]
    packs, problems = stickers.list_packs()
    assert problems == [] and [p["id"] for p in packs] == ["alice-color", "alice-ink", "cats"]
    assert Validator(resources.schema("stickers-list")).errors({"packs": packs, "problems": problems}) == []


def test_import_a_zip(tmp_path):
    members = pack_members(make_pack(tmp_path / "src"))
    result = stickers.import_pack(make_zip(tmp_path / "cats.zip", members, top="cats-pack/"), now=NOW)
    assert result["id"] == "cats" and stickers.get_pack("cats").revision == result["revision"]


def test_built_in_ids_cannot_be_imported_over(tmp_path, isolated_homes):
    source = make_pack(tmp_path / "fake", pack_id="alice-color")
    with pytest.raises(Conflict) as info:
        stickers.import_pack(source, now=NOW)
    assert info.value.code == "builtin_pack" and info.value.field == "id"
    assert tree_bytes(isolated_homes["OPENALICE_HOME"]) == {}


def test_a_bad_pack_writes_nothing(tmp_path, isolated_homes):
    stickers.import_pack(make_pack(tmp_path / "cats"), now=NOW)
    before = tree_bytes(isolated_homes["OPENALICE_HOME"])
    bad = make_pack(tmp_path / "bad", stickers={"wave.png": b"not an image"})
    with pytest.raises(InvalidInput):
        stickers.import_pack(bad, now=LATER)
    assert tree_bytes(isolated_homes["OPENALICE_HOME"]) == before


def test_unknown_and_damaged_packs(tmp_path):
    with pytest.raises(NotFound) as info:
        stickers.get_pack("nope")
    assert info.value.code == "unknown_pack" and "alice-color" in info.value.message
    with pytest.raises(InvalidInput):
        stickers.get_pack("../etc")
    first = stickers.import_pack(make_pack(tmp_path / "cats"), now=NOW)
    stickers.import_pack(make_pack(tmp_path / "dogs", pack_id="dogs"), now=NOW)
    # An image of the stored revision changed by hand: refused on read, listed as a problem.
    (library.revision_dir("cats", first["revision"]) / "wave.png").write_bytes(tiny_png(99))
    with pytest.raises(InvalidInput) as info:
        stickers.get_pack("cats")
    assert info.value.code == "malformed_pack_state"
    packs, problems = stickers.list_packs()
    assert [p["id"] for p in packs] == ["alice-color", "alice-ink", "dogs"]     # one bad pack hides no other
    assert [p["id"] for p in problems] == ["cats"]
    library.current_path("dogs").write_text("{broken")
    with pytest.raises(InvalidInput) as info:
        stickers.get_pack("dogs")
    assert info.value.file == str(library.current_path("dogs"))
    # A re-import repairs both: the damaged revision and current.json are set aside, not lost.
    stickers.import_pack(tmp_path / "cats", now=LATER)
    assert stickers.get_pack("cats").revision == first["revision"]
    assert any(p.name.startswith(library.revision_dir("cats", first["revision"]).name + ".damaged-")
               for p in library.revision_dir("cats", first["revision"]).parent.iterdir())
    stickers.import_pack(tmp_path / "dogs", now=LATER)
    assert stickers.get_pack("dogs").id == "dogs"


def test_a_first_import_killed_before_its_current_record_is_not_a_pack_and_the_next_import_sweeps_it(tmp_path):
    """A kill inside the first import leaves packs/<id>/revisions/.tmp-...: the
    list must not report a broken pack (exit 2), and the next import of that
    pack removes the dead build."""
    import os
    import subprocess
    import sys

    from openalice.core import fs

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    killed = library.pack_dir("cats") / "revisions" / f"{fs.TEMP_PREFIX}0123abcd.{child.pid}.{fs.temps._HOST}.00ff00ff"
    killed.mkdir(parents=True)
    (killed / "pack.json").write_text("{")
    packs, problems = stickers.list_packs()
    assert problems == [] and "cats" not in [p["id"] for p in packs]
    with pytest.raises(NotFound):
        stickers.get_pack("cats")
    stickers.import_pack(make_pack(tmp_path / "cats"), now=NOW)
    assert not killed.exists()
    assert [p["id"] for p in stickers.list_packs()[0]][-1] == "cats"
    assert not [n for n in os.listdir(killed.parent) if n.startswith(fs.TEMP_PREFIX)]
