import os

import pytest

from openalice.core import paths
from openalice.core.errors import InvalidInput, NotFound, PathEscape


def test_homes_follow_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENALICE_HOME", str(tmp_path / "oa"))
    monkeypatch.setenv("HARNESS_HOME", str(tmp_path / "hh"))
    assert paths.openalice_home() == tmp_path / "oa"
    assert paths.harness_home() == tmp_path / "hh"
    assert paths.state_dir() == tmp_path / "oa" / "state"
    monkeypatch.delenv("OPENALICE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "u"))
    assert paths.openalice_home() == tmp_path / "u" / ".openalice"


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "root"
    (r / "reports").mkdir(parents=True)
    (r / "reports" / "a.md").write_text("# A\n")
    (tmp_path / "outside.txt").write_text("secret")
    return r


def test_contained_file_accepts_regular_file(root):
    assert paths.contained_file(root, "reports/a.md") == root.resolve() / "reports" / "a.md"
    assert paths.contained_file(root, "./reports/a.md").name == "a.md"


@pytest.mark.parametrize("rel", ["../outside.txt", "reports/../../outside.txt", "/etc/passwd",
                                 "~/x", ".."])
def test_escapes_refused(root, rel):
    with pytest.raises(PathEscape) as info:
        paths.contained_file(root, rel)
    assert info.value.exit_code == 4


def test_symlink_leaving_root_refused(root, tmp_path):
    os.symlink(tmp_path / "outside.txt", root / "link.txt")
    os.symlink(tmp_path, root / "linkdir")
    with pytest.raises(PathEscape):
        paths.contained_file(root, "link.txt")
    with pytest.raises(PathEscape):
        paths.contained_file(root, "linkdir/outside.txt")


def test_symlink_inside_root_allowed(root):
    os.symlink("reports/a.md", root / "alias.md")
    assert paths.contained_file(root, "alias.md").name == "a.md"


def test_non_regular_and_missing(root):
    with pytest.raises(InvalidInput, match="regular"):
        paths.contained_file(root, "reports")
    os.mkfifo(root / "fifo")
    with pytest.raises(InvalidInput, match="regular"):
        paths.contained_file(root, "fifo")
    with pytest.raises(NotFound):
        paths.contained_file(root, "reports/missing.md")
    with pytest.raises(InvalidInput):
        paths.contained_file(root, "")
    with pytest.raises(InvalidInput):
        paths.contained_file(root, "a\x00b")


def test_root_itself_is_not_a_file(root):
    with pytest.raises(PathEscape):
        paths.contained_path(root, ".")
