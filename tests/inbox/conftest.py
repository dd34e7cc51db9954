from datetime import datetime, timedelta, timezone

import pytest

from openalice import inbox, workspaces

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def ws(tmp_path):
    workspace, _ = workspaces.init(tmp_path / "ws", label="Desk", now=T0)
    return workspace


@pytest.fixture
def store():
    return inbox.InboxStore()


@pytest.fixture
def pushed(ws, store):
    """push(body, minutes=i) -> entry, with a manual origin and an injected clock."""
    def push(body="report", minutes=0, origin=None, workspace=None):
        result = inbox.push(body, workspace=workspace or ws, origin=origin or {"kind": "manual"},
                            now=T0 + timedelta(minutes=minutes), store=store)
        return result.entry
    return push
