"""Write-only secrets: presence reports, overwrite guard, permissions, git exposure."""

import os
import shutil
import stat
import subprocess

import pytest

from openalice.adapters import catalog, envfile
from openalice.core.errors import Conflict, InvalidInput

from .stubs import adapter, write_catalog

CANARY = "canary-5f3a-not-a-real-key"


@pytest.fixture
def entries(tmp_path):
    cat = catalog.load_catalog(write_catalog(tmp_path, [
        adapter("a", "/bin/true", envFile="secrets/A.env", env=["A_API_KEY", "A_ORG"]),
        adapter("bare", "/bin/false"),
    ]))
    return cat.get("a"), cat.get("bare")


def test_status_reports_presence_only(entries):
    a, bare = entries
    assert envfile.secret_status(a) == {"A_API_KEY": "missing", "A_ORG": "missing"}
    envfile.set_secret(a, "A_API_KEY", CANARY)
    envfile.set_secret(a, "EXTRA", "x'y")
    assert envfile.secret_status(a) == {"A_API_KEY": "set", "A_ORG": "missing", "EXTRA": "set"}
    assert envfile.secret_status(bare) == {}


def test_file_is_born_0600_in_a_0700_directory(entries, tmp_path):
    a, _ = entries
    envfile.set_secret(a, "A_API_KEY", CANARY)
    assert stat.S_IMODE(os.stat(a.envFile).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(a.envFile.parent).st_mode) == 0o700
    assert a.envFile.read_text() == f"A_API_KEY='{CANARY}'\n"


def test_overwrite_needs_force(entries):
    a, _ = entries
    assert envfile.set_secret(a, "A_API_KEY", "one") is False
    with pytest.raises(Conflict) as info:
        envfile.set_secret(a, "A_API_KEY", "two")
    assert info.value.code == "secret_exists" and "two" not in str(info.value)
    assert envfile.set_secret(a, "A_API_KEY", "two", force=True) is True
    assert a.envFile.read_text() == "A_API_KEY='two'\n"


def test_values_that_would_break_the_shell_file_are_refused(entries):
    a, _ = entries
    for bad in ("line1\nline2", "nul\x00byte"):
        with pytest.raises(InvalidInput):
            envfile.set_secret(a, "A_API_KEY", bad)
    with pytest.raises(InvalidInput):
        envfile.set_secret(a, "1BAD", "x")
    assert not a.envFile.exists()


def test_a_tricky_value_round_trips_through_sh(entries):
    a, _ = entries
    value = "it's $(rm -rf /) `x` \"q\" \\ $HOME"
    envfile.set_secret(a, "A_API_KEY", value)
    out = subprocess.run(["sh", "-c", '. "$1"; printf %s "$A_API_KEY"', "sh", str(a.envFile)],
                         capture_output=True, text=True)
    assert out.stdout == value


def test_unset(entries):
    a, bare = entries
    assert envfile.unset_secret(a, "A_API_KEY") is False
    envfile.set_secret(a, "A_API_KEY", "v")
    assert envfile.unset_secret(a, "A_API_KEY") is True
    assert envfile.secret_status(a)["A_API_KEY"] == "missing"
    with pytest.raises(InvalidInput) as info:
        envfile.unset_secret(bare, "X")
    assert info.value.code == "no_env_file"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_exposure(tmp_path):
    repo = tmp_path / "repo"
    (repo / "w").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env_file = repo / "w" / "X.env"
    assert "not ignored" in envfile.git_exposure(env_file)  # not created yet: still warned
    env_file.write_text("X='1'\n")
    (repo / ".gitignore").write_text("*.env\n")
    assert envfile.git_exposure(env_file) is None
    subprocess.run(["git", "-C", str(repo), "add", "-f", "w/X.env"], check=True)
    assert "tracked by git" in envfile.git_exposure(env_file)
    assert envfile.git_exposure(tmp_path / "outside" / "Y.env") is None


def test_git_absent_is_tolerated(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on PATH
    assert envfile.git_exposure(tmp_path / "Z.env") is None
