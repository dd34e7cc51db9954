"""``alice doctor``: what is true about this machine's OpenAlice set-up.

Each check yields findings ``{check, status, message, subject?}`` where status
is ``ok``, ``info`` (worth knowing, nothing to do) or ``attention`` (something
needs fixing).  Nothing here changes anything, and no secret is ever read
beyond asking whether it is present.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from collections.abc import Mapping
from pathlib import Path

from openalice import agents, credentials, harness, preferences, sessions, workspaces
from openalice.core import clock, executables, paths
from openalice.core.errors import AliceError
from openalice.core.records import field, record_class
from openalice.schedule.health import health_report

from . import logins
from .timers import check_timers

__all__ = ["Finding", "Report", "run_checks", "PINNED_VERSIONS"]

# The agent CLI versions the adapters' argv was checked against (docs/runtime.md).
PINNED_VERSIONS = {"claude": "2.1.197", "codex": "0.171.0", "opencode": "1.18.33", "pi": "0.73.1"}
STATUSES = ("ok", "info", "attention")


@record_class
class Finding:
    check: str
    status: str
    message: str
    subject: str | None = None

    def to_dict(self) -> dict:
        out = {"check": self.check, "status": self.status, "message": self.message}
        if self.subject is not None:
            out["subject"] = self.subject
        return out


@record_class
class Report:
    findings: list[Finding] = field(default_factory=list)
    agents: list[dict] = field(default_factory=list)

    def add(self, check: str, status: str, message: str, subject: str | None = None) -> None:
        self.findings.append(Finding(check, status, message, subject))

    @property
    def ok(self) -> bool:
        return not any(f.status == "attention" for f in self.findings)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 3

    def to_dict(self) -> dict:
        counts = {s: sum(1 for f in self.findings if f.status == s) for s in STATUSES}
        return {"ok": self.ok, "exit": self.exit_code, "summary": counts,
                "findings": [f.to_dict() for f in self.findings], "agents": self.agents}


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def _check_private(report: Report, check: str, path: Path, want: int, what: str) -> None:
    mode = _mode(path)
    if mode is None:
        return
    if mode & ~want & 0o777:
        report.add(check, "attention", f"{what} {path} has mode {mode:04o}, looser than {want:04o} "
                                       f"(chmod {want:o} {path})", str(path))


def _check_homes(report: Report) -> None:
    for name, path in (("OPENALICE_HOME", paths.openalice_home()), ("HARNESS_HOME", paths.harness_home())):
        if not path.exists():
            report.add("homes", "info", f"{name} {path} does not exist yet (created on first use)", name)
        elif not path.is_dir():
            report.add("homes", "attention", f"{name} {path} is not a directory", name)
        else:
            before = len(report.findings)
            _check_private(report, "homes", path, 0o700, name)
            if len(report.findings) == before:
                report.add("homes", "ok", f"{name} {path} (0700)", name)


def _check_vault(report: Report) -> None:
    vault = credentials.vault_dir()
    if not vault.exists():
        report.add("credentials", "info", "no credentials (runs use each agent's native login: see 'login')")
        return
    _check_private(report, "credentials", vault, 0o700, "vault directory")
    _check_private(report, "credentials", credentials.records_path(), 0o600, "vault file")
    secrets_dir = vault / "secrets"
    if secrets_dir.exists():
        _check_private(report, "credentials", secrets_dir, 0o700, "secrets directory")
        for path in sorted(secrets_dir.glob("*.env")):
            _check_private(report, "credentials", path, 0o600, "secret file")
    try:
        records = credentials.list_records()
    except AliceError as err:
        report.add("credentials", "attention", f"vault unreadable: {err}")
        return
    if not records:
        report.add("credentials", "info", "no credentials (runs use each agent's native login: see 'login')")
    for rec in records:
        if credentials.has_secret(rec["slug"]):
            report.add("credentials", "ok", f"{rec['slug']} ({rec['vendor']}, {rec['authType']}): key stored",
                       rec["slug"])
        else:
            report.add("credentials", "attention", f"{rec['slug']} has no key stored (re-add it with "
                                                   f"--replace)", rec["slug"])


def _version(path: str, timeout: float) -> tuple[str | None, str | None]:
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, errors="replace")
    except subprocess.TimeoutExpired:
        return None, f"'{path} --version' did not answer within {timeout:g} s"
    except OSError as exc:
        return None, f"cannot run '{path} --version': {exc.strerror}"
    if proc.returncode != 0:
        return None, f"'{path} --version' exited {proc.returncode}"
    lines = [l.strip() for l in (proc.stdout or proc.stderr).splitlines() if l.strip()]
    return (lines[-1][:200] if lines else ""), None


def _check_agents(report: Report, env: Mapping[str, str], timeout: float) -> dict[str, bool]:
    present: dict[str, bool] = {}
    search = env.get("PATH", os.defpath)
    for name in agents.builtin_names():
        exe = agents.get_adapter(name).capabilities.executable
        path = executables.which(exe, path=search)
        entry: dict = {"name": name, "found": path is not None, "pinned": PINNED_VERSIONS.get(name)}
        present[name] = path is not None
        if path is None:
            report.add("agents", "info", f"{name}: '{exe}' is not on PATH", name)
            report.agents.append(entry)
            continue
        entry["path"] = path
        version, problem = _version(path, timeout)
        if problem:
            report.add("agents", "attention", f"{name}: found at {path} but {problem}", name)
        else:
            entry["version"] = version
            pinned = PINNED_VERSIONS.get(name)
            number = re.search(r"\d+\.\d+\.\d+", version or "")
            note = ""
            if pinned and number and number.group(0) != pinned:
                note = f" (adapters were checked against {pinned})"
            report.add("agents", "ok", f"{name}: {version or 'unknown version'} at {path}{note}", name)
        report.agents.append(entry)
    if not any(present.values()):
        report.add("agents", "attention", "no agent CLI found on PATH (" + ", ".join(present) + "): no "
                   "scheduled run can start; install one (docs/real-agents.md lists the pinned versions)")
    return present


def _check_workspaces(report: Report, agent_present: Mapping[str, bool]) -> None:
    try:
        registered = workspaces.list_workspaces()
    except AliceError as err:
        report.add("workspaces", "attention", f"workspace registry unreadable: {err}")
        return
    if not registered:
        report.add("workspaces", "info", "no workspaces registered")
    for ws in registered:
        if not (ws.root / ".alice").is_dir():
            report.add("workspaces", "attention", f"{ws.id}: {ws.path} (or its .alice/) is missing", ws.id)
            continue
        report.add("workspaces", "ok", f"{ws.id}: {ws.path}", ws.id)
        settings = preferences.read(ws)
        if settings.error is not None:
            report.add("settings", "attention", f"{ws.id}: {settings.error}", ws.id)
        else:
            default = settings.data.get("runtime", {}).get("headless", {}).get("defaultAgent")
            if default:
                if default in agent_present and not agent_present[default]:
                    report.add("settings", "attention",
                               f"{ws.id}: headless default agent '{default}' is not on PATH", ws.id)
                elif default not in agent_present and not agents.is_known(default):
                    report.add("settings", "attention",
                               f"{ws.id}: headless default agent '{default}' is unknown", ws.id)
        _, problems = sessions.list_sessions(ws)
        for problem in problems:
            report.add("sessions", "attention", f"{ws.id}: {problem['message']}", ws.id)


def _check_adapters(report: Report, env: Mapping[str, str], timeout: float) -> None:
    tool = agents.shims_dir() / "harness-adapter"
    if not tool.exists():
        report.add("adapters", "info", "adapter catalog: not available (no harness-adapter tool)")
        return
    try:
        proc = subprocess.run([str(tool), "list", "--probe", "--json"], capture_output=True, text=True,
                              timeout=timeout * 6, stdin=subprocess.DEVNULL, env=dict(env), errors="replace")
    except (subprocess.TimeoutExpired, OSError) as exc:
        report.add("adapters", "attention", f"'harness-adapter list --probe' failed: {exc}")
        return
    try:
        data = json.loads(proc.stdout)
    except ValueError:
        data = None
    if isinstance(data, dict) and "error" in data:
        if data["error"].get("code") in ("unknown_command", "usage"):
            report.add("adapters", "info", "adapter catalog: not available yet")
        else:
            report.add("adapters", "attention", f"adapter catalog: {data['error'].get('message')}")
        return
    if proc.returncode not in (0, 3) or not isinstance(data, list):
        report.add("adapters", "attention", f"'harness-adapter list --probe --json' exited {proc.returncode}")
        return
    if not data:
        report.add("adapters", "info", "adapter catalog: no adapters")
    for item in data:
        if not isinstance(item, dict):
            continue
        ident, health, enabled = item.get("id"), item.get("health"), item.get("enabled")
        if not enabled:
            report.add("adapters", "info", f"{ident}: disabled", ident)
        elif health == "healthy":
            report.add("adapters", "ok", f"{ident}: healthy", ident)
        elif health == "down":
            detail = item.get("detail") or item.get("healthDetail") or ""
            report.add("adapters", "attention", f"{ident}: down {detail}".rstrip(), ident)
        else:
            report.add("adapters", "info", f"{ident}: health {health or 'unknown'}", ident)


_RUNTIME_REASONS = ("unknown_agent", "not_headless", "runtime_invalid", "credential_missing",
                    "agent_not_installed", "not_logged_in")


def _check_schedule(report: Report, now, env: Mapping[str, str] | None = None, timeout: float = 5.0) -> int:
    """Automation health of every scheduled issue (``alice-schedule health``):
    failed, interrupted and blocked issues need attention; an issue whose run
    cannot start here (agent not installed, credential missing, ...) is a
    ``runtime`` finding.  Returns how many live scheduled issues there are."""
    try:
        data = health_report(now=now)
    except AliceError as err:
        report.add("schedule", "attention", f"cannot read schedule health: {err}")
        return 0
    live = 0
    found = logins.probe_logins(data["issues"], os.environ if env is None else env, timeout)
    logins.report_logins(report, found, data["issues"])
    for entry in data["issues"]:
        name = f"{entry['workspaceId']}/{entry['issueId']}"
        state = entry["state"]
        if state == "inactive":
            continue
        live += 1
        blocker = entry.get("blocker")
        probed = found.get((entry.get("login") or {}).get("agent"))
        if blocker and blocker["reason"] == "not_logged_in" and probed and probed.state == "logged_in":
            report.add("schedule", "ok", f"{name}: ready ({probed.agent} is logged in: {probed.how})", name)
        elif blocker and blocker["reason"] in _RUNTIME_REASONS:
            hint = f" ({blocker['hint']})" if blocker.get("hint") else ""
            last = f"; last run: {logins.failed_run_text(entry)}" if entry.get("failure") else ""
            report.add("runtime", "attention", f"{name}: cannot run here: {blocker['detail']}{hint}{last}", name)
        elif state in ("failed", "interrupted"):
            report.add("schedule", "attention", f"{name}: last run {state}: {logins.failed_run_text(entry)}; "
                       f"retry with 'alice-schedule retry-now {name}'", name)
        elif state == "blocked":
            report.add("schedule", "attention", f"{name}: blocked: {entry['message']}", name)
        else:
            report.add("schedule", "ok", f"{name}: {state}", name)
    for bad in data["invalid"]:
        reasons = "; ".join(e["reason"] for e in bad["errors"]) or "invalid"
        report.add("schedule", "attention", f"{bad['workspaceId']}/{bad['issueId']}: invalid issue file "
                                            f"{bad['path']}: {reasons}", f"{bad['workspaceId']}/{bad['issueId']}")
    for failed in data.get("deliveries", {}).get("failedComments", ()):
        name = f"{failed['workspaceId']}/{failed['issueId']}"
        report.add("schedule", "attention", f"{name}: comment {failed['commentId']} was not "
                   f"delivered: {failed['error']} (retry with 'alice issue redeliver "
                   f"{failed['commentId']} --workspace {failed['workspaceId']}')", name)
    if not data["issues"] and not data["invalid"]:
        report.add("schedule", "info", "no scheduled issues")
    return live


def _ago(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 120:
        return f"{seconds} s ago"
    if seconds < 7200:
        return f"{seconds // 60} min ago"
    return f"{seconds // 3600} h ago"


def _check_timers(report: Report, env: Mapping[str, str], now, live_scheduled: int) -> None:
    """Installed for this home, and firing (scans the timer started): :mod:`.timers`."""
    check_timers(lambda status, message: report.add("timers", status, message), env, now, live_scheduled, _ago)


def _check_harness(report: Report, now) -> None:
    """Stale or drifted harness files, broken shims, a malformed harness config
    (per workspace; read-only: an interrupted upgrade is reported, not recovered)."""
    try:
        registered = workspaces.list_workspaces()
    except AliceError:
        return  # the workspaces check reports the registry
    for ws in registered:
        if not (ws.root / ".alice").is_dir():
            continue
        try:
            findings = harness.health(ws, now=now)
        except AliceError as err:
            report.add("harness", "attention", f"{ws.id}: {err}", ws.id)
            continue
        for status, message in findings:
            report.add("harness", status, f"{ws.id}: {message}", ws.id)


def run_checks(*, now, env: Mapping[str, str] | None = None, version_timeout: float = 5.0) -> Report:
    """Every check, in a stable order.  ``now`` (aware) is the instant the
    heartbeat and schedule health are judged at (the CLI's clock)."""
    env = os.environ if env is None else env
    report = Report()
    _check_homes(report)
    _check_vault(report)
    present = _check_agents(report, env, version_timeout)
    _check_workspaces(report, present)
    _check_harness(report, now)
    _check_adapters(report, env, version_timeout)
    live = _check_schedule(report, now, env, version_timeout)
    _check_timers(report, env, now, live)
    _check_connectors(report, now)
    return report


def _check_connectors(report: Report, now) -> None:
    """Connectors that gave up on an entry, or cannot be read (none: no finding)."""
    from openalice.connectors.health import connector_health  # lazy: only the doctor judges them

    for c in connector_health(now_ms=clock.to_ms(now)):
        status = {"failed": "attention", "retrying": "info"}.get(c["state"], "ok")
        report.add("connectors", status, f"{c['kind']} {c['state']}: {c['message']}", c["name"])
