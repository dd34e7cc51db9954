"""Fixtures for the supervisor tests: a registry, a workspace, stand-in engines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .standins import StandIns, fixtures_dir

NOW = "2026-03-02T09:00:00Z"


@pytest.fixture
def registry():
    """``(tasks, admission)``: the task registry and admission of the scheduling capability."""
    from openalice.runs import admission, tasks

    return tasks, admission


@pytest.fixture
def ws(tmp_path, isolated_homes, monkeypatch):
    """A registered workspace (in-process) with ALICE_NOW frozen."""
    from openalice import workspaces
    from openalice.core import clock

    monkeypatch.setenv("ALICE_NOW", NOW)
    workspace, _created = workspaces.init(tmp_path / "ws", label="Runs", now=clock.now())
    return workspace


@pytest.fixture
def standins(tmp_path, monkeypatch) -> StandIns:
    """claude/codex/opencode/pi stand-ins first on PATH."""
    engines = StandIns(tmp_path / "standin-bin", fixtures_dir())
    monkeypatch.setenv("PATH", engines.path_env("/usr/bin:/bin"))
    return engines


def journal_facts() -> list[dict]:
    from openalice.journal import journal_path

    path = journal_path()
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def structured_of(tasks, task_id: str) -> dict:
    return json.loads((Path(tasks.task_dir(task_id)) / "structured.json").read_text())
