"""Who may write which workspace: the one caller rule of the toolkit.

Every write that belongs to a workspace (its issues and comments, its Inbox
entries, its preferences and sessions) and every change of the machine's
credential vault asks :func:`authorize_write` first.  The caller describes
itself with a :class:`Caller`; the answer is an :class:`Access` or a
:class:`~openalice.core.errors.Forbidden` (exit 4).

The rule:

* **Inside a headless run** (the runner set ``ALICE_RUN_ID`` and
  ``ALICE_WORKSPACE_ID``) a process writes only its own workspace; another
  workspace, or the vault or the sticker pack library (which belong to no
  workspace), is refused with
  code ``cross_workspace``, and ``--approve`` with ``approve_refused``.
* **Everyone else** (a person, a cron job, the web gateway) may write any
  workspace's Inbox entries, preferences and sessions, the vault and the library.
* **Issues** (scope ``issues``) are stricter for a person who stands inside
  a registered workspace: writing another workspace's issues from there
  needs ``approve`` from an attended terminal, and the change is then
  committed in the target workspace (:meth:`Access.commit`).  A caller that
  stands in no registered workspace (a person at ``~``, a cron job, the web
  gateway) writes the issues of the workspace it names.

``approve`` always claims that a person is at a terminal: without one it is
refused (``approve_refused``), whatever the target.

* **Inside a Workspace Manager session** (``alice manager open`` set
  ``ALICE_MANAGER_SESSION``) a process belongs to no single workspace, yet it
  is never "outside every workspace": each write of a workspace's issues is
  shown to the person on the controlling terminal (``/dev/tty``, never stdin)
  and happens only on their yes; the change is then committed in the target
  workspace with a message naming the manager session.  No terminal, or a no:
  ``approval_refused`` (exit 4), nothing written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from openalice.core.errors import Forbidden, OperationalError
from openalice.core.records import record_class

from .registry import RunEnvironment, Workspace, find, run_environment

__all__ = ["SCOPES", "Caller", "Access", "authorize_write", "authorize_attended", "git_commit", "MANAGER_ENV"]

#: Set by ``alice manager open`` in the manager session's child: the session's resumeId.
MANAGER_ENV = "ALICE_MANAGER_SESSION"

#: What a write touches: a workspace's issues (the approval rule applies), any
#: other workspace-owned state, the machine's credential vault, or other
#: machine-wide data that belongs to no workspace (the sticker pack library).
SCOPES = ("issues", "workspace", "vault", "library")
_NO_WORKSPACE = {"vault": "the machine's credential vault", "library": "the machine's sticker pack library"}


@record_class(frozen=True)
class Caller:
    """Who is asking to write.

    ``run`` is the headless-run identity (None outside a run); ``cwd`` is
    where the caller stands (None: nowhere in particular, as for the web
    gateway or a service); ``attended`` says a person is at a terminal
    (stdin is a TTY).  :meth:`of_process` describes the current process.
    """

    run: RunEnvironment | None = None
    cwd: str | None = None
    attended: bool = False
    manager: str | None = None        # the Workspace Manager session this process runs in

    @classmethod
    def of_process(cls, *, env: Mapping[str, str] | None = None,
                   cwd: os.PathLike | str | None = None, attended: bool | None = None) -> "Caller":
        """This process: the run environment from ``env`` (default
        ``os.environ``), the current directory, and whether stdin is a TTY."""
        if attended is None:
            try:
                attended = os.isatty(0)
            except OSError:
                attended = False
        if cwd is None:
            try:
                cwd = os.getcwd()
            except OSError:  # the directory was removed under us: nowhere in particular
                cwd = None
        manager = (os.environ if env is None else env).get(MANAGER_ENV) or None
        return cls(run=run_environment(env), cwd=None if cwd is None else os.fspath(cwd),
                   attended=bool(attended), manager=manager)

    def standing_in(self) -> Workspace | None:
        """The registered workspace containing ``cwd``, if any."""
        return None if self.cwd is None else find(self.cwd)


class Access:
    """What :func:`authorize_write` granted.

    ``mode``: ``run`` (inside a headless run, its own workspace), ``local``
    (a person inside the target workspace), ``named`` (a caller standing in
    no workspace, or a write that needs no approval), ``approved`` (a person
    at a terminal, another workspace's issues: committed there).
    """

    __slots__ = ("mode", "workspace_id", "manager")

    def __init__(self, mode: str, workspace_id: str | None, manager: str | None = None) -> None:
        self.mode = mode
        self.workspace_id = workspace_id
        self.manager = manager

    @property
    def commits(self) -> bool:
        return self.mode == "approved"

    def commit(self, ws: Workspace, files: list[Path], message: str) -> str | None:
        """After an approved write: commit ``files`` in the target workspace if
        it is a git work tree.  The commit id, or None when nothing is
        committed (not approved, no repository, nothing changed)."""
        if not self.commits:
            return None
        if self.manager:
            message = f"{message}\n\nApproved at the terminal for Workspace Manager session {self.manager}."
        return git_commit(Path(ws.path), files, message)

    def to_dict(self) -> dict:
        out = {"mode": self.mode, "workspaceId": self.workspace_id, "commits": self.commits}
        if self.manager:
            out["managerSession"] = self.manager
        return out

    def __repr__(self) -> str:
        return f"Access({self.mode!r}, {self.workspace_id!r})"


def _target_id(target: Workspace | str | None) -> str | None:
    if target is None or isinstance(target, str):
        return target
    return target.id


def authorize_write(caller: Caller, target: Workspace | str | None, *, scope: str = "workspace",
                    approve: bool = False, change: str | None = None, confirm=None) -> Access:
    """May ``caller`` write ``target`` (a workspace or its id; None with scope
    ``vault`` or ``library``)?  Returns the :class:`Access`; raises Forbidden (exit 4) with
    code ``cross_workspace``, ``approve_refused`` or ``approval_refused``.

    ``change`` describes the write for the person asked to approve it (manager
    sessions); ``confirm(question) -> True|False|None`` asks them (default:
    :func:`openalice.core.tty.confirm`, the controlling terminal)."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")
    target_id = None if scope in _NO_WORKSPACE else _target_id(target)
    if scope not in _NO_WORKSPACE and target_id is None:
        raise ValueError("a workspace write needs its target workspace")
    run = caller.run
    if run is not None:
        if approve:
            raise Forbidden("--approve is refused inside a headless run: approval needs a "
                            "person at a terminal", code="approve_refused",
                            details={"runId": run.run_id})
        if target_id != run.workspace_id:
            what = _NO_WORKSPACE.get(scope, f"workspace `{target_id}`")
            raise Forbidden(f"run {run.run_id} belongs to workspace `{run.workspace_id}` and may "
                            f"write only that workspace, not {what}", code="cross_workspace",
                            details={"runId": run.run_id, "runWorkspaceId": run.workspace_id,
                                     "hint": "a person does that outside headless runs"})
        return Access("run", target_id)
    if caller.manager and scope == "issues":
        if confirm is None:
            from openalice.core.tty import confirm  # lazy: only a manager session's write asks the terminal
        return _manager_approval(caller.manager, target_id, change, confirm)
    if approve and not caller.attended:
        raise Forbidden("--approve needs an attended terminal, but stdin is not a terminal",
                        code="approve_refused")
    if scope != "issues":
        return Access("named", target_id)
    home = caller.standing_in()
    if home is not None and home.id == target_id:
        return Access("local", target_id)
    if approve:
        return Access("approved", target_id)
    if home is None:
        return Access("named", target_id)
    raise Forbidden(f"the current directory is in workspace `{home.id}`; writing the issues of "
                    f"workspace `{target_id}` from here needs --approve at an attended terminal",
                    code="cross_workspace",
                    details={"hint": "run it from outside every workspace (or inside the target "
                                     "one), or add --approve (the change is committed there "
                                     "when it is a git repository)"})


def authorize_attended(caller: Caller, what: str) -> None:
    """Something only a person does (opening a Workspace Manager session): refused inside a
    headless run with ``cross_workspace`` (exit 4), like every write outside the run's workspace."""
    if caller.run is not None:
        raise Forbidden(f"{what} is attended: run {caller.run.run_id} may not do it (a headless run stays in "
                        f"workspace `{caller.run.workspace_id}`)", code="cross_workspace",
                        details={"runId": caller.run.run_id, "hint": "a person does that at a terminal"})


def _manager_approval(manager: str, target_id: str, change: str | None, confirm) -> Access:
    question = (f"Workspace Manager session {manager} asks to write workspace `{target_id}`:\n"
                f"  {change or 'a change of its issues'}\nAllow this write?")
    answer = confirm(question)
    if answer is None:
        raise Forbidden(f"writing the issues of workspace `{target_id}` from Workspace Manager session "
                        f"{manager} needs the person's approval at the controlling terminal, and there is "
                        "no terminal to ask", code="approval_refused",
                        details={"managerSession": manager, "workspaceId": target_id,
                                 "hint": "ask the person to run it themselves, or open the manager "
                                         "session at a terminal"})
    if not answer:
        raise Forbidden(f"the person refused this write of workspace `{target_id}`", code="approval_refused",
                        details={"managerSession": manager, "workspaceId": target_id})
    return Access("approved", target_id, manager=manager)


def git_commit(root: Path, files: list[Path], message: str) -> str | None:
    """``git add`` and ``git commit`` exactly ``files`` (those that exist) in the
    repository around ``root``, as the repository's own user; None if ``root``
    is not in a git work tree or nothing changed.  OperationalError if git fails."""
    from openalice.core import git  # lazy: only approved edits commit; not every write pays for the import

    if git.work_tree(root) is None:
        return None
    rel = [os.path.relpath(f, root) for f in files if os.path.lexists(f)]
    try:
        return git.commit_paths(root, rel, message, author=None)
    except git.GitError as exc:
        raise OperationalError(f"{exc.message}; the approved change was written but not committed",
                               code="git_failed") from None
