"""``alice-schedule log``: one run's stderr/stdout log, redacted, as the page's
log download reads it (docs/web.md "Runs")."""

from __future__ import annotations

import pytest

from openalice.runs import tasks
from tests.helpers.schemas import conforms

pytestmark = pytest.mark.usefixtures("agent_stubs")
NO_LAUNCH = {"OPENALICE_TEST_LAUNCH": "none", "ALICE_NOW": "2026-03-02T08:00:30Z"}


def test_log_prints_the_runs_own_log_redacted_and_refuses_an_unknown_run(cli, workspace):
    def sch(*args):
        return cli("alice-schedule", *args, cwd=workspace, env=NO_LAUNCH)

    r = cli("alice", "issue", "create", "--title", "Poll", "--id", "poll", "--every", "1h",
            "--body", "Poll it", "--json", cwd=workspace, env=NO_LAUNCH)
    assert r.returncode == 0, r
    task = sch("run-now", "poll", "--json").json()["task"]["taskId"]
    directory = tasks.task_dir(task)
    directory.mkdir(parents=True, exist_ok=True)
    secret = "sk-ant-api03-" + "Q" * 40
    (directory / "stderr.log").write_text(f"boom\nkey={secret}\n")
    doc = conforms("schedule-log", sch("log", task, "--json").json())
    assert doc["stream"] == "stderr" and doc["truncated"] is False
    assert doc["content"].startswith("boom\n") and secret not in doc["content"]
    assert doc["bytes"] == len(f"boom\nkey={secret}\n")
    out = conforms("schedule-log", sch("log", task, "--stream", "stdout", "--json").json())
    assert out["content"] == "" and out["bytes"] == 0
    assert sch("log", task).stdout.startswith("boom")
    for bad in ("run-unknown0", "../x"):
        r = sch("log", bad, "--json")
        assert r.returncode == 2 and "error" in r.json()
