"""Fixtures for the issue unit tests: a workspace directory without the registry."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from openalice.workspaces import Workspace

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def make_ws(path, ws_id="ws"):
    path.mkdir(parents=True, exist_ok=True)
    (path / ".alice" / "issues").mkdir(parents=True, exist_ok=True)
    return Workspace(id=ws_id, label=ws_id.title(), path=str(path), template="blank",
                     createdAt="2026-01-01T00:00:00Z")


@pytest.fixture
def ws(tmp_path):
    return make_ws(tmp_path / "ws")


@pytest.fixture
def write(ws):
    """write("id", text_or_bytes) -> path of .alice/issues/<id>.md"""
    def _write(issue_id, content, name=None):
        path = ws.root / ".alice" / "issues" / (name or f"{issue_id}.md")
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
        return path
    return _write
