"""A tool process tunes its garbage collector for a short life (openalice/cli/_run.py:
a higher young threshold, everything alive frozen when the verb returns); an
in-process call leaves the caller's collector as it was."""

from __future__ import annotations

import gc
import subprocess
import sys

from openalice.cli import _run
from openalice.cli.alice import main


def test_a_tool_process_collects_rarely_and_freezes_what_it_leaves(tmp_path):
    code = ("import gc, sys\nfrom openalice.cli.alice import main\nsys.argv = ['alice', 'workspace', 'list', '--json']\n"
            "code = main()\nprint(code, gc.get_threshold()[0], gc.get_freeze_count() > 1000, file=sys.stderr)")
    env = {"OPENALICE_HOME": str(tmp_path / "home"), "HARNESS_HOME": str(tmp_path / "harness"),
           "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("{")
    assert done.stderr.split() == ["0", str(_run.YOUNG_THRESHOLD), "True"]


def test_an_in_process_call_leaves_the_collector_as_it_was(cli):
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    assert main(["--version"]) == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, frozen)
