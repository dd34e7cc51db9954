"""``harness-adapter``: the adapter catalog, machine state, health and models."""

from __future__ import annotations

from ._run import Tool, run

HELP = """\
usage: harness-adapter [--version] [--help] COMMAND [ARGS] [--json]

The catalog of engine wrappers (presets/adapters.json), which of them are
enabled on this machine ($HARNESS_HOME/adapters.json), their health and models.

commands:
  (the adapter verbs arrive with the harness-adapter capability)

options (every command):
  --json       print exactly one JSON document on stdout
  -h, --help   show help
  --version    print the version

exit codes: 0 ok, 2 usage or invalid input, 3 unavailable (health down)
environment: HARNESS_HOME (default ~/.harness), HARNESS_CATALOG (catalog file)
"""

TOOL = Tool(name="harness-adapter", help=HELP, verbs={})


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
