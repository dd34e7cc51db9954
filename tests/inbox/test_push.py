"""Push: target workspace, origin stamping (item 57 adapted), journal fact."""


import pytest

from openalice import inbox, journal, workspaces
from openalice.core.errors import Forbidden, InvalidInput

from .conftest import T0

RUN = "run-AbCd_123"


def task(ws_id, **extra):
    record = {"taskId": RUN, "resumeId": "resume-calm-oak-fox-a1b2c3", "workspaceId": ws_id,
              "agent": "claude", "status": "running",
              "trigger": {"kind": "issue", "workspaceId": ws_id, "issueId": "nightly",
                          "fire": "schedule"}}
    record.update(extra)
    return record


def run_env(ws_id, resume="resume-calm-oak-fox-a1b2c3"):
    env = {"ALICE_RUN_ID": RUN, "ALICE_WORKSPACE_ID": ws_id}
    if resume:
        env["ALICE_RESUME_ID"] = resume
    return env


def test_outside_a_run_the_origin_is_manual(ws):
    assert inbox.stamp_origin(ws, env={}, find_task=lambda _id: pytest.fail("no lookup")) == \
        {"kind": "manual"}


def test_known_run_gives_a_headless_origin(ws):
    origin = inbox.stamp_origin(ws, env=run_env(ws.id), find_task={RUN: task(ws.id)}.get)
    assert origin == {"kind": "headless", "runId": RUN, "resumeId": "resume-calm-oak-fox-a1b2c3",
                      "issueId": "nightly", "issueWorkspaceId": ws.id, "agent": "claude"}
    # a manual run-now task has no trigger: no issue fields
    origin = inbox.stamp_origin(ws, env=run_env(ws.id, resume=None),
                                find_task={RUN: task(ws.id, trigger=None)}.get)
    assert origin == {"kind": "headless", "runId": RUN, "resumeId": "resume-calm-oak-fox-a1b2c3",
                      "agent": "claude"}


@pytest.mark.parametrize("case", ["unknown", "no-registry", "other-ws", "env-ws-mismatch",
                                  "resume-mismatch", "task-id-mismatch", "registry-broken",
                                  "partial-env"])
def test_anything_doubtful_inside_a_run_gives_no_origin_never_manual(ws, case):
    env = run_env(ws.id)
    lookup = {RUN: task(ws.id)}.get
    if case == "unknown":
        lookup = {}.get
    elif case == "no-registry":
        lookup = None
    elif case == "other-ws":
        lookup = {RUN: task("elsewhere")}.get
    elif case == "env-ws-mismatch":
        env["ALICE_WORKSPACE_ID"] = "elsewhere"
    elif case == "resume-mismatch":
        env["ALICE_RESUME_ID"] = "resume-other-1"
    elif case == "task-id-mismatch":
        lookup = lambda _id: task(ws.id, taskId="run-someone")
    elif case == "registry-broken":
        def lookup(_id):
            raise OSError("registry unreadable")
    elif case == "partial-env":
        del env["ALICE_WORKSPACE_ID"]
    warnings = []
    assert inbox.stamp_origin(ws, env=env, find_task=lookup, warn=warnings.append) is None
    assert (case == "registry-broken") == bool(warnings)


def test_the_real_lookup_never_forges_an_origin_for_an_unknown_run(ws):
    """The task registry exists: a run id it never issued is still unknown."""
    from openalice.inbox.push import default_task_lookup

    assert default_task_lookup() is not None
    assert inbox.stamp_origin(ws, env={**run_env(ws.id), "ALICE_RUN_ID": "run-NeVeR000"}) is None


def test_a_run_may_only_publish_to_its_own_workspace(ws, tmp_path):
    other, _ = workspaces.init(tmp_path / "other", now=T0)
    env = run_env(ws.id)
    assert inbox.target_workspace(None, env=env).id == ws.id
    assert inbox.target_workspace(ws.id, env=env).id == ws.id
    assert inbox.target_workspace(str(ws.root), env=env).id == ws.id
    with pytest.raises(Forbidden) as err:
        inbox.target_workspace(other.id, env=env)
    assert err.value.exit_code == 4 and err.value.code == "cross_workspace"
    # outside a run: the cwd decides, or --workspace
    assert inbox.target_workspace(None, env={}, cwd=other.root).id == other.id
    assert inbox.target_workspace(other.id, env={}, cwd=ws.root).id == other.id


def test_push_records_inbox_received_after_the_entry(ws, store):
    (ws.root / "r").mkdir()
    (ws.root / "r" / "a.md").write_text("x")
    origin = {"kind": "headless", "runId": RUN, "resumeId": "resume-x", "agent": "codex"}
    result = inbox.push("## Nightly close\nAll green [[r/a.md]] [[r/b.md]]", workspace=ws,
                        origin=origin, now=T0, store=store)
    facts = journal.read_after(0)["entries"]
    assert len(facts) == 1 and result.journal_seq == facts[0]["seq"] == 1
    assert facts[0]["type"] == "inbox.received" and facts[0]["ts"] == "2026-11-30T09:00:00Z"
    assert facts[0]["payload"] == {
        "workspaceId": ws.id, "inboxEntryId": result.entry["id"], "workspaceLabel": "Desk",
        "originKind": "headless", "taskId": RUN, "resumeId": "resume-x", "agent": "codex",
        "summary": "Nightly close", "documentCount": 2}


def test_a_journal_failure_never_fails_the_push(ws, store, capsys):
    from openalice.core import paths

    state = paths.state_dir()
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text("not a directory")  # the journal cannot be opened
    result = inbox.push("still published", workspace=ws, origin=None, now=T0, store=store)
    assert result.journal_seq is None
    assert store.get(result.entry["id"]).record["body"] == "still published"
    assert "activity journal not updated (inbox.received)" in capsys.readouterr().err


def test_summary():
    assert inbox.summary_of("\n\n  ### Title here  \nrest") == "Title here"
    assert inbox.summary_of("x" * 300) == "x" * 199 + "…"
    assert len(inbox.summary_of("y" * 300)) == 200


def test_body_limits(ws, store):
    with pytest.raises(InvalidInput) as err:
        inbox.push("x" * (inbox.MAX_BODY_BYTES + 1), workspace=ws, origin=None, now=T0,
                   store=store)
    assert err.value.code == "too_large"
    assert inbox.push("x" * inbox.MAX_BODY_BYTES, workspace=ws, origin=None, now=T0,
                      store=store).entry
