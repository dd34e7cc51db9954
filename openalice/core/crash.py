"""The crash tests' hook: a process that kills itself right after a named step.

``OPENALICE_TEST_CRASH_AFTER=<step>`` (never set in normal use; docs/conventions.md)
makes :func:`crash_point` SIGKILL the process where that step ends, so a test
can prove what a crash there leaves.  Its own module, importing only :mod:`os`:
the writers that call it (managed transactions, the scan, connector deliveries,
source merges) sit on read paths too, and :mod:`openalice.core.proc` loads
``subprocess`` and ``threading``.
"""

from __future__ import annotations

import os

__all__ = ["crash_point"]


def crash_point(*steps: str) -> None:
    """SIGKILL this process right here when ``OPENALICE_TEST_CRASH_AFTER`` names one of ``steps``."""
    wanted = os.environ.get("OPENALICE_TEST_CRASH_AFTER")
    if wanted is not None and wanted in steps:
        import signal  # lazy: only a test's crash needs it

        os.kill(os.getpid(), signal.SIGKILL)
