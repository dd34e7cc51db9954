"""A timer installed on a fresh home runs: each definition executed as its service manager would.

``install-timer`` prints (or writes) a cron line, a systemd service and a launchd plist.  Here
each is run the way cron, systemd and launchd run it — cron: the command part of the line with
``/bin/sh -c`` and cron's minimal environment (``PATH=/usr/bin:/bin``, ``HOME``, nothing else);
systemd: ``ExecStart`` split by systemd's rules, no shell, ``Environment=`` on top of that minimal
environment; launchd: ``ProgramArguments`` with ``EnvironmentVariables`` and stdout/stderr
appended to ``StandardOutPath`` — on a home that nothing has touched, and must make a scan happen:
a scheduled issue fires, its run (a stand-in engine found through the timer's ``PATH``) finishes,
the heartbeat is written and the log shows the scan.
"""

from __future__ import annotations

import os
import plistlib
import re
import stat
import subprocess
from pathlib import Path

import pytest

from tests.runs.standins import StandIns, fixtures_dir

# an installed timer fires the tools as a fresh process would: processes (docs/conventions.md, "CLI tests")
pytestmark = pytest.mark.process

MINIMAL = "/usr/bin:/bin"


@pytest.fixture
def fresh(tmp_path, cli, monkeypatch):
    """Homes that do not exist yet, a registered workspace with a due ``every`` issue, and
    stand-in engines on the PATH the timer will carry."""
    base = tmp_path / "fresh"
    home = base / "user"
    home.mkdir(parents=True)
    env = {"OPENALICE_HOME": str(base / "openalice-home"), "HARNESS_HOME": str(base / "harness-home"),
           "HOME": str(home)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    engines = StandIns(tmp_path / "standin-bin", fixtures_dir())
    env["PATH"] = engines.path_env()
    cli.env.update(env)
    ws = tmp_path / "ws"
    r = cli("alice", "workspace", "init", str(ws), "--label", "Timer")
    assert r.returncode == 0, r
    r = cli("alice", "issue", "create", "--title", "Hourly", "--id", "hourly", "--every", "1h",
            "--agent", "claude", "--model", "fake-model", "--body", "Say hi", cwd=ws)
    assert r.returncode == 0, r
    # Only the registry and the workspace exist: no state/ directory, no log directory.
    assert not (base / "openalice-home" / "state").exists()
    return {"env": env, "home": home, "ohome": base / "openalice-home", "engines": engines}


def definition(cli, kind: str) -> dict:
    r = cli("alice-schedule", "install-timer", f"--{kind}", "--json")
    assert r.returncode == 0, r
    return r.json()


def scan_happened(cli, fresh, log: Path | None, kind: str) -> None:
    """A run was fired by the timer's scan and finished; the heartbeat (the timer's own too:
    the definition marks its scans) and the log say so."""
    r = cli("alice-schedule", "runs", "--json")
    assert r.returncode == 0, r
    runs = r.json()["runs"]
    assert len(runs) == 1, (runs, log.read_text() if log and log.exists() else None)
    task_id = runs[0]["taskId"]
    r = cli("alice-schedule", "run", task_id, "--wait", "--timeout", "60", "--json", timeout=90)
    assert r.returncode == 0, r
    assert r.json()["task"]["status"] == "done", r
    heartbeat = fresh["ohome"] / "state" / "schedule" / "heartbeat"
    assert heartbeat.is_file()
    timer_beat = fresh["ohome"] / "state" / "schedule" / f"heartbeat.{kind}"
    assert timer_beat.is_file() and timer_beat.stat().st_mtime_ns == heartbeat.stat().st_mtime_ns
    assert [p.name for p in heartbeat.parent.glob("heartbeat.*")] == [timer_beat.name]
    if log is not None:
        text = log.read_text()
        assert f"fired timer/hourly {task_id}" in text, text
        assert "1 workspace(s), 1 scheduled issue(s): 1 fired" in text, text
    # The home the timer created is private, every level of it.
    assert stat.S_IMODE(fresh["ohome"].stat().st_mode) == 0o700
    assert stat.S_IMODE((fresh["ohome"] / "state").stat().st_mode) == 0o700


def test_the_cron_line_runs_under_crons_environment(cli, fresh):
    spec = definition(cli, "cron")
    marker, line = spec["files"][0]["content"].splitlines()
    fields = line.split(None, 5)
    assert fields[:5] == ["*"] * 5
    command = fields[5].replace("\\%", "%")  # cron turns an unescaped % into a newline
    log = fresh["ohome"] / "state" / "schedule" / "cron.log"
    done = subprocess.run(["/bin/sh", "-c", command], env={"PATH": MINIMAL, "HOME": str(fresh["home"])},
                          cwd=fresh["home"], capture_output=True, text=True, timeout=60)
    # (Before install-timer created the log's directory: "cannot create …/cron.log: Directory
    # nonexistent", exit 2, and no scan.)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", done
    scan_happened(cli, fresh, log, "cron")
    # Doctor, with a crontab that holds exactly this line: installed for this home, and it fires.
    bindir = fresh["home"] / "crontab-bin"
    bindir.mkdir()
    (bindir / "crontab.txt").write_text(spec["files"][0]["content"])
    (bindir / "crontab").write_text(f"#!/bin/sh\ncat '{bindir / 'crontab.txt'}'\n")
    (bindir / "crontab").chmod(0o755)
    r = cli("alice", "doctor", "--json", env={"PATH": os.pathsep.join([str(bindir), fresh["env"]["PATH"]])})
    [timer] = [f for f in r.json()["findings"] if f["check"] == "timers"]
    assert timer["status"] == "ok" and "cron (crontab); it fires" in timer["message"], timer


def _systemd_split(text: str) -> list[str]:
    """systemd's command-line splitting: whitespace-separated words, double or single quotes,
    backslash escapes; ``%%`` is a literal ``%`` (specifiers are expanded before splitting)."""
    text = text.replace("%%", "\x00")
    assert "%" not in text, f"unexpanded specifier in {text!r}"
    words = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|(\S+)', text)
    out = []
    for double, single, bare in words:
        word = re.sub(r"\\(.)", r"\1", double) if double else single or bare
        out.append(word.replace("\x00", "%"))
    return out


def test_the_systemd_service_runs_as_systemd_would(cli, fresh):
    spec = definition(cli, "systemd")
    service = next(f["content"] for f in spec["files"] if f["path"].endswith(".service"))
    env = {"PATH": MINIMAL, "HOME": str(fresh["home"])}
    exec_start = None
    for raw in service.splitlines():
        key, _, value = raw.partition("=")
        if key == "Environment":
            for word in _systemd_split(value):
                name, _, val = word.partition("=")
                env[name] = val
        elif key == "ExecStart":
            exec_start = _systemd_split(value)
    assert exec_start and os.path.isabs(exec_start[0]), exec_start
    done = subprocess.run(exec_start, env=env, cwd=fresh["home"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done
    assert "1 fired" in done.stdout, done
    scan_happened(cli, fresh, None, "systemd")


def test_the_launchd_plist_runs_as_launchd_would(cli, fresh):
    spec = definition(cli, "launchd")
    plist = plistlib.loads(spec["files"][0]["content"].encode("utf-8"))
    env = {"PATH": MINIMAL, "HOME": str(fresh["home"]), **plist["EnvironmentVariables"]}
    log = Path(plist["StandardOutPath"])
    assert plist["StandardErrorPath"] == str(log) and log.parent.is_dir()
    with open(log, "ab") as out:  # launchd opens the log itself; its directory must exist
        done = subprocess.run(plist["ProgramArguments"], env=env, cwd="/", stdout=out, stderr=out,
                              timeout=60)
    assert done.returncode == 0, log.read_text()
    scan_happened(cli, fresh, log, "launchd")
