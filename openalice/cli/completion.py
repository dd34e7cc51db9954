"""Shell completion scripts, generated from the tools' own :mod:`argparse` parsers.

:func:`command_tree` builds a tool's parser exactly as ``--help`` does (every
verb module's ``register``) and reads back, for each command path (``""``,
``"issue"``, ``"issue create"``), its subcommands, its options, what each
option's value is and what its positional is:

- ``workspace``: a workspace id, from the registry at completion time (the
  script runs ``alice completion ids``: one small read of
  ``$OPENALICE_HOME/workspaces.json``);
- ``file``: a path (``PATH``, ``DIR``, ``FILE`` metavars, ``--body-file``);
- ``choices:a b c``: the option's ``choices``;
- ``value``: anything else (nothing to offer).

:func:`script` writes that table as shell functions (``case`` on the path, so
the same text runs in bash 3+ and zsh) with a small driver per shell that walks
the words typed so far.  fish gets the same table as ``switch`` functions.
Regenerating after an upgrade picks up new verbs; nothing is cached.
"""

from __future__ import annotations

import argparse
import importlib
import re

from openalice.core import patterns

from ._run import Tool

__all__ = ["SHELLS", "TOOLS", "command_tree", "script"]

SHELLS = ("bash", "zsh", "fish")
TOOLS = ("alice", "alice-schedule", "alice-inbox", "alice-harness", "harness-adapter")
GLOBAL_OPTIONS = ("--json", "--help", "--version", "--no-color")
_WORD = patterns.compile(r"^[A-Za-z0-9_.:@/+=-]+$")


def load_tool(name: str) -> Tool:
    module = importlib.import_module("openalice.cli." + {
        "alice": "alice", "alice-schedule": "schedule", "alice-inbox": "inbox",
        "alice-harness": "harness", "harness-adapter": "adapter"}[name])
    return module.TOOL


def _parser(tool: Tool) -> argparse.ArgumentParser:
    from ._parsers import ArgumentParser, common_parent  # lazy: the parsers, as --help builds them

    parser = ArgumentParser(prog=tool.name, add_help=True)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="verb", metavar="COMMAND", required=True)
    common = common_parent()
    for module_name in dict.fromkeys(tool.verbs.values()):
        importlib.import_module(module_name).register(sub, common)
    return parser


def _kind(action: argparse.Action, at: str) -> str:
    " ".join(action.option_strings) + " " + str(action.dest) + " " + str(action.metavar or "")
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        words = [str(c) for c in action.choices if _WORD.match(str(c))]
        if words:
            return "choices:" + " ".join(words)
    if "--workspace" in action.option_strings or (
            not action.option_strings and action.dest == "workspace"):
        return "workspace"
    metavar = str(action.metavar or "")
    if re.search(r"\b(PATH|DIR|FILE|ZIP)\b", metavar) and "ID|PATH" not in metavar \
            or action.dest in ("body_file", "path", "files"):
        return "file"
    return "value"


def command_tree(tool: Tool) -> dict[str, dict]:
    """``{path: {"subs": [...], "options": [...], "values": {option: kind},
    "positional": kind | None}}`` for every command path of ``tool``."""
    out: dict[str, dict] = {}
    pending = [("", _parser(tool))]
    while pending:
        at, parser = pending.pop(0)
        node = {"subs": [], "options": [], "values": {}, "positional": None}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    node["subs"].append(name)
                    pending.append(((at + " " + name).strip(), child))
                continue
            if action.option_strings:
                if action.help == argparse.SUPPRESS and action.dest != "json":
                    continue
                longs = [s for s in action.option_strings if s.startswith("--")] or action.option_strings
                node["options"].extend(longs)
                if action.nargs != 0 and not isinstance(action, (argparse._StoreTrueAction,
                                                                 argparse._StoreFalseAction,
                                                                 argparse._StoreConstAction,
                                                                 argparse._HelpAction,
                                                                 argparse._VersionAction)):
                    for option in action.option_strings:
                        node["values"][option] = _kind(action, at)
            elif node["positional"] is None:
                kind = _kind(action, at)
                node["positional"] = None if kind == "value" else kind  # then: the options
        if at == "":
            node["options"] = [o for o in GLOBAL_OPTIONS if o not in ("--json",)] + ["--json"]
        node["options"] = list(dict.fromkeys(node["options"] + ["--no-color"]))
        out[at] = node
    return out


def _ident(tool_name: str) -> str:
    return "_oa_" + tool_name.replace("-", "_")


def _case_fn(name: str, rows: list[tuple[str, str]]) -> str:
    lines = [f"{name}() {{", '  case "$1" in']
    lines += [f"    '{key}') echo '{value}' ;;" for key, value in rows if value]
    lines += ["  esac", "}"]
    return "\n".join(lines)


def _tables(tool: Tool, fn: str) -> str:
    tree = command_tree(tool)
    subs = [(at, " ".join(n["subs"])) for at, n in tree.items()]
    opts = [(at, " ".join(n["options"])) for at, n in tree.items()]
    values = [(f"{at}|{opt}", kind) for at, n in tree.items() for opt, kind in n["values"].items()]
    positional = [(at, n["positional"] or "") for at, n in tree.items()]
    return "\n".join([_case_fn(f"{fn}_subs", subs), _case_fn(f"{fn}_opts", opts),
                      _case_fn(f"{fn}_value", values), _case_fn(f"{fn}_pos", positional)])


# The driver: walk the words before the cursor (options and their values skipped,
# subcommands followed), then offer what fits the cursor's place.  `oa_at`, not
# `path`: zsh ties `path` to PATH.
_WALK = """\
  local oa_at="" oa_word oa_skip="" oa_kind="" oa_i oa_subs
  for ((oa_i = {first}; oa_i < {cword}; oa_i++)); do
    oa_word="${{{words}[oa_i]}}"
    if [ -n "$oa_skip" ]; then oa_skip=""; continue; fi
    case "$oa_word" in
      --*=*) continue ;;
      -*) [ -n "$({fn}_value "$oa_at|$oa_word")" ] && oa_skip=1; continue ;;
    esac
    oa_subs=" $({fn}_subs "$oa_at") "
    case "$oa_subs" in *" $oa_word "*) oa_at="${{oa_at:+$oa_at }}$oa_word" ;; esac
  done
  if [ -n "$oa_skip" ]; then
    oa_kind="$({fn}_value "$oa_at|$oa_prev")"
  elif [[ "$oa_cur" != -* ]]; then
    oa_subs="$({fn}_subs "$oa_at")"
    if [ -n "$oa_subs" ]; then oa_kind="words:$oa_subs"; else oa_kind="$({fn}_pos "$oa_at")"; fi
  fi
  case "$oa_kind" in
    words:*) oa_kind="${{oa_kind#words:}}" ;;
    choices:*) oa_kind="${{oa_kind#choices:}}" ;;
    workspace) oa_kind="$(command alice completion ids 2>/dev/null)" ;;
    file|value) ;;
    *) oa_kind="$({fn}_opts "$oa_at")" ;;
  esac
"""


def _bash(tool: Tool) -> str:
    fn = _ident(tool.name)
    return f"""\
# bash completion for {tool.name}: verbs, flags and workspace ids.
# Generated from its parsers by 'alice completion bash --tool {tool.name}'; in ~/.bashrc:
#   source <(alice completion bash --tool {tool.name})
{_tables(tool, fn)}
{fn}() {{
  local oa_cur="${{COMP_WORDS[COMP_CWORD]}}" oa_prev="${{COMP_WORDS[COMP_CWORD-1]}}"
{_WALK.format(first=1, cword="COMP_CWORD", words="COMP_WORDS", fn=fn)}
  case "$oa_kind" in
    file) COMPREPLY=($(compgen -f -- "$oa_cur")) ;;
    value) COMPREPLY=() ;;
    *) COMPREPLY=($(compgen -W "$oa_kind" -- "$oa_cur")) ;;
  esac
}}
complete -o default -F {fn} {tool.name}
"""


def _zsh(tool: Tool) -> str:
    fn = _ident(tool.name)
    return f"""\
#compdef {tool.name}
# zsh completion for {tool.name}: verbs, flags and workspace ids.
# Generated from its parsers by 'alice completion zsh --tool {tool.name}'; in ~/.zshrc
# (after compinit):
#   source <(alice completion zsh --tool {tool.name})
{_tables(tool, fn)}
{fn}() {{
  local oa_cur="${{words[CURRENT]}}" oa_prev="${{words[CURRENT-1]}}"
{_WALK.format(first=2, cword="CURRENT", words="words", fn=fn)}
  case "$oa_kind" in
    file) _files ;;
    value) return 1 ;;
    *) compadd -- ${{=oa_kind}} ;;
  esac
}}
(( $+functions[compdef] )) || {{ autoload -Uz compinit && compinit -u }}
compdef {fn} {tool.name}
"""


def _fish(tool: Tool) -> str:
    fn = "__oa_" + tool.name.replace("-", "_")
    tree = command_tree(tool)

    def switch(name: str, rows: list[tuple[str, str]]) -> str:
        lines = [f"function {name}", "    switch \"$argv[1]\""]
        for key, value in rows:
            if value:
                lines += [f"        case '{key}'", f"            echo '{value}'"]
        lines += ["    end", "end"]
        return "\n".join(lines)

    tables = "\n".join([
        switch(f"{fn}_subs", [(at, " ".join(n["subs"])) for at, n in tree.items()]),
        switch(f"{fn}_opts", [(at, " ".join(n["options"])) for at, n in tree.items()]),
        switch(f"{fn}_value", [(f"{at}|{o}", k) for at, n in tree.items() for o, k in n["values"].items()]),
        switch(f"{fn}_pos", [(at, n["positional"] or "") for at, n in tree.items()]),
    ])
    return f"""\
# fish completion for {tool.name}: verbs, flags and workspace ids.
# Generated from its parsers by 'alice completion fish --tool {tool.name}'; install with
#   alice completion fish --tool {tool.name} > ~/.config/fish/completions/{tool.name}.fish
{tables}
function {fn}_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l at ''
    set -l skip ''
    for word in $tokens[2..-1]
        if test -n "$skip"
            set skip ''
            continue
        end
        switch $word
            case '--*=*'
                continue
            case '-*'
                set -l takes ({fn}_value "$at|$word")
                if test -n "$takes"
                    set skip 1
                end
                continue
        end
        if contains -- $word ({fn}_subs "$at" | string split -n ' ')
            set at (string trim -- "$at $word")
        end
    end
    set -l kind ''
    if test -n "$skip"
        set kind ({fn}_value "$at|$tokens[-1]")
    else if not string match -q -- '-*' "$cur"
        set -l subs ({fn}_subs "$at" | string split -n ' ')
        if test (count $subs) -gt 0
            printf '%s\\n' $subs
            return
        end
        set kind ({fn}_pos "$at")
    end
    switch "$kind"
        case workspace
            command alice completion ids 2>/dev/null
        case file
            __fish_complete_path "$cur"
        case 'choices:*'
            string replace 'choices:' '' -- "$kind" | string split -n ' '
        case value
        case '*'
            {fn}_opts "$at" | string split -n ' '
    end
end
complete -c {tool.name} -f -a '({fn}_complete)'
"""


def script(shell: str, tool_name: str) -> str:
    """The completion script of ``tool_name`` for ``shell``."""
    tool = load_tool(tool_name)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](tool)
