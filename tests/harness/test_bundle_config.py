"""The shipped bundle, bundle validation, revisions, and the strict harness config."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from openalice import workspaces
from openalice.core import frontmatter, resources
from openalice.core.errors import InvalidInput
from openalice.core.schema import Validator
from openalice.harness import bundle as bundles
from openalice.harness import config as configs

DEFAULT = resources.data_root("default")


def copy_default(tmp_path: Path) -> Path:
    target = tmp_path / "bundle"
    shutil.copytree(DEFAULT, target)
    return target


def test_the_shipped_bundle_is_valid_and_small():
    b = bundles.load()
    assert b.source == "default" and b.version == json.loads((DEFAULT / "alice-harness.json").read_text())["version"]
    assert sorted(b.skills) == ["alice", "file-delivery", "self-scheduling"]
    assert sorted(b.templates) == sorted(workspaces.TEMPLATES)
    assert Validator(resources.schema("harness-bundle")).errors(
        json.loads((DEFAULT / "alice-harness.json").read_text())) == []
    for name in b.templates:
        doc = json.loads((DEFAULT / "templates" / name / "template.json").read_text())
        assert Validator(resources.schema("harness-template")).errors(doc) == []
        template = b.templates[name]
        assert template.inject_instructions and len(template.instruction) < bundles.INSTRUCTION_SOFT_LIMIT
        assert "self-scheduling" in template.bundled_skills
        # The always-loaded guidance routes to every skill the template bundles.
        for skill in template.bundled_skills:
            assert f"`{skill}`" in template.instruction.decode()
    for skill in b.skills.values():
        meta = frontmatter.parse(skill.files["SKILL.md"]).data
        assert meta["name"] == skill.name and meta["description"] == skill.description
    assert b.templates["chat"].bundled_skills == ("alice", "self-scheduling", "file-delivery")


def test_revisions_change_with_any_byte(tmp_path):
    root = copy_default(tmp_path)
    first = bundles.load(root)
    assert first.revision.startswith(first.version + "+") and len(first.revision.split("+")[1]) == 16
    assert first.revision == bundles.load().revision       # the same bytes anywhere: the same revision
    skill = root / "skills" / "file-delivery" / "SKILL.md"
    skill.write_bytes(skill.read_bytes() + b" ")
    second = bundles.load(root)
    assert second.revision != first.revision
    assert second.skills["file-delivery"].revision != first.skills["file-delivery"].revision
    assert second.skills["alice"].revision == first.skills["alice"].revision
    (root / "skills" / "alice" / "notes.md").write_text("extra")     # a new file shows too
    assert bundles.load(root).skills["alice"].revision != first.skills["alice"].revision


def test_the_environment_names_another_bundle(tmp_path, monkeypatch):
    root = copy_default(tmp_path)
    monkeypatch.setenv("ALICE_HARNESS_BUNDLE", str(root))
    assert bundles.load().source == str(root)
    monkeypatch.setenv("ALICE_HARNESS_BUNDLE", str(tmp_path / "nope"))
    with pytest.raises(InvalidInput) as info:
        bundles.load()
    assert info.value.code == "bundle_not_found" and info.value.field == "ALICE_HARNESS_BUNDLE"


@pytest.mark.parametrize("damage,file,field", [
    (lambda r: (r / "alice-harness.json").write_text("{"), "alice-harness.json", None),
    (lambda r: (r / "alice-harness.json").write_text('{"schemaVersion": 1}'), "alice-harness.json", "version"),
    (lambda r: (r / "alice-harness.json").write_text('{"schemaVersion": 1, "version": "1", "x": 1}'),
     "alice-harness.json", "x"),
    (lambda r: (r / "alice-harness.json").write_text('{"schemaVersion": 2, "version": "1"}'),
     "alice-harness.json", "schemaVersion"),
    (lambda r: (r / "templates/chat/template.json").write_text(
        '{"schemaVersion": 1, "name": "chat", "version": "1", "bundledSkills": ["nope"], '
        '"injectInstructions": true}'), "templates/chat/template.json", "bundledSkills/0"),
    (lambda r: (r / "templates/chat/template.json").write_text(
        '{"schemaVersion": 1, "name": "blank", "version": "1", "bundledSkills": [], "injectInstructions": true}'),
     "templates/chat/template.json", "name"),
    (lambda r: (r / "skills/alice/SKILL.md").write_text("---\nname: other\ndescription: x\n---\n"),
     "skills/alice/SKILL.md", "name"),
    (lambda r: (r / "skills/alice/SKILL.md").write_text("---\nname: alice\n---\n"), "skills/alice/SKILL.md",
     "description"),
    (lambda r: (r / "skills/alice/SKILL.md").unlink(), "skills/alice/SKILL.md", None),
    (lambda r: os.symlink("/etc/passwd", r / "skills/alice/passwd"), "skills/alice/passwd", None),
    (lambda r: (r / "skills/Bad_Name").mkdir(), "skills/Bad_Name", None),
])
def test_a_malformed_bundle_names_the_file_and_field(tmp_path, damage, file, field):
    root = copy_default(tmp_path)
    damage(root)
    with pytest.raises(InvalidInput) as info:
        bundles.load(root)
    assert info.value.file == str(root / file), info.value
    assert info.value.field == field, info.value
    assert info.value.exit_code == 2


# -- the config --------------------------------------------------------------------------------------

def test_the_gated_groups_are_the_tools_own_verbs():
    from openalice.cli import alice, inbox, schedule

    assert set(configs.TOOL_GROUPS["alice"]) == set(alice.TOOL.verbs)
    assert set(configs.TOOL_GROUPS["alice-inbox"]) == set(inbox.TOOL.verbs)
    assert set(configs.TOOL_GROUPS["alice-schedule"]) == set(schedule.TOOL.verbs)


def test_the_gate_path_loads_only_the_gate_and_the_config():
    # Every command started through a workspace shim imports the gate first:
    # it must not pull in the adapters, the registry or the harness's upgrades.
    code = ("import sys, openalice.harness.gate; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('openalice'))))")
    loaded = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                            check=True).stdout.split()
    assert loaded == ["openalice", "openalice.core", "openalice.core.errors", "openalice.core.lazy", "openalice.core.output",
                      "openalice.core.patterns", "openalice.harness", "openalice.harness.config",
                      "openalice.harness.gate"]


def test_config_decides_by_tool_and_group():
    cfg = configs.parse({"schemaVersion": 1, "skills": {"file-delivery": False},
                         "cli": {"alice-inbox": {"enabled": False},
                                 "alice-workspace": {"groups": {"inbox": False, "issue": True}}}}, "f")
    assert cfg.refusal("alice-inbox", "push") == "cli.alice-inbox.enabled"
    assert cfg.refusal("alice", "inbox") == "cli.alice.groups.inbox"     # the alias reads as alice
    assert cfg.refusal("alice", "issue") is None and cfg.refusal("alice-schedule", "scan") is None
    assert cfg.includes("file-delivery", bundled=True) is False
    assert cfg.includes("alice", bundled=True) and not cfg.includes("extra", bundled=False)
    assert cfg.includes("self-scheduling", bundled=False)
    assert cfg.document()["cli"]["alice"] == {"groups": {"inbox": False, "issue": True}}
    assert Validator(resources.schema("harness-config-file")).errors(cfg.document()) == []
    effective = cfg.effective_cli()
    assert effective["alice-inbox"]["enabled"] is False and effective["alice"]["groups"]["inbox"] is False


@pytest.mark.parametrize("doc,field", [
    ([], None), ({"schemaVersion": 2}, "schemaVersion"), ({"schemaVersion": 1, "extra": 1}, "extra"),
    ({"schemaVersion": 1, "skills": {"alice": "no"}}, "skills.alice"),
    ({"schemaVersion": 1, "skills": {"self-scheduling": False}}, "skills.self-scheduling"),
    ({"schemaVersion": 1, "skills": {"Bad Name": True}}, "skills.Bad Name"),
    ({"schemaVersion": 1, "cli": {"harness-adapter": {}}}, "cli.harness-adapter"),
    ({"schemaVersion": 1, "cli": {"alice": {"enabled": "false"}}}, "cli.alice.enabled"),
    ({"schemaVersion": 1, "cli": {"alice": {"groups": {"nope": False}}}}, "cli.alice.groups.nope"),
    ({"schemaVersion": 1, "cli": {"alice": {"group": {}}}}, "cli.alice.group"),
    ({"schemaVersion": 1, "cli": {"alice": {}, "alice-workspace": {}}}, "cli.alice-workspace"),
])
def test_a_malformed_config_names_the_field(doc, field):
    with pytest.raises(configs.ConfigError) as info:
        configs.parse(doc, "/w/.alice/alice-harness-config.json")
    assert info.value.field == field and info.value.file == "/w/.alice/alice-harness-config.json"


def test_config_files_missing_and_unreadable(tmp_path):
    missing = configs.parse_file(str(tmp_path / "none.json"))
    assert missing.exists is False and missing.refusal("alice", "inbox") is None
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(configs.ConfigError) as info:
        configs.parse_file(str(bad))
    assert "malformed JSON" in info.value.reason
    bad.write_bytes(b"\xff")
    with pytest.raises(configs.ConfigError):
        configs.parse_file(str(bad))


@pytest.mark.parametrize("text,parts,value", [
    ("cli.alice-inbox.enabled=false", ["cli", "alice-inbox", "enabled"], False),
    ("cli.alice.groups.inbox=false", ["cli", "alice", "groups", "inbox"], False),
    ("skills.file-delivery=TRUE", ["skills", "file-delivery"], True),
])
def test_assignments(text, parts, value):
    assert configs.parse_assignment(text) == (parts, value)


@pytest.mark.parametrize("text", ["cli.alice.enabled", "cli.alice.enabled=maybe", "cli.alice=false",
                                  "skills=true", "other.key=true", "=true", "cli.alice.groups=false"])
def test_bad_assignments(text):
    with pytest.raises(ValueError):
        configs.parse_assignment(text)
