"""Fixtures for the conversation tests: a registered workspace, stand-in
engines, and an issue whose session was born by a scheduled run."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.runs.standins import StandIns, fixtures_dir

NOW_TEXT = "2026-03-02T09:00:00Z"
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def ws(tmp_path, isolated_homes, monkeypatch):
    from openalice import workspaces

    monkeypatch.setenv("ALICE_NOW", NOW_TEXT)
    workspace, _created = workspaces.init(tmp_path / "ws", label="Talk", now=NOW)
    return workspace


@pytest.fixture
def standins(tmp_path, monkeypatch) -> StandIns:
    engines = StandIns(tmp_path / "standin-bin", fixtures_dir())
    monkeypatch.setenv("PATH", engines.path_env("/usr/bin:/bin"))
    return engines


def born_issue(ws, engine="claude", issue_id="daily", **fields) -> str:
    """An issue whose @new-then-resume session was born by one scheduled run
    (in-process); its resume id."""
    from openalice.issues import load_issue, store
    from openalice.runs import admission, supervisor

    store.create(ws, {"title": "Daily report", "when": {"kind": "every", "every": "1h"},
                      "agent": engine, "model": "fake-model", **fields},
                 "Write the daily report.", issue_id=issue_id, now=NOW)
    record = admission.admit(ws, load_issue(ws, issue_id), fire="schedule", now=NOW)
    first = supervisor.run_task(record["taskId"])
    assert first["status"] == "done", first
    assert load_issue(ws, issue_id).assignee == f"@{first['resumeId']}"
    return first["resumeId"]
