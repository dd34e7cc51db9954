"""A connector that gave up on an entry shows in health and in the doctor."""

from __future__ import annotations

from tests.helpers.schemas import conforms

from .conftest import TOKEN

LATER = "2026-12-02T12:00:00Z"


def test_given_up_entries_show_in_health_and_doctor_then_retry(cli, telegram, workspace):
    r = cli("alice", "connector", "add", "telegram", "phone", "--chat-id", "111",
            "--api-base", telegram.api_base, input=TOKEN)
    assert r.returncode == 0, r
    cli("alice", "inbox", "push", "--workspace", str(workspace), "--body", "lost?",
        env={"ALICE_NOW": "2026-12-01T09:00:00Z"})
    telegram.fail("sendMessage", 500, times=1000)
    r = cli("alice", "connector", "deliver", "--json", env={"ALICE_NOW": "2026-12-01T09:00:00Z"})
    assert r.json()["connectors"][0]["status"] == "retrying"
    r = cli("alice-schedule", "health", "--json", env={"ALICE_NOW": "2026-12-01T09:00:05Z"})
    doc = conforms("schedule-health", r.json())
    assert doc["connectors"][0]["state"] == "retrying"
    # a day later, the next failure gives up
    r = cli("alice", "connector", "deliver", "--json", env={"ALICE_NOW": LATER})
    assert r.json()["connectors"][0]["failed"] == 1, r
    r = cli("alice-schedule", "health", "--json", env={"ALICE_NOW": LATER})
    [c] = conforms("schedule-health", r.json())["connectors"]
    assert c["state"] == "failed" and "500" in c["message"] and c["failed"] == 1
    r = cli("alice-schedule", "health", env={"ALICE_NOW": LATER})
    assert "connector phone: failed" in r.stdout
    r = cli("alice", "doctor", "--json", env={"ALICE_NOW": LATER})
    doc = conforms("doctor", r.json())
    [finding] = [f for f in doc["findings"] if f["check"] == "connectors"]
    assert finding["status"] == "attention" and finding["subject"] == "phone"
    assert TOKEN not in r.stdout
    # the person fixes the cause and asks for the entry again
    telegram.failures.clear()
    r = cli("alice", "connector", "deliver", "phone", "--retry-failed", "--json",
            env={"ALICE_NOW": LATER})
    assert r.json()["connectors"][0]["sent"] == 1, r
    assert [c["params"]["text"] for c in telegram.sent()] == ["lost?"]
    r = cli("alice-schedule", "health", "--json", env={"ALICE_NOW": LATER})
    assert r.json()["connectors"][0]["state"] == "ok"
