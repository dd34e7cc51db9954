"""The one ``--json`` rule, checked on every verb of every tool (issue 10, point 7).

* ``--json`` is honoured wherever it is placed (``alice --json workspace list``).
* With ``--json`` stdout holds exactly one JSON document.
* Every non-zero exit has an ``"error"`` member ``{code, message, exit}`` (the
  envelope's shape); a result document (``validate``, ``health``...) keeps its
  shape and gains it.  Exit 0 never has a top-level ``"error"``.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from openalice.core.resources import schema
from openalice.core.schema import Validator
from tests.adapters.stubs import adapter, write_catalog, write_stub

NOW = "2026-03-02T08:00:30Z"
ENV = {"OPENALICE_TEST_LAUNCH": "none", "ALICE_NOW": NOW}
ERROR_MEMBER = schema("error")["properties"]["error"]


def _leaves(parser, path=()):
    import argparse

    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path
        return
    for action in subs:
        for name, child in action.choices.items():
            yield from _leaves(child, path + (name,))


def every_verb() -> list[tuple[str, tuple[str, ...]]]:
    from openalice.cli import _dispatch, alice, harness, inbox, schedule
    from openalice.cli import adapter as adapter_tool

    out = []
    for module in (alice, schedule, inbox, harness, adapter_tool):
        parser = _dispatch.ArgumentParser(prog=module.TOOL.name)
        sub = parser.add_subparsers(dest="verb")
        for module_name in dict.fromkeys(module.TOOL.verbs.values()):
            importlib.import_module(module_name).register(sub, _dispatch.common_parent())
        out.extend((module.TOOL.name, path) for path in _leaves(parser))
    return out


VERBS = every_verb()


def one_document(r):
    text = r.stdout.strip()
    assert text, f"no JSON document on stdout: {r}"
    try:
        return json.loads(text)
    except ValueError:
        raise AssertionError(f"stdout is not exactly one JSON document: {r}") from None


def follows_the_rule(r):
    doc = one_document(r)
    if r.returncode == 0:
        assert not (isinstance(doc, dict) and "error" in doc), r
        return doc
    assert isinstance(doc, dict) and isinstance(doc.get("error"), dict), r
    assert Validator(ERROR_MEMBER).errors(doc["error"]) == [], doc["error"]
    assert doc["error"]["exit"] == r.returncode, (r, doc["error"])
    return doc


def test_the_walk_covers_every_tool():
    tools = {tool for tool, _ in VERBS}
    assert tools == {"alice", "alice-schedule", "alice-inbox", "alice-harness", "harness-adapter"}
    assert len(VERBS) >= 50


#: Verbs that serve until stopped: only their refusals are walked here (the
#: proxy's and the gateway's own tests cover their "listening" documents).
SERVERS = {("alice-harness", ("proxy",)), ("alice", ("serve",)), ("alice", ("connector", "run"))}


@pytest.mark.parametrize("tool,path", VERBS, ids=[" ".join((t, *p)) for t, p in VERBS])
def test_every_verb_follows_the_rule_wherever_json_is_placed(cli, tmp_path, tool, path):
    """No arguments beyond the verb: each either answers (exit 0) or fails with
    the rule's document; --json first or last gives the same answer."""
    cwd = tmp_path / "here"
    cwd.mkdir()
    bad = cli(tool, *path, "--json", "--no-such-flag", cwd=cwd, env=ENV, input="")
    assert bad.returncode == 2 and follows_the_rule(bad)["error"]["code"] == "usage", bad
    if (tool, path) in SERVERS:
        return
    first = cli(tool, "--json", *path, cwd=cwd, env=ENV, input="")
    doc = follows_the_rule(first)
    last = cli(tool, *path, "--json", cwd=cwd, env=ENV, input="")
    assert last.returncode == first.returncode, (first, last)
    again = follows_the_rule(last)
    if isinstance(doc, dict):
        assert sorted(again) == sorted(doc)


def test_alice_json_first_prints_json_not_a_table(cli, workspace):
    r = cli("alice", "--json", "workspace", "list")
    assert r.returncode == 0 and one_document(r)["workspaces"][0]["path"] == str(workspace)
    r = cli("alice-inbox", "--json", "count")
    assert one_document(r) == {"total": 0, "unread": 0}
    # after `--` it is an argument, not the flag
    r = cli("alice", "issue", "create", "--title", "x", "--", "--json")
    assert r.returncode == 2 and not r.stdout.lstrip().startswith("{")


def conforms(name, doc):
    assert Validator(schema(name)).errors(doc) == [], (name, doc)
    return doc


def test_result_documents_keep_their_shape_and_gain_the_error(cli, workspace, tmp_path):
    """Every verb that prints a result and still exits non-zero."""
    seen = {}
    # alice issue validate: a broken issue file
    (workspace / ".alice" / "issues" / "bad.md").write_text("---\ntitle: [unclosed\n---\n")
    r = cli("alice", "issue", "validate", "--json", cwd=workspace, env=ENV)
    seen["issue validate"] = conforms("issue-validate", follows_the_rule(r))
    assert r.returncode == 2 and seen["issue validate"]["error"]["code"] == "invalid_issues"
    assert seen["issue validate"]["problems"]
    # alice session list: an unreadable session file
    sessions = workspace / ".alice" / "sessions"
    sessions.mkdir()
    (sessions / "resume-a-b-c-000000.json").write_text("{oops")
    r = cli("alice", "session", "list", "--json", cwd=workspace)
    seen["session list"] = conforms("session-list", follows_the_rule(r))
    assert r.returncode == 2 and seen["session list"]["problems"]
    # alice settings show: an invalid settings file (its own error, kept)
    (workspace / ".alice" / "settings.json").write_text('{"version": 7}')
    r = cli("alice", "settings", "show", "--json", cwd=workspace)
    seen["settings show"] = conforms("settings-show", follows_the_rule(r))
    assert seen["settings show"]["status"] == "invalid"
    # alice doctor on a fresh home needs attention
    r = cli("alice", "doctor", "--json", env=ENV)
    if r.returncode:
        seen["doctor"] = conforms("doctor", follows_the_rule(r))
        assert seen["doctor"]["exit"] == r.returncode
    # harness-adapter health: a down adapter; validate: a broken binding
    repo = tmp_path / "repo"
    (repo / "wrappers").mkdir(parents=True)
    write_stub(repo / "wrappers", "down.sh", "down-leaky")
    cat = write_catalog(repo, [adapter("down", "wrappers/down.sh", health=True, models=["m-1"])])
    r = cli("harness-adapter", "health", "down", "--catalog", str(cat), "--json")
    seen["health"] = conforms("adapter-health", follows_the_rule(r))
    assert r.returncode == 3 and seen["health"]["ok"] is False
    assert seen["health"]["error"]["code"] == "adapter_down"
    preset = repo / "team.json"
    preset.write_text(json.dumps({"version": "preset/v1", "name": "team", "seats": {
        "worker": {"wrapper": "wrappers/down.sh", "model": "not-a-model"}}}))
    r = cli("harness-adapter", "validate", str(preset), "--catalog", str(cat), "--catalog-only", "--json")
    seen["validate"] = conforms("adapter-validate", follows_the_rule(r))
    assert r.returncode == 2 and seen["validate"]["valid"] is False
    # alice models refresh against an endpoint that is not there
    assert cli("alice", "credential", "add", "gone", "-", "--vendor", "custom",
               "--wire", "openai-chat=http://127.0.0.1:9/v1", input="k").returncode == 0
    r = cli("alice", "models", "refresh", "gone", "--timeout", "2", "--json", env=ENV)
    seen["models refresh"] = conforms("models-refresh", follows_the_rule(r))
    assert r.returncode == 3 and seen["models refresh"]["status"] == "failed"
    assert "reason" in seen["models refresh"]
    assert len(seen) >= 6


def test_no_schema_of_a_result_names_error_otherwise():
    """Where the schema of a command's output has a top-level "error", it is the
    envelope's member (so `"error" in doc` means the command failed, for every
    verb).  On-disk records (their titles name a file) may keep their own."""
    spec = Path(__file__).resolve().parents[2] / "spec"
    outputs = 0
    for path in sorted(spec.glob("*.schema.json")):
        doc = json.loads(path.read_text())
        title = doc.get("title", "")
        if path.name == "error.schema.json" or "--json" not in title:
            continue
        outputs += 1
        top = doc.get("properties", {}).get("error")
        if top is not None:
            member = {k: v for k, v in top.items() if k != "description"}
            assert member == ERROR_MEMBER, path.name
    assert outputs >= 40
