import json
import os


def test_init_list_show_remove_roundtrip(cli, tmp_path, isolated_homes):
    ws = tmp_path / "notes"
    r = cli("alice", "workspace", "init", str(ws), "--label", "My Notes", "--json")
    assert r.returncode == 0, r
    doc = r.json()
    assert doc["created"] is True
    rec = doc["workspace"]
    assert rec["id"] == "my-notes" and rec["label"] == "My Notes" and rec["template"] == "blank"
    assert rec["path"] == os.path.realpath(ws) and (ws / ".alice" / "issues").is_dir()
    registry = json.loads((isolated_homes["OPENALICE_HOME"] / "workspaces.json").read_text())
    assert registry["version"] == 1 and registry["workspaces"][0]["id"] == "my-notes"

    again = cli("alice", "workspace", "init", str(ws), "--json")
    assert again.returncode == 0 and again.json()["created"] is False

    listed = cli("alice", "workspace", "list", "--json").json()["workspaces"]
    assert [w["id"] for w in listed] == ["my-notes"]

    shown = cli("alice", "workspace", "show", "--json", cwd=ws / ".alice").json()["workspace"]
    assert shown["id"] == "my-notes"  # inferred from the cwd

    removed = cli("alice", "workspace", "remove", "my-notes", "--json")
    assert removed.returncode == 0 and removed.json()["removed"] is True
    assert ws.is_dir() and (ws / ".alice").is_dir()  # never deletes files
    assert cli("alice", "workspace", "list", "--json").json() == {"workspaces": []}


def test_ids_are_unique_and_nesting_is_refused(cli, tmp_path):
    a = cli("alice", "workspace", "init", str(tmp_path / "a" / "proj"), "--json").json()
    b = cli("alice", "workspace", "init", str(tmp_path / "b" / "proj"), "--json").json()
    assert (a["workspace"]["id"], b["workspace"]["id"]) == ("proj", "proj-2")
    nested = cli("alice", "workspace", "init", str(tmp_path / "a" / "proj" / "inner"), "--json")
    assert nested.returncode == 2 and nested.json()["error"]["code"] == "nested_workspace"
    assert not (tmp_path / "a" / "proj" / "inner").exists()  # nothing created
    parent = cli("alice", "workspace", "init", str(tmp_path / "a"))
    assert parent.returncode == 2 and "contains workspace" in parent.stderr


def test_bad_input(cli, tmp_path, isolated_homes):
    f = tmp_path / "file"
    f.write_text("x")
    r = cli("alice", "workspace", "init", str(f))
    assert r.returncode == 2 and "not a directory" in r.stderr
    r = cli("alice", "workspace", "show", "nope", "--json")
    assert r.returncode == 2 and r.json()["error"]["code"] == "unknown_workspace"
    r = cli("alice", "workspace", "show", cwd=tmp_path)
    assert r.returncode == 2 and "not inside a registered workspace" in r.stderr
    r = cli("alice", "workspace", "init", str(tmp_path / "x"), "--label", "")
    assert r.returncode == 2


def test_malformed_registry_is_reported_not_replaced(cli, tmp_path, isolated_homes):
    registry = isolated_homes["OPENALICE_HOME"] / "workspaces.json"
    registry.write_text('{"version": 1, "workspaces": [')
    r = cli("alice", "workspace", "list")
    assert r.returncode == 2
    assert "workspaces.json" in r.stderr and "malformed JSON" in r.stderr
    r = cli("alice", "workspace", "init", str(tmp_path / "w"))
    assert r.returncode == 2
    assert registry.read_text() == '{"version": 1, "workspaces": ['


def test_run_environment_selects_workspace(cli, tmp_path):
    cli("alice", "workspace", "init", str(tmp_path / "one"))
    cli("alice", "workspace", "init", str(tmp_path / "two"))
    r = cli("alice", "workspace", "show", "--json", cwd=tmp_path / "one",
            env={"ALICE_RUN_ID": "run-AAAAAAAA", "ALICE_WORKSPACE_ID": "two"})
    assert r.json()["workspace"]["id"] == "two"


def test_outputs_and_registry_match_their_schemas(cli, tmp_path, isolated_homes):
    from openalice.core import resources
    from openalice.core.schema import Validator

    def check(name, doc):
        assert Validator(resources.schema(name)).errors(doc) == [], (name, doc)

    init = cli("alice", "workspace", "init", str(tmp_path / "w"), "--json")
    check("workspace", init.json())
    check("workspace", cli("alice", "workspace", "show", "w", "--json").json())
    check("workspace-list", cli("alice", "workspace", "list", "--json").json())
    registry = json.loads((isolated_homes["OPENALICE_HOME"] / "workspaces.json").read_text())
    check("workspaces-registry", registry)
    check("error", cli("alice", "workspace", "show", "nope", "--json").json())
    check("workspace", cli("alice", "workspace", "remove", "w", "--json").json())
    # the schemas are not vacuous
    assert Validator(resources.schema("workspace")).errors({"workspace": {"id": "X"}}) != []


def test_lock_and_temp_files_are_ignored_by_git(cli, tmp_path):
    import subprocess

    ws = tmp_path / "repo"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    assert cli("alice", "workspace", "init", str(ws)).returncode == 0
    (ws / ".alice" / "issues" / ".x.md.lock").write_text("")
    (ws / ".alice" / ".tmp-state.json.abc").write_text("")
    out = subprocess.run(["git", "-C", str(ws), "status", "--porcelain", "--untracked-files=all"],
                         capture_output=True, text=True, check=True).stdout
    assert ".lock" not in out and ".tmp-" not in out
    assert ".alice/.gitignore" in out
    # init again (idempotent) keeps a user's edit of that file
    (ws / ".alice" / ".gitignore").write_text("mine\n")
    cli("alice", "workspace", "init", str(ws))
    assert (ws / ".alice" / ".gitignore").read_text() == "mine\n"


def test_init_says_which_id_it_chose_and_how(cli, tmp_path):
    help_text = cli("alice", "workspace", "init", "--help").stdout
    assert "comes from --label, else from the directory name" in " ".join(help_text.split())
    first = cli("alice", "workspace", "init", str(tmp_path / "My Notes"))
    assert first.returncode == 0, first
    assert first.stdout.splitlines()[1] == ("  id 'my-notes' from the directory name 'My Notes'; "
                                            "other commands take --workspace my-notes")
    second = cli("alice", "workspace", "init", str(tmp_path / "b"), "--label", "My notes!")
    assert "id 'my-notes-2' from --label 'My notes!'; 'my-notes' was taken" in second.stdout, second
    again = cli("alice", "workspace", "init", str(tmp_path / "b"))
    assert again.stdout == f"already registered: my-notes-2 ({tmp_path / 'b'})\n"


def test_show_prints_yes_and_no_not_python_values(cli, tmp_path):
    assert cli("alice", "workspace", "init", str(tmp_path / "w")).returncode == 0
    shown = cli("alice", "workspace", "show", "w").stdout
    assert "available: yes" in shown and "True" not in shown
    import shutil

    shutil.rmtree(tmp_path / "w" / ".alice")
    assert "available: no" in cli("alice", "workspace", "show", "w").stdout
