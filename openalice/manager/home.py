"""Where manager sessions live, what they are told, and how a new one is bound."""

from __future__ import annotations

import os
from pathlib import Path

from openalice import agents, sessions, workspaces
from openalice.core import fs, paths
from openalice.core.records import record_class
from openalice.sessions.launch import require_installed

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from datetime import datetime

__all__ = ["GUIDANCE_FILES", "ManagerHome", "guidance_text", "manager_home", "new_binding", "prepare",
           "DEFAULT_AGENT"]

GUIDANCE_FILES = ("AGENTS.md", "CLAUDE.md")
DEFAULT_AGENT = "claude"


@record_class(frozen=True)
class ManagerHome:
    """A session home (as the sessions store takes one) that is no workspace."""

    root: Path            # $OPENALICE_HOME: every manager file is reached below it
    sessions_path: Path   # the frozen bindings
    workdir: Path         # the sessions' working directory (their guidance lives there)
    id = None             # belongs to no workspace


def manager_home() -> ManagerHome:
    root = paths.openalice_home()
    return ManagerHome(root=root, sessions_path=root / "workspaces" / "state" / "workspace-manager-sessions",
                       workdir=root / "manager")


def guidance_text(registered: list) -> str:
    lines = [
        "# Workspace Manager",
        "",
        "You are an OpenAlice Workspace Manager session: you belong to no single workspace and",
        "help the person across all of them. A person is at the terminal with you.",
        "",
        "## Registered workspaces",
        "",
    ]
    if registered:
        lines += [f"- `{ws.id}` ({ws.label}): {ws.path}" for ws in registered]
    else:
        lines.append("- (none yet: `alice workspace init PATH` registers one)")
    lines += [
        "",
        "## Working across them",
        "",
        "- Name the workspace on every command: `alice issue list --workspace ID`,",
        "  `alice issue board` (all of them), `alice inbox list`, `alice-schedule health`.",
        "- Writing a workspace's issues (`alice issue create|update|comment --workspace ID ...`)",
        "  asks the person at this terminal to approve each write; on yes it is written and",
        "  committed in that workspace's git repository, naming this session. On no, or when",
        "  there is no terminal, the command exits 4 and nothing is written: say so and ask",
        "  the person instead of retrying.",
        "- Edit a workspace's other files only when the person asks you to.",
        "",
    ]
    return "\n".join(lines)


def prepare(home: ManagerHome) -> Path:
    """The working directory with today's guidance (rewritten only when it changed)."""
    fs.ensure_dir(home.workdir, 0o700)
    text = guidance_text(workspaces.list_workspaces()).encode("utf-8")
    for name in GUIDANCE_FILES:
        target = home.workdir / name
        try:
            if target.read_bytes() == text:
                continue
        except OSError:
            pass
        fs.atomic_write_bytes(target, text, mode=0o600, root=home.root)
    return home.workdir


def new_binding(home: ManagerHome, *, agent: str | None, credential: str | None, model: str | None,
                effort: str | None, now: datetime) -> sessions.SessionBinding:
    """A new manager session: the given choices, else claude with its native login."""
    agent = agent or DEFAULT_AGENT
    adapter = agents.get_adapter(agent)
    adapter.check_mode("interactive")
    require_installed(agent, adapter.capabilities.executable, os.environ.get("PATH"))
    cred = {"source": "vault", "credentialSlug": credential} if credential else {"source": "native"}
    fs.ensure_dir(home.sessions_path, 0o700, root=home.root)
    return sessions.create_session(home, agent=agent, credential=cred, model=model, effort=effort,
                                   now=now, born_on="manager")
