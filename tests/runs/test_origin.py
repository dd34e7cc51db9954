"""The one door through which the inbox learns about a run (its origin stamp)."""

from openalice import inbox
from openalice.runs import origin

from .test_supervisor import new_task


def test_run_for_origin_gives_only_the_fields_an_origin_may_name(registry, ws):
    tasks, _ = registry
    task_id = new_task(tasks, ws)
    tasks.update_task(task_id, {"resumeId": "resume-abc123", "agent": "codex"})
    facts = origin.run_for_origin(task_id)
    assert facts == {"taskId": task_id, "workspaceId": ws.id, "resumeId": "resume-abc123",
                     "agent": "codex", "trigger": tasks.load_task(task_id)["trigger"]}
    assert "prompt" not in facts
    assert origin.run_for_origin("run-nothere") is None


def test_the_inbox_stamps_a_real_run_through_it(registry, ws):
    tasks, _ = registry
    task_id = new_task(tasks, ws, issue_id="weekly")
    tasks.update_task(task_id, {"resumeId": "resume-abc123", "agent": "claude"})
    env = {"ALICE_RUN_ID": task_id, "ALICE_WORKSPACE_ID": ws.id, "ALICE_RESUME_ID": "resume-abc123"}
    assert inbox.stamp_origin(ws, env=env) == {
        "kind": "headless", "runId": task_id, "resumeId": "resume-abc123", "issueId": "weekly",
        "issueWorkspaceId": ws.id, "agent": "claude"}
