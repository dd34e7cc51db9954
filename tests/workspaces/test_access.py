"""The one caller rule (openalice.workspaces.access): who may write which workspace.

API matrix here; the tools are exercised end to end in tests/e2e (issue, inbox,
settings, session and credential verbs)."""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest

from openalice import workspaces
from openalice.core.errors import Forbidden
from openalice.workspaces import Access, Caller, RunEnvironment, authorize_write

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def registered(tmp_path):
    """Two registered workspaces, `home` and `other`."""
    home, _ = workspaces.init(tmp_path / "home", now=NOW)
    other, _ = workspaces.init(tmp_path / "other", now=NOW)
    return home, other


def in_run(ws_id, **kw):
    return Caller(run=RunEnvironment(run_id="run-AAAAAAAA", workspace_id=ws_id, resume_id="resume-a"), **kw)


def refused(caller, target, **kw):
    with pytest.raises(Forbidden) as err:
        authorize_write(caller, target, **kw)
    assert err.value.exit_code == 4
    return err.value


@pytest.mark.parametrize("scope", ["issues", "workspace"])
def test_a_run_writes_only_its_own_workspace(registered, tmp_path, scope):
    home, other = registered
    caller = in_run(home.id, cwd=other.path, attended=True)
    assert authorize_write(caller, home, scope=scope).mode == "run"
    assert authorize_write(caller, home.id, scope=scope).mode == "run"   # an id will do
    err = refused(caller, other, scope=scope)
    assert err.code == "cross_workspace" and err.details["runWorkspaceId"] == home.id
    assert refused(caller, home, scope=scope, approve=True).code == "approve_refused"
    assert refused(caller, other, scope=scope, approve=True).code == "approve_refused"


def test_a_run_may_not_touch_the_vault(registered):
    home, _ = registered
    err = refused(in_run(home.id), None, scope="vault")
    assert err.code == "cross_workspace" and "credential vault" in err.message
    assert authorize_write(Caller(), None, scope="vault").mode == "named"


def test_a_run_may_not_change_the_sticker_pack_library(registered):
    home, _ = registered
    err = refused(in_run(home.id), None, scope="library")
    assert err.code == "cross_workspace" and "sticker pack library" in err.message
    assert authorize_write(Caller(cwd=home.path), None, scope="library").mode == "named"


def test_a_person_inside_a_workspace_needs_attended_approval_for_another(registered, tmp_path):
    home, other = registered
    at_home = Caller(cwd=home.path)
    assert authorize_write(at_home, home, scope="issues").mode == "local"
    assert authorize_write(Caller(cwd=os.path.join(home.path, ".alice")), home,
                           scope="issues").mode == "local"
    err = refused(Caller(cwd=home.path, attended=True), other, scope="issues")
    assert err.code == "cross_workspace" and "needs --approve" in err.message
    assert refused(at_home, other, scope="issues", approve=True).code == "approve_refused"
    access = authorize_write(Caller(cwd=home.path, attended=True), other, scope="issues", approve=True)
    assert access.mode == "approved" and access.commits
    assert access.to_dict() == {"mode": "approved", "workspaceId": other.id, "commits": True}


def test_a_caller_in_no_workspace_writes_the_workspace_it_names(registered, tmp_path):
    """A person at ~, a cron job, the web gateway: no approval, no commit."""
    home, other = registered
    for caller in (Caller(cwd=str(tmp_path)), Caller(cwd=str(tmp_path), attended=True), Caller()):
        access = authorize_write(caller, other, scope="issues")
        assert (access.mode, access.commits) == ("named", False)
    # --approve still claims a person at a terminal
    assert refused(Caller(), other, scope="issues", approve=True).code == "approve_refused"


def test_other_workspace_state_is_open_to_people(registered):
    """Inbox entries, preferences and sessions: only runs are confined."""
    home, other = registered
    for caller in (Caller(cwd=home.path), Caller(), Caller(cwd=home.path, attended=True)):
        assert authorize_write(caller, other).mode == "named"
        assert authorize_write(caller, "unregistered-ws").mode == "named"


def test_of_process_reads_the_environment_and_the_directory(registered, tmp_path, monkeypatch):
    home, other = registered
    caller = Caller.of_process(env={"ALICE_RUN_ID": "run-X", "ALICE_WORKSPACE_ID": home.id},
                               cwd=other.path, attended=False)
    assert caller.run == RunEnvironment("run-X", home.id, None)
    assert caller.standing_in() == other
    # half a run environment is no run
    assert Caller.of_process(env={"ALICE_RUN_ID": "run-X"}, cwd=tmp_path).run is None
    monkeypatch.chdir(home.path)
    assert Caller.of_process(env={}).standing_in() == home


def test_scope_and_target_are_checked(registered):
    home, _ = registered
    with pytest.raises(ValueError):
        authorize_write(Caller(), home, scope="everything")
    with pytest.raises(ValueError):
        authorize_write(Caller(), None, scope="issues")
    assert isinstance(authorize_write(Caller(), home), Access)


def test_one_rule_one_code():
    """No second copy of the rule: nothing else raises the cross-workspace codes."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2] / "openalice"
    holders = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if "cross_workspace" in p.read_text() or "run_environment()" in p.read_text()
                     and "Forbidden" in p.read_text())
    assert holders == ["workspaces/access.py"], holders
