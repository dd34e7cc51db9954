"""`make install` works where the system Python refuses `pip install` (PEP 668).

It installs with pipx when pipx is there, else into a venv of its own with the tools linked
into a bin directory, and says which.  Run on a copy of the checkout (pip builds in the source
tree), with a stand-in `python3` that refuses `-m pip` the way an externally managed one does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = ("alice", "alice-schedule", "alice-inbox", "alice-harness", "harness-adapter")


@pytest.fixture
def source(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed (.ci/run installs it)")
    copy = tmp_path / "src"
    shutil.copytree(REPO, copy, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".venv-bench", ".agent-clis", "build", "dist", "*.egg-info", "__pycache__",
        ".pytest_cache"))
    return copy


@pytest.fixture
def bins(tmp_path):
    """``python3`` refusing pip like a PEP 668 system Python; ``pipx`` recording its calls."""
    managed = tmp_path / "managed"
    managed.mkdir()
    (managed / "python3").write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then\n'
        "  echo 'error: externally-managed-environment' >&2; exit 1\n"
        "fi\n"
        f'exec {sys.base_exec_prefix}/bin/python3 "$@"\n')
    (managed / "python3").chmod(0o755)
    pipx = tmp_path / "pipx-bin"
    pipx.mkdir()
    (pipx / "pipx").write_text(f'#!/bin/sh\necho "$*" >> {tmp_path}/pipx.calls\n')
    (pipx / "pipx").chmod(0o755)
    return {"python": managed / "python3", "pipx": pipx, "calls": tmp_path / "pipx.calls"}


def make_install(source: Path, bins: dict, tmp_path: Path, path: str):
    env = {"PATH": path, "HOME": str(tmp_path / "home")}
    return subprocess.run(["make", "install", f"PYTHON={bins['python']}",
                           f"INSTALL_VENV={tmp_path / 'venv'}", f"INSTALL_BIN={tmp_path / 'bin'}"],
                          cwd=source, env=env, capture_output=True, text=True, timeout=600)


def test_without_pipx_it_installs_into_its_own_venv(source, bins, tmp_path):
    assert subprocess.run([str(bins["python"]), "-m", "pip", "--version"]).returncode == 1
    done = make_install(source, bins, tmp_path, "/usr/bin:/bin")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (f"make install: pipx not found; installing into the venv {tmp_path / 'venv'} and linking "
            f"the tools into {tmp_path / 'bin'}") in done.stdout
    # Quiet: pip's and setuptools' notices go to the venv's pip.log, not the terminal.
    shown = done.stdout + done.stderr
    assert "!!" not in shown and "deprecated" not in shown and "****" not in shown, shown
    assert len(shown.splitlines()) <= 12, shown
    assert "Successfully installed openalice" in (tmp_path / "venv" / "pip.log").read_text()
    for tool in TOOLS:
        linked = tmp_path / "bin" / tool
        assert os.path.realpath(linked) == str(tmp_path / "venv" / "bin" / tool)
        r = subprocess.run([str(linked), "--version"], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
        assert r.returncode == 0 and r.stdout.startswith(tool), (tool, r)
    # The timer line of such an install names the venv's console script, by absolute path.
    spec = subprocess.run([str(tmp_path / "bin" / "alice-schedule"), "install-timer", "--cron", "--json"],
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                                               "OPENALICE_HOME": str(tmp_path / "oh")})
    assert str(tmp_path / "venv" / "bin" / "alice-schedule") in spec.stdout, spec


def test_with_pipx_it_uses_pipx(source, bins, tmp_path):
    done = make_install(source, bins, tmp_path, f"{bins['pipx']}:/usr/bin:/bin")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "make install: installing with pipx (pipx install --force .)" in done.stdout
    assert bins["calls"].read_text().splitlines() == ["install --force ."]
    assert not (tmp_path / "venv").exists()


def test_every_pip_call_of_the_makefile_goes_through_the_log():
    """venv, demo, install and bench: pip's own output (setuptools' notices, an index's
    warnings) goes to a log file beside the venv, never straight to the terminal."""
    text = (REPO / "Makefile").read_text()
    recipes = [line for line in text.splitlines() if line.startswith("\t")]
    assert not [line for line in recipes if "-m pip" in line], "pip called without scripts/pip-logged"
    assert sum("$(PIP) " in line or "$(call pip_upgrade" in line for line in recipes) >= 6


def test_pip_logged_shows_the_log_tail_only_when_pip_fails(tmp_path):
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho "noise from $*"\n[ "$3" = ok ] && exit 0\necho "the real error" >&2\nexit 3\n')
    fake.chmod(0o755)
    log = tmp_path / "v" / "pip.log"
    ok = subprocess.run([str(REPO / "scripts" / "pip-logged"), str(log), str(fake), "ok"],
                        capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout == ok.stderr == "" and "noise" in log.read_text()
    bad = subprocess.run([str(REPO / "scripts" / "pip-logged"), str(log), str(fake), "bad"],
                         capture_output=True, text=True)
    assert bad.returncode == 3 and bad.stdout == ""
    assert "pip failed (exit 3)" in bad.stderr and "the real error" in bad.stderr
