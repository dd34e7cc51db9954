"""``alice-schedule``: scanning due issues and running them headless."""

from __future__ import annotations

from ._run import Tool, exit_codes_help, run

HELP = """\
usage: alice-schedule [--version] [--help] COMMAND [ARGS] [--json]

Scan registered workspaces for due scheduled issues and run them headless.
A system timer (cron, systemd, launchd) runs 'alice-schedule scan' every minute.

commands:
  scan            run every due scheduled issue once (busy lock = exit 0, status busy)
  run-now         start an extra run of a scheduled issue (the schedule is untouched)
  retry-now       retry an issue whose latest run failed or was interrupted
  runs            list runs, newest first
  run             show one run (record and structured output); --wait for it to end
  log             one run's stderr or stdout log (redacted)
  health          automation health of every scheduled issue
  next            the next fire times of an issue, in UTC and in its zone
  install-timer   print (or --write) a cron, systemd or launchd timer for scan
  uninstall-timer remove the timer install-timer --write put in place

options (every command):
  --json       print exactly one JSON document on stdout
  --no-color   no colour (also NO_COLOR=1); colour only ever on a terminal
  -h, --help   show help (also after a command: 'alice-schedule scan --help')
  --version    print the version

examples:
  alice-schedule scan --dry-run
  alice-schedule run-now daily-report --workspace notes
  alice-schedule runs --issue notes/daily-report --limit 5
  alice-schedule install-timer --systemd --write

""" + exit_codes_help() + """
environment: OPENALICE_HOME (state, default ~/.openalice), ALICE_NOW (frozen
             clock, ISO 8601), NO_COLOR, OPENALICE_DEBUG (tracebacks)
"""

TOOL = Tool(
    name="alice-schedule",
    help=HELP,
    verbs={
        "scan": "openalice.cli.schedule_scan",
        "run-now": "openalice.cli.schedule_runs",
        "retry-now": "openalice.cli.schedule_runs",
        "runs": "openalice.cli.schedule_runs",
        "run": "openalice.cli.schedule_runs",
        "log": "openalice.cli.schedule_runs",
        "health": "openalice.cli.schedule_health",
        "next": "openalice.cli.schedule_health",
        "install-timer": "openalice.cli.schedule_timer",
        "uninstall-timer": "openalice.cli.schedule_timer",
    },
)


def _fast(args: list[str], json_mode: bool) -> int | None:
    if args[0] != "scan":
        return None
    # The timer runs this every minute: plain flags skip argparse entirely.
    # lazy: the scan and its nothing-due fast path load only for `scan`
    from .schedule_scan import fast_scan

    return fast_scan(args[1:])


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv, fast=_fast)


if __name__ == "__main__":
    raise SystemExit(main())
