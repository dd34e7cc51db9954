"""Scheduling: the scanner, automation health, upcoming fire times and the
system timer.  What an issue's schedule means (the due math, the per-issue
cursors) and whether its run can start here (the one readiness rule) live
with the issues: :mod:`openalice.issues.due`, :mod:`openalice.issues.cursors`
and :mod:`openalice.issues.readiness`, so the issue views use them without
importing the scheduler.

Submodules (imported on demand, never here, so ``alice-schedule scan``
starts fast):

- :mod:`.scan` — the scanner (lock, scan cache, admission, launch);
- :mod:`.scan_workspaces` — the scanner's pass over one workspace (cache, files, reads);
- :mod:`.scan_entry` — the scan as the timer runs it (lock, fast path or full scan, heartbeat);
- :mod:`.manual` — run-now and retry-now;
- :mod:`.health` — automationHealth and the run-failure classification;
- :mod:`.upcoming` — the next fire instants of an issue, DST marked;
- :mod:`.timers` — crontab / systemd / launchd timer definitions, and which are installed;
- :mod:`.address` — finding an issue from ``ISSUE`` / ``WS/ISSUE``.
"""

__all__: list[str] = []
