"""``harness-adapter``: the adapter catalog, machine state, health and models."""

from __future__ import annotations

from ._run import Tool, exit_codes_help, run

HELP = """\
usage: harness-adapter [--version] [--help] COMMAND [ARGS] [--json]

The catalog of engine wrappers (presets/adapters.json), which of them are
enabled on this machine ($HARNESS_HOME/adapters.json), their health and models.

commands:
  list              list every adapter (--probe runs the health checks)
  show              show one adapter's effective descriptor
  enable            enable an adapter on this machine
  disable           disable an adapter on this machine
  set-models        narrow an adapter's models on this machine (--reset undoes)
  config            set or unset non-secret config keys (never secrets)
  set-secret        store a secret in the adapter's env file (value from stdin, a prompt,
                    or --from-vault SLUG: a key of the vault, copied inside the toolkit)
  unset-secret      remove a secret from the adapter's env file
  health            probe adapters with '<wrapper> --health' (exit 3 if any is down)
  available-models  the adapter's full model list ('<wrapper> --list-models', cached 24 h)
  validate          check presets and run-configs against the catalog (exit 2 on errors)

options (every command):
  --json          print exactly one JSON document on stdout
  --no-color      no colour (also NO_COLOR=1); colour only ever on a terminal
  --catalog PATH  use another catalog file (default $HARNESS_CATALOG, else the shipped one)
  --timeout S     bound each wrapper probe (default 10 seconds)
  -h, --help      show help
  --version       print the version

examples:
  harness-adapter list --probe
  harness-adapter enable claude
  printf '%s' "$KEY" | harness-adapter set-secret claude ANTHROPIC_API_KEY -
  harness-adapter set-models claude claude-sonnet-4-5
  harness-adapter validate presets/pair.json

secrets: adapter env files ($HARNESS_HOME/env/NAME.env) feed the catalog
wrappers; the vault (alice credential, $OPENALICE_HOME/vault) feeds the runs
the scheduler starts. 'set-secret ID --from-vault SLUG' copies a vault key.

""" + exit_codes_help({2: "usage or invalid input (unknown id, malformed catalog or state, failed validation)",
                 3: "unavailable (an adapter is down, no model list)"}, codes=(0, 2, 3), indent=0) + """
environment: HARNESS_HOME (default ~/.harness), HARNESS_CATALOG (catalog file)
docs: docs/harness-adapter.md, docs/WRAPPER-CONTRACT.md
"""

_VERBS = ("list", "show", "enable", "disable", "set-models", "config", "set-secret",
          "unset-secret", "health", "available-models", "validate")

TOOL = Tool(name="harness-adapter", help=HELP,
            verbs={verb: "openalice.cli.adapter_secrets" if verb.endswith("-secret") else "openalice.cli.adapter_verbs"
                   for verb in _VERBS})


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
