"""``alice-harness`` and the workspace shims through the installed tools.

Covers the issue's by-hand run end to end: a chat workspace in git, a local
skill edit, a newer bundle that changes another part of the same file (merged,
not a conflict), apply with the digest, the commit; then the config disabling
``alice-inbox`` and a headless run whose ``alice-inbox push`` the shim refuses.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.harness.helpers import GIT_ENV, LOCAL_EDIT, UPSTREAM_EDIT, edit_here_and_upstream, git, needs_git, new_bundle
from tests.helpers.schemas import conforms

T0 = "2026-11-30T09:00:00Z"


def init(cli, path, template="chat", git_repo=False) -> dict:
    """A new workspace; in a git repository (everything committed) with ``git_repo``."""
    if git_repo:
        path.mkdir()
        git(path, "init", "-q")
    r = cli("alice", "workspace", "init", str(path), "--template", template, "--json")
    assert r.returncode == 0, r
    if git_repo:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "new workspace")
    return conforms("workspace", r.json())["workspace"]


def test_help_lists_the_verbs_with_examples(cli):
    top = cli("alice-harness", "--help")
    assert top.returncode == 0
    for verb in ("status", "upgrade", "config"):
        assert f"  {verb}" in top.stdout
    for argv in (("upgrade", "--help"), ("status", "--help"), ("config", "set", "--help"),
                 ("config", "show", "--help")):
        r = cli("alice-harness", *argv)
        assert r.returncode == 0 and "examples:" in r.stdout, r


@needs_git
def test_the_by_hand_run_edit_merge_apply_commit(cli, tmp_path):
    ws = init(cli, tmp_path / "desk", git_repo=True)
    root = Path(ws["path"])
    status = cli("alice-harness", "status", "--json", cwd=root)
    doc = conforms("harness-status", status.json())["workspaces"][0]
    assert status.returncode == 0 and doc["upToDate"] is True and doc["drift"] == []
    assert [s["state"] for s in doc["skills"]] == ["current"] * 3

    skill, bundle = edit_here_and_upstream(root, tmp_path)
    status = cli("alice-harness", "status", "--bundle", str(bundle), "--json", cwd=root)
    doc = conforms("harness-status", status.json())["workspaces"][0]
    assert status.returncode == 3 and doc["pending"]["bundle"]["status"] == "ready"
    assert {d["path"]: d["kind"] for d in doc["drift"]} == {".agents/skills/alice/SKILL.md": "modified",
                                                           ".claude/skills/alice/SKILL.md": "copy-differs"}
    preview = cli("alice-harness", "upgrade", "--bundle", str(bundle), "--json", cwd=root)
    p = conforms("harness-upgrade", preview.json())["preview"]
    assert preview.returncode == 0 and p["status"] == "ready" and p["toVersion"] == "1.1.0"
    assert p["summary"]["merged"] == 1 and p["conflicts"] == []
    assert p["changes"][0]["path"] == ".agents/skills/alice/SKILL.md" and p["changes"][0]["status"] == "merged"
    assert "merged" in cli("alice-harness", "upgrade", "--bundle", str(bundle), cwd=root).stdout
    assert UPSTREAM_EDIT not in skill.read_text()                 # a preview writes nothing

    applied = cli("alice-harness", "upgrade", "--bundle", str(bundle), "--apply", "--digest", p["digest"], "--json",
                  cwd=root)
    a = conforms("harness-upgrade", applied.json())
    assert applied.returncode == 0 and a["action"] == "applied"
    assert a["result"]["changedPaths"] == [".agents/skills/alice/SKILL.md", ".claude/skills/alice/SKILL.md"]
    text = skill.read_text()
    assert LOCAL_EDIT in text and UPSTREAM_EDIT in text
    assert (root / ".claude/skills/alice/SKILL.md").read_text() == text
    assert git(root, "rev-parse", "HEAD").strip() == a["result"]["commit"]
    assert f"OpenAlice-Harness-Upgrade: {p['digest']}" in git(root, "log", "-1", "--format=%B")
    assert git(root, "status", "--porcelain") == ""
    again = cli("alice-harness", "upgrade", "--bundle", str(bundle), "--apply", "--json", cwd=root)
    assert conforms("harness-upgrade", again.json())["action"] == "noop"
    facts = cli("alice", "journal", "--family", "harness", "--json").json()["entries"]
    [fact] = [f for f in facts if f["type"] == "harness.upgraded"]
    assert fact["payload"]["digest"] == p["digest"] and fact["payload"]["commit"] == a["result"]["commit"]
    conforms("journal-record", fact)


def test_bad_input_is_refused_with_exit_2_and_nothing_written(cli, tmp_path):
    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])
    skill = root / ".agents/skills/alice/SKILL.md"
    before = skill.read_bytes()

    def refused(*args, code, exit=2):
        r = cli("alice-harness", *args, "--json", cwd=root)
        assert r.returncode == exit, r
        assert conforms("error", r.json())["error"]["code"] == code, r
        return r.json()["error"]

    refused("upgrade", "--keep-workspace", "AGENTS.md", code="apply_required")
    refused("upgrade", "--action", "remove", code="skill_required")
    refused("upgrade", "--skill", "nope", code="unknown_skill")
    refused("upgrade", "--skill", "alice", "--action", "explode", code="usage")
    refused("upgrade", "--apply", "--digest", "0" * 64, "--skill", "alice", "--action", "restore",
            code="stale_plan")
    refused("upgrade", "--apply", "--keep-workspace", ".agents/skills/alice/SKILL.md", "--skill", "alice",
            code="invalid_resolutions")
    refused("upgrade", "--apply", "--keep-workspace", "../../etc/passwd", code="path_escape", exit=4)
    refused("upgrade", "--bundle", str(tmp_path / "missing"), code="bundle_not_found")
    refused("config", "set", "cli.nope.enabled=false", code="bad_config_key")
    refused("config", "set", "cli.alice.groups.nope=false", code="bad_config_key")
    refused("config", "set", "skills.self-scheduling=false", code="always_included")
    refused("config", "set", "skills.nope=true", code="unknown_skill")
    refused("config", "set", "cli.alice.enabled=maybe", code="bad_config_key")
    assert skill.read_bytes() == before and not (root / ".alice/alice-harness-config.json").exists()
    r = cli("alice-harness", "config", "set", "cli.alice.enabled=false", "--json", cwd=root,
            env={"ALICE_RUN_ID": "run-x", "ALICE_WORKSPACE_ID": ws["id"]})
    assert r.returncode == 4 and r.json()["error"]["code"] == "config_write_from_run"


def test_config_show_and_set(cli, tmp_path):
    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])
    shown = conforms("harness-config", cli("alice-harness", "config", "show", "--json", cwd=root).json())
    assert shown["exists"] is False and shown["effective"]["skills"] == {
        "alice": True, "file-delivery": True, "self-scheduling": True}
    r = cli("alice-harness", "config", "set", "cli.alice-inbox.enabled=false", "cli.alice.groups.inbox=false",
            "--json", cwd=root)
    doc = conforms("harness-config", r.json())
    assert [c["key"] for c in doc["changes"]] == ["cli.alice-inbox.enabled", "cli.alice.groups.inbox"]
    on_disk = json.loads((root / ".alice/alice-harness-config.json").read_text())
    assert conforms("harness-config-file", on_disk) == {
        "schemaVersion": 1, "cli": {"alice": {"groups": {"inbox": False}}, "alice-inbox": {"enabled": False}}}
    human = cli("alice-harness", "config", "show", cwd=root).stdout
    assert "cli.alice-inbox: disabled" in human and "groups off: inbox" in human
    r = cli("alice-harness", "config", "set", "skills.file-delivery=false", cwd=root)
    assert r.returncode == 0 and r.stdout.startswith("skills.file-delivery: unset (default) -> false\n")
    r = cli("alice-harness", "config", "set", "skills.file-delivery=true", cwd=root)
    assert r.stdout.startswith("skills.file-delivery: false -> true")


def shim(root: Path, tool: str) -> str:
    return str(root / ".alice" / "bin" / tool)


def run_shim(root, tool, *args, env=None):
    full = {k: v for k, v in os.environ.items() if k not in ("ALICE_RUN_ID", "ALICE_WORKSPACE_ID")}
    full.update(env or {})
    return subprocess.run([shim(root, tool), *args], capture_output=True, text=True, cwd=root, env=full,
                          timeout=60)


def test_the_shims_enforce_the_config(cli, tmp_path):
    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])
    (root / "r.md").write_text("report\n")
    assert run_shim(root, "alice-inbox", "push", "--body", "allowed [[r.md]]").returncode == 0
    assert cli("alice-harness", "config", "set", "cli.alice-inbox.enabled=false", cwd=root).returncode == 0
    refused = run_shim(root, "alice-inbox", "push", "--body", "refused")
    assert refused.returncode == 4
    assert "cli.alice-inbox.enabled=false" in refused.stderr and "alice-harness-config.json" in refused.stderr
    as_json = run_shim(root, "alice-inbox", "count", "--json")
    err = conforms("error", json.loads(as_json.stdout))["error"]
    assert as_json.returncode == 4 and err["code"] == "disabled_by_config" and err["field"] == "cli.alice-inbox.enabled"
    assert run_shim(root, "alice-inbox", "push", "--help").returncode == 0         # help is never gated
    # One group of alice off, the rest on.
    assert cli("alice-harness", "config", "set", "cli.alice.groups.inbox=false", cwd=root).returncode == 0
    r = run_shim(root, "alice", "inbox", "list")
    assert r.returncode == 4 and "cli.alice.groups.inbox" in r.stderr
    assert run_shim(root, "alice", "issue", "list").returncode == 0
    assert cli("alice", "inbox", "count", cwd=root).returncode == 0                 # the tool itself, unshimmed
    # alice-schedule's scan fast path is gated too.
    assert cli("alice-harness", "config", "set", "cli.alice-schedule.groups.scan=false", cwd=root).returncode == 0
    r = run_shim(root, "alice-schedule", "scan")
    assert r.returncode == 4 and "cli.alice-schedule.groups.scan" in r.stderr
    entries = cli("alice", "inbox", "list", "--json").json()["entries"]
    assert [e["body"] for e in entries] == ["allowed [[r.md]]"]


def test_a_malformed_config_fails_closed(cli, tmp_path):
    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])
    config = root / ".alice/alice-harness-config.json"
    config.write_text('{"schemaVersion": 1, "cli": {"alice-inbox": {"enabled": "no"}}}')
    for tool, args in (("alice-inbox", ["count"]), ("alice", ["issue", "list"]), ("alice-schedule", ["runs"])):
        r = run_shim(root, tool, *args)
        assert r.returncode == 2, r
        assert f"{config}:cli.alice-inbox.enabled" in r.stderr and "refused" in r.stderr
    for args in (["config", "show"], ["config", "set", "cli.alice.enabled=true"], ["upgrade", "--apply"],
                 ["upgrade"]):
        r = cli("alice-harness", *args, "--json", cwd=root)
        assert r.returncode == 2 and r.json()["error"]["field"] == "cli.alice-inbox.enabled", r
    status = cli("alice-harness", "status", "--json", cwd=root)
    doc = conforms("harness-status", status.json())["workspaces"][0]
    assert status.returncode == 3 and doc["config"]["ok"] is False
    assert '"enabled": "no"' in config.read_text()                              # never rewritten


def test_a_shim_whose_target_is_gone_says_how_to_fix_it(cli, tmp_path):
    from openalice.agents import shims

    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])
    path = root / ".alice/bin/alice"
    path.write_bytes(shims.render(root, "alice", target_dir=tmp_path / "uninstalled"))
    r = run_shim(root, "alice", "issue", "list")
    assert r.returncode == 3 and "is missing" in r.stderr and "alice-harness upgrade --apply" in r.stderr
    status = conforms("harness-status", cli("alice-harness", "status", "--json", cwd=root).json())
    assert status["workspaces"][0]["shims"]["problems"] == [".alice/bin/alice is out of date"]
    assert cli("alice-harness", "upgrade", "--apply", cwd=root).returncode == 0   # rewrites the shims
    assert run_shim(root, "alice", "issue", "list").returncode == 0


# -- a headless run's commands go through the shims ------------------------------------------------

WRAPPER = r'''#!{python}
"""Test engine: records what its shell finds, runs alice-inbox push, reports."""
import json, os, subprocess, sys

args = sys.argv[1:]
sys.stdin.read()
print(json.dumps({{"type": "session", "id": "s-" + os.environ.get("ALICE_RUN_ID", "x")}}), flush=True)
which = subprocess.run(["sh", "-c", "command -v alice-inbox"], capture_output=True, text=True).stdout.strip()
open("reports/report.md", "w").write("# Report\n")
push = subprocess.run(["alice-inbox", "push", "--body", "Report: [[reports/report.md]]"],
                      capture_output=True, text=True)
json.dump({{"which": which, "exit": push.returncode, "stderr": push.stderr}}, open("reports/push.json", "w"))
print(json.dumps({{"type": "text", "text": "push exit " + str(push.returncode)}}), flush=True)
'''


def test_a_headless_run_finds_the_shims_first_and_the_config_refuses_alice_inbox(cli, tmp_path):
    ws = init(cli, tmp_path / "desk")
    root = Path(ws["path"])
    (root / "reports").mkdir()
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "probe").write_text(WRAPPER.format(python=sys.executable))
    (catalog / "probe").chmod(0o755)
    (catalog / "adapters.json").write_text(json.dumps({"version": "adapters/v1", "adapters": [
        {"id": "probe", "kind": "cli", "label": "Probe", "wrapper": "probe", "models": ["m1"],
         "stream": "wrapper-jsonl"}]}))
    env = {"HARNESS_CATALOG": str(catalog / "adapters.json")}
    # The shims are rewritten by the runner: delete one to see it come back.
    (root / ".alice/bin/alice-inbox").unlink()
    assert cli("alice-harness", "config", "set", "cli.alice-inbox.enabled=false", cwd=root).returncode == 0
    r = cli("alice", "issue", "create", "--title", "Report", "--id", "report", "--every", "1h", "--agent", "probe",
            "--model", "m1", "--body", "report", cwd=root, env={**env, "ALICE_NOW": T0})
    assert r.returncode == 0, r
    scan = cli("alice-schedule", "scan", "--json", env={**env, "ALICE_NOW": T0})
    [fired] = scan.json()["fired"]
    run = cli("alice-schedule", "run", fired["taskId"], "--wait", "--timeout", "60", "--json", env=env, timeout=90)
    assert run.json()["task"]["status"] == "done", run
    seen = json.loads((root / "reports/push.json").read_text())
    assert seen["which"] == shim(root, "alice-inbox")
    assert seen["exit"] == 4 and "cli.alice-inbox.enabled=false" in seen["stderr"], seen
    assert cli("alice", "inbox", "list", "--json").json()["entries"] == []
    # Enabled again, the same run publishes.
    assert cli("alice-harness", "config", "set", "cli.alice-inbox.enabled=true", cwd=root).returncode == 0
    retry = cli("alice-schedule", "run-now", "report", "--workspace", ws["id"], "--json", env=env)
    assert retry.returncode == 0, retry
    task = retry.json()["taskId"] if "taskId" in retry.json() else retry.json()["task"]["taskId"]
    cli("alice-schedule", "run", task, "--wait", "--timeout", "60", env=env, timeout=90)
    assert json.loads((root / "reports/push.json").read_text())["exit"] == 0
    [entry] = cli("alice", "inbox", "list", "--json").json()["entries"]
    assert entry["origin"]["runId"] == task


# -- crashes, concurrency ----------------------------------------------------------------------------

def test_a_killed_apply_is_recovered_by_the_next_harness_command(cli, tmp_path):
    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])
    bundle = new_bundle(tmp_path)
    for name in ("alice", "file-delivery"):
        path = bundle / "skills" / name / "SKILL.md"
        path.write_text(path.read_text() + "\nNew in 1.1.0.\n")
    before = {p: (root / p).read_bytes() for p in (".agents/skills/alice/SKILL.md",
                                                   ".claude/skills/file-delivery/SKILL.md")}
    version_before = (root / ".alice/alice-harness-version.json").read_bytes()
    killed = cli("alice-harness", "upgrade", "--bundle", str(bundle), "--apply", cwd=root,
                 env={"OPENALICE_TEST_CRASH_AFTER": "managed-first-write"})
    assert killed.returncode == -signal.SIGKILL
    assert (root / ".alice/alice-harness-upgrade/transaction/journal.json").exists()
    status = cli("alice-harness", "status", "--bundle", str(bundle), "--json", cwd=root)
    doc = conforms("harness-status", status.json())["workspaces"][0]
    assert any("rolled_back" in p for p in doc["problems"]), doc
    assert {p: (root / p).read_bytes() for p in before} == before          # none of it
    assert (root / ".alice/alice-harness-version.json").read_bytes() == version_before
    assert not (root / ".alice/alice-harness-upgrade/transaction").exists()
    [fact] = cli("alice", "journal", "--type", "harness.recovered", "--json").json()["entries"]
    assert fact["payload"]["outcome"] == "rolled_back"
    # Killed after the commit point (baseline and version written, journal not yet removed): finished.
    killed = cli("alice-harness", "upgrade", "--bundle", str(bundle), "--apply", cwd=root,
                 env={"OPENALICE_TEST_CRASH_AFTER": "managed-finalized"})
    assert killed.returncode == -signal.SIGKILL
    preview = conforms("harness-upgrade", cli("alice-harness", "upgrade", "--bundle", str(bundle), "--json",
                                           cwd=root).json())
    assert preview["recovered"][0]["outcome"] == "finalized"        # the whole change
    assert preview["preview"]["status"] == "current"
    assert (root / ".agents/skills/alice/SKILL.md").read_text().endswith("New in 1.1.0.\n")


def test_status_after_it_recovered_a_killed_apply_is_up_to_date_and_says_so(cli, tmp_path):
    """A transaction status itself rolled back is reported, but leaves nothing
    needing attention: exit 0 (the reliability suite's kills found exit 3 here)."""
    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])
    killed = cli("alice-harness", "upgrade", "--skill", "alice", "--action", "remove", "--apply", cwd=root,
                 env={"OPENALICE_TEST_CRASH_AFTER": "managed-first-write"})
    assert killed.returncode == -signal.SIGKILL
    status = cli("alice-harness", "status", "--json", cwd=root)
    doc = conforms("harness-status", status.json())["workspaces"][0]
    assert status.returncode == 0, status
    assert doc["upToDate"] and doc["problems"] == [
        "recovered an interrupted alice-harness transaction (rolled_back)"], doc
    again = cli("alice-harness", "status", "--json", cwd=root)
    assert again.returncode == 0 and again.json()["workspaces"][0]["problems"] == []


@needs_git
def test_a_crash_after_the_commit_finalizes_only_the_scoped_skill(cli, tmp_path):
    ws = init(cli, tmp_path / "ws", git_repo=True)
    root = Path(ws["path"])
    bundle = new_bundle(tmp_path)
    for name in ("alice", "file-delivery"):
        path = bundle / "skills" / name / "SKILL.md"
        path.write_text(path.read_text() + "\nNew.\n")
    old = json.loads((root / ".alice/alice-harness-version.json").read_text())
    killed = cli("alice-harness", "upgrade", "--bundle", str(bundle), "--skill", "alice", "--apply", cwd=root,
                 env={"OPENALICE_TEST_CRASH_AFTER": "managed-committed"})
    assert killed.returncode == -signal.SIGKILL
    assert "OpenAlice-Harness-Upgrade" in git(root, "log", "-1", "--format=%B")
    assert cli("alice-harness", "status", "--json", cwd=root).returncode in (0, 3)
    new = conforms("harness-version", json.loads((root / ".alice/alice-harness-version.json").read_text()))
    assert new["skillVersions"]["alice"]["revision"] != old["skillVersions"]["alice"]["revision"]
    assert new["skillVersions"]["file-delivery"] == old["skillVersions"]["file-delivery"]
    assert new["appliedVersion"] == old["appliedVersion"]
    assert new["commit"] == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "status", "--porcelain") == ""


@needs_git
def test_two_concurrent_applies_one_succeeds_the_other_is_busy(cli, tmp_path):
    ws = init(cli, tmp_path / "ws", git_repo=True)
    root = Path(ws["path"])
    gate = tmp_path / "hook-started"
    hook = root / ".git/hooks/pre-commit"
    # The first apply holds the lease while its commit hook waits for the second one to be refused.
    hook.write_text(f"#!/bin/sh\ntouch '{gate}'\nwhile [ ! -e '{gate}.done' ]; do sleep 0.05; done\n")
    hook.chmod(0o755)
    (root / ".agents/skills/alice/SKILL.md").unlink()
    argv = [sys.executable, "-c", "from openalice.cli.harness import main; raise SystemExit(main())",
            "upgrade", "--apply", "--skill", "alice", "--action", "install", "--json"]
    env = {**cli.env, **GIT_ENV}
    first = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not gate.exists():
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.02)
    second = cli("alice-harness", "upgrade", "--apply", "--skill", "alice", "--action", "install", "--json",
                 cwd=root, env=GIT_ENV)
    (tmp_path / "hook-started.done").touch()
    out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    assert json.loads(out)["action"] == "applied"
    assert second.returncode == 3 and second.json()["error"]["code"] == "workspace_busy", second
    assert (root / ".agents/skills/alice/SKILL.md").exists()


# -- doctor ------------------------------------------------------------------------------------------

def test_doctor_reports_stale_and_drifted_harness_files(cli, tmp_path):
    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])

    def harness_findings(**env):
        r = cli("alice", "doctor", "--json", env=env)
        doc = conforms("doctor", r.json())
        return [f for f in doc["findings"] if f["check"] == "harness"]

    [ok] = harness_findings()
    assert ok["status"] == "ok" and ok["subject"] == ws["id"]
    bundle = new_bundle(tmp_path)
    # Another bundle that differs is worth knowing, not staleness.
    other = harness_findings(ALICE_HARNESS_BUNDLE=str(bundle))
    assert [f["status"] for f in other] == ["info"], other
    assert "skills come from bundle default (1.0.0)" in other[0]["message"]
    assert "a new version to record (no file changes)" in other[0]["message"]
    # The bundle the workspace follows moved on: stale.
    assert cli("alice-harness", "upgrade", "--bundle", str(bundle), "--apply", cwd=root).returncode == 0
    path = bundle / "skills/alice/SKILL.md"
    path.write_text(path.read_text() + "\nNew.\n")
    stale = harness_findings(ALICE_HARNESS_BUNDLE=str(bundle))
    assert any(f["status"] == "attention" and "skills are stale: 1 file to update" in f["message"]
               for f in stale), stale
    (root / ".agents/skills/alice/SKILL.md").write_text("edited\n")
    drift = harness_findings(ALICE_HARNESS_BUNDLE=str(bundle))
    assert any(f["status"] == "info" and ".agents/skills/alice/SKILL.md (modified)" in f["message"]
               for f in drift), drift
    (root / ".alice/bin/alice-inbox").unlink()
    broken = harness_findings(ALICE_HARNESS_BUNDLE=str(bundle))
    assert any(f["status"] == "attention" and "alice-inbox is missing" in f["message"] for f in broken)
    assert not (root / ".alice/bin/alice-inbox").exists()              # doctor changes nothing


def test_damaged_state_files_are_refused_naming_the_file(cli, tmp_path):
    ws = init(cli, tmp_path / "ws")
    root = Path(ws["path"])
    skill = root / ".agents/skills/alice/SKILL.md"
    before = skill.read_bytes()
    bundle = new_bundle(tmp_path)                       # an upgrade that would rewrite the skill
    (bundle / "skills/alice/SKILL.md").write_bytes(before + b"\nNew.\n")

    def refused(path: Path, content: bytes, code: str, bundle_dir: Path = bundle):
        original = path.read_bytes() if path.exists() else None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        r = cli("alice-harness", "upgrade", "--bundle", str(bundle_dir), "--apply", "--json", cwd=root)
        err = conforms("error", r.json())["error"]
        assert r.returncode == 2 and err["code"] == code and err["file"] == str(path), r
        assert skill.read_bytes() == before                # nothing written
        if original is None:
            path.unlink()
        else:
            path.write_bytes(original)

    refused(root / ".alice/alice-harness-version.json", b'{"schemaVersion": 1}', "malformed_harness_state")
    refused(root / ".alice/alice-harness-upgrade/baseline.json.gz", b"not gzip", "malformed_snapshot")
    refused(root / ".alice/alice-harness-upgrade/transaction/journal.json", b'{"schemaVersion": 9}',
            "malformed_journal")
    refused(bundle / "templates/chat/template.json", b'{"schemaVersion": 1}', "malformed_bundle")
    refused(bundle / "alice-harness.json", b'{"schemaVersion": 1, "version": "1.1.0", "extra": 1}',
            "malformed_bundle")
    assert cli("alice-harness", "upgrade", "--bundle", str(bundle), "--apply", cwd=root).returncode == 0
    assert skill.read_bytes() == before + b"\nNew.\n"
