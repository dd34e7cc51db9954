"""``alice``: the workspace-side tool for people and for agents inside workspaces."""

from __future__ import annotations

from ._run import Tool, exit_codes_help, run

HELP = """\
usage: alice [--version] [--help] COMMAND [ARGS] [--json]

OpenAlice workspace tool: keep workspaces and their Markdown issues, read the
inbox and the activity journal, manage sessions, credentials and models.

commands:
  workspace    create (init), list, show and remove workspaces
  issue        create, list, show, update, comment on, validate issues; the board
  inbox        publish and read Inbox reports (the verbs of alice-inbox)
  journal      read the activity journal: pages, --after-seq, --follow
  session      create, list, show, replace and open sessions (frozen runtime bindings)
  chat         open the workspace's default session in this terminal
  manager      the Workspace Manager: attended sessions across workspaces
  settings     show and set workspace runtime preferences (.alice/settings.json)
  credential   add, list and remove provider credentials (the vault)
  connector    deliver Inbox reports to Telegram, webhooks, e-mail, the desktop
  models       show model semantics (limits, reasoning, efforts)
  doctor       check homes, workspaces, agent CLIs, credentials, adapters, timers
  serve        the local web page: inbox, issues, runs, journal, adapters
  completion   shell completion for bash, zsh, fish (every tool: --tool, --all)
  schema       validate JSON files against a JSON Schema (for CI steps)

options (every command):
  --json       print exactly one JSON document on stdout
  --no-color   no colour (also NO_COLOR=1); colour only ever on a terminal
  -h, --help   show help (also after a command: 'alice workspace --help')
  --version    print the version

examples:
  alice workspace init ~/projects/notes --label Notes
  alice workspace list
  alice workspace show notes --json
  alice inbox list --unread
  alice journal --follow
  printf '%s' "$KEY" | alice credential add ds-1 --vendor deepseek
  alice settings set --agent pi --credential ds-1 --model deepseek-v4-pro --default
  alice session new && alice session list
  alice chat                                  # talk to the agent of this workspace
  alice doctor
  alice issue create --title 'Daily report' --every 24h --body 'Summarize the day'
  alice issue board
  alice serve --open

""" + exit_codes_help() + """
environment: OPENALICE_HOME (state, default ~/.openalice), ALICE_NOW (frozen
             clock, ISO 8601), NO_COLOR, OPENALICE_DEBUG (tracebacks)
"""

TOOL = Tool(
    name="alice",
    help=HELP,
    verbs={
        "workspace": "openalice.cli.alice_workspace",
        "inbox": "openalice.cli.alice_inbox",
        "journal": "openalice.cli.alice_journal",
        "session": "openalice.cli.alice_session",
        "chat": "openalice.cli.alice_session",
        "manager": "openalice.cli.alice_manager",
        "settings": "openalice.cli.alice_settings",
        "credential": "openalice.cli.alice_credential",
        "connector": "openalice.cli.alice_connector",
        "models": "openalice.cli.alice_models",
        "doctor": "openalice.cli.alice_doctor",
        "issue": "openalice.cli.alice_issue",
        "serve": "openalice.cli.alice_serve",
        "completion": "openalice.cli.alice_completion",
        "schema": "openalice.cli.alice_schema",
    },
)


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
