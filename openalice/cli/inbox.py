"""``alice-inbox``: the durable agent-to-human report inbox."""

from __future__ import annotations

from ._run import Tool, run

HELP = """\
usage: alice-inbox [--version] [--help] COMMAND [ARGS] [--json]

Publish and read Inbox reports. Agents push Markdown bodies whose [[path]]
references are pinned by sha256 revisions; people list, read and triage them.

commands:
  (the inbox verbs arrive with the inbox capability)

options (every command):
  --json       print exactly one JSON document on stdout
  -h, --help   show help
  --version    print the version

exit codes: 0 ok, 1 operational failure, 2 usage or invalid input,
            3 unavailable or busy, 4 forbidden
environment: OPENALICE_HOME (state, default ~/.openalice)
"""

TOOL = Tool(name="alice-inbox", help=HELP, verbs={})


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
