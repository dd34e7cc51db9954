"""core.executables.which answers as shutil.which does (POSIX), on generated cases."""

import os
import random
import shutil

from openalice.core import executables


def _tree(tmp_path):
    """Directories holding files that are and are not executable, a directory named like a
    program, a symlink to an executable and a dangling one."""
    made = []
    for d in ("a", "b", "c"):
        (tmp_path / d).mkdir()
        made.append(str(tmp_path / d))
    for d, name, mode in (("a", "tool", 0o755), ("a", "plain", 0o644), ("b", "tool", 0o755), ("b", "plain", 0o755),
                          ("c", "only-c", 0o700), ("c", "noexec", 0o600)):
        path = tmp_path / d / name
        path.write_text("#!/bin/sh\n")
        path.chmod(mode)
    (tmp_path / "a" / "dir-tool").mkdir()
    (tmp_path / "c" / "dir-tool").write_text("#!/bin/sh\n")
    (tmp_path / "c" / "dir-tool").chmod(0o755)
    os.symlink(tmp_path / "b" / "tool", tmp_path / "c" / "link")
    os.symlink(tmp_path / "nowhere", tmp_path / "c" / "dangling")
    return made


def test_which_agrees_with_shutil_which(tmp_path, monkeypatch):
    dirs = _tree(tmp_path)
    rng = random.Random(7)
    names = ["tool", "plain", "only-c", "noexec", "dir-tool", "link", "dangling", "missing",
             str(tmp_path / "a" / "tool"), str(tmp_path / "a" / "plain"), str(tmp_path / "a"), "a/tool"]
    monkeypatch.chdir(tmp_path)
    cases = 0
    for _ in range(300):
        chosen = rng.sample(dirs + ["", str(tmp_path / "nope"), dirs[0]], rng.randint(0, 4))
        path = os.pathsep.join(chosen)
        for name in names:
            assert executables.which(name, path=path) == shutil.which(name, path=path), (name, path)
            cases += 1
    assert cases == 300 * len(names)
    # the default search path is $PATH
    monkeypatch.setenv("PATH", os.pathsep.join(dirs[::-1]))
    assert executables.which("tool") == shutil.which("tool") == str(tmp_path / "b" / "tool")
    monkeypatch.delenv("PATH")
    assert executables.which("sh") == shutil.which("sh")


def test_found_and_not_found_are_both_seen(tmp_path):
    dirs = _tree(tmp_path)
    assert executables.which("only-c", path=os.pathsep.join(dirs)) == str(tmp_path / "c" / "only-c")
    assert executables.which("noexec", path=os.pathsep.join(dirs)) is None
    assert executables.which("tool", path="") is None
