"""The quick parser (openalice.cli._args) never disagrees with argparse.

For every verb of every tool: the examples of its help, and command lines
generated from its declarations (each option alone, options together, the
positionals, odd forms), are parsed by both.  The quick parser must return
argparse's namespace or decline (None); a command line argparse refuses must
be declined.  And the plain ones must not be declined, or the quick parser
would be dead weight.
"""

import argparse
import importlib
import io
import random
import shlex
from contextlib import redirect_stderr, redirect_stdout

import pytest

from openalice.cli import _args, _parsers, adapter, alice, harness, inbox, schedule

TOOLS = (alice, schedule, inbox, harness, adapter)


def _same(value):
    """Handlers are closures made anew by each register(): compare what they run."""
    if callable(value) and hasattr(value, "__code__"):
        return (value.__qualname__, tuple(_same(c.cell_contents) for c in value.__closure__ or ()))
    return value


def _values(ns):
    return {k: _same(v) for k, v in vars(ns).items()}


def _argparse(parser, argv):
    """argparse's answer, from the verb's one parser (``_parsers.build_parser``: building it
    per line was nine tenths of this file's time)."""
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            return _values(_parsers.parse_with(parser, argv))
    except (SystemExit, Exception):  # usage error, help, or a type function's error
        return "refused"


def _leaves(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _leaves(child, (*path, name))
            return
    yield path, parser


def _samples(leaf_path, leaf, rng):
    """Command lines for one leaf parser from its own declarations."""
    options = [a for a in leaf._actions if a.option_strings and a.dest != "help"]
    positionals = [a for a in leaf._actions if not a.option_strings]
    values = {int: ["3", "0", "-2", "x"], float: ["1.5", "2", "nope"]}

    def value_for(action):
        if action.choices:
            return rng.choice([*map(str, action.choices), "bogus"])
        pool = values.get(action.type, ["alpha", "notes", "a b", "-", "", "2026-11-30T09:00:00Z",
                                        "run-0123abcd", "ws/issue", "--json"])
        return rng.choice(pool)

    def args_for(action):
        flag = rng.choice(action.option_strings)
        if action.nargs == 0:
            return [flag] if rng.random() < 0.9 else [f"{flag}=1"]
        value = value_for(action)
        return [f"{flag}={value}"] if rng.random() < 0.3 else [flag, value]

    def positional_args():
        out = []
        for action in positionals:
            if action.nargs in ("?", "*") and rng.random() < 0.4:
                continue
            count = rng.randint(1, 3) if action.nargs == "*" else 1
            out.extend(value_for(action) for _ in range(count))
        return out

    yield [*leaf_path]
    yield [*leaf_path, *positional_args()]
    for action in options:
        yield [*leaf_path, *positional_args(), *args_for(action)]
        yield [*leaf_path, *args_for(action), *positional_args()]
    for _ in range(12):
        picked = rng.sample(options, min(len(options), rng.randint(0, 4)))
        line = [*leaf_path]
        parts = [positional_args()] + [args_for(a) for a in picked]
        rng.shuffle(parts)
        for part in parts:
            line.extend(part)
        if rng.random() < 0.1:
            line.insert(rng.randint(0, len(line)), rng.choice(["--json", "-h", "--", "--nope", "-x"]))
        yield line


def _verb_modules():
    for tool in TOOLS:
        for verb, module_name in tool.TOOL.verbs.items():
            yield tool, verb, importlib.import_module(module_name)


@pytest.mark.parametrize("tool,verb,module", list(_verb_modules()),
                         ids=lambda x: getattr(x, "__name__", str(x)))
def test_the_quick_parser_agrees_with_argparse_or_declines(tool, verb, module):
    rng = random.Random(f"{tool.TOOL.name} {verb}")
    parser = _parsers.ArgumentParser(prog=tool.TOOL.name)
    sub = parser.add_subparsers(dest="verb")
    module.register(sub, _parsers.common_parent())
    lines = []
    for path, leaf in _leaves(parser):
        lines.extend(_samples(path, leaf, rng))
        for example in (leaf.epilog or "").split("examples:\n")[-1].splitlines():
            words = shlex.split(example.strip()) if example.strip() else []
            if words and words[0] == tool.TOOL.name:
                lines.append(words[1:])
            elif len(words) > 1 and words[0] == "alice" and tool is inbox:
                lines.append(words[2:])
    answered = 0
    full = _parsers.build_parser(tool.TOOL, module)
    for line in lines:
        quick = _args.parse(module.register, line)
        expected = _argparse(full, line)
        if quick is None:
            continue
        answered += 1
        assert expected != "refused", (line, vars(quick))
        assert _values(quick) == expected, line
    assert answered >= len(lines) // 4, f"{answered} of {len(lines)} answered without argparse"


def test_the_plain_read_verbs_are_parsed_without_argparse():
    for tool, line in ((alice, "workspace list --json"), (alice, "issue list --all"),
                       (inbox, "list --limit 20 --unread --json"), (alice, "journal --json"),
                       (schedule, "runs --limit 5 --json"), (adapter, "list --json")):
        args = line.split()
        module = importlib.import_module(tool.TOOL.verbs[args[0]])
        assert _args.parse(module.register, args) is not None, line


def test_help_and_usage_errors_still_come_from_argparse(cli):
    r = cli("alice", "workspace", "list", "--bogus", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "usage"
    assert "--bogus" in r.json()["error"]["message"]
    r = cli("alice-inbox", "list", "--help")
    assert r.returncode == 0 and "usage: alice-inbox list" in r.stdout
