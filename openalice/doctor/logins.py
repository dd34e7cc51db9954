"""Doctor's native-login check, and a failed run in words.

For each agent a live scheduled issue runs on native auth (health's entries
carry ``login`` for those), the CLI's own status command is asked once,
bounded by the doctor's timeout (:func:`openalice.agents.login.check`; no
token is read).  A login that answer proves wins over health's cheap file
check, so doctor never calls an issue blocked that its own probe found
logged in.
"""

from __future__ import annotations

from collections.abc import Mapping

from openalice.agents import login
from openalice.runs import results

__all__ = ["probe_logins", "report_logins", "failed_run_text"]


def probe_logins(entries: list[dict], env: Mapping[str, str], timeout: float) -> dict[str, login.Login]:
    """``{agent: Login}`` for every agent a live native-auth issue uses."""
    agents = []
    for entry in entries:
        agent = (entry.get("login") or {}).get("agent")
        if agent and entry.get("state") != "inactive" and agent not in agents:
            agents.append(agent)
    return {agent: login.check(agent, env, timeout=timeout) for agent in agents}


def report_logins(report, found: dict[str, login.Login], entries: list[dict]) -> None:
    for agent, answer in found.items():
        users = [f"{e['workspaceId']}/{e['issueId']}" for e in entries
                 if (e.get("login") or {}).get("agent") == agent and e.get("state") != "inactive"]
        used = f" (used by {', '.join(users[:3])}{' ...' if len(users) > 3 else ''})"
        if answer.state == "logged_in":
            report.add("login", "ok", f"{agent}: logged in natively: {answer.how}{used}", agent)
        elif answer.state == "logged_out":
            hint = (answer.hint or "").replace("ISSUE", users[0] if users else "ISSUE")
            report.add("login", "attention", f"{agent}: not logged in ({answer.how}){used}: {hint}", agent)
        else:
            report.add("login", "info", f"{agent}: login unknown ({answer.how}){used}", agent)


def failed_run_text(entry: dict) -> str:
    """A failed or interrupted issue's last run: why, the next step, the end
    of its stderr and where its logs are."""
    failure = entry.get("failure") or {}
    task = entry.get("latestTaskId")
    parts = [failure.get("message") or entry.get("message") or "it failed"]
    if failure.get("next"):
        parts.append(f"next: {failure['next']}")
    if task:
        tail = results.stderr_lines(task, 2)
        if tail:
            parts.append("stderr: " + " | ".join(tail))
        parts.append(f"logs: {results.log_paths(task)['stderr']} (all: 'alice-schedule run {task}')")
    return "; ".join(parts)
