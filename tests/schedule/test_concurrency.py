"""Scanners one after another and scanners dying at each step: never two
runs of one slot.  (Eight scanners at once and SIGKILL at random moments
run through the real CLI in tests/e2e/test_schedule_cli.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter

import pytest

from tests.conftest import REPO
from tests.schedule.fakeissues import every, write_issue

NOW = "2026-01-01T10:00:00Z"


def scanner(now: str = NOW, *, env: dict | None = None, wait: bool = False) -> subprocess.Popen:
    argv = [sys.executable, "-m", "tests.schedule.scan_helper", now, "--capacity=1000"]
    argv += ["--wait-stdin"] if wait else []
    return subprocess.Popen(argv, cwd=REPO, env={**os.environ, **(env or {})}, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def all_tasks():
    from openalice.runs import tasks

    return tasks.list_tasks(limit=100_000)


def many_issues(sched, count: int = 100, workspaces: int = 4):
    spaces = [sched.workspace(f"w{n}") for n in range(workspaces)]
    for n in range(count):
        write_issue(spaces[n % workspaces].path, f"job{n:03d}", when=every("1h"))
    return spaces


def test_scanners_one_after_another_at_the_same_instant_fire_once(sched):
    many_issues(sched, count=20, workspaces=2)
    reports = []
    for _ in range(3):
        p = scanner()
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        reports.append(json.loads(out))
    assert [len(r["fired"]) for r in reports] == [20, 0, 0]
    assert len(all_tasks()) == 20


@pytest.mark.parametrize("step", ["task-record", "cursor", "launch"])
def test_a_scanner_killed_after_any_step_causes_no_duplicate(sched, step):
    many_issues(sched, count=6, workspaces=2)
    p = scanner(env={"OPENALICE_TEST_CRASH_AFTER": step})
    p.communicate(timeout=120)
    assert p.returncode == -signal.SIGKILL
    assert len(all_tasks()) == 1  # it died right after the first run's step
    p = scanner("2026-01-01T10:00:40Z")
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    report = json.loads(out)
    assert len(report["fired"]) == 5
    assert len(report["repaired"]) == (1 if step == "task-record" else 0)
    per_issue = Counter(t["issueId"] for t in all_tasks())
    assert len(per_issue) == 6 and set(per_issue.values()) == {1}
