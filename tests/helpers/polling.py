"""Waiting for another process's effect, with a deadline.

The effect belongs to a process the test does not clock (a detached supervisor,
a server thread), so this polls wall time; the tests' own clock stays ALICE_NOW.
"""

from __future__ import annotations

import time


def wait_for(predicate, what: str, timeout: float = 30.0, interval: float = 0.02):
    """Return ``predicate()``'s first truthy value, or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what}")
