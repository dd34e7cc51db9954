"""core.paths: the homes, and Root, the one walk below a root directory."""

import os

import pytest

from openalice.core import paths
from openalice.core.errors import InvalidInput, NotFound, PathEscape
from openalice.core.paths import Root


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


def read(root, rel, **kw) -> bytes:
    fd = paths.open_beneath(root, rel, **kw)
    try:
        return os.read(fd, 1 << 20)
    finally:
        os.close(fd)


def test_a_regular_file_below_the_root(root):
    assert read(root, "reports/a.md") == b"# A\n"
    assert read(root, "./reports//a.md") == b"# A\n"
    assert read(root, root / "reports" / "a.md") == b"# A\n"  # absolute, below the root
    assert paths.contained_file(root, "reports/a.md") == root.resolve() / "reports" / "a.md"


@pytest.mark.parametrize("rel", ["../outside.txt", "reports/../../outside.txt", "/etc/passwd",
                                 "~/x", ".."])
def test_escapes_refused(root, rel):
    with pytest.raises(PathEscape) as info:
        paths.contained_file(root, rel)
    assert info.value.exit_code == 4


def test_links_out_of_the_root_are_refused_wherever_they_are(root, tmp_path):
    os.symlink(tmp_path / "outside.txt", root / "link.txt")
    os.symlink(tmp_path, root / "linkdir")
    os.symlink("../../outside.txt", root / "reports" / "up.txt")
    os.symlink("/etc/hostname", root / "abs.txt")
    for rel in ("link.txt", "linkdir/outside.txt", "reports/up.txt", "abs.txt"):
        with pytest.raises(PathEscape):
            read(root, rel)


def test_links_that_stay_inside_are_followed(root):
    os.symlink("reports/a.md", root / "alias.md")                 # relative
    os.symlink(root / "reports", root / "alias")                  # absolute, inside
    os.symlink("../reports/a.md", root / "reports" / "self.md")   # '..' inside the link text
    os.mkdir(root / "deep")
    os.symlink("../alias/../reports/./a.md", root / "deep" / "x.md")
    for rel in ("alias.md", "alias/a.md", "reports/self.md", "deep/x.md"):
        assert read(root, rel) == b"# A\n", rel
    assert paths.contained_file(root, "alias.md").name == "a.md"


def test_a_link_is_refused_where_none_may_be(root):
    os.symlink("reports/a.md", root / "alias.md")
    with pytest.raises(InvalidInput) as info:
        read(root, "alias.md", follow=False)
    assert info.value.code == "symlink_refused"


def test_a_loop_of_links_is_refused(root):
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    with pytest.raises(InvalidInput) as info:
        read(root, "a/x")
    assert info.value.code == "symlink_loop"


def test_non_regular_and_missing(root):
    with pytest.raises(InvalidInput, match="regular"):
        paths.contained_file(root, "reports")
    os.mkfifo(root / "fifo")
    with pytest.raises(InvalidInput, match="regular"):  # and without blocking on it
        paths.contained_file(root, "fifo")
    with pytest.raises(NotFound):
        paths.contained_file(root, "reports/missing.md")
    with pytest.raises(FileNotFoundError):
        read(root, "nowhere/a.md")
    with pytest.raises(NotADirectoryError):
        read(root, "reports/a.md/x")
    with pytest.raises(InvalidInput):
        paths.contained_file(root, "")
    with pytest.raises(InvalidInput):
        paths.contained_file(root, "a\x00b")


def test_root_itself_is_not_a_file(root):
    for rel in (".", "reports/.."):
        with pytest.raises(InvalidInput) as info:
            read(root, rel)
        assert info.value.code == "not_regular_file"


def test_directories_names_lstat_and_creation(root):
    with Root(root) as base:
        with base.open_dir("reports") as reports:
            assert reports.names() == ["a.md"]
        assert base.lstat("reports/a.md").st_size == 4
        assert base.lstat("reports/none") is None and base.lstat("none/x") is None
        fd = base.open("new/deeper/b.md", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644,
                       create_dirs=0o755)
        os.close(fd)
        directory, name = base.parent("reports/a.md")
        with directory:
            assert name == "a.md" and directory.path == str(root / "reports")
    assert (root / "new" / "deeper" / "b.md").is_file()


def test_a_parent_swapped_for_a_link_before_its_open_is_refused(root, tmp_path, monkeypatch):
    """The walk opens each component itself: a swap before the open meets the link."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.md").write_text("OUTSIDE")
    real_open = os.open
    swapped = []

    def swapping_open(path, flags, mode=0o777, *, dir_fd=None):
        if path == "reports" and dir_fd is not None and not swapped:
            os.rename(root / "reports", root / "reports.moved")
            os.symlink(outside, root / "reports")
            swapped.append(1)
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", swapping_open)
    with pytest.raises(PathEscape):
        read(root, "reports/a.md")
    assert swapped


def test_a_parent_swapped_after_its_open_still_reads_the_directory_it_opened(root, tmp_path,
                                                                            monkeypatch):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.md").write_text("OUTSIDE")
    real_open = os.open

    def swap_after(path, flags, mode=0o777, *, dir_fd=None):
        fd = real_open(path, flags, mode, dir_fd=dir_fd)
        if path == "reports" and dir_fd is not None and not (root / "reports").is_symlink():
            os.rename(root / "reports", root / "reports.moved")
            os.symlink(outside, root / "reports")
        return fd

    monkeypatch.setattr(os, "open", swap_after)
    assert read(root, "reports/a.md") == b"# A\n"


def race(root, outside, reader, attempts: int) -> dict:
    """``reader(root, rel)`` ``attempts`` times (more until both sides of the swap
    were seen) while another process swaps the parent directory for a link out
    of the root and back, in a loop (the reliability suite's swapper)."""
    from tests.reliability.suite import parent_swapped, race_attempts

    counts = {"inside": 0, "outside": 0, "refused": 0}
    with parent_swapped(root, outside):
        for _ in race_attempts(attempts, lambda: counts["inside"] and counts["refused"]):
            try:
                data = reader(root, "reports/a.md")
            except (PathEscape, FileNotFoundError, InvalidInput):
                counts["refused"] += 1
                continue
            counts["outside" if b"OUTSIDE" in data else "inside"] += 1
    return counts


def test_a_thousand_reads_while_a_parent_is_swapped_for_a_link_read_no_outside_byte(root,
                                                                                   tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.md").write_text("OUTSIDE")
    counts = race(root, outside, read, 1000)
    assert counts["outside"] == 0, counts
    assert counts["inside"] > 0 and counts["refused"] > 0, counts  # the race really ran


def test_the_race_test_sees_a_check_then_open_read_outside_bytes(root, tmp_path):
    """The test above can fail: the realpath check then open by name that
    ``alice-inbox cat`` used before loses this race."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.md").write_text("OUTSIDE")

    def check_then_open(base, rel):
        try:
            target = os.path.realpath(os.path.join(base, rel))
        except OSError:  # realpath itself lost the race (EINVAL: the link became a directory)
            raise PathEscape("realpath raced") from None
        if not paths.is_within(target, os.path.realpath(base)):
            raise PathEscape("outside")
        fd = os.open(os.path.join(base, rel), os.O_RDONLY | os.O_NOFOLLOW)
        try:
            return os.read(fd, 1 << 20)
        finally:
            os.close(fd)

    counts = {"outside": 0}
    for _ in range(5):  # the window is narrow; a few rounds make a hit certain
        counts = race(root, outside, check_then_open, 1000)
        if counts["outside"]:
            break
    assert counts["outside"] > 0, counts


def test_safe_names_never_collide_and_never_escape():
    names = ["poll", "a.b", "..", ".", "My File", "x/y", "~41", "ünï", "a" * 200]
    encoded = [paths.safe_name(n) for n in names]
    assert len(set(encoded)) == len(names)
    assert all("/" not in e and e not in (".", "..") for e in encoded)
    assert paths.safe_name("poll") == "poll"


def test_long_odd_ids_fit_in_a_file_name():
    long_name = "é" * 120
    encoded = paths.safe_name(long_name)
    assert len(encoded) <= 130 and encoded.startswith("~h")
    assert paths.safe_name("é" * 121) != encoded
