"""Who may write which workspace's issues.

* A process inside a headless run (the runner set ``ALICE_RUN_ID`` and
  ``ALICE_WORKSPACE_ID``) writes only its own workspace's issues; anything
  else is Forbidden (exit 4), and ``--approve`` is refused there.
* A person writes the issues of the workspace that contains the current
  directory.  Another workspace's issues need ``--approve`` from an attended
  terminal (stdin is a TTY); the change is then committed in the target
  workspace when it is a git work tree (just the issue file and its
  comments sidecar; other staged changes are left alone).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from openalice.core.errors import Forbidden, OperationalError

__all__ = ["Access", "authorize"]


class Access:
    """The permission :func:`authorize` granted: ``mode`` is ``run`` (inside a
    headless run, own workspace), ``local`` (a person in the workspace) or
    ``approved`` (a person, attended, another workspace)."""

    __slots__ = ("mode", "workspace_id")

    def __init__(self, mode: str, workspace_id: str) -> None:
        self.mode = mode
        self.workspace_id = workspace_id

    @property
    def commits(self) -> bool:
        return self.mode == "approved"

    def commit(self, ws, files: list[Path], message: str) -> str | None:
        """After an approved write: commit ``files`` in the target workspace if
        it is a git work tree.  Returns the commit id, or None when there is
        no repository (or nothing changed)."""
        if not self.commits:
            return None
        return git_commit(Path(ws.path), files, message)

    def __repr__(self) -> str:
        return f"Access({self.mode!r}, {self.workspace_id!r})"


def authorize(ws, *, approve: bool = False, env: Mapping[str, str] | None = None,
              cwd: os.PathLike | str | None = None, is_tty: bool | None = None) -> Access:
    """May this process write issues of workspace ``ws``?  Raises Forbidden."""
    from openalice import workspaces

    run = workspaces.run_environment(env)
    if run is not None:
        if approve:
            raise Forbidden("--approve is refused inside a headless run: approval needs a "
                            "person at a terminal", code="approve_refused")
        if run.workspace_id != ws.id:
            raise Forbidden(f"this run belongs to workspace `{run.workspace_id}` and may write "
                            f"only its issues, not those of `{ws.id}`", code="cross_workspace",
                            details={"runId": run.run_id})
        return Access("run", ws.id)
    if approve and not is_tty:
        raise Forbidden("--approve needs an attended terminal, but stdin is not a terminal",
                        code="approve_refused")
    home = workspaces.find(cwd or os.getcwd())
    if home is not None and home.id == ws.id:
        return Access("local", ws.id)
    if approve:
        return Access("approved", ws.id)
    where = f"workspace `{home.id}`" if home is not None else "no registered workspace"
    raise Forbidden(f"the current directory is in {where}; writing the issues of workspace "
                    f"`{ws.id}` from here needs --approve at an attended terminal",
                    code="cross_workspace",
                    details={"hint": f"cd {ws.path} first, or add --approve (the change is "
                                     "committed there when it is a git repository)"})


def git_commit(root: Path, files: list[Path], message: str) -> str | None:
    """``git add`` and ``git commit`` exactly ``files`` (those that exist) in the
    repository around ``root``, as the repository's own user; None if ``root``
    is not in a git work tree or nothing changed.  OperationalError if git fails."""
    from openalice.core import git

    if git.work_tree(root) is None:
        return None
    rel = [os.path.relpath(f, root) for f in files if os.path.lexists(f)]
    try:
        return git.commit_paths(root, rel, message, author=None)
    except git.GitError as exc:
        raise OperationalError(f"{exc.message}; the approved change was written but not committed",
                               code="git_failed") from None
