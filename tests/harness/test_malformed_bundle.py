"""A malformed bundle or template is bad input everywhere (issue 27 item 6): `status`, `upgrade`
and `workspace init` exit 2 naming the file and field, and `init` writes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .helpers import new_bundle


def broken_manifest(tmp_path: Path) -> tuple[Path, str, str]:
    bundle = new_bundle(tmp_path)
    manifest = bundle / "alice-harness.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "version": 12}))
    return bundle, str(manifest), "version"


def broken_template(tmp_path: Path) -> tuple[Path, str, str]:
    bundle = new_bundle(tmp_path)
    template = bundle / "templates/chat/template.json"
    doc = json.loads(template.read_text())
    doc["bundledSkills"] = "alice"
    template.write_text(json.dumps(doc))
    return bundle, str(template), "bundledSkills"


BROKEN = {"manifest": broken_manifest, "template": broken_template}


def refused(r, file: str, field: str) -> dict:
    assert r.returncode == 2, r
    error = r.json()["error"]
    assert error["code"] == "malformed_bundle" and error["file"] == file and error["field"] == field, error
    assert "Traceback" not in r.stderr
    return error


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_status_and_upgrade_refuse_a_malformed_bundle_with_exit_2(cli, tmp_path, kind):
    ws = tmp_path / "ws"
    assert cli("alice", "workspace", "init", str(ws), "--template", "chat", "--json").returncode == 0
    bundle, file, field = BROKEN[kind](tmp_path)
    for argv in (("status",), ("upgrade",), ("upgrade", "--apply"), ("upgrade", "--template")):
        refused(cli("alice-harness", *argv, "--bundle", str(bundle), "--json", cwd=ws), file, field)
        refused(cli("alice-harness", *argv, "--json", cwd=ws, env={"ALICE_HARNESS_BUNDLE": str(bundle)}),
                file, field)
    text = cli("alice-harness", "status", "--bundle", str(bundle), cwd=ws)
    assert text.returncode == 2 and file in text.stderr and field in text.stderr, text
    # doctor still reports it (as a finding) rather than failing
    doctor = cli("alice", "doctor", "--json", cwd=ws, env={"ALICE_HARNESS_BUNDLE": str(bundle)})
    assert "Traceback" not in doctor.stderr and file in doctor.stdout, doctor


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_workspace_init_with_a_malformed_bundle_exits_2_and_writes_nothing(cli, tmp_path, kind):
    bundle, file, field = BROKEN[kind](tmp_path)
    registry = Path(os.environ["OPENALICE_HOME"]) / "workspaces.json"
    before = registry.read_bytes() if registry.exists() else None
    for target in (tmp_path / "new", tmp_path / "empty"):
        if target.name == "empty":
            target.mkdir()
        r = cli("alice", "workspace", "init", str(target), "--template", "chat", "--json",
                env={"ALICE_HARNESS_BUNDLE": str(bundle)})
        refused(r, file, field)
        assert (list(target.iterdir()) == []) if target.name == "empty" else not target.exists()
    assert (registry.read_bytes() if registry.exists() else None) == before
    listed = cli("alice", "workspace", "list", "--json")
    assert listed.returncode == 0 and listed.json()["workspaces"] == [], listed
