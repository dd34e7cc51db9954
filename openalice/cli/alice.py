"""``alice``: the workspace-side tool for people and for agents inside workspaces."""

from __future__ import annotations

from ._run import Tool, run

HELP = """\
usage: alice [--version] [--help] COMMAND [ARGS] [--json]

OpenAlice workspace tool: keep workspaces and their Markdown issues, read the
inbox and the activity journal, manage sessions, credentials and models.

commands:
  workspace    create (init), list, show and remove workspaces
  issue        create, list, show, update, comment on, validate issues; the board

options (every command):
  --json       print exactly one JSON document on stdout
  -h, --help   show help (also after a command: 'alice workspace --help')
  --version    print the version

examples:
  alice workspace init ~/work/notes --label Notes
  alice workspace list
  alice workspace show notes --json
  alice issue create --title 'Daily report' --every 24h --body 'Summarize the day'
  alice issue board

exit codes: 0 ok, 1 operational failure, 2 usage or invalid input,
            3 unavailable or busy, 4 forbidden
environment: OPENALICE_HOME (state, default ~/.openalice), ALICE_NOW (frozen
             clock, ISO 8601), NO_COLOR, OPENALICE_DEBUG (tracebacks)
"""

TOOL = Tool(
    name="alice",
    help=HELP,
    verbs={
        "workspace": "openalice.cli.alice_workspace",
        "issue": "openalice.cli.alice_issue",
    },
)


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
