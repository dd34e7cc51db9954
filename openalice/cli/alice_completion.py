"""``alice completion bash|zsh|fish [--tool T | --all]`` and ``alice completion ids``."""

from __future__ import annotations

from ._dispatch import Context, add_verb

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import argparse

_TOOLS = ("alice", "alice-schedule", "alice-inbox", "alice-harness", "harness-adapter")


def register(sub, common) -> None:
    p = add_verb(sub, "completion", cmd_completion, common=common,
                 help="print a shell completion script (bash, zsh, fish) for any of the five tools",
                 description="Print a completion script for bash, zsh or fish, generated from the "
                             "tools' own parsers: it completes verbs, flags, flag choices, paths and "
                             "workspace ids (read from the registry when you press TAB, through "
                             "'alice completion ids'). --tool picks one of the five tools (default "
                             "alice); --all prints the scripts of all five. Regenerate after an "
                             "upgrade to pick up new verbs. 'ids' prints the registered workspace "
                             "ids, one a line (nothing, exit 0, when the registry cannot be read).",
                 examples="  source <(alice completion bash --all)              # in ~/.bashrc\n"
                          "  source <(alice completion zsh --all)               # in ~/.zshrc\n"
                          "  alice completion fish --tool alice-schedule > "
                          "~/.config/fish/completions/alice-schedule.fish\n"
                          "  alice completion ids")
    p.add_argument("shell", choices=("bash", "zsh", "fish", "ids"),
                   help="the shell, or 'ids' for the workspace ids the scripts complete")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--tool", choices=_TOOLS, default="alice", help="the tool (default alice)")
    which.add_argument("--all", action="store_true", help="the scripts of all five tools")


def cmd_completion(args: argparse.Namespace, ctx: Context) -> int:
    if args.shell == "ids":
        return _ids(ctx)
    from . import completion  # lazy: builds every verb's parser (argparse)

    tools = _TOOLS if args.all else (args.tool,)
    scripts = {tool: completion.script(args.shell, tool) for tool in tools}
    if ctx.json:
        ctx.emit({"shell": args.shell, "scripts": scripts})
    else:
        ctx.stdout.write("\n".join(scripts.values()))
    return 0


def _ids(ctx: Context) -> int:
    """Pressing TAB must never print an error into the command line: a registry
    that cannot be read gives no ids (``alice workspace list`` says why)."""
    from openalice.core.errors import AliceError  # lazy: verb handler
    from openalice.workspaces.registry import list_workspaces  # lazy: verb handler

    try:
        ids = [ws.id for ws in list_workspaces()]
    except (AliceError, OSError):
        ids = []
    if ctx.json:
        ctx.emit({"ids": ids})
    else:
        ctx.stdout.write("".join(f"{i}\n" for i in ids))
    return 0
