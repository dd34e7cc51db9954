"""Build the wheel, install it into a fresh venv, use it from outside the checkout."""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = ("alice", "alice-schedule", "alice-inbox", "alice-harness", "harness-adapter")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("install")
    dist = base / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(dist), str(REPO)], capture_output=True, text=True, cwd=base)
    if build.returncode != 0:
        pytest.fail(f"wheel build failed:\n{build.stdout}\n{build.stderr}")
    wheel = next(dist.glob("openalice-*.whl"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index",
                    "--no-deps", str(wheel)], check=True)
    return base, venv, wheel


def test_wheel_carries_the_data_as_real_files(installed):
    _, _, wheel = installed
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        entry_points = zf.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert any(n.startswith("openalice/spec/") and n.endswith(".schema.json") for n in names)
    for tool in TOOLS:
        assert f"{tool} = openalice.cli." in entry_points
    assert not any(n.startswith("tests/") for n in names)
    # no bytecode a run left in the checkout (presets/_validate.py runs as a script)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_installed_tools_work_outside_the_checkout(installed, tmp_path):
    base, venv, _ = installed
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(OPENALICE_HOME=str(tmp_path / "home"), HARNESS_HOME=str(tmp_path / "harness"),
               HOME=str(tmp_path))
    for tool in TOOLS:
        r = subprocess.run([str(venv / "bin" / tool), "--version"], capture_output=True,
                           text=True, env=env, cwd=tmp_path)
        assert r.returncode == 0 and r.stdout.startswith(tool), (tool, r.stderr)
    r = subprocess.run([str(venv / "bin" / "alice"), "workspace", "init", "ws", "--json"],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["workspace"]["path"] == os.path.realpath(tmp_path / "ws")
    probe = ("import openalice, json; from openalice.core import resources;"
             "print(json.dumps([openalice.__file__, str(resources.data_root('spec'))]))")
    r = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True,
                       text=True, env=env, cwd=tmp_path)
    module_file, spec_dir = json.loads(r.stdout)
    assert str(venv) in module_file and spec_dir.startswith(str(venv))
    assert not Path(spec_dir).is_symlink()
    assert (Path(spec_dir) / "error.schema.json").is_file()


def test_the_installed_gateway_serves_its_page_and_runs_the_installed_clis(installed, tmp_path):
    """The page is package data, and the gateway's children are the installed tools."""
    from tests.helpers.gateway import Served

    base, venv, wheel = installed
    with zipfile.ZipFile(wheel) as zf:
        assert "openalice/gateway/page.html" in zf.namelist()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HARNESS_CATALOG")}
    env.update(OPENALICE_HOME=str(tmp_path / "home"), HARNESS_HOME=str(tmp_path / "harness"),
               HOME=str(tmp_path))
    with Served(str(venv / "bin" / "alice"), env) as served:
        page = served.get("/", auth="cookie")
        assert page.status == 200 and b'name="openalice-token"' in page.body
        r = served.get("/api/adapters?probe=0")
        assert r.status == 200 and {d["id"] for d in r.json()} >= {"claude", "codex"}
        assert served.get("/api/inbox/unread-count").json() == {"total": 0, "unread": 0}
