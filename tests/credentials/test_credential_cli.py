"""`alice credential ...` as a user runs it: the key from stdin, never argv."""

import json
import os
import stat

from openalice.core import resources
from openalice.core.schema import Validator

KEY = "sk-cli-secret-4242"


def test_add_from_stdin_list_remove(cli, isolated_homes):
    r = cli("alice", "credential", "add", "ds-1", "--vendor", "deepseek", "--label", "Main", "--json", input=KEY)
    assert r.returncode == 0, r
    assert KEY not in r.stdout + r.stderr
    assert Validator(resources.schema("credential")).errors(r.json()) == []
    listed = cli("alice", "credential", "list", "--json")
    assert listed.returncode == 0 and KEY not in listed.stdout
    doc = listed.json()
    assert Validator(resources.schema("credential-list")).errors(doc) == []
    assert [(c["slug"], c["hasSecret"]) for c in doc["credentials"]] == [("ds-1", True)]
    vault = isolated_homes["OPENALICE_HOME"] / "vault"
    assert Validator(resources.schema("credential-record")).errors(
        json.loads((vault / "credentials.json").read_text())) == []
    assert stat.S_IMODE(os.stat(vault / "secrets" / "ds-1.env").st_mode) == 0o600
    human = cli("alice", "credential", "list")
    header, row, *stores = human.stdout.splitlines()
    assert stores and "feeds the runs the scheduler starts" in stores[0]  # and where the other store is
    assert header.split() == ["SLUG", "VENDOR", "AUTH", "WIRES", "KEY", "LAST", "MODEL", "LABEL"]
    assert row.startswith("ds-1  deepseek  api-key") and " stored " in row and KEY not in human.stdout

    again = cli("alice", "credential", "add", "ds-1", "--vendor", "deepseek", "--json", input="other")
    assert again.returncode == 2 and again.json()["error"]["code"] == "credential_exists"
    replaced = cli("alice", "credential", "add", "ds-1", "-", "--vendor", "deepseek", "--replace", input="other\n")
    assert replaced.returncode == 0, replaced

    gone = cli("alice", "credential", "remove", "ds-1", "--json")
    assert gone.returncode == 0 and gone.json()["removed"] is True
    assert Validator(resources.schema("credential")).errors(gone.json()) == []
    assert cli("alice", "credential", "list", "--json").json()["credentials"] == []


def test_key_on_argv_is_refused(cli):
    r = cli("alice", "credential", "add", "x-1", "sk-on-the-command-line", "--vendor", "openai", "--json",
            input="")
    assert r.returncode == 2 and r.json()["error"]["code"] == "secret_in_argv"
    assert "sk-on-the-command-line" not in r.stdout


def test_empty_stdin_is_refused(cli):
    r = cli("alice", "credential", "add", "x-1", "--vendor", "openai", "--json", input="")
    assert r.returncode == 2 and r.json()["error"]["code"] == "empty_secret"


def test_override_cli(cli):
    assert cli("alice", "credential", "add", "p", "--vendor", "custom", "--wire", "openai-chat=http://127.0.0.1:9/v1",
               input="k").returncode == 0
    r = cli("alice", "credential", "override", "p", "m-1", "--context-window", "64000", "--reasoning", "on", "--json")
    assert r.returncode == 0, r
    assert r.json()["credential"]["modelOverrides"] == {"m-1": {"contextWindow": 64000, "reasoning": True}}
    assert Validator(resources.schema("credential")).errors(r.json()) == []
