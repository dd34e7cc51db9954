"""Shims first in every shell (issue 22 item 3): the projection points each shell's
start-up hook (BASH_ENV, ENV, ZDOTDIR) at the workspace's files, and real shells
started with that environment find the workspace's ``alice`` although the user's
start-up files put another one first."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from openalice import agents
from openalice.agents import shellrc, shims
from openalice.agents.wrapper import WrapperAdapter

from .conftest import BASE_ENV, RUN_ENV, bind

BUILTINS = ("claude", "codex", "opencode", "pi")
PROFILES = (".bashrc", ".bash_profile", ".profile", ".zshenv", ".zprofile", ".zshrc", ".zlogin")


def project(agent, ws, base_env, adapter=None):
    adapter = adapter or agents.get_adapter(agent)
    return adapter.project(bind(agent, None, "m"), workspace=ws.root, prompt="hi", run_env=RUN_ENV,
                           base_env=base_env)


def stand_in_wrapper(tmp_path) -> WrapperAdapter:
    """A catalog wrapper that, like many, runs its engine through a login bash."""
    path = tmp_path / "engine.sh"
    path.write_text("#!/bin/bash -l\ncommand -v alice\n")
    path.chmod(0o755)
    return WrapperAdapter("stand-in", path, models=("m",))


def shadowing_home(tmp_path) -> tuple[Path, Path]:
    home, shadow = tmp_path / "home", tmp_path / "shadow-bin"
    home.mkdir()
    shadow.mkdir()
    (shadow / "alice").write_text("#!/bin/sh\necho shadowed\n")
    (shadow / "alice").chmod(0o755)
    for name in PROFILES:
        (home / name).write_text(f'export PATH="{shadow}:$PATH"\n')
    return home, shadow


@pytest.mark.parametrize("agent", BUILTINS)
def test_every_engine_gets_the_shell_hooks(ws, agent):
    p = project(agent, ws, BASE_ENV)
    here = ws.root / ".alice" / "bin" / ".shell"
    assert p.env["BASH_ENV"] == str(here / "bash_env.sh") and p.env["ENV"] == str(here / "sh_env.sh")
    assert p.env["ZDOTDIR"] == str(here)
    head = [str(ws.root / ".alice" / "bin"), str(agents.shims_dir())]
    assert p.env[shellrc.HEAD_VAR] == os.pathsep.join(head)
    assert p.env["PATH"].split(os.pathsep)[:2] == head
    assert not any(k.startswith("OPENALICE_USER_") for k in p.env)  # the user had none


def test_the_users_own_hooks_are_kept_and_a_nested_run_keeps_them(ws, tmp_path):
    user = {**BASE_ENV, "BASH_ENV": "/u/bashenv", "ENV": "/u/env", "ZDOTDIR": "/u/zdot"}
    p = project("claude", ws, user)
    assert (p.env["OPENALICE_USER_BASH_ENV"], p.env["OPENALICE_USER_ENV"],
            p.env["OPENALICE_USER_ZDOTDIR"]) == ("/u/bashenv", "/u/env", "/u/zdot")
    nested = project("claude", ws, p.env)  # a run started from inside a run
    assert nested.env["OPENALICE_USER_BASH_ENV"] == "/u/bashenv" and nested.env["BASH_ENV"] == p.env["BASH_ENV"]


def test_no_hooks_before_the_files_exist(ws):
    shutil.rmtree(ws.root / ".alice" / "bin" / ".shell")
    p = project("pi", ws, BASE_ENV)
    # A ZDOTDIR naming a missing directory would make zsh skip the user's files altogether.
    assert not {"BASH_ENV", "ENV", "ZDOTDIR", shellrc.HEAD_VAR} & set(p.env)
    assert shims.problems(ws.root) == [f".alice/bin/.shell/{n} is missing" for n in shellrc.FILES]
    assert shims.ensure(ws.root) == [f".alice/bin/.shell/{n}" for n in shellrc.FILES]
    assert shims.problems(ws.root) == [] and project("pi", ws, BASE_ENV).env["ZDOTDIR"]


SHELLS = [["bash", "-c"], ["bash", "-lc"], ["sh", "-c"], ["sh", "-ic"], ["sh", "-lic"],
          ["zsh", "-c"], ["zsh", "-lc"], ["zsh", "-ic"], ["zsh", "-lic"], ["zsh", "-fc"]]


@pytest.mark.parametrize("shell", SHELLS, ids=" ".join)
def test_a_login_or_interactive_shell_finds_the_workspace_shim(ws, tmp_path, shell):
    if shutil.which(shell[0]) is None:
        pytest.skip(f"{shell[0]} is not installed")
    home, _ = shadowing_home(tmp_path)
    p = project("codex", ws, {**BASE_ENV, "HOME": str(home)})
    out = subprocess.run([*shell, "command -v alice"], env=p.env, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=30, cwd=ws.root)
    assert out.stdout.strip() == str(ws.root / ".alice" / "bin" / "alice"), out


def test_the_users_start_up_files_still_run(ws, tmp_path):
    home, _ = shadowing_home(tmp_path)
    (home / "bashenv").write_text("USER_BASH_ENV_RAN=yes\n")
    (home / ".zshrc").write_text((home / ".zshrc").read_text() + "USER_ZSHRC_RAN=yes\n")
    p = project("claude", ws, {**BASE_ENV, "HOME": str(home), "BASH_ENV": str(home / "bashenv")})
    out = subprocess.run(["bash", "-lc", 'echo "$USER_BASH_ENV_RAN"; command -v alice'], env=p.env,
                         capture_output=True, text=True, timeout=30)
    assert out.stdout.split() == ["yes", str(ws.root / ".alice" / "bin" / "alice")], out
    if shutil.which("zsh"):
        out = subprocess.run(["zsh", "-ic", 'echo "$USER_ZSHRC_RAN"; command -v alice'], env=p.env,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
        assert out.stdout.split() == ["yes", str(ws.root / ".alice" / "bin" / "alice")], out


def test_a_catalog_wrapper_started_as_a_login_bash_finds_the_shim(ws, tmp_path):
    home, _ = shadowing_home(tmp_path)
    adapter = stand_in_wrapper(tmp_path)
    p = project("stand-in", ws, {**BASE_ENV, "HOME": str(home)}, adapter=adapter)
    assert p.env["BASH_ENV"].endswith("/.alice/bin/.shell/bash_env.sh")
    out = subprocess.run(p.argv, env=p.env, input=p.stdin, capture_output=True, timeout=30)
    assert out.stdout.decode().strip() == str(ws.root / ".alice" / "bin" / "alice"), out


def test_a_path_entry_with_glob_characters_or_spaces_survives(ws, tmp_path):
    home, shadow = shadowing_home(tmp_path)
    odd = tmp_path / "a *dir"
    odd.mkdir()
    p = project("opencode", ws, {**BASE_ENV, "HOME": str(home), "PATH": f"{odd}:/usr/bin:/bin"})
    # (non-login: a login shell's /etc/profile resets the rest of PATH, as it would anyway)
    out = subprocess.run(["bash", "-c", 'printf "%s\\n" "$PATH"'], env=p.env, capture_output=True, text=True,
                         timeout=30)
    parts = out.stdout.strip().split(os.pathsep)
    assert parts[:2] == p.env[shellrc.HEAD_VAR].split(os.pathsep) and str(odd) in parts, out
    assert parts.count(str(ws.root / ".alice" / "bin")) == 1  # no duplicates of the head
