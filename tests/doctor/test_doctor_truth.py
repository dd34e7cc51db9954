"""`alice doctor` tells the truth: scheduled runs that fail or cannot start, a timer that does not fire.

For each check that can say "ok" there is a case here (or in test_doctor.py) where it must not.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from openalice.core import resources
from openalice.core.schema import Validator
from openalice.schedule import timers
from tests.adapters.stubs import adapter, write_catalog, write_stub

T0 = "2026-03-02T09:00:00Z"
T0_PLUS_30S = "2026-03-02T09:00:30Z"
T0_PLUS_3MIN = "2026-03-02T09:03:00Z"


def crontab_listing(directory: Path, home: str | None, mark: bool = True) -> Path:
    """A stand-in ``crontab`` in ``directory`` listing a managed line for ``home`` (None: no
    OPENALICE_HOME on it, i.e. ~/.openalice); ``mark``: the line sets OPENALICE_SCAN_TIMER."""
    directory.mkdir(exist_ok=True)
    env = (f"OPENALICE_HOME='{home}' " if home else "") + ("OPENALICE_SCAN_TIMER=cron " if mark else "")
    listing = directory / "crontab.txt"
    listing.write_text(f"MAILTO=me\n{timers.CRON_MARKER}\n* * * * * {env}/x/alice-schedule scan >> /x/log 2>&1\n")
    (directory / "crontab").write_text(f"#!/bin/sh\ncat '{listing}'\n")
    (directory / "crontab").chmod(0o755)
    return directory


@pytest.fixture
def bins(tmp_path, isolated_homes):
    """``agents``: the four agent CLIs answering --version; ``cron_on`` / ``cron_off``: a crontab
    holding the managed line for this home, or none at all; ``cron_other``: another home's line."""
    out = {}
    agents = tmp_path / "agents"
    agents.mkdir()
    for name, version in {"claude": "2.1.197 (Claude Code)", "codex": "codex-cli 0.171.0",
                          "opencode": "1.18.33", "pi": "0.73.1"}.items():
        (agents / name).write_text(f"#!/bin/sh\necho '{version}'\n")
        (agents / name).chmod(0o755)
    out["agents"] = agents
    out["cron_on"] = crontab_listing(tmp_path / "cron_on", str(isolated_homes["OPENALICE_HOME"]))
    out["cron_other"] = crontab_listing(tmp_path / "cron_other", str(tmp_path / "another-home"))
    directory = tmp_path / "cron_off"
    directory.mkdir()
    (directory / "crontab").write_text("#!/bin/sh\necho 'no crontab for you' >&2; exit 1\n")
    (directory / "crontab").chmod(0o755)
    out["cron_off"] = directory
    return out


@pytest.fixture
def tight(isolated_homes):
    for var in ("OPENALICE_HOME", "HARNESS_HOME"):
        os.chmod(isolated_homes[var], 0o700)


def doctor(cli, *dirs, now=T0_PLUS_30S, **env):
    path = os.pathsep.join([*map(str, dirs), "/usr/bin", "/bin"])
    r = cli("alice", "doctor", "--json", env={"PATH": path, "ALICE_NOW": now, **env})
    doc = r.json()
    assert Validator(resources.schema("doctor")).errors(doc) == []
    assert r.returncode == (0 if doc["ok"] else 3)
    return doc


def findings(doc, check, status=None):
    return [f["message"] for f in doc["findings"]
            if f["check"] == check and (status is None or f["status"] == status)]


def create(cli, workspace, *args):
    r = cli("alice", "issue", "create", "--title", "Job", "--id", "job", "--every", "1h", *args,
            cwd=workspace, env={"ALICE_NOW": T0})
    assert r.returncode == 0, r


def scan(cli, bins, now=T0, **env):
    """A scan started by hand; ``OPENALICE_SCAN_TIMER="cron"`` makes it the cron timer's."""
    path = os.pathsep.join([str(bins["agents"]), os.environ["PATH"]])
    r = cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": now, "PATH": path, **env})
    assert r.returncode == 0, r
    return r.json()


def test_all_well_with_a_firing_timer_and_a_ready_issue(cli, workspace, bins, tight):
    create(cli, workspace, "--agent", "claude")
    scan(cli, bins, OPENALICE_TEST_LAUNCH="none", OPENALICE_SCAN_TIMER="cron")  # the timer's scan at T0
    from openalice.runs import admission, tasks

    [run] = tasks.list_tasks(limit=5)
    tasks.update_task(run["taskId"], {"status": "done", "exitCode": 0})
    admission.release(run["taskId"])
    doc = doctor(cli, bins["agents"], bins["cron_on"])
    assert doc["ok"] is True, [f for f in doc["findings"] if f["status"] == "attention"]
    assert findings(doc, "schedule", "ok") == ["test-ws/job: healthy"]
    assert findings(doc, "runtime") == []
    [timer] = findings(doc, "timers", "ok")
    assert "cron (crontab)" in timer and "it fires (last scan 30 s ago)" in timer


def test_an_agent_not_on_path_is_attention_not_all_well(cli, workspace, bins, tight):
    create(cli, workspace, "--agent", "claude")
    # The timer's scan, on a PATH without claude: nothing starts, the heartbeat is renewed.
    r = cli("alice-schedule", "scan", "--json", env={"ALICE_NOW": T0, "PATH": "/usr/bin:/bin",
                                                    "OPENALICE_SCAN_TIMER": "cron"})
    assert [s["reason"] for s in r.json()["skipped"]] == ["agent_not_installed"]
    doc = doctor(cli, bins["cron_on"])                     # claude is not on this PATH
    assert doc["ok"] is False
    # No agent CLI at all on this PATH: that alone needs attention (issue 22), and the issue cannot run.
    assert [f["check"] for f in doc["findings"] if f["status"] == "attention"] == ["agents", "runtime"]
    [message] = findings(doc, "runtime", "attention")
    assert message.startswith("test-ws/job: cannot run here: agent 'claude': 'claude' is not on PATH")


def test_a_missing_credential_is_attention(cli, workspace, bins, tight):
    create(cli, workspace, "--agent", "claude", "--credential", "gone")
    scan(cli, bins)
    doc = doctor(cli, bins["agents"], bins["cron_on"])
    [message] = findings(doc, "runtime", "attention")
    assert "credential 'gone' is not in the vault" in message and doc["ok"] is False


def test_every_failing_run_is_attention(cli, workspace, bins, tight):
    create(cli, workspace, "--agent", "claude")
    scan(cli, bins, OPENALICE_TEST_LAUNCH="none")
    from openalice.runs import admission, tasks

    [run] = tasks.list_tasks(limit=5)
    tasks.update_task(run["taskId"], {"status": "failed", "exitCode": 1, "processStarted": True})
    admission.release(run["taskId"])
    doc = doctor(cli, bins["agents"], bins["cron_on"], ANTHROPIC_API_KEY="sk-ant-x")  # a native login
    [message] = findings(doc, "schedule", "attention")
    assert "test-ws/job: last run failed: The agent exited with code 1." in message
    assert f"logs: {tasks.task_dir(run['taskId']) / 'stderr.log'}" in message
    assert f"alice-schedule run {run['taskId']}" in message and doc["ok"] is False


def test_a_schedule_that_never_fires_is_attention(cli, workspace, bins, tight):
    (workspace / ".alice" / "issues" / "odd.md").write_text(
        "---\ntitle: Odd\nwhen: {kind: every, every: soon}\nagent: claude\n---\n\nGo.\n")
    scan(cli, bins)
    doc = doctor(cli, bins["agents"], bins["cron_on"], ANTHROPIC_API_KEY="sk-ant-x")
    [message] = findings(doc, "schedule", "attention")
    assert message.startswith("test-ws/odd: blocked: ") and "every" in message


def test_an_invalid_issue_file_is_attention(cli, workspace, bins, tight):
    (workspace / ".alice" / "issues" / "bad.md").write_text("---\ntitle: [unclosed\n---\n")
    scan(cli, bins)
    doc = doctor(cli, bins["agents"], bins["cron_on"])
    assert any("test-ws/bad: invalid issue file" in m for m in findings(doc, "schedule", "attention"))


def test_an_installed_timer_that_never_fired_is_attention(cli, workspace, bins, tight):
    create(cli, workspace, "--agent", "claude")
    doc = doctor(cli, bins["agents"], bins["cron_on"])
    [message] = findings(doc, "timers", "attention")
    assert "it has not started a scan yet" in message and "cron.log" in message
    assert "it fires" not in str(doc["findings"])


def test_a_manual_scan_does_not_make_a_timer_fire(cli, workspace, bins, tight):
    """A scan started by hand 30 s ago: the installed line has still never fired, and without
    a timer "scans are running" is not ok either."""
    create(cli, workspace, "--agent", "claude")
    scan(cli, bins, OPENALICE_TEST_LAUNCH="none")                      # by hand, at T0
    doc = doctor(cli, bins["agents"], bins["cron_on"])
    [message] = findings(doc, "timers", "attention")
    assert "it has not started a scan yet" in message
    assert "the last scan (30 s ago) was started by hand, not by the timer" in message
    assert findings(doc, "timers", "ok") == [] and doc["ok"] is False
    without = doctor(cli, bins["agents"], bins["cron_off"])
    [message] = findings(without, "timers", "attention")
    assert "1 scheduled issue(s) but no scan timer for this home" in message
    assert "the last scan (30 s ago) was started by hand" in message and without["ok"] is False


def test_another_homes_crontab_line_is_not_ours(cli, workspace, bins, tight, tmp_path, isolated_homes):
    create(cli, workspace, "--agent", "claude")
    scan(cli, bins, OPENALICE_TEST_LAUNCH="none", OPENALICE_SCAN_TIMER="cron")  # even a timer's scan here
    doc = doctor(cli, bins["agents"], bins["cron_other"])
    [message] = findings(doc, "timers", "attention")
    assert "no scan timer for this home" in message
    assert f"cron (crontab) scans {tmp_path / 'another-home'}, not this one ({isolated_homes['OPENALICE_HOME']})" \
        in message, message
    assert findings(doc, "timers", "ok") == [] and doc["ok"] is False
    # A line without OPENALICE_HOME scans ~/.openalice, which is not this (temporary) home either.
    crontab_listing(bins["cron_other"], None)
    [message] = findings(doctor(cli, bins["agents"], bins["cron_other"]), "timers", "attention")
    assert f"scans {os.path.realpath(Path(isolated_homes['HOME']) / '.openalice')}" in message, message


def test_a_line_from_an_older_version_says_to_write_it_again(cli, workspace, bins, tight, isolated_homes):
    crontab_listing(bins["cron_on"], str(isolated_homes["OPENALICE_HOME"]), mark=False)
    scan(cli, bins)
    [message] = findings(doctor(cli, bins["agents"], bins["cron_on"]), "timers", "attention")
    assert "written by an older version whose scans are not marked" in message
    assert "alice-schedule install-timer --cron --write" in message


def test_a_heartbeat_older_than_two_periods_is_attention(cli, workspace, bins, tight):
    create(cli, workspace, "--agent", "claude")
    scan(cli, bins, OPENALICE_TEST_LAUNCH="none", OPENALICE_SCAN_TIMER="cron")   # the timer's, at T0
    fresh = doctor(cli, bins["agents"], bins["cron_on"], now="2026-03-02T09:02:00Z")  # exactly 2 periods
    assert findings(fresh, "timers", "attention") == []
    scan(cli, bins, now="2026-03-02T09:02:30Z")                                  # by hand, later
    doc = doctor(cli, bins["agents"], bins["cron_on"], now=T0_PLUS_3MIN)
    [message] = findings(doc, "timers", "attention")
    assert "the last scan it started was 3 min ago" in message and "not firing" in message
    assert "the last scan (30 s ago) was started by hand" in message


def test_scheduled_issues_without_a_timer_are_attention(cli, workspace, bins, tight):
    create(cli, workspace, "--agent", "claude")
    doc = doctor(cli, bins["agents"], bins["cron_off"])
    [message] = findings(doc, "timers", "attention")
    assert "1 scheduled issue(s) but no scan timer for this home" in message
    # Nothing scheduled: nothing to run, so only worth knowing.
    (workspace / ".alice" / "issues" / "job.md").unlink()
    assert findings(doctor(cli, bins["agents"], bins["cron_off"]), "timers", "info")


def test_systemd_and_launchd_timers_are_found(cli, isolated_homes, bins, tight):
    home = Path(isolated_homes["HOME"])
    assert cli("alice-schedule", "install-timer", "--systemd", "--write").returncode == 0
    assert cli("alice-schedule", "install-timer", "--launchd", "--write").returncode == 0
    doc = doctor(cli, bins["agents"], bins["cron_off"])
    [message] = findings(doc, "timers", "attention")  # installed (for this home), never fired
    assert "it has not started a scan yet" in message and "another home" not in message, message
    assert f"systemd ({home}/.config/systemd/user/openalice-schedule.timer)" in message
    assert f"launchd ({home}/Library/LaunchAgents/dev.openalice.schedule.plist)" in message
    assert "journalctl --user -u openalice-schedule.service" in message
    # Fired by the systemd timer's scan: it fires; the same units written for another home do not.
    scan(cli, bins, now=T0_PLUS_30S, OPENALICE_SCAN_TIMER="systemd")
    [message] = findings(doctor(cli, bins["agents"], bins["cron_off"]), "timers", "ok")
    assert "it fires (last scan 0 s ago)" in message, message
    other = {"OPENALICE_HOME": str(home / "other-home")}
    assert cli("alice-schedule", "install-timer", "--systemd", "--write", env=other).returncode == 0
    assert cli("alice-schedule", "install-timer", "--launchd", "--write", env=other).returncode == 0
    [message] = findings(doctor(cli, bins["agents"], bins["cron_off"]), "timers", "info")
    assert f"scans {home / 'other-home'}, not this one" in message, message


def test_adapter_down_is_attention_healthy_is_ok(cli, bins, tight, tmp_path):
    wrappers = tmp_path / "cat" / "wrappers"
    wrappers.mkdir(parents=True)
    write_stub(wrappers, "good.sh", "healthy")
    write_stub(wrappers, "down.sh", "down-leaky")
    catalog = write_catalog(tmp_path / "cat", [adapter("good", "wrappers/good.sh", health=True),
                                               adapter("down", "wrappers/down.sh", health=True)])
    env = {"HARNESS_CATALOG": str(catalog)}
    for ident in ("good", "down"):
        assert cli("harness-adapter", "enable", ident, env=env).returncode == 0
    doc = doctor(cli, bins["agents"], bins["cron_off"], **env)
    assert findings(doc, "adapters", "ok") == ["good: healthy"]
    [down] = findings(doc, "adapters", "attention")
    assert down.startswith("down: down") and "sk-LEAKED" not in down


# -- native logins (issue 22) ------------------------------------------------------------------------------

def claude_standin(directory: Path, logged_in: bool) -> Path:
    """A claude that answers --version and `auth status --json` (as 2.1.197 does)."""
    directory.mkdir(exist_ok=True)
    status = ("echo '{\"loggedIn\": true, \"authMethod\": \"claude.ai\"}'" if logged_in else
              "echo '{\"loggedIn\": false, \"authMethod\": \"none\"}'; exit 1")
    (directory / "claude").write_text(f"#!/bin/sh\ncase \"$1\" in\n  --version) echo '2.1.197 (Claude Code)';;\n"
                                      f"  auth) {status};;\nesac\n")
    (directory / "claude").chmod(0o755)
    return directory


def test_no_agent_cli_at_all_needs_attention(cli, bins, tight):
    doc = doctor(cli, bins["cron_on"])
    assert doc["ok"] is False
    [message] = findings(doc, "agents", "attention")
    assert message.startswith("no agent CLI found on PATH (claude, codex, opencode, pi)")
    assert findings(doctor(cli, bins["agents"], bins["cron_on"]), "agents", "attention") == []  # one is enough


def test_a_native_agent_without_a_login_is_attention_and_health_says_blocked(cli, workspace, bins, tight, tmp_path):
    create(cli, workspace, "--agent", "claude")
    standin = claude_standin(tmp_path / "claude-out", logged_in=False)
    doc = doctor(cli, standin, bins["cron_on"])
    [login_finding] = findings(doc, "login", "attention")
    assert login_finding.startswith("claude: not logged in (`claude auth status --json`: loggedIn false)")
    assert "run `claude auth login`" in login_finding and "alice credential add" in login_finding
    [runtime] = findings(doc, "runtime", "attention")
    assert "test-ws/job: cannot run here: agent 'claude' is not logged in" in runtime
    path = os.pathsep.join([str(standin), "/usr/bin", "/bin"])
    health = cli("alice-schedule", "health", "--json", env={"PATH": path, "ALICE_NOW": T0}).json()
    [entry] = health["issues"]
    assert entry["state"] == "blocked" and entry["blocker"]["reason"] == "not_logged_in", entry
    assert entry["login"]["state"] == "logged_out"
    assert Validator(resources.schema("schedule-health")).errors(health) == []
    # A key variable the run will inherit is a login: health and doctor agree it is ready.
    health = cli("alice-schedule", "health", "--json",
                 env={"PATH": path, "ALICE_NOW": T0, "ANTHROPIC_API_KEY": "sk-ant-x"}).json()
    assert health["issues"][0]["state"] != "blocked" and health["issues"][0]["login"]["state"] == "logged_in"


def test_a_logged_in_native_agent_is_ok(cli, workspace, bins, tight, tmp_path):
    create(cli, workspace, "--agent", "claude")
    doc = doctor(cli, claude_standin(tmp_path / "claude-in", logged_in=True), bins["cron_on"])
    [login_finding] = findings(doc, "login", "ok")
    assert login_finding.startswith("claude: logged in natively: `claude auth status --json`: logged in")
    assert findings(doc, "runtime") == [] and findings(doc, "schedule", "ok") == [
        "test-ws/job: ready (claude is logged in: `claude auth status --json`: logged in (claude.ai))"]


def test_a_failed_comment_delivery_is_attention(cli, workspace, bins, tight):
    import json

    r = cli("alice", "issue", "create", "--title", "Talk", "--id", "talk", "--assignee",
            "@resume-calm-amber-river-aaaaaa", cwd=workspace, env={"ALICE_NOW": T0})
    assert r.returncode == 0, r
    (workspace / ".alice" / "issues" / "talk.comments.json").write_text(json.dumps({
        "version": 1, "issueId": "talk", "comments": [
            {"id": "c-1", "author": "human", "at": T0, "markdown": "ping",
             "delivery": {"state": "failed", "targetResumeId": "resume-calm-amber-river-aaaaaa",
                          "taskId": "run-AAAAAAAA", "error": "not_logged_in: claude is not logged in",
                          "failedAt": T0}}]}))
    doc = doctor(cli, bins["agents"], bins["cron_on"])
    [message] = findings(doc, "schedule", "attention")
    assert "test-ws/talk: comment c-1 was not delivered: not_logged_in" in message
    assert "alice issue redeliver c-1" in message and doc["ok"] is False
