"""Shims first in every shell: start-up files that put the run's ``PATH`` head back.

The runner gives every child a ``PATH`` that starts with the workspace's shims
and the toolkit's tools (:func:`.base.run_path`).  An agent's shell tool, or a
wrapper, may start a *login* or *interactive* shell, and the user's start-up
files (``/etc/profile``, ``~/.bash_profile``, ``~/.profile``, ``~/.zshrc``...)
then reset or prepend ``PATH``: a global ``alice`` would shadow the shim.

Each shell has one documented hook that runs **after** the user's files; the
child environment (:func:`environment`) points each at a file of
``<ws>/.alice/bin/.shell/`` (machine-local, git-excluded with the shims, written
by :func:`ensure` beside them) that first runs what the user had configured
there, then puts ``$OPENALICE_PATH_HEAD`` first again (without duplicates):

- bash, non-interactive (``bash -c``, ``bash -lc``, scripts): ``BASH_ENV``, read
  after the login files; the user's own ``BASH_ENV`` is kept in
  ``OPENALICE_USER_BASH_ENV`` and sourced first.
- POSIX ``sh`` and bash in POSIX mode, interactive: ``ENV`` (user's: ``OPENALICE_USER_ENV``).
- zsh, every kind: ``ZDOTDIR`` names a directory whose ``.zshenv``, ``.zprofile``,
  ``.zshrc`` and ``.zlogin`` each source the user's file of that name (from
  ``OPENALICE_USER_ZDOTDIR``, default ``$HOME``), then fix ``PATH``.

Two shells have no such hook: an interactive bash (``bash -i`` reads only
``~/.bashrc``) and a non-interactive login ``sh -l`` (dash reads ``~/.profile``
and nothing after it).  codex covers its own shell tool with its
``shell_environment_policy`` (see :mod:`.codex`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from openalice.core import fs

__all__ = ["SHELL_DIR", "HEAD_VAR", "FILES", "rc_dir", "render", "ensure", "problems", "environment", "sh_quote"]

# Inside the shims' directory: git-excluded and machine-local with them.
SHELL_DIR = ".alice/bin/.shell"
HEAD_VAR = "OPENALICE_PATH_HEAD"
ZSH_FILES = (".zshenv", ".zprofile", ".zshrc", ".zlogin")
FILES = ("path.sh", "bash_env.sh", "sh_env.sh", *ZSH_FILES)

# Rebuild PATH as $OPENALICE_PATH_HEAD + the rest without those entries; no
# external command, no globbing (set -f restored), POSIX sh (zsh runs it under
# `emulate sh`, see below).
_PATH_SH = """\
# OpenAlice (written by the toolkit): put the run's PATH head first again.
if [ -n "${OPENALICE_PATH_HEAD:-}" ]; then
  case $- in *f*) _oa_f=1 ;; *) _oa_f= ; set -f ;; esac
  _oa_rest= ; _oa_ifs=$IFS; IFS=:
  for _oa_d in $PATH; do
    case ":$OPENALICE_PATH_HEAD:" in
      *":$_oa_d:"*) ;;
      *) [ -n "$_oa_d" ] && _oa_rest="${_oa_rest:+$_oa_rest:}$_oa_d" ;;
    esac
  done
  IFS=$_oa_ifs
  [ -n "$_oa_f" ] || set +f
  PATH="$OPENALICE_PATH_HEAD${_oa_rest:+:$_oa_rest}"; export PATH
  unset _oa_rest _oa_ifs _oa_d _oa_f
fi
"""


def sh_quote(text: str) -> str:
    """``text`` as one POSIX shell word: always single-quoted (a ``'`` inside closed, escaped, reopened)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _env_file(user_var: str, path_sh: str) -> str:
    return (f"# OpenAlice (written by the toolkit): the user's own ${user_var} first, then the PATH head.\n"
            f'if [ -n "${{{user_var}:-}}" ] && [ -r "${user_var}" ]; then . "${user_var}"; fi\n'
            f". {path_sh}\n")


def _zsh_file(name: str, here: str) -> str:
    # The user's file of this name, read with ZDOTDIR = the user's directory (as
    # zsh would); a .zshenv that moves ZDOTDIR moves where the later files come from.
    lines = ["# OpenAlice (written by the toolkit): the user's own " + name + ", then the PATH head.",
             'ZDOTDIR="${OPENALICE_USER_ZDOTDIR:-$HOME}"',
             f'[[ -r "$ZDOTDIR/{name}" ]] && . "$ZDOTDIR/{name}"']
    if name == ".zshenv":
        lines.append('OPENALICE_USER_ZDOTDIR="${ZDOTDIR:-$HOME}"')
    lines += [f"ZDOTDIR={here}",
              f"_oa_path() {{ emulate -L sh; . {here}/path.sh; }}",
              "_oa_path; unfunction _oa_path", ""]
    return "\n".join(lines)


def rc_dir(root: os.PathLike | str) -> Path:
    return Path(os.path.abspath(root)) / SHELL_DIR


def render(root: os.PathLike | str) -> dict[str, bytes]:
    """The files of ``<root>/.alice/bin/.shell/`` (name → bytes)."""
    here = str(rc_dir(root))
    path_sh = sh_quote(os.path.join(here, "path.sh"))
    files = {"path.sh": _PATH_SH,
             "bash_env.sh": _env_file("OPENALICE_USER_BASH_ENV", path_sh),
             "sh_env.sh": _env_file("OPENALICE_USER_ENV", path_sh)}
    files.update({name: _zsh_file(name, sh_quote(here)) for name in ZSH_FILES})
    return {name: text.encode("utf-8") for name, text in files.items()}


def problems(root: os.PathLike | str) -> list[str]:
    directory = rc_dir(root)
    out = []
    for name, wanted in render(root).items():
        try:
            current = None if (directory / name).is_symlink() else (directory / name).read_bytes()
        except OSError:
            current = None
        if current != wanted:
            out.append(f"{SHELL_DIR}/{name} is {'missing' if current is None else 'out of date'}")
    return out


def ensure(root: os.PathLike | str) -> list[str]:
    """Write the start-up files that are missing or out of date; the paths written."""
    directory = rc_dir(root)
    written = []
    for name, wanted in render(root).items():
        path = directory / name
        try:
            if not path.is_symlink() and path.read_bytes() == wanted:
                continue
        except OSError:
            pass
        fs.ensure_dir(directory, 0o755, root=root)
        fs.atomic_write_bytes(path, wanted, mode=0o644, dir_mode=0o755, root=root)
        written.append(f"{SHELL_DIR}/{name}")
    return written


def environment(workspace: os.PathLike | str | None, head: Sequence[str],
                base_env: Mapping[str, str]) -> dict[str, str]:
    """The variables that point the shells' hooks at the workspace's files.

    Empty when the files are not there (an older workspace before its next run,
    or no workspace): a ``ZDOTDIR`` naming a missing directory would make zsh skip
    the user's files altogether."""
    if workspace is None:
        return {}
    here = rc_dir(workspace)
    if not (here / "path.sh").is_file():
        return {}
    env = {HEAD_VAR: os.pathsep.join(head),
           "BASH_ENV": str(here / "bash_env.sh"), "ENV": str(here / "sh_env.sh"), "ZDOTDIR": str(here)}
    # What the user had there runs first; a nested run (already ours) keeps the
    # user's values it inherited.
    for var, user_var in (("BASH_ENV", "OPENALICE_USER_BASH_ENV"), ("ENV", "OPENALICE_USER_ENV"),
                          ("ZDOTDIR", "OPENALICE_USER_ZDOTDIR")):
        value = base_env.get(var)
        if value and not _ours(value):
            env[user_var] = value
    return env


def _ours(value: str) -> bool:
    return f"{os.sep}{SHELL_DIR}" in value.replace("/", os.sep)
