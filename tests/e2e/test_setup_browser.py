"""scripts/setup-browser says what it will do before it installs system packages, and as
another user installs nothing and says how to get Chromium.  Driven with a stand-in `id` and
`apt-get` on a PATH that has no Chromium."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "setup-browser"


@pytest.fixture
def fake_bin(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    calls = tmp_path / "apt-calls"
    (bindir / "apt-get").write_text(f'#!/bin/bash\necho "$*" >>{calls}\nexit 0\n')
    (bindir / "apt-get").chmod(0o755)
    return bindir, calls


def run_as(bindir: Path, uid: int) -> subprocess.CompletedProcess:
    (bindir / "id").write_text(f"#!/bin/bash\necho {uid}\n")
    (bindir / "id").chmod(0o755)
    bash = shutil.which("bash")
    return subprocess.run([bash, str(SCRIPT)], env={"PATH": str(bindir)}, capture_output=True,
                          text=True, timeout=60)


def test_as_another_user_it_installs_nothing_and_says_how(fake_bin):
    bindir, calls = fake_bin
    r = run_as(bindir, 1000)
    assert r.returncode == 1
    assert "sudo apt-get install -y chromium chromium-driver" in r.stderr
    assert "browser tests (tests/web) skip" in r.stderr
    assert not calls.exists()


def test_as_root_it_says_so_before_apt_get(fake_bin):
    bindir, calls = fake_bin
    r = run_as(bindir, 0)
    lines = r.stderr.splitlines()
    assert lines[0].startswith("setup-browser: installing the system packages chromium and "
                               "chromium-driver with apt-get"), r.stderr
    update, install = calls.read_text().splitlines()
    assert "update" in update.split() and install.split()[-2:] == ["chromium", "chromium-driver"]
    assert r.returncode == 1 and "not found on PATH" in r.stderr  # the stand-in installed nothing


def test_without_apt_get_it_names_the_other_package_managers(fake_bin):
    bindir, _ = fake_bin
    (bindir / "apt-get").unlink()
    r = run_as(bindir, 1000)
    assert r.returncode == 1 and "with your package manager" in r.stderr
