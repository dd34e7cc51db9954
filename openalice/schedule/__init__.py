"""Scheduling: when issues are due, the per-issue cursors, the scanner,
automation health, upcoming fire times and the system timer.

Submodules (imported on demand, never here, so ``alice-schedule scan``
starts fast):

- :mod:`.due` — pure due math for ``at``, ``every`` and ``cron`` schedules;
- :mod:`.cursors` — one small cursor file per scheduled issue;
- :mod:`.scan` — the scanner (lock, scan cache, admission, launch);
- :mod:`.scan_workspaces` — the scanner's pass over one workspace (cache, files, reads);
- :mod:`.scan_entry` — the scan as the timer runs it (lock, fast path or full scan, heartbeat);
- :mod:`.manual` — run-now and retry-now;
- :mod:`.health` — automationHealth and the run-failure classification;
- :mod:`.upcoming` — the next fire instants of an issue, DST marked;
- :mod:`.readiness` — whether a due issue's run can start on this machine (the one rule);
- :mod:`.timers` — crontab / systemd / launchd timer definitions, and which are installed;
- :mod:`.address` — finding an issue from ``ISSUE`` / ``WS/ISSUE``.
"""

__all__: list[str] = []
