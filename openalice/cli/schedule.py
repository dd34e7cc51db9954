"""``alice-schedule``: scanning due issues and running them headless."""

from __future__ import annotations

from ._run import Tool, run

HELP = """\
usage: alice-schedule [--version] [--help] COMMAND [ARGS] [--json]

Scan registered workspaces for due scheduled issues and run them headless.
A system timer (cron, systemd, launchd) runs 'alice-schedule scan' every minute.

commands:
  (the scheduling verbs arrive with the scheduling capability)

options (every command):
  --json       print exactly one JSON document on stdout
  -h, --help   show help
  --version    print the version

exit codes: 0 ok, 1 operational failure, 2 usage or invalid input,
            3 unavailable or busy, 4 forbidden
environment: OPENALICE_HOME (state, default ~/.openalice), ALICE_NOW (frozen clock)
"""

TOOL = Tool(name="alice-schedule", help=HELP, verbs={})


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
