"""Fixtures of the connector tests: the loopback fakes, a workspace, entries."""

from __future__ import annotations

import pytest

from openalice import workspaces
from openalice.core import clock

from .fakes import FakeTelegram, SmtpSink, WebhookReceiver

# Canaries: they must appear in no file but the vault's secret file, and in no output.
TOKEN = "123456789:CANARYtokenAAAAAAAAAAAAAAAAAAAAAAAA"
SIGNING = "canary-signing-secret-7d1e"
PASSWORD = "canary-smtp-password-42"
NOW = "2026-11-30T09:00:00Z"


def at(text: str) -> int:
    return clock.to_ms(clock.parse_instant(text))


@pytest.fixture
def telegram():
    fake = FakeTelegram(TOKEN).start()
    yield fake
    fake.stop()


@pytest.fixture
def receiver():
    fake = WebhookReceiver(SIGNING).start()
    yield fake
    fake.stop()


@pytest.fixture
def sink():
    fake = SmtpSink().start()
    yield fake
    fake.stop()


@pytest.fixture
def ws(tmp_path):
    """A registered workspace (API), with a picture and a sticker in it."""
    root = tmp_path / "notes"
    workspace, _ = workspaces.init(root, label="Notes", now=clock.parse_instant(NOW))
    (root / "charts").mkdir()
    (root / "charts" / "nvda.png").write_bytes(b"\x89PNG\r\n\x1a\nFAKEPNG" + bytes(range(256)))
    (root / "sticker").mkdir()
    (root / "sticker" / "wave.webp").write_bytes(b"RIFF\x10\x00\x00\x00WEBPVP8 wave")
    (root / "reports").mkdir()
    (root / "reports" / "close.pdf").write_bytes(b"%PDF-1.4 close report")
    return workspace


def push(ws, body: str, when: str = NOW) -> dict:
    from openalice import inbox

    return inbox.push(body, workspace=ws, origin={"kind": "manual"},
                      now=clock.parse_instant(when)).entry
