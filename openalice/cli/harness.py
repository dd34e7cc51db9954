"""``alice-harness``: skills, guidance, stickers and Studio around workspaces."""

from __future__ import annotations

from ._run import Tool, exit_codes_help, run

HELP = """\
usage: alice-harness [--version] [--help] COMMAND [ARGS] [--json]

Versioned skills and guidance injected into workspaces with safe three-way
upgrades, sticker packs, and supervised Studio web surfaces.

commands:
  status    versions, drift, pending updates and config problems [--workspace W] [--all]
  upgrade   preview or apply a three-way upgrade of the skills, one skill
            (--skill NAME --action install|update|remove|restore) or the
            guidance (--template); --apply [--digest D], resolve conflicts with
            --keep-workspace PATH / --use-template PATH
  config    show, or set KEY=VALUE: skills.<s>, cli.<tool>.enabled,
            cli.<tool>.groups.<group>
  stickers  sticker packs: list, show PACK, import DIR|ZIP, enable [--pack ID]
            [--apply --digest D], disable, status
  studio    start, stop, restart, status, logs of the workspace's Studio web surface
  proxy     serve ready Studio surfaces on 127.0.0.1 by Host (oa-surface-<id>.localhost)
  source    preview or apply (--digest D) a merge from the workspace's template
            repository (workspaces created with 'alice workspace init --from-git')

options (every command):
  --json       print exactly one JSON document on stdout
  --no-color   no colour (also NO_COLOR=1); colour only ever on a terminal
  --bundle DIR status, upgrade, config: read skills and templates from DIR
               (also ALICE_HARNESS_BUNDLE)
  -h, --help   show help (also after a command: 'alice-harness upgrade --help')
  --version    print the version

examples:
  alice workspace init ~/projects/desk --template chat   # guidance, skills and shims
  alice-harness status
  alice-harness upgrade                                  # preview: plan and digest
  alice-harness upgrade --apply --digest 3f2a...
  alice-harness upgrade --bundle ~/bundles/alice-1.1 --apply
  alice-harness config set cli.alice-inbox.enabled=false
  alice-harness stickers import ~/packs/cats.zip && alice-harness stickers enable --pack cats
  alice-harness studio start --workspace notes && alice-harness proxy --port 8780
  alice-harness source preview --to v2.0 && alice-harness source apply --digest 9c1e...

""" + exit_codes_help({2: "usage or invalid input (also a stale plan or an unresolved conflict)",
                 3: "unavailable or busy (lease held, live run; status: needs attention)"}) + """
environment: OPENALICE_HOME, ALICE_HARNESS_BUNDLE, ALICE_NOW, NO_COLOR
"""

_VERBS = "openalice.cli.harness_verbs"
TOOL = Tool(name="alice-harness", help=HELP, verbs={
    "status": _VERBS, "upgrade": _VERBS, "config": _VERBS,
    "stickers": "openalice.cli.harness_stickers",
    "studio": "openalice.cli.harness_studio",
    "proxy": "openalice.cli.harness_proxy",
    "source": "openalice.cli.harness_source",
})


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
