"""``alice completion``: scripts generated from the parsers, loaded in a real bash (and zsh),
completing a verb, a flag and a workspace id for each tool."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from openalice.cli import completion
from tests.conftest import tool_path
from tests.helpers.schemas import schema_errors

TOOLS = ("alice", "alice-schedule", "alice-inbox", "alice-harness", "harness-adapter")


def tools_env(cli) -> dict:
    return {**cli.env, "PATH": f"{os.path.dirname(tool_path('alice'))}:{os.environ['PATH']}"}


def bash_complete(cli, tool: str, words: list[str], load: str | None = None) -> list[str]:
    """COMPREPLY after pressing TAB with the cursor at the end of ``words`` (the last
    one is the word being completed)."""
    fn = "_oa_" + tool.replace("-", "_")
    load = load or f"alice completion bash --tool {tool}"
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (f"source <({load}) || exit 9; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; "
               f'{fn}; printf "%s\\n" "${{COMPREPLY[@]}}"')
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True,
                       text=True, env=tools_env(cli), timeout=60)
    assert r.returncode == 0 and r.stderr == "", (words, r.stderr)
    return [line for line in r.stdout.splitlines() if line]


@pytest.fixture
def registered(cli, tmp_path):
    for label in ("Notes", "North Star"):
        r = cli("alice", "workspace", "init", str(tmp_path / label), "--label", label)
        assert r.returncode == 0, r
    return ["notes", "north-star"]  # registration order


def test_bash_completes_verbs_flags_and_workspace_ids(cli, registered):
    assert bash_complete(cli, "alice", ["alice", "iss"]) == ["issue"]
    assert bash_complete(cli, "alice", ["alice", "issue", "cr"]) == ["create"]
    assert bash_complete(cli, "alice", ["alice", "issue", "create", "--ev"]) == ["--every"]
    assert bash_complete(cli, "alice", ["alice", "issue", "list", "--workspace", "no"]) == registered
    assert bash_complete(cli, "alice", ["alice", "workspace", "show", "nor"]) == ["north-star"]
    # after a value-taking flag and its value, the walk goes on: flags again
    assert "--unread" in bash_complete(cli, "alice", ["alice", "inbox", "list", "--workspace", "notes", "--"])
    assert bash_complete(cli, "alice", ["alice", "workspace", "init", "--template", ""]) == ["blank", "chat"]
    assert bash_complete(cli, "alice", ["alice", "completion", ""]) == ["bash", "zsh", "fish", "ids"]


@pytest.mark.parametrize("tool, verb, flag, flag_prefix", [
    ("alice-schedule", "uninstall-timer", "--workspace", "runs --work"),
    ("alice-inbox", "mark-all-read", "--workspace", "list --works"),
    ("alice-harness", "status", "--workspace", "status --works"),
    ("harness-adapter", "available-models", "--catalog", "list --cata"),
])
def test_every_tool_completes(cli, registered, tool, verb, flag, flag_prefix):
    words = [tool, verb[:-2]]
    assert verb in bash_complete(cli, tool, words)
    assert bash_complete(cli, tool, [tool, *flag_prefix.split()]) == [flag]
    if flag == "--workspace":
        assert bash_complete(cli, tool, [tool, *flag_prefix.split()[:1], "--workspace", ""]) == registered


def test_all_loads_every_tool_in_one_go(cli, registered):
    load = "alice completion bash --all"
    assert bash_complete(cli, "alice-schedule", ["alice-schedule", "ne"], load=load) == ["next"]
    assert bash_complete(cli, "alice", ["alice", "doc"], load=load) == ["doctor"]


def test_the_tree_follows_the_parsers():
    """A verb added to a tool's table shows up without touching the completion code."""
    tree = completion.command_tree(completion.load_tool("alice-schedule"))
    assert set(tree[""]["subs"]) == set(completion.load_tool("alice-schedule").verbs)
    assert tree["install-timer"]["values"] == {}
    assert "--cron" in tree["uninstall-timer"]["options"]
    assert tree["runs"]["values"]["--workspace"] == "workspace"


def test_ids_never_fail_into_a_command_line(cli, isolated_homes, registered):
    assert cli("alice", "completion", "ids").stdout.split() == registered
    registry = os.path.join(isolated_homes["OPENALICE_HOME"], "workspaces.json")
    with open(registry, "w") as f:
        f.write("{broken")
    r = cli("alice", "completion", "ids")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_script_completes_the_same(cli, registered):
    program = ("source <(alice completion zsh) || exit 9; compadd() { print -r -- \"${@:2}\" }; "
               "words=(alice iss); CURRENT=2; _oa_alice; "
               "words=(alice issue list --workspace ''); CURRENT=5; _oa_alice")
    r = subprocess.run(["zsh", "-f", "-c", program], capture_output=True, text=True,
                       env=tools_env(cli), timeout=60)
    assert r.returncode == 0, r.stderr
    verbs, ids = r.stdout.splitlines()
    assert "issue" in verbs.split() and "workspace" in verbs.split()
    assert ids.split() == registered


def test_scripts_parse(cli):
    for shell, checker, hook in (("bash", ["bash", "-n"], "\ncomplete -o default -F _oa_"),
                                 ("zsh", ["zsh", "-n"], "\ncompdef _oa_"),
                                 ("fish", ["fish", "-n"], "\ncomplete -c ")):
        r = cli("alice", "completion", shell, "--all")
        assert r.returncode == 0 and r.stdout.count(hook) == 5, shell
        if shutil.which(checker[0]):
            check = subprocess.run(checker, input=r.stdout, capture_output=True, text=True, timeout=60)
            assert check.returncode == 0, (shell, check.stderr)
    j = cli("alice", "completion", "bash", "--tool", "alice-inbox", "--json")
    assert j.returncode == 0 and set(j.json()["scripts"]) == {"alice-inbox"}
    assert schema_errors("completion", j.json()) == []
    ids = cli("alice", "completion", "ids", "--json")
    assert ids.returncode == 0 and schema_errors("completion", ids.json()) == []


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_script_completes_the_same(cli, registered):
    program = ("alice completion fish --all | source; complete -C 'alice iss'; echo ---; "
               "complete -C 'alice issue create --ev'; echo ---; "
               "complete -C 'alice-schedule runs --workspace '")
    r = subprocess.run(["fish", "--no-config", "-c", program], capture_output=True, text=True,
                       env=tools_env(cli), timeout=60)
    assert r.returncode == 0, r.stderr
    verbs, flags, ids = (block.split() for block in r.stdout.split("---\n"))
    assert verbs == ["issue"] and flags == ["--every"] and ids == sorted(registered)  # fish sorts
