"""The pack format: pack.json, magic bytes, limits, the generated skill, the revision (reference §6)."""

from __future__ import annotations

import json

import pytest

from openalice.core import frontmatter, resources
from openalice.core.errors import InvalidInput
from openalice.core.schema import Validator
from openalice.stickers import pack as packs
from tests.stickers.helpers import make_pack, tiny_png, tiny_webp


def refused(directory, **match) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        packs.read_dir(directory)
    for key, value in match.items():
        got = getattr(info.value, key)
        assert (value in got if key == "message" else got == value), (key, got, info.value)
    return info.value


def test_a_pack_reads_whole_with_its_skill_and_revision(tmp_path):
    pack = packs.read_dir(make_pack(tmp_path / "cats"))
    assert (pack.id, pack.name, pack.version) == ("cats", "Cats", "1.0.0")
    assert [(s.file, s.kind) for s in pack.stickers] == [("wave.png", "png"), ("purr.png", "png"),
                                                         ("nap.webp", "webp")]
    assert packs.REVISION_RE.match(pack.revision) and pack.revision.startswith("1.0.0+")
    skill = pack.skill.decode()
    doc = frontmatter.parse(pack.skill, path="SKILL.md")
    assert doc.data["name"] == "alice-stickers" and "at most one sticker per reply" in doc.data["description"]
    lines = [line for line in skill.splitlines() if line.startswith("- [[")]
    assert lines == ["- [[sticker/wave.png]] — the wave sticker", "- [[sticker/purr.png]] — the purr sticker",
                     "- [[sticker/nap.webp]] — the nap sticker"]
    assert "At most one sticker per reply" in skill
    assert Validator(resources.schema("sticker-pack")).errors(json.loads((tmp_path / "cats/pack.json").read_text())) == []


def test_the_revision_changes_with_any_byte_of_the_manifest_skill_or_an_image(tmp_path):
    base = packs.read_dir(make_pack(tmp_path / "a")).revision
    assert packs.read_dir(make_pack(tmp_path / "b")).revision == base          # same bytes, same revision
    changed_image = make_pack(tmp_path / "c", stickers={"wave.png": tiny_png(9), "purr.png": tiny_png(2),
                                                        "nap.webp": tiny_webp(3)})
    assert packs.read_dir(changed_image).revision != base
    doc = json.loads((tmp_path / "a/pack.json").read_text())
    doc["stickers"][0]["description"] = "another description"
    (tmp_path / "a/pack.json").write_text(json.dumps(doc))
    assert packs.read_dir(tmp_path / "a").revision != base
    doc["version"] = "1.0.1"
    (tmp_path / "a/pack.json").write_text(json.dumps(doc))
    assert packs.read_dir(tmp_path / "a").revision.startswith("1.0.1+")


def test_formats_are_told_by_magic_bytes_not_by_extension(tmp_path):
    refused(make_pack(tmp_path / "a", stickers={"wave.webp": tiny_png()}), code="wrong_image_type",
            field="stickers/0/file", message="is a PNG image but is named .webp")
    err = refused(make_pack(tmp_path / "b", stickers={"wave.png": b"hello, I am text\n"}), code="not_an_image",
                  field="stickers/0/file")
    assert err.file == str(tmp_path / "b" / "wave.png")
    refused(make_pack(tmp_path / "c", stickers={"nap.png": tiny_webp()}), code="wrong_image_type")
    assert packs.image_kind(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "webp"
    assert packs.image_kind(b"RIFF\x00\x00\x00\x00WAVEfmt ") is None


def test_limits_per_image_per_pack_and_count(tmp_path):
    exact = tiny_png(pad=512 * 1024 - len(tiny_png()))
    assert len(exact) == 512 * 1024
    packs.read_dir(make_pack(tmp_path / "ok", stickers={"big.png": exact}))        # 512 KiB is allowed
    refused(make_pack(tmp_path / "a", stickers={"big.png": tiny_png(pad=513 * 1024)}), code="image_too_large",
            field="stickers/0/file")
    many = {f"s{n:03}.png": tiny_png(n) for n in range(101)}
    refused(make_pack(tmp_path / "b", stickers=many), code="invalid_pack", field="stickers",
            message="lists 101 stickers; a pack has at most 100")
    packs.read_dir(make_pack(tmp_path / "hundred", stickers=dict(list(many.items())[:100])))
    big = {f"s{n:03}.png": tiny_png(n, pad=500 * 1024) for n in range(68)}          # 68 x 500 KiB > 32 MiB
    refused(make_pack(tmp_path / "c", stickers=big), code="pack_too_large", field="stickers",
            file=str(tmp_path / "c" / "pack.json"))


@pytest.mark.parametrize("change,field,message", [
    ({"id": "Cats"}, "id", "invalid value"),
    ({"id": "-cats"}, "id", "invalid value"),
    ({"id": "c" * 65}, "id", "at most 64"),
    ({"name": ""}, "name", "non-empty"),
    ({"name": "x" * 81}, "name", "at most 80"),
    ({"name": "Cats\u202e"}, "name", "bidirectional"),
    ({"version": "1.0 beta"}, "version", "invalid value"),
    ({"schemaVersion": 2}, "schemaVersion", "unsupported"),
    ({"extra": 1}, "extra", "unknown key"),
    ({"stickers": []}, "stickers", "non-empty list"),
    ({"stickers": [{"file": "../escape.png", "description": "x"}]}, "stickers/0/file", "invalid value"),
    ({"stickers": [{"file": "a/b.png", "description": "x"}]}, "stickers/0/file", "invalid value"),
    ({"stickers": [{"file": "wave.gif", "description": "x"}]}, "stickers/0/file", "invalid value"),
    ({"stickers": [{"file": "wave.PNG", "description": "x"}]}, "stickers/0/file", "invalid value"),
    ({"stickers": [{"file": "wave.png", "description": "x" * 161}]}, "stickers/0/description", "at most 160"),
    ({"stickers": [{"file": "wave.png", "description": "line\nbreak"}]}, "stickers/0/description", "control"),
    ({"stickers": [{"file": "wave.png", "description": "see [[other.png]]"}]}, "stickers/0/description", "[["),
    ({"stickers": [{"file": "wave.png"}]}, "stickers/0/description", "missing"),
    ({"stickers": [{"file": "wave.png", "description": "a"}, {"file": "WAVE.png", "description": "b"}]},
     "stickers/1/file", "listed twice"),
])
def test_every_bad_manifest_names_its_field(tmp_path, change, field, message):
    directory = make_pack(tmp_path / "p", stickers={"wave.png": tiny_png(), "WAVE.png": tiny_png(1)}
                          if "WAVE" in json.dumps(change) else {"wave.png": tiny_png()})
    doc = {**json.loads((directory / "pack.json").read_text()), **change}
    (directory / "pack.json").write_text(json.dumps(doc))
    refused(directory, field=field, message=message, file=str(directory / "pack.json"))


def test_corrupt_or_missing_manifest_and_missing_or_symlinked_images(tmp_path):
    directory = make_pack(tmp_path / "p")
    (directory / "pack.json").write_text('{"schemaVersion": 1, "id": ')
    refused(directory, code="malformed_json", file=str(directory / "pack.json"))
    (directory / "pack.json").unlink()
    refused(directory, code="missing_manifest")
    directory = make_pack(tmp_path / "q")
    (directory / "purr.png").unlink()
    refused(directory, code="missing_image", field="stickers/1/file", file=str(directory / "pack.json"))
    (tmp_path / "outside.png").write_bytes(tiny_png())
    (directory / "purr.png").symlink_to(tmp_path / "outside.png")
    refused(directory, code="symlink_refused", field="stickers/1/file")


def test_unlisted_files_are_ignored(tmp_path):
    directory = make_pack(tmp_path / "p")
    (directory / "README.txt").write_text("not a sticker")
    (directory / "notes").mkdir()
    assert [s.file for s in packs.read_dir(directory).stickers] == ["wave.png", "purr.png", "nap.webp"]
