"""``alice connector ...`` through the installed tool: records, schemas, errors, secrets."""

from __future__ import annotations

import json
import os
import stat

from tests.helpers.schemas import conforms

from .conftest import SIGNING, TOKEN


def add_phone(cli, telegram, *extra, name="phone"):
    return cli("alice", "connector", "add", "telegram", name, "--chat-id", "111",
               "--api-base", telegram.api_base, *extra, "--json", input=TOKEN + "\n")


def test_add_list_show_enable_disable_remove(cli, telegram, isolated_homes):
    r = add_phone(cli, telegram)
    assert r.returncode == 0, r
    doc = conforms("connector-change", r.json())
    assert doc["connector"]["hasSecret"] is True and doc["connector"]["kind"] == "telegram"
    home = isolated_homes["OPENALICE_HOME"]
    record = home / "connectors" / "phone.json"
    conforms("connector", json.loads(record.read_text()))
    conforms("connector-state", json.loads((home / "state" / "connectors" / "phone" /
                                            "state.json").read_text()))
    secret = home / "vault" / "connectors" / "phone.env"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert stat.S_IMODE(secret.parent.stat().st_mode) == 0o700
    assert TOKEN in secret.read_text() and TOKEN not in record.read_text()

    r = cli("alice", "connector", "list", "--json")
    assert r.returncode == 0, r
    assert [c["name"] for c in conforms("connector-list", r.json())["connectors"]] == ["phone"]
    r = cli("alice", "connector", "show", "phone", "--json")
    conforms("connector-show", r.json())
    r = cli("alice", "connector", "disable", "phone", "--json")
    assert conforms("connector-change", r.json())["connector"]["enabled"] is False
    r = cli("alice", "connector", "enable", "phone", "--json")
    assert r.json()["connector"]["enabled"] is True
    r = cli("alice", "connector", "list")
    assert r.returncode == 0 and "phone  telegram" in r.stdout
    r = cli("alice", "connector", "remove", "phone", "--json")
    assert conforms("connector-change", r.json())["removed"] is True
    assert not record.exists() and not secret.exists()
    r = cli("alice", "connector", "show", "phone", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "unknown_connector"


def test_test_says_what_the_other_side_answered(cli, telegram):
    add_phone(cli, telegram)
    r = cli("alice", "connector", "test", "phone", "--json")
    assert r.returncode == 0, r
    doc = conforms("connector-test", r.json())
    assert doc["ok"] is True and doc["answer"].startswith("message ")
    assert telegram.sent()[0]["params"]["text"].startswith("OpenAlice: test message")
    telegram.fail("sendMessage", 502)
    r = cli("alice", "connector", "test", "phone", "--json")
    assert r.returncode == 3
    doc = conforms("connector-test", r.json())
    assert doc["ok"] is False and "502" in doc["answer"] and doc["error"]["code"] == "send_failed"
    assert TOKEN not in r.stdout + r.stderr


def test_a_malformed_record_is_named_and_the_others_still_listed(cli, telegram, isolated_homes):
    add_phone(cli, telegram)
    bad = isolated_homes["OPENALICE_HOME"] / "connectors" / "broken.json"
    bad.write_text(json.dumps({"version": 1, "name": "broken", "kind": "pager", "enabled": True,
                               "workspaces": []}))
    r = cli("alice", "connector", "list", "--json")
    assert r.returncode == 2
    doc = conforms("connector-list", r.json())
    assert [c["name"] for c in doc["connectors"]] == ["phone"]
    assert doc["problems"][0]["file"] == str(bad) and doc["problems"][0]["field"] == "kind"
    r = cli("alice", "connector", "list")
    assert r.returncode == 2 and str(bad) in r.stdout
    r = cli("alice", "connector", "show", "broken")
    assert r.returncode == 2 and str(bad) in r.stderr and "kind" in r.stderr


def test_bad_input_is_exit_2_and_changes_nothing(cli, isolated_homes):
    home = isolated_homes["OPENALICE_HOME"]
    cases = [
        (["add", "telegram", "t", "--url", "https://x.example"], "bad_option"),
        (["add", "telegram", "t"], "missing_option"),
        (["add", "webhook", "w", "--url", "http://hooks.example.com/x"], "insecure_url"),
        (["add", "webhook", "Bad_Name", "--url", "https://hooks.example.com/x"],
         "bad_connector_name"),
        (["add", "email", "m", "--smtp", "smtp.example.com:x", "--from", "a@b.c", "--to", "d@e.f"],
         "bad_connector"),
    ]
    for argv, code in cases:
        r = cli("alice", "connector", *argv, "--json", input=TOKEN)
        assert r.returncode == 2, (argv, r)
        assert r.json()["error"]["code"] == code, (argv, r)
    r = cli("alice", "connector", "add", "telegram", "t", "--chat-id", "1", "--json", input="")
    assert r.returncode == 2 and r.json()["error"]["code"] == "empty_secret"
    assert not (home / "connectors").exists() or not list((home / "connectors").glob("*.json"))


def test_secret_canaries_appear_in_no_file_output_or_log(cli, telegram, receiver, workspace,
                                                         isolated_homes):
    outputs = [add_phone(cli, telegram)]
    outputs.append(cli("alice", "connector", "add", "webhook", "hook", "--url", receiver.url,
                       "--sign", "--json", input=SIGNING))
    outputs.append(cli("alice", "inbox", "push", "--body", "report", "--workspace",
                       str(workspace)))
    telegram.fail("sendMessage", 500)
    for argv in (["deliver", "--json"], ["deliver"], ["list", "--json"], ["show", "phone"],
                 ["show", "hook", "--json"], ["test", "phone"], ["test", "hook", "--json"]):
        outputs.append(cli("alice", "connector", *argv))
    telegram.stop()
    outputs.append(cli("alice", "connector", "deliver", "phone", "--json",
                       env={"ALICE_NOW": "2030-01-01T00:00:00Z"}))
    for r in outputs:
        for canary in (TOKEN, TOKEN.split(":")[1], SIGNING):
            assert canary not in r.stdout and canary not in r.stderr, r
    allowed = {isolated_homes["OPENALICE_HOME"] / "vault" / "connectors" / f"{n}.env"
               for n in ("phone", "hook")}
    for base in (isolated_homes["OPENALICE_HOME"], workspace):
        for root, _dirs, files in os.walk(base):
            for name in files:
                path = os.path.join(root, name)
                if path in {str(p) for p in allowed}:
                    continue
                data = open(path, "rb").read()
                for canary in (TOKEN, TOKEN.split(":")[1], SIGNING):
                    assert canary.encode() not in data, path
    assert receiver.requests and all(r["valid"] for r in receiver.requests)


def test_deliver_json_and_journal_facts(cli, receiver, workspace):
    receiver.secret = None
    cli("alice", "connector", "add", "webhook", "hook", "--url", receiver.url)
    cli("alice", "inbox", "push", "--body", "the body", "--workspace", str(workspace))
    r = cli("alice", "connector", "deliver", "--json")
    assert r.returncode == 0, r
    doc = conforms("connector-deliver", r.json())
    assert doc["connectors"][0]["sent"] == 1
    r = cli("alice", "journal", "--family", "connectors", "--json")
    facts = r.json()["entries"]
    sent = [f for f in facts if f["type"] == "connector.sent"]
    assert sent and sent[0]["payload"]["connector"] == "hook" and "the body" not in json.dumps(sent)


def test_a_headless_run_cannot_add_or_remove_connectors(cli, workspace, telegram):
    run_env = {"ALICE_RUN_ID": "run-AbCdEf12", "ALICE_WORKSPACE_ID": "test-ws"}
    r = cli("alice", "connector", "add", "telegram", "phone", "--chat-id", "1", "--api-base",
            telegram.api_base, "--json", input=TOKEN, env=run_env, cwd=workspace)
    assert r.returncode == 4 and r.json()["error"]["code"] == "cross_workspace", r
    add_phone(cli, telegram)
    r = cli("alice", "connector", "remove", "phone", "--json", env=run_env, cwd=workspace)
    assert r.returncode == 4, r
    r = cli("alice", "connector", "list", "--json", env=run_env, cwd=workspace)
    assert r.returncode == 0 and r.json()["connectors"][0]["name"] == "phone"
