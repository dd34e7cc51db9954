"""The workspace registry (openalice.workspaces.registry): init, ids, nesting,
inference, the init projectors, a malformed registry.  The tool is exercised
end to end in tests/e2e/test_workspace_cli.py."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from openalice import workspaces
from openalice.core.errors import AliceError, Conflict, InvalidInput, NotFound, UsageError
from openalice.workspaces import registry

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def no_projectors(monkeypatch):
    """The registry alone: the harness and sticker projectors have their own tests."""
    monkeypatch.setattr(registry, "INIT_PROJECTORS", [])


def test_init_creates_registers_and_is_idempotent(tmp_path):
    ws, created = workspaces.init(tmp_path / "Notes Book", now=NOW)
    assert created and ws.id == "notes-book" and ws.label == "Notes Book" and ws.template == "blank"
    assert (tmp_path / "Notes Book" / ".alice" / "issues").is_dir()
    assert ws.createdAt == "2026-06-01T12:00:00Z"
    again, created = workspaces.init(tmp_path / "Notes Book", now=NOW)
    assert not created and again == ws
    assert [w.id for w in workspaces.list_workspaces()] == ["notes-book"]


def test_ids_are_unique_slugs(tmp_path):
    ids = [workspaces.init(tmp_path / name, label="My Notes!", now=NOW)[0].id for name in ("a", "b", "c")]
    assert ids == ["my-notes", "my-notes-2", "my-notes-3"]
    assert registry.id_base("***") == "workspace"


@pytest.mark.parametrize("second", ["notes/sub", "."])
def test_a_path_inside_or_containing_a_workspace_is_refused_before_anything_is_created(tmp_path, second):
    workspaces.init(tmp_path / "notes", now=NOW)
    target = tmp_path / "notes" / "sub" if second == "notes/sub" else tmp_path
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(Conflict) as err:
        workspaces.init(target, now=NOW)
    assert err.value.code == "nested_workspace"
    assert not (tmp_path / "notes" / "sub").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert len(workspaces.list_workspaces()) == 1


def test_a_sibling_sharing_a_prefix_is_not_nested(tmp_path):
    notes, _ = workspaces.init(tmp_path / "notes", now=NOW)
    notes2, created = workspaces.init(tmp_path / "notes2", now=NOW)
    assert created
    assert workspaces.find(tmp_path / "notes2" / "x") == notes2
    assert workspaces.find(tmp_path / "notes" / "x") == notes


def test_resolve_prefers_the_flag_then_the_run_then_the_cwd(tmp_path):
    a, _ = workspaces.init(tmp_path / "a", now=NOW)
    b, _ = workspaces.init(tmp_path / "b", now=NOW)
    run_env = {"ALICE_RUN_ID": "run-1", "ALICE_WORKSPACE_ID": b.id}
    assert workspaces.resolve("a", cwd=tmp_path / "b", env=run_env) == a
    assert workspaces.resolve(None, cwd=tmp_path / "a", env=run_env) == b
    assert workspaces.resolve(None, cwd=tmp_path / "a" / "deep", env={}) == a
    assert workspaces.resolve(str(tmp_path / "b"), env={}) == b
    with pytest.raises(UsageError) as err:
        workspaces.resolve(None, cwd=tmp_path, env={})
    assert err.value.code == "no_workspace"
    with pytest.raises(NotFound) as err:
        workspaces.get("nope")
    assert err.value.code == "unknown_workspace"


def test_remove_only_unregisters(tmp_path):
    ws, _ = workspaces.init(tmp_path / "notes", now=NOW)
    (tmp_path / "notes" / "keep.md").write_text("mine")
    assert workspaces.remove("notes") == ws
    assert workspaces.list_workspaces() == []
    assert (tmp_path / "notes" / "keep.md").read_text() == "mine"


def test_two_entries_with_one_id_are_malformed_naming_both(tmp_path):
    a, _ = workspaces.init(tmp_path / "a", now=NOW)
    path = registry.registry_path()
    data = json.loads(path.read_text())
    data["workspaces"].append({**data["workspaces"][0], "path": str(tmp_path / "b")})
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidInput) as err:
        workspaces.list_workspaces()
    assert err.value.code == "malformed_registry" and err.value.field == "workspaces/1/id"
    assert str(tmp_path / "a") in err.value.message and str(tmp_path / "b") in err.value.message


def failing_projector(ws, created):
    raise InvalidInput("the pack is broken", code="bad_pack")


def noting_projector(ws, created):
    return [f"projected into {ws.id} (created={created})"]


def test_projectors_run_after_creation_and_a_failing_one_is_a_note(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "INIT_PROJECTORS", [f"{__name__}:failing_projector",
                                                      f"{__name__}:noting_projector"])
    notes: list[str] = []
    ws, created = workspaces.init(tmp_path / "notes", now=NOW, notes=notes)
    assert created and workspaces.list_workspaces() == [ws]
    assert notes == ["workspaces: not projected: the pack is broken",
                     "projected into notes (created=True)"]
    notes.clear()
    workspaces.init(tmp_path / "notes", now=NOW, notes=notes)  # already registered: nothing projected again
    assert notes == []


def test_a_failing_populate_registers_nothing(tmp_path):
    def populate(path):
        raise AliceError("clone failed")

    with pytest.raises(AliceError):
        workspaces.init(tmp_path / "cloned", now=NOW, populate=populate)
    assert workspaces.list_workspaces() == []
