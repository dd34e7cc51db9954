"""The harness remembers its bundle (issue 22 item 5): after ``upgrade --bundle NEWER
--apply`` a plain ``status`` is current and a plain ``upgrade`` offers no downgrade;
``--bundle default`` is the way back; every answer says which bundle it compared with."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.harness.helpers import new_bundle
from tests.helpers.schemas import conforms


def init(cli, path) -> Path:
    r = cli("alice", "workspace", "init", str(path), "--template", "chat", "--json")
    assert r.returncode == 0, r
    return Path(r.json()["workspace"]["path"])


def upgraded_to_newer(cli, tmp_path) -> tuple[Path, Path]:
    root = init(cli, tmp_path / "desk")
    bundle = new_bundle(tmp_path)                       # 1.1.0, with a changed skill
    skill = bundle / "skills/alice/SKILL.md"
    skill.write_text(skill.read_text() + "\nNewer bundle line.\n")
    r = cli("alice-harness", "upgrade", "--bundle", str(bundle), "--apply", "--json", cwd=root)
    assert r.returncode == 0 and r.json()["action"] == "applied", r
    return root, bundle


def test_a_plain_status_and_upgrade_follow_the_bundle_last_applied(cli, tmp_path):
    root, bundle = upgraded_to_newer(cli, tmp_path)

    status = cli("alice-harness", "status", "--json", cwd=root)
    doc = conforms("harness-status", status.json())["workspaces"][0]
    assert status.returncode == 0, status
    assert doc["upToDate"] is True and [s["state"] for s in doc["skills"]] == ["current"] * 3
    assert doc["bundle"] == {"source": str(bundle), "version": "1.1.0", "revision": doc["applied"]["revision"],
                             "reason": "followed"}
    assert doc["follows"] == {"source": str(bundle), "version": "1.1.0"}
    text = cli("alice-harness", "status", cwd=root).stdout
    assert f"compared with: {bundle} 1.1.0 (the bundle this workspace follows)" in text, text

    preview = cli("alice-harness", "upgrade", "--json", cwd=root)
    p = conforms("harness-upgrade", preview.json())["preview"]
    assert preview.returncode == 0 and p["status"] == "current" and p["changes"] == [], p
    assert p["fromVersion"] == p["toVersion"] == "1.1.0"              # no downgrade to the shipped 1.0.0
    assert p["comparedWith"]["reason"] == "followed" and p["comparedWith"]["source"] == str(bundle)
    assert "compared with:" in cli("alice-harness", "upgrade", cwd=root).stdout
    noop = cli("alice-harness", "upgrade", "--apply", "--json", cwd=root)
    assert noop.returncode == 0 and noop.json()["action"] == "noop", noop
    # A skill action without --bundle takes the followed bundle's skill too.
    skill = cli("alice-harness", "upgrade", "--skill", "alice", "--json", cwd=root)
    assert skill.json()["preview"]["status"] == "current", skill.json()


def test_the_shipped_bundle_only_when_asked_and_it_says_so(cli, tmp_path):
    root, bundle = upgraded_to_newer(cli, tmp_path)
    down = cli("alice-harness", "upgrade", "--bundle", "default", "--json", cwd=root)
    p = conforms("harness-upgrade", down.json())["preview"]
    assert p["status"] == "ready" and (p["fromVersion"], p["toVersion"]) == ("1.1.0", "1.0.0")
    assert p["comparedWith"] == {**p["comparedWith"], "source": "default", "reason": "flag"}
    assert p["follows"] == {"source": str(bundle), "version": "1.1.0"}
    assert p["nextCommand"].startswith("alice-harness upgrade --workspace") and "--bundle default" in p["nextCommand"]
    text = cli("alice-harness", "upgrade", "--bundle", "default", cwd=root).stdout
    assert "the shipped bundle)" not in text and "named with --bundle" in text
    assert f"this workspace follows {bundle} 1.1.0" in text, text
    status = cli("alice-harness", "status", "--bundle", "default", "--json", cwd=root)
    assert status.returncode == 3 and status.json()["workspaces"][0]["bundle"]["reason"] == "flag"

    applied = cli("alice-harness", "upgrade", "--bundle", "default", "--apply", "--json", cwd=root)
    assert applied.returncode == 0 and applied.json()["action"] == "applied", applied
    back = cli("alice-harness", "status", "--json", cwd=root)
    doc = back.json()["workspaces"][0]
    assert back.returncode == 0 and doc["bundle"]["reason"] == "default" and doc["bundle"]["version"] == "1.0.0"
    assert doc["follows"] == {"source": "default", "version": "1.0.0"}


def test_a_followed_bundle_that_is_gone_is_named_with_the_way_back(cli, tmp_path):
    root, bundle = upgraded_to_newer(cli, tmp_path)
    shutil.rmtree(bundle)
    status = cli("alice-harness", "status", "--json", cwd=root)
    doc = conforms("harness-status", status.json())["workspaces"][0]
    assert status.returncode == 3
    assert any("the bundle this workspace follows" in p and str(bundle) in p for p in doc["problems"]), doc
    r = cli("alice-harness", "upgrade", "--json", cwd=root)
    err = conforms("error", r.json())["error"]
    assert r.returncode == 2 and err["code"] == "bundle_not_found" and str(bundle) in err["message"], err
    assert "--bundle default" in r.stderr or "--bundle default" in str(r.json()), r
    assert cli("alice-harness", "upgrade", "--bundle", "default", "--json", cwd=root).returncode == 0
