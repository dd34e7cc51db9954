"""One story for secrets (issue 22 item 6): ``alice credential`` and ``harness-adapter
list|show`` each say where the other store is and what feeds what, an adapter whose
vendor key is in the vault says how to link it, and ``set-secret --from-vault`` copies
the key inside the toolkit (a canary never reaches argv, output or any other file)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.helpers.schemas import conforms

CANARY = "sk-ant-CANARY-stores-5e4d3c2b1a"
LINK = "harness-adapter set-secret claude ANTHROPIC_API_KEY --from-vault anthro-1"


@pytest.fixture
def outputs():
    return []


@pytest.fixture
def run(cli, outputs):
    def run(*args, input=None, expect=0):
        r = cli(*args, input=input)
        outputs.append(r.stdout + r.stderr)
        assert r.returncode == expect, r
        return r
    return run


@pytest.fixture
def vault_key(run):
    r = run("alice", "credential", "add", "anthro-1", "--vendor", "anthropic", input=CANARY + "\n")
    return r


def test_each_store_names_the_other_and_the_link(run, vault_key, isolated_homes):
    vault = Path(isolated_homes["OPENALICE_HOME"]) / "vault"
    env_dir = Path(isolated_homes["HARNESS_HOME"]) / "env"
    added = vault_key.stdout
    assert f"the vault ({vault}) feeds the runs the scheduler starts" in added
    assert f"read their own env files ({env_dir}), not the vault" in added
    assert f"adapter claude: ANTHROPIC_API_KEY is not set in its env file; link this key with: {LINK}" in added

    listed = conforms("credential-list", run("alice", "credential", "list", "--json").json())
    assert listed["secretStores"]["vault"]["path"] == str(vault)
    assert listed["secretStores"]["adapterEnvFiles"]["path"] == str(env_dir)
    assert "scheduler" in listed["secretStores"]["vault"]["feeds"]
    assert "wrappers" in listed["secretStores"]["adapterEnvFiles"]["feeds"]
    assert {(l["adapter"], l["key"]) for l in listed["adapterLinks"]} == {
        ("claude", "ANTHROPIC_API_KEY"), ("opencode", "ANTHROPIC_API_KEY"), ("pi", "ANTHROPIC_API_KEY")}
    assert "link 'anthro-1' with: " + LINK in run("alice", "credential", "list").stdout

    text = run("harness-adapter", "list").stdout
    assert f"the adapter env files ({env_dir}, harness-adapter set-secret) feed the catalog wrappers" in text
    assert f"the vault ({vault}, alice credential) feeds the runs the scheduler starts" in text
    assert ("claude: ANTHROPIC_API_KEY is missing here, but the vault holds anthropic credential 'anthro-1': "
            f"link it with '{LINK}'") in text
    items = {d["id"]: d for d in conforms("adapter-list", run("harness-adapter", "list", "--json").json())}
    assert items["claude"]["vaultLinks"] == [{"key": "ANTHROPIC_API_KEY", "credential": "anthro-1",
                                              "vendor": "anthropic", "command": LINK}]
    assert items["codex"]["vaultLinks"] == []          # an OpenAI key: the vault has none
    show = run("harness-adapter", "show", "claude")
    assert "feeds the runs the scheduler starts" in show.stdout and LINK in show.stdout
    conforms("adapter-descriptor", run("harness-adapter", "show", "claude", "--json").json())


def test_without_a_vault_key_the_stores_are_still_explained(run):
    assert "feeds the runs the scheduler starts" in run("harness-adapter", "show", "claude").stdout
    text = run("alice", "credential", "list").stdout
    assert text.startswith("no credentials") and "not the vault" in text
    assert run("harness-adapter", "show", "claude", "--json").json()["vaultLinks"] == []


def test_from_vault_writes_the_env_file_inside_the_toolkit(run, vault_key, isolated_homes, outputs):
    home = Path(isolated_homes["HARNESS_HOME"])
    r = run("harness-adapter", "set-secret", "claude", "--from-vault", "anthro-1", "--json")
    d = conforms("adapter-descriptor", r.json())
    assert d["linked"] == {"key": "ANTHROPIC_API_KEY", "credential": "anthro-1", "vendor": "anthropic"}
    assert d["secrets"]["ANTHROPIC_API_KEY"] == "set"
    env_file = home / "env" / "CLAUDE.env"
    assert env_file.read_text() == f"ANTHROPIC_API_KEY='{CANARY}'\n"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(env_file.parent.stat().st_mode) == 0o700
    # Linked: no longer offered; again without --force is refused (nothing replaced), with it fine.
    assert run("harness-adapter", "show", "claude", "--json").json()["vaultLinks"] == []
    again = run("harness-adapter", "set-secret", "claude", "--from-vault", "anthro-1", "--json", expect=2)
    assert again.json()["error"]["code"] == "secret_exists"
    human = run("harness-adapter", "set-secret", "claude", "--from-vault", "anthro-1", "--force")
    assert "replaced for claude" in human.stdout and "from vault credential 'anthro-1'" in human.stdout
    # An explicit KEY for another declared key of a multi-key adapter.
    run("harness-adapter", "set-secret", "opencode", "ANTHROPIC_API_KEY", "--from-vault", "anthro-1")
    assert (home / "env" / "OPENCODE.env").read_text() == f"ANTHROPIC_API_KEY='{CANARY}'\n"
    # The canary is in the vault's key file and the two env files, nowhere else: not on any
    # output, not in any other file of either home.
    assert not [o for o in outputs if CANARY in o]
    holders = sorted(str(p.relative_to(root)) for root in map(Path, (isolated_homes["OPENALICE_HOME"],
                                                                    isolated_homes["HARNESS_HOME"]))
                     for p in root.rglob("*") if p.is_file() and CANARY.encode() in p.read_bytes())
    assert holders == ["env/CLAUDE.env", "env/OPENCODE.env", "vault/secrets/anthro-1.env"], holders


def test_from_vault_refusals(run, vault_key, cli):
    def refused(*args, code):
        r = run("harness-adapter", "set-secret", *args, "--json", expect=2)
        assert r.json()["error"]["code"] == code, r.json()
    refused("codex", "--from-vault", "anthro-1", code="no_key_for_vendor")   # codex takes an OpenAI key
    refused("claude", "--from-vault", "nobody", code="credential_not_found")
    refused("claude", "--from-vault", "Bad Slug", code="bad_slug")
    run("alice", "credential", "add", "sub-1", "--vendor", "anthropic", "--auth", "subscription",
        input="sk-ant-oat-CANARY-sub\n")
    refused("claude", "--from-vault", "sub-1", code="vault_credential_not_a_key")
    r = run("harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY", "sk-ant-typed", expect=2)
    assert "never taken from the command line" in r.stderr
    assert not (Path(os.environ["HARNESS_HOME"]) / "env" / "CLAUDE.env").exists()
