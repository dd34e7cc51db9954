"""System timers that run ``alice-schedule scan`` every minute.

- cron: one crontab line, preceded by a marker comment so ``--write`` can
  replace it idempotently;
- systemd: a user ``.service`` (oneshot, ``KillMode=process`` so the detached
  supervisors outlive the scan) and a ``.timer`` (``OnCalendar=minutely``,
  ``Persistent=true``, ``AccuracySec=1s``);
- launchd: a LaunchAgent plist with ``StartInterval`` 60.

Every definition names the tool by absolute path (the installed console
script, else the interpreter plus the checkout's ``bin/`` launcher) and
carries ``OPENALICE_HOME``/``HARNESS_HOME``/``HARNESS_CATALOG`` when set and the current ``PATH``
(timers start with a minimal one, and the runner must find the agent CLIs).

A definition lists the ``directories`` its line needs (the log's directory):
cron's shell cannot redirect into a directory that does not exist yet, and on
a fresh home nothing has created ``state/schedule/`` before the first scan.
:func:`prepare` creates them; :func:`install` does so before anything else,
and undoes its writes when enabling fails.
"""

from __future__ import annotations

import os
import plistlib
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from openalice.core import executables, fs
from openalice.core.errors import OperationalError, Unavailable

from .fastpath import TIMER_VAR

__all__ = ["KINDS", "CRON_MARKER", "UNIT_NAME", "LAUNCHD_LABEL", "PERIOD_SECONDS", "tool_command",
           "timer_env", "cron_line", "cron_block", "merge_crontab", "systemd_units",
           "launchd_plist", "definition", "prepare", "install", "installed", "log_hint"]

KINDS = ("cron", "systemd", "launchd")
CRON_MARKER = "# openalice-schedule: managed by 'alice-schedule install-timer --cron --write'"
UNIT_NAME = "openalice-schedule"
LAUNCHD_LABEL = "dev.openalice.schedule"
PERIOD_SECONDS = 60  # every kind runs the scan once a minute
# Paths the scan and its runs read; a timer starts without the user's shell environment.
_ENV_KEYS = ("OPENALICE_HOME", "HARNESS_HOME", "HARNESS_CATALOG")


def tool_command(*, executable: str | None = None) -> list[str]:
    """The absolute command that runs ``alice-schedule``."""
    python = os.path.abspath(executable or sys.executable)
    beside = Path(python).parent / "alice-schedule"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    launcher = Path(__file__).resolve().parent.parent.parent / "bin" / "alice-schedule"
    if launcher.is_file():
        # The launcher's `#!/usr/bin/env python3` would depend on the timer's
        # PATH; name the interpreter explicitly.
        return [python, str(launcher)]
    found = executables.which("alice-schedule")
    if found:
        return [os.path.abspath(found)]
    raise Unavailable("cannot find the alice-schedule executable", code="tool_not_found")


def timer_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    out = {}
    for key in _ENV_KEYS:
        if environ.get(key):
            out[key] = os.path.abspath(os.path.expanduser(environ[key]))
    if environ.get("PATH"):
        out["PATH"] = environ["PATH"]
    return out


def alice_home(environ: Mapping[str, str]) -> Path:
    value = environ.get("OPENALICE_HOME")
    if value:
        return Path(os.path.abspath(os.path.expanduser(value)))
    return Path(os.path.expanduser("~/.openalice"))


def _log_path(environ: Mapping[str, str], name: str) -> Path:
    return alice_home(environ) / "state" / "schedule" / name


def cron_line(command: list[str], env: dict[str, str], log: Path) -> str:
    parts = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    parts += [shlex.quote(c) for c in command] + ["scan", ">>", shlex.quote(str(log)), "2>&1"]
    # `%` ends the command in a crontab line unless escaped.
    return "* * * * * " + " ".join(parts).replace("%", "\\%")


def cron_block(command: list[str], env: dict[str, str], log: Path) -> str:
    return f"{CRON_MARKER}\n{cron_line(command, env, log)}\n"


def merge_crontab(existing: str, block: str) -> str:
    """``existing`` with its managed block replaced by ``block`` where it
    stands, or ``block`` appended when there was none; every other byte kept
    (so ``uninstall-timer`` can give the crontab back as it was: a last line
    without its newline gets one, which cron needs anyway)."""
    lines = existing.splitlines(keepends=True)
    out: list[str] = []
    skip_next = placed = False
    for line in lines:
        if skip_next:
            skip_next = False
            continue
        if line.strip() == CRON_MARKER:
            skip_next = True
            if not placed:
                out.append(block)
                placed = True
            continue
        out.append(line)
    if not placed:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append(block)
    return "".join(out)


def systemd_quote(value: str) -> str:
    """``value`` as one double-quoted word of a systemd unit file."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_environment(env: dict[str, str]) -> str:
    """``Environment=`` lines of a unit, one per variable."""
    return "".join(f"Environment={systemd_quote(f'{k}={v}')}\n" for k, v in env.items())


def systemd_words(command: list[str]) -> str:
    """``command`` as an ``ExecStart=`` value (before its ``%`` is escaped)."""
    return " ".join(systemd_quote(c) if (" " in c or '"' in c) else c for c in command)


def systemd_units(command: list[str], env: dict[str, str]) -> dict[str, str]:
    environment = systemd_environment(env)
    exec_start = systemd_words(command) + " scan"
    service = (
        "[Unit]\n"
        "Description=OpenAlice: scan workspaces for due scheduled issues\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"{environment}"
        f"ExecStart={exec_start.replace('%', '%%')}\n"
        "# The scan starts detached supervisors and exits at once; they must survive it.\n"
        "KillMode=process\n"
    )
    timer = (
        "[Unit]\n"
        "Description=OpenAlice: run the schedule scan every minute\n\n"
        "[Timer]\n"
        "OnCalendar=minutely\n"
        "Persistent=true\n"
        "AccuracySec=1s\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )
    return {f"{UNIT_NAME}.service": service, f"{UNIT_NAME}.timer": timer}


def launchd_plist(command: list[str], env: dict[str, str], log: Path) -> str:
    data = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": [*command, "scan"],
        "StartInterval": 60,
        "RunAtLoad": True,
        "EnvironmentVariables": dict(env),
        "StandardOutPath": str(log),
        "StandardErrorPath": str(log),
        # The supervisors run in their own sessions; never take them down with the scan.
        "AbandonProcessGroup": True,
    }
    return plistlib.dumps(data, sort_keys=False).decode("utf-8")


def user_home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("HOME") or os.path.expanduser("~"))


def definition(kind: str, *, environ: Mapping[str, str] | None = None,
               command: list[str] | None = None, connectors: bool = False) -> dict:
    """What ``install-timer`` prints: ``{kind, command, files: [{path, content}],
    enable: [argv...]}`` (``path`` is where ``--write`` puts each file).
    ``connectors`` adds the ``alice connector run`` service (systemd, launchd)."""
    spec = _definition(kind, environ=environ, command=command)
    if not connectors:
        return spec
    from .connector_service import (  # lazy: only --connectors writes the service
        CONNECTORS_LABEL,
        CONNECTORS_UNIT,
        connectors_plist,
        connectors_service,
    )

    environ = os.environ if environ is None else environ
    if kind == "systemd":
        path = Path(spec["files"][0]["path"]).with_name(f"{CONNECTORS_UNIT}.service")
        spec["files"].append({"path": str(path),
                              "content": connectors_service(spec["command"], spec["environment"])})
        spec["enable"].append(["systemctl", "--user", "enable", "--now", f"{CONNECTORS_UNIT}.service"])
    elif kind == "launchd":
        path = Path(spec["files"][0]["path"]).with_name(f"{CONNECTORS_LABEL}.plist")
        log = _log_path(environ, "connectors.log")
        spec["files"].append({"path": str(path), "content": connectors_plist(
            spec["command"], spec["environment"], log)})
        spec["enable"].append(["launchctl", "load", "-w", str(path)])
    else:
        raise ValueError("--connectors needs --systemd or --launchd (the cron scan delivers)")
    return spec


def _definition(kind: str, *, environ: Mapping[str, str] | None = None,
                command: list[str] | None = None) -> dict:
    environ = os.environ if environ is None else environ
    if kind not in KINDS:
        raise ValueError(kind)
    command = command or tool_command()
    env = {**timer_env(environ), TIMER_VAR: kind}  # marks the scans it starts (doctor: "it fires")
    if kind == "cron":
        log = _log_path(environ, "cron.log")
        block = cron_block(command, env, log)
        return {"kind": kind, "command": command, "environment": env,
                "files": [{"path": "crontab", "content": block}],
                "directories": [str(log.parent)], "enable": []}
    if kind == "systemd":
        base = Path(environ.get("XDG_CONFIG_HOME") or user_home(environ) / ".config") / "systemd" / "user"
        units = systemd_units(command, env)
        return {"kind": kind, "command": command, "environment": env,
                "files": [{"path": str(base / name), "content": text} for name, text in units.items()],
                "directories": [],  # output goes to the journal
                "enable": [["systemctl", "--user", "daemon-reload"],
                           ["systemctl", "--user", "enable", "--now", f"{UNIT_NAME}.timer"]]}
    path = user_home(environ) / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
    log = _log_path(environ, "launchd.log")
    return {"kind": kind, "command": command, "environment": env,
            "files": [{"path": str(path), "content": launchd_plist(command, env, log)}],
            "directories": [str(log.parent)],
            "enable": [["launchctl", "load", "-w", str(path)]]}


def run_timer_tool(argv: list[str], *, input_text: str | None = None):
    """Run a timer tool; its CompletedProcess (a missing tool is Unavailable)."""
    try:
        return subprocess.run(argv, input=input_text, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise Unavailable(f"{argv[0]} is not installed", code="timer_tool_missing") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise OperationalError(f"cannot run {argv[0]}: {exc}", code="timer_tool_failed") from None


def prepare(spec: dict) -> list[str]:
    """Create the directories the definition's line needs (0700: they are in
    the state home); the ones created, in order."""
    created = []
    for directory in spec.get("directories", ()):
        if not os.path.isdir(directory):
            fs.ensure_dir(directory, 0o700)
            created.append(directory)
    return created


def _enable_tools_missing(spec: dict) -> None:
    """Unavailable before anything is written when an enable tool is absent."""
    for argv in spec["enable"]:
        if executables.which(argv[0]) is None:
            raise Unavailable(f"{argv[0]} is not installed; nothing was written (drop --enable "
                              "to write the files only)", code="timer_tool_missing")


def _new_dirs(path: Path) -> list[Path]:
    """The directories above ``path`` that do not exist yet, deepest first."""
    out = []
    for parent in path.parents:
        if parent.exists():
            break
        out.append(parent)
    return out


def _restore(previous: dict[str, bytes | None], new_dirs: list[Path]) -> None:
    """Put the files back as they were before a failed install; remove the
    directories it created (when empty)."""
    for path, old in previous.items():
        if old is None:
            fs.remove_file(path)
        else:
            fs.atomic_write_bytes(path, old, mode=0o644, dir_mode=0o755)
    for directory in new_dirs:
        try:
            directory.rmdir()
        except OSError:
            pass


def install(spec: dict, *, enable: bool = False) -> dict:
    """Install the definition where it belongs; returns ``{written: [...],
    enabled: bool, crontab?: str}``.  Idempotent.  With ``enable``, a failure
    to enable leaves the files as they were before (new ones removed)."""
    kind = spec["kind"]
    out: dict = {"written": [], "enabled": False}
    if enable and kind != "cron":
        _enable_tools_missing(spec)
    prepare(spec)
    if kind == "cron":
        current = run_timer_tool(["crontab", "-l"])
        existing = current.stdout if current.returncode == 0 else ""
        if current.returncode != 0 and "no crontab" not in (current.stderr or "").lower():
            raise OperationalError(f"crontab -l failed: {current.stderr.strip()}", code="timer_tool_failed")
        merged = merge_crontab(existing, spec["files"][0]["content"])
        result = run_timer_tool(["crontab", "-"], input_text=merged)
        if result.returncode != 0:
            raise OperationalError(f"crontab - failed: {result.stderr.strip()}", code="timer_tool_failed")
        out["written"].append("crontab")
        out["crontab"] = merged
        out["enabled"] = True  # cron runs what is in the crontab
        return out
    previous: dict[str, bytes | None] = {}
    new_dirs: list[Path] = []
    for item in spec["files"]:
        new_dirs += [d for d in _new_dirs(Path(item["path"])) if d not in new_dirs]
        try:
            previous[item["path"]] = Path(item["path"]).read_bytes()
        except FileNotFoundError:
            previous[item["path"]] = None
        except OSError as exc:
            raise OperationalError(f"cannot read {item['path']}: {exc.strerror}", file=item["path"],
                                   code="timer_tool_failed") from None
    try:
        for item in spec["files"]:
            fs.atomic_write_text(item["path"], item["content"], mode=0o644, dir_mode=0o755)
            out["written"].append(item["path"])
        if enable:
            for argv in spec["enable"]:
                result = run_timer_tool(argv)
                if result.returncode != 0:
                    raise OperationalError(f"{' '.join(argv)} failed: {result.stderr.strip()}; "
                                           "the files were put back as they were",
                                           code="timer_tool_failed")
            out["enabled"] = True
    except BaseException:
        _restore(previous, new_dirs)
        if enable and kind == "systemd" and out["written"]:
            try:  # best effort: let systemd forget units that are gone again
                run_timer_tool(["systemctl", "--user", "daemon-reload"])
            except Exception:
                pass
        raise
    return out


def installed(environ: Mapping[str, str] | None = None) -> list[dict]:
    """The timers ``install-timer --write`` put in place: ``[{kind, where}]``
    (the crontab's managed line, the systemd ``.timer`` unit, the plist).
    A crontab that cannot be listed counts as none."""
    environ = os.environ if environ is None else environ
    found: list[dict] = []
    crontab = executables.which("crontab", path=environ.get("PATH", os.defpath))
    if crontab:
        try:
            listed = subprocess.run([crontab, "-l"], capture_output=True, text=True, timeout=10,
                                    stdin=subprocess.DEVNULL, errors="replace")
        except (OSError, subprocess.SubprocessError):
            listed = None
        if listed is not None and listed.returncode == 0:
            lines = listed.stdout.splitlines()
            for i, line in enumerate(lines):
                if line.strip() == CRON_MARKER:  # with its line: which home it scans (doctor)
                    found.append({"kind": "cron", "where": "crontab",
                                  "line": lines[i + 1] if i + 1 < len(lines) else ""})
                    break
    for kind in ("systemd", "launchd"):
        for item in definition(kind, environ=environ, command=["/alice-schedule"])["files"]:
            if item["path"].endswith((".timer", ".plist")) and os.path.isfile(item["path"]):
                found.append({"kind": kind, "where": item["path"]})
    return found


def log_hint(kind: str, environ: Mapping[str, str] | None = None) -> str:
    """Where a timer of ``kind`` leaves the scan's output."""
    environ = os.environ if environ is None else environ
    if kind == "systemd":
        return f"journalctl --user -u {UNIT_NAME}.service"
    return str(_log_path(environ, "cron.log" if kind == "cron" else "launchd.log"))
