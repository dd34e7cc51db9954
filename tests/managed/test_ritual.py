"""The one preview-and-apply ritual (:func:`openalice.managed.apply_previewed`): the caller rule,
the checkout lease, recovery under it, the digest check, the job's refusals, the fact."""

from __future__ import annotations

import contextlib
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from openalice import managed
from openalice.core.errors import Busy, Conflict, Forbidden, InvalidInput
from openalice.journal import reader
from openalice.workspaces.checkout import checkout

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)
FRESH = "f" * 64


class Plan:
    def __init__(self, digest: str = FRESH) -> None:
        self.digest = digest
        self.recovered = None


def lease_free(ws) -> bool:
    try:
        with checkout(ws, "probe", now=NOW):
            return True
    except Busy:
        return False


def facts() -> list[dict]:
    return reader.read_after(0)["entries"]


@pytest.fixture
def ws():
    return SimpleNamespace(id="ritual-ws")


def run(ws, steps: list, *, digest=FRESH, settle=lambda p: False, **kwargs):
    """The ritual with recording steps; ``steps`` collects what ran, in order, and whether the
    checkout lease was held at that moment."""
    def step(name, value=None):
        def call(*args):
            steps.append((name, not lease_free(ws)))
            return value(*args) if callable(value) else value
        return call

    plan = Plan()
    return plan, managed.apply_previewed(
        ws, purpose="test apply", digest=digest, now=NOW,
        recover=step("recover", ["recovery"]), plan=step("plan", plan), settle=step("settle", settle),
        apply=step("apply", "applied"),
        fact=step("fact", lambda p, a: ("harness.upgraded", {"workspaceId": ws.id, "digest": p.digest})),
        **kwargs)


def test_apply_runs_every_step_in_order_under_the_lease_and_records_the_fact_after(ws):
    steps: list = []
    plan, (result, applied) = run(ws, steps)
    assert result is plan and applied == "applied"
    assert plan.recovered == ["recovery"]            # the recovery is reported on the fresh plan
    assert steps == [("recover", True), ("plan", True), ("settle", True), ("apply", True), ("fact", False)]
    [fact] = facts()
    assert fact["type"] == "harness.upgraded" and fact["payload"] == {"workspaceId": ws.id, "digest": FRESH}
    assert lease_free(ws)


def test_a_stale_digest_refuses_before_anything_is_applied(ws):
    steps: list = []
    with pytest.raises(managed.StalePlan) as caught:
        run(ws, steps, digest="a" * 64)
    err = caught.value
    assert err.code == "stale_plan" and err.details == {"digest": FRESH}
    assert str(err) == (f"the workspace changed since the preview (the plan's digest is now {FRESH[:12]}…, "
                        f"not {'a' * 12}…); preview again")
    assert [name for name, _ in steps] == ["recover", "plan"]
    assert facts() == [] and lease_free(ws)


def test_no_digest_means_nothing_to_compare(ws):
    steps: list = []
    run(ws, steps, digest=None)
    assert [name for name, _ in steps] == ["recover", "plan", "settle", "apply", "fact"]


def test_the_stale_message_names_what_changed():
    with pytest.raises(managed.StalePlan, match="^the workspace or the previewed target changed since"):
        managed.check_digest(FRESH, "b" * 64, changed="the workspace or the previewed target")
    managed.check_digest(FRESH, FRESH)   # the same digest: no error


def test_a_current_plan_applies_nothing_and_records_no_fact(ws):
    steps: list = []
    plan, (result, applied) = run(ws, steps, settle=lambda p: True)
    assert result is plan and applied is None
    assert [name for name, _ in steps] == ["recover", "plan", "settle"]
    assert facts() == []


def test_a_refusal_of_the_job_leaves_the_lease_free_and_no_fact(ws):
    def refuse(plan):
        raise Conflict("blocked here", code="blocked")

    steps: list = []
    with pytest.raises(Conflict, match="blocked here"):
        run(ws, steps, settle=refuse)
    assert [name for name, _ in steps] == ["recover", "plan", "settle"]
    assert facts() == [] and lease_free(ws)


def test_a_held_lease_is_busy_before_recovery(ws):
    steps: list = []
    with checkout(ws, "someone else", now=NOW):
        with pytest.raises(Busy) as caught:
            run(ws, steps)
    assert caught.value.code == "workspace_busy" and steps == []


def test_hold_is_entered_around_the_checkout_lease(ws):
    seen: list = []

    @contextlib.contextmanager
    def hold():
        seen.append(("enter", lease_free(ws)))
        yield
        seen.append(("exit", lease_free(ws)))

    steps: list = []
    run(ws, steps, hold=hold())
    assert seen == [("enter", True), ("exit", True)]      # outside the checkout lease on both sides
    assert [name for name, _ in steps][-1] == "fact"


def test_a_run_of_another_workspace_is_refused_before_anything(ws, monkeypatch):
    monkeypatch.setenv("ALICE_RUN_ID", "r-1")
    monkeypatch.setenv("ALICE_WORKSPACE_ID", "elsewhere")
    steps: list = []
    with pytest.raises(Forbidden) as caught:
        run(ws, steps)
    assert caught.value.code == "cross_workspace" and steps == []


def test_a_bad_resolution_path_is_refused_naming_its_flag(ws):
    steps: list = []
    with pytest.raises(InvalidInput) as caught:
        run(ws, steps, resolutions={"--keep": ["fine.md"], "--use-template": ["a\\b.md"]})
    assert caught.value.field == "--use-template" and steps == []


def test_recover_pending_takes_the_lease_only_when_something_is_pending(ws):
    calls: list = []

    def recover():
        calls.append(not lease_free(ws))
        return ["done"]

    with checkout(ws, "someone else", now=NOW):
        # nothing pending: nothing is taken, so a held lease is no obstacle
        assert managed.recover_pending(ws, purpose="p", now=NOW, pending=False, recover=recover) == []
        with pytest.raises(Busy):
            managed.recover_pending(ws, purpose="p", now=NOW, pending=True, recover=recover)
        # the caller holds it (here: "someone else" stands for the caller)
        assert managed.recover_pending(ws, purpose="p", now=NOW, pending=True, recover=recover,
                                       lease_held=True) == ["done"]
    assert managed.recover_pending(ws, purpose="p", now=NOW, pending=True, recover=recover) == ["done"]
    assert calls == [True, True] and lease_free(ws)
