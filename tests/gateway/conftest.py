"""An in-process gateway with an injected runner, for the request-level checks.

``FakeRunner`` records every CLI call the gateway would make and answers with
canned results, so a test can prove "no CLI spawned" and see exact argv.
"""

from __future__ import annotations

import io
import json

import pytest

from openalice.gateway import Gateway
from openalice.gateway.runner import CliResult
from tests.helpers.gateway import Client


class FakeRunner:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, bytes | None]] = []
        self.queue: list[tuple[int, bytes]] = []
        self.closed = False

    def answer(self, exit_code: int, document) -> None:
        body = document if isinstance(document, bytes) else json.dumps(document).encode()
        self.queue.append((exit_code, body))

    @property
    def spawned(self) -> int:
        return len(self.calls)

    def run(self, tool, args, *, stdin=None, timeout=None) -> CliResult:
        self.calls.append((tool, tuple(args), stdin))
        code, body = self.queue.pop(0) if self.queue else (0, b'{"ok": true}')
        return CliResult(tool, args, code, body, b"", 0.0)

    def follow(self, tool, args):
        self.calls.append((tool, tuple(args), None))
        raise RuntimeError("the fake runner does not stream")

    def stop(self, child) -> None:
        pass

    def close(self) -> None:
        self.closed = True


@pytest.fixture(scope="module")
def _fake_gateway():
    runner = FakeRunner()
    log = io.StringIO()
    gateway = Gateway(port=0, runner=runner, log=log).start()
    client = Client("127.0.0.1", gateway.port, gateway.token)
    client.runner, client.log, client.gateway = runner, log, gateway
    yield client
    gateway.close()


@pytest.fixture
def fake(_fake_gateway):
    """One gateway per module; each test starts with no recorded calls."""
    _fake_gateway.runner.calls.clear()
    _fake_gateway.runner.queue.clear()
    _fake_gateway.log.seek(0)
    _fake_gateway.log.truncate()
    return _fake_gateway
