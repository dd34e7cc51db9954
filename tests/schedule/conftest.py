from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest

from tests.schedule.fakeissues import Launcher, Reader


def T(text: str) -> datetime:
    """An aware UTC instant from ``2026-01-01T10:00:00Z``-style text."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


class Sched:
    def __init__(self, tmp_path) -> None:
        self.tmp_path = tmp_path
        self.reader = Reader()
        self.launcher = Launcher()

    def workspace(self, name: str = "ws"):
        from openalice import workspaces

        ws, _ = workspaces.init(self.tmp_path / name, now=T("2026-01-01T00:00:00Z"))
        return ws

    def scan(self, now: str, **kwargs):
        from openalice.schedule.scan import scan

        kwargs.setdefault("reader", self.reader)
        kwargs.setdefault("launch", self.launcher)
        return scan(now=T(now), **kwargs)

    def cursor(self, ws, issue_id):
        from openalice.issues.cursors import read_cursor

        return read_cursor(ws.id, issue_id)

    def tasks(self, ws, issue_id):
        from openalice.runs import tasks

        return tasks.list_tasks(workspace_id=ws.id, issue_id=issue_id, limit=1000)

    def finish(self, task_id: str, status: str = "done", **fields):
        """What the supervisor does at the end of a run."""
        from openalice.runs import admission, tasks

        tasks.update_task(task_id, {"status": status, **fields})
        admission.release(task_id)


@pytest.fixture
def sched(tmp_path):
    return Sched(tmp_path)


@pytest.fixture(autouse=True)
def _agents_installed(agent_stubs, isolated_homes):
    """The agents these tests name count as installed and logged in (no test
    here runs one): each CLI's login marker file exists in the test's HOME."""
    from openalice.agents import login

    for agent in ("claude", "codex", "opencode", "pi"):
        for marker in login._markers(agent, os.environ):
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
    return agent_stubs
