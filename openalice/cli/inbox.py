"""``alice-inbox``: the durable agent-to-human report inbox."""

from __future__ import annotations

from ._run import Tool, exit_codes_help, run

HELP = """\
usage: alice-inbox [--version] [--help] COMMAND [ARGS] [--json]

Publish and read Inbox reports. Agents push Markdown bodies whose [[path]]
references are pinned by sha256 revisions; people list, read and triage them.

commands:
  push           publish a report: --body TEXT | --body-file PATH|- [--workspace W]
  list           entries newest first [--workspace W] [--unread] [--limit N] [--before ID]
  show           one entry: body, origin, read state, its files now
  files          an entry's file references with availability and revisions
  cat            print a referenced file [--require-revision]
  read           mark an entry read
  unread         mark an entry unread
  mark-all-read  mark everything unread now as read (one atomic write)
  count          the global unread count
  delete         delete an entry (its files are untouched)

options (every command):
  --json       print exactly one JSON document on stdout
  --no-color   no colour (also NO_COLOR=1); colour only ever on a terminal
  -h, --help   show help
  --version    print the version

examples:
  alice-inbox push --body 'Nightly report: [[reports/nightly.md]]'
  alice-inbox list --unread
  alice-inbox show inbox-1764493200000-0000000a
  alice-inbox mark-all-read

""" + exit_codes_help() + """
environment: OPENALICE_HOME (state, default ~/.openalice), ALICE_NOW (frozen clock),
             ALICE_RUN_ID/ALICE_RESUME_ID/ALICE_WORKSPACE_ID (set by the runner)
"""

_VERBS = "openalice.cli.inbox_verbs"
TOOL = Tool(name="alice-inbox", help=HELP, verbs={
    "push": _VERBS, "list": _VERBS, "show": _VERBS, "files": _VERBS, "cat": _VERBS,
    "read": _VERBS, "unread": _VERBS, "mark-all-read": _VERBS, "count": _VERBS,
    "delete": _VERBS,
})


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
