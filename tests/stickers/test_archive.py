"""Zip imports: every check on the central directory before anything is decompressed."""

from __future__ import annotations

import json
import stat
import zipfile

import pytest

from openalice.core.errors import InvalidInput
from openalice.stickers import archive
from openalice.stickers import pack as packs
from tests.stickers.helpers import make_pack, make_zip, pack_members, tiny_png


@pytest.fixture
def members(tmp_path):
    return pack_members(make_pack(tmp_path / "src"))


def refused(path, **match) -> InvalidInput:
    with pytest.raises(InvalidInput) as info:
        archive.read_zip(path)
    for key, value in match.items():
        got = getattr(info.value, key)
        assert (value in got if key in ("message", "file") else got == value), (key, got, info.value)
    return info.value


@pytest.fixture
def no_extraction(monkeypatch):
    """Fails the test if any member is decompressed."""
    real_open = zipfile.ZipFile.open

    def opened(self, name, mode="r", *args, **kwargs):
        if mode == "r":
            raise AssertionError("a member was opened before the archive was refused")
        return real_open(self, name, mode, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", opened)


def test_pack_json_at_the_root_or_in_one_top_level_directory(tmp_path, members):
    at_root = archive.read_zip(make_zip(tmp_path / "a.zip", members))
    inside = archive.read_zip(make_zip(tmp_path / "b.zip", members, top="cats/"))
    assert at_root.revision == inside.revision == packs.read_dir(tmp_path / "src").revision
    two_tops = make_zip(tmp_path / "c.zip", {**{f"cats/{k}": v for k, v in members.items()}, "other/x.txt": b"x"})
    refused(two_tops, code="missing_manifest")
    deeper = make_zip(tmp_path / "d.zip", members, top="a/b/")
    refused(deeper, code="missing_manifest")


def _raw_zip(path, entries):
    """A zip whose member names and attributes are written as given (zipfile's
    writer would tidy some of them)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, mode in entries:
            info = zipfile.ZipInfo("placeholder")
            info.filename = info.orig_filename = name
            if mode is not None:
                info.external_attr = mode << 16
            zf.writestr(info, data)
    return path


@pytest.mark.parametrize("name,why", [
    ("/etc/evil.png", "absolute"),
    ("C:evil.png", "absolute"),
    ("../evil.png", "'..'"),
    ("cats/../../evil.png", "'..'"),
    ("cats//evil.png", "empty"),
    ("cats/./evil.png", "empty or '.'"),
    ("cats\\evil.png", "backslash"),
])
def test_unsafe_member_names_are_refused(tmp_path, members, no_extraction, name, why):
    path = _raw_zip(tmp_path / "bad.zip", [(k, v, None) for k, v in members.items()] + [(name, b"x", None)])
    refused(path, code="unsafe_archive", message=why, file=name)


def test_symlinks_and_duplicates_are_refused(tmp_path, members, no_extraction):
    link = _raw_zip(tmp_path / "link.zip", [(k, v, None) for k, v in members.items()]
                    + [("evil.png", b"/etc/passwd", stat.S_IFLNK | 0o777)])
    refused(link, code="unsafe_archive", message="symlink")
    entries = [(k, v, None) for k, v in members.items()]
    with pytest.warns(UserWarning):           # zipfile itself warns about the duplicate
        dup = _raw_zip(tmp_path / "dup.zip", entries + [("wave.png", tiny_png(7), None)])
    refused(dup, code="unsafe_archive", message="appears twice")
    case = _raw_zip(tmp_path / "case.zip", entries + [("WAVE.png", tiny_png(7), None)])
    refused(case, code="unsafe_archive", message="differs only in case")


def test_a_zip_bomb_is_refused_by_its_declared_sizes_before_extraction(tmp_path, members, no_extraction):
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.writestr("filler.bin", b"\0" * (600 * 1024))          # 600 KiB that compresses to ~600 bytes
    assert bomb.stat().st_size < 20 * 1024
    refused(bomb, code="image_too_large", message="uncompressed")
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for n in range(70):
            zf.writestr(f"filler{n}.bin", b"\0" * (500 * 1024))   # 35 MiB in all, a few KiB on disk
    refused(many, code="pack_too_large", message="32 MiB")
    count = tmp_path / "count.zip"
    with zipfile.ZipFile(count, "w") as zf:
        for n in range(archive.MAX_MEMBERS + 1):
            zf.writestr(f"f{n}", b"")
    refused(count, code="unsafe_archive", message="at most 1000")


def test_a_member_that_lies_about_its_size_is_caught(tmp_path, members):
    path = make_zip(tmp_path / "lie.zip", members)
    data = bytearray(path.read_bytes())
    # Shrink wave.png's declared size in the central directory (the reader trusts it as the cap).
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("wave.png")
    central = data.find(b"PK\x01\x02")
    while data[central + 46:central + 46 + len(b"wave.png")] != b"wave.png":
        central = data.find(b"PK\x01\x02", central + 4)
    data[central + 24:central + 28] = (info.file_size - 10).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    refused(path, code="bad_archive", field="stickers/0/file")


def test_not_a_zip_and_a_listed_file_missing(tmp_path, members):
    text = tmp_path / "notes.zip"
    text.write_text("just text")
    refused(text, code="bad_archive")
    doc = json.loads(members["pack.json"])
    doc["stickers"].append({"file": "gone.png", "description": "not there"})
    path = make_zip(tmp_path / "m.zip", {**members, "pack.json": json.dumps(doc).encode()})
    refused(path, code="missing_image", field="stickers/3/file")


def test_members_the_manifest_does_not_list_are_never_read(tmp_path, members, monkeypatch):
    path = make_zip(tmp_path / "extra.zip", {**members, "README.md": b"hello", "notes/": b""})
    read = []
    real_open = zipfile.ZipFile.open

    def spy(self, name, *args, **kwargs):
        read.append(getattr(name, "filename", name))
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    found = archive.read_zip(path)
    assert [s.file for s in found.stickers] == ["wave.png", "purr.png", "nap.webp"]
    assert sorted(read) == sorted(["pack.json", "wave.png", "purr.png", "nap.webp"])
