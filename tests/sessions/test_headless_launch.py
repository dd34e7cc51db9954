"""A scheduled run is a launch too: it records the session's surface of birth, its last launch
and the workspace's recent headless choice, and a later interactive open resumes the same
engine conversation the scheduled run started."""

from __future__ import annotations

import json

from tests.e2e.test_runs_engines import T0, create_issue, env_for, scan, wait_run
from tests.runs.standins import StandIns, fixtures_dir

from .interactive_standins import InteractiveStandIns


def test_a_scheduled_run_records_birth_launch_and_recent_choice(cli, workspace, tmp_path):
    engines = StandIns(tmp_path / "standin-bin", fixtures_dir())
    create_issue(cli, workspace, "--every", "1m", "--agent", "codex", "--model", "fake-model", "--effort", "high",
                 "--assignee", "@new-then-resume")
    [fired] = scan(cli, engines, T0)
    run = wait_run(cli, fired["taskId"])
    assert run["task"]["status"] == "done", run

    listed = cli("alice", "session", "list", "--json", cwd=workspace, env=env_for(engines, T0)).json()
    [session] = listed["sessions"]
    assert session["bornOn"] == "headless"
    assert session["lastLaunch"]["surface"] == "headless" and session["lastLaunch"]["exitStatus"] == 0
    assert session["nativeSessionId"] == run["task"]["agentSessionId"]
    settings = json.loads((workspace / ".alice" / "settings.json").read_text())
    assert settings["runtime"]["headless"]["recent"] == {
        "agent": "codex", "agents": {"codex": {"accessMode": "native", "model": "fake-model",
                                               "reasoningEffort": "high"}}}

    interactive = InteractiveStandIns(tmp_path / "interactive")
    opened = cli("alice", "session", "open", session["resumeId"], cwd=workspace,
                 env={"ALICE_NOW": T0, "PATH": interactive.path_env()})
    assert opened.returncode == 0, opened
    [call] = interactive.calls()
    assert call["argv"][0] == "resume" and call["resumed"] == session["nativeSessionId"], \
        "the person continues the conversation the scheduled run had"
