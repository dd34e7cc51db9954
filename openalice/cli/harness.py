"""``alice-harness``: skills, guidance, stickers and Studio around workspaces."""

from __future__ import annotations

from ._run import Tool, run

HELP = """\
usage: alice-harness [--version] [--help] COMMAND [ARGS] [--json]

Versioned skills and guidance injected into workspaces with safe three-way
upgrades, sticker packs, and supervised Studio web surfaces.

commands:
  studio       start, stop, restart, status, logs of the workspace's Studio web surface
  proxy        serve ready Studio surfaces on 127.0.0.1 by Host (oa-surface-<id>.localhost)

options:
  -h, --help   show help
  --version    print the version

examples:
  alice-harness --version
  alice-harness studio start --workspace notes && alice-harness proxy --port 8780
  alice workspace init PATH --template chat   # workspaces are created with alice

exit codes: 0 ok, 1 operational failure, 2 usage or invalid input,
            3 unavailable or busy, 4 forbidden
"""

TOOL = Tool(name="alice-harness", help=HELP, verbs={
    "studio": "openalice.cli.harness_studio",
    "proxy": "openalice.cli.harness_proxy",
})


def main(argv: list[str] | None = None) -> int:
    return run(TOOL, argv)


if __name__ == "__main__":
    raise SystemExit(main())
