"""Every tool: --help with examples, --version, unknown verbs, JSON errors."""

import json
import subprocess
import sys

import pytest

from openalice import __version__
from tests.conftest import TOOLS


@pytest.mark.parametrize("tool", TOOLS)
def test_help_and_version(cli, tool):
    r = cli(tool, "--help")
    assert r.returncode == 0 and r.stdout.startswith(f"usage: {tool}")
    assert "exit codes" in r.stdout and "\nexamples:\n" in r.stdout
    r = cli(tool, "--version")
    assert (r.returncode, r.stdout) == (0, f"{tool} {__version__}\n")


@pytest.mark.parametrize("tool", TOOLS)
def test_no_arguments_prints_help_and_exits_2(cli, tool):
    r = cli(tool)
    assert r.returncode == 2 and r.stderr.startswith(f"usage: {tool}") and r.stdout == ""


@pytest.mark.parametrize("tool", TOOLS)
def test_unknown_verb_exits_2_without_traceback(cli, tool):
    r = cli(tool, "frobnicate")
    assert r.returncode == 2
    assert "unknown command 'frobnicate'" in r.stderr and "Traceback" not in r.stderr
    r = cli(tool, "frobnicate", "--json")
    assert r.returncode == 2
    assert r.json()["error"]["code"] == "unknown_command"
    assert r.json()["error"]["exit"] == 2


def test_unknown_flag_is_a_usage_error_with_envelope(cli):
    r = cli("alice", "workspace", "list", "--bogus", "--json")
    assert r.returncode == 2
    assert r.json()["error"]["code"] == "usage"
    assert "Traceback" not in r.stderr


def test_python_dash_m_runs_alice(cli):
    r = subprocess.run([sys.executable, "-m", "openalice", "--version"], capture_output=True,
                       text=True, env=cli.env)
    assert r.returncode == 0 and r.stdout.strip() == f"alice {__version__}"


def test_help_lists_exactly_the_registered_verbs():
    from openalice.cli import adapter, alice, harness, inbox, schedule

    for module in (alice, schedule, inbox, harness, adapter):
        tool = module.TOOL
        section = tool.help.split("commands:", 1)[1].split("\n\n", 1)[0]
        listed = {line.split()[0] for line in section.splitlines()
                  if line.startswith("  ") and not line.startswith("   ") and line.split()
                  and not line.strip().startswith("(")}
        assert listed == set(tool.verbs), tool.name


def _leaf_parsers(parser, path=()):
    import argparse

    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for action in subs:
        for name, child in action.choices.items():
            yield from _leaf_parsers(child, path + (name,))


def test_every_verb_has_help_with_examples():
    import importlib

    from openalice.cli import _dispatch, adapter, alice, harness, inbox, schedule

    checked = 0
    for module in (alice, schedule, inbox, harness, adapter):
        for verb, module_name in module.TOOL.verbs.items():
            parser = _dispatch.ArgumentParser(prog=module.TOOL.name)
            sub = parser.add_subparsers(dest="verb")
            importlib.import_module(module_name).register(sub, _dispatch.common_parent())
            for path, leaf in _leaf_parsers(parser):
                assert leaf.epilog and "examples:" in leaf.epilog, (module.TOOL.name, path)
                checked += 1
    assert checked >= 4


def test_help_does_not_import_domain_modules(cli):
    code = ("import sys, io, contextlib\n"
            "from openalice.cli import alice, schedule, adapter\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    alice.main(['--help']); schedule.main(['--help']); adapter.main(['--version'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('openalice') or m == 'argparse'))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli.env)
    assert r.returncode == 0, r.stderr
    loaded = json.loads(r.stdout.replace("'", '"'))
    assert loaded == ["openalice", "openalice.cli", "openalice.cli._run", "openalice.cli.adapter",
                      "openalice.cli.alice", "openalice.cli.schedule"]


def test_stray_arguments_are_not_echoed(cli):
    """A secret typed in the wrong place must not come back in the error."""
    r = cli("alice", "workspace", "list", "sk-canary-stray-value", "--bogus")
    assert r.returncode == 2
    assert "sk-canary-stray-value" not in r.stderr + r.stdout
    assert "--bogus" in r.stderr
