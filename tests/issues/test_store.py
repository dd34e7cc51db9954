"""create / update / claim / mark_done: validated, atomic, keeping what people wrote."""

from __future__ import annotations

import os

import pytest

from openalice.core import frontmatter
from openalice.core.errors import Conflict, InvalidInput, NotFound, PathEscape
from openalice.issues import claim_new_then_resume, create, load_issue, mark_done, update

from .conftest import NOW


def issues_dir(ws):
    return ws.root / ".alice" / "issues"


def snapshot(ws):
    d = issues_dir(ws)
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if not p.name.startswith(".")}


def test_create_minimal_file(ws):
    issue = create(ws, {"title": "Fix the login bug"}, "", now=NOW)
    assert issue.id == "fix-the-login-bug"
    assert issue.path.read_text() == "---\ntitle: Fix the login bug\nstatus: todo\npriority: none\n---\n"
    assert load_issue(ws, issue.id) == issue


def test_create_scheduled_with_body_and_every_field(ws):
    fields = {"title": "Daily report", "when": {"kind": "cron", "cron": "0 9 * * 1-5",
                                                "timezone": "Europe/Paris", "catchUp": False},
              "assignee": "@new-each-run", "priority": "high", "agent": "claude",
              "credentialSource": "native", "model": "sonnet", "effort": "high", "timeout": "30m",
              "commentPrompt": "Reply: {comment}"}
    issue = create(ws, fields, "Write the report.\r\n\r\nUse reports/x.csv\n\n\n", issue_id="daily",
                   now=NOW)
    text = issue.path.read_text()
    assert text.endswith("---\n\nWrite the report.\n\nUse reports/x.csv\n")
    assert issue.what == "Write the report.\n\nUse reports/x.csv"
    assert issue.when == {"kind": "cron", "cron": "0 9 * * 1-5", "timezone": "Europe/Paris",
                          "catchUp": False}
    data = frontmatter.parse(text).data
    assert list(data) == ["title", "status", "priority", "assignee", "when", "agent",
                          "credentialSource", "model", "effort", "timeout", "commentPrompt"]


def test_create_drops_default_catch_up(ws):
    issue = create(ws, {"title": "C", "when": {"kind": "cron", "cron": "0 * * * *",
                                               "timezone": "local", "catchUp": True}}, now=NOW)
    assert "catchUp" not in issue.path.read_text() and issue.when["catchUp"] is True


def test_existing_id_is_a_conflict_and_the_file_is_untouched(ws):
    first = create(ws, {"title": "Same"}, "one", now=NOW)
    before = first.path.read_bytes()
    with pytest.raises(Conflict) as err:
        create(ws, {"title": "Same"}, "two", now=NOW)
    assert err.value.exit_code == 2 and err.value.field == "id"
    assert first.path.read_bytes() == before


@pytest.mark.parametrize("issue_id", ["../escape", "a/b", "..", ".hidden", "-x", "a b", "x" * 129, ""])
def test_bad_ids_write_nothing(ws, tmp_path, issue_id):
    with pytest.raises(InvalidInput) as err:
        create(ws, {"title": "T"}, issue_id=issue_id, now=NOW)
    assert err.value.field == "id" and err.value.exit_code == 2
    assert snapshot(ws) == {} and not (ws.root / ".alice" / "escape.md").exists()


def test_title_without_slug_needs_an_id(ws):
    with pytest.raises(InvalidInput) as err:
        create(ws, {"title": "日本語"}, now=NOW)
    assert "pass --id" in err.value.message
    assert create(ws, {"title": "日本語"}, issue_id="jp", now=NOW).title == "日本語"


@pytest.mark.parametrize("fields, field, needle", [
    ({"when": {"kind": "every", "every": "soon"}}, "when.every", "can never fire"),
    ({"when": {"kind": "every", "every": "1d"}}, "when.every", "can never fire"),
    ({"when": {"kind": "cron", "cron": "0 0 9 * * *", "timezone": "UTC"}}, "when.cron", "5 fields"),
    ({"when": {"kind": "cron", "cron": "0 9 * * *", "timezone": "New York-ish"}}, "when.timezone", "IANA"),
    ({"when": {"kind": "at", "at": "2026-05-01T00:00:00Z"}}, "when.at", "in the past"),
    ({"when": {"kind": "at", "at": "tomorrow"}}, "when.at", "can never fire"),
    ({"when": {"kind": "every", "every": "1h", "timezone": "UTC"}}, "when.timezone", "only to a cron"),
    ({"assignee": "@workspace"}, "assignee", "deprecated"),
    ({"assignee": "new", "when": {"kind": "every", "every": "1h"}}, "assignee", "use `@new-then-resume`"),
    ({"assignee": "@human", "when": {"kind": "every", "every": "1h"}}, "assignee", "cannot run a schedule"),
    ({"assignee": "@new-each-run"}, "assignee", "needs a schedule"),
    ({"assignee": "@resume-abc", "model": "m"}, "model", "owns its runtime"),
    ({"credential": "abc", "credentialSource": "native"}, "credentialSource", "cannot be combined"),
    ({"timeout": "20m"}, "timeout", "15m, 30m, 45m, 60m"),
    ({"status": "doing"}, "status", "must be one of"),
    ({"priority": "p0"}, "priority", "must be one of"),
    ({"effort": "huge"}, "effort", "must be one of"),
    ({"commentPrompt": "no token"}, "commentPrompt", "{comment}"),
    ({"telegramConnector": False}, "telegramConnector", "must be true"),
    ({"title": 2026}, "title", "must be a string"),
    ({"title": "  "}, "title", "must not be empty"),
])
def test_create_refuses_what_validate_would_flag(ws, fields, field, needle):
    create(ws, {"title": "Neighbour"}, now=NOW)
    before = snapshot(ws)
    with pytest.raises(InvalidInput) as err:
        create(ws, {"title": "T", **fields}, issue_id="t", now=NOW)
    assert err.value.exit_code == 2 and err.value.field == field, err.value
    assert err.value.file.endswith("/.alice/issues/t.md")
    assert needle in str(err.value)
    assert snapshot(ws) == before


def test_every_problem_is_reported_at_once(ws):
    with pytest.raises(InvalidInput) as err:
        create(ws, {"title": "T", "status": "x", "priority": "y", "timeout": "1m"}, now=NOW)
    assert [e["field"] for e in err.value.details["errors"]] == ["status", "priority", "timeout"]


def test_body_with_nul_and_oversized_files_are_refused(ws):
    with pytest.raises(InvalidInput) as err:
        create(ws, {"title": "T"}, "a\x00b", now=NOW)
    assert err.value.field == "body"
    with pytest.raises(InvalidInput) as err:
        create(ws, {"title": "T"}, "x" * (64 * 1024), now=NOW)
    assert err.value.field == "file" and "too large" in err.value.message
    assert snapshot(ws) == {}


def test_legacy_only_workspace_refuses_create(tmp_path):
    from .conftest import make_ws
    ws = make_ws(tmp_path / "legacy")
    os.rmdir(ws.root / ".alice" / "issues")
    (ws.root / ".alice" / "issue.json").write_text("{}")
    with pytest.raises(InvalidInput) as err:
        create(ws, {"title": "T"}, now=NOW)
    assert err.value.code == "legacy_issue_json"
    assert not (ws.root / ".alice" / "issues").exists()


def test_create_makes_the_issues_dir_when_absent(tmp_path):
    from .conftest import make_ws
    ws = make_ws(tmp_path / "fresh")
    os.rmdir(ws.root / ".alice" / "issues")
    assert create(ws, {"title": "T"}, now=NOW).path.exists()


HAND_WRITTEN = """\
---
# Owner: ops team
title: Nightly sync
custom: {keep: me}   # a comment on an unknown key
status: todo
when:
  kind: every
  every: 2h
model: sonnet
zeta: last
---

Sync the mirrors.
"""


def test_update_merges_and_keeps_everything_else(ws):
    path = issues_dir(ws) / "sync.md"
    path.write_text(HAND_WRITTEN)
    before = load_issue(ws, "sync")
    issue, changed = update(ws, "sync", {"status": "in_progress", "priority": "high"}, now=NOW)
    assert changed
    text = path.read_text()
    assert "# Owner: ops team\n" in text and "custom: {keep: me}   # a comment on an unknown key\n" in text
    assert text.index("custom") < text.index("status") < text.index("zeta") < text.index("priority")
    after = load_issue(ws, "sync")
    assert after == issue
    assert after.extra == before.extra == {"custom": {"keep": "me"}, "zeta": "last"}
    for name in ("title", "when", "model", "what", "assignee"):
        assert getattr(after, name) == getattr(before, name)
    assert (after.status, after.priority) == ("in_progress", "high")


def test_update_unset(ws):
    path = issues_dir(ws) / "sync.md"
    path.write_text(HAND_WRITTEN)
    issue, changed = update(ws, "sync", {}, unset=["model", "zeta", "effort"], now=NOW)
    assert changed and issue.model is None and "zeta" not in issue.extra
    assert "model" not in path.read_text() and "zeta" not in path.read_text()
    for unset, field in ((["title"], "title"), (["bogus"], "bogus")):
        with pytest.raises(InvalidInput) as err:
            update(ws, "sync", {}, unset=unset, now=NOW)
        assert err.value.field == field
    with pytest.raises(InvalidInput) as err:
        update(ws, "sync", {"model": "x"}, unset=["model"], now=NOW)
    assert "both set and unset" in err.value.message
    # without an assignee key the default follows the schedule; an explicit
    # @new-then-resume needs a new assignee when the schedule goes
    update(ws, "sync", {"assignee": "@new-then-resume"}, now=NOW)
    with pytest.raises(InvalidInput) as err:
        update(ws, "sync", {}, unset=["when"], now=NOW)
    assert err.value.field == "assignee" and "needs a schedule" in err.value.message
    issue, _ = update(ws, "sync", {"assignee": "@human"}, unset=["when"], now=NOW)
    assert issue.when is None and issue.assignee == "@human"


def test_update_cron_pieces(ws):
    create(ws, {"title": "C", "when": {"kind": "cron", "cron": "0 9 * * *", "timezone": "UTC"}},
           now=NOW)
    issue, _ = update(ws, "c", {"when": {"timezone": "Europe/Paris"}}, now=NOW)
    assert issue.when == {"kind": "cron", "cron": "0 9 * * *", "timezone": "Europe/Paris",
                          "catchUp": True}
    issue, _ = update(ws, "c", {"when": {"catchUp": False}}, now=NOW)
    assert "catchUp: false" in issue.path.read_text()
    issue, _ = update(ws, "c", {"when": {"kind": "cron", "cron": "0 10 * * *"}}, now=NOW)
    assert issue.when == {"kind": "cron", "cron": "0 10 * * *", "timezone": "Europe/Paris",
                          "catchUp": False}
    issue, _ = update(ws, "c", {"when": {"catchUp": True}}, now=NOW)
    assert "catchUp" not in issue.path.read_text() and issue.when["catchUp"] is True
    issue, _ = update(ws, "c", {"when": {"kind": "every", "every": "45m"}}, now=NOW)
    assert issue.when == {"kind": "every", "every": "45m"}
    with pytest.raises(InvalidInput) as err:
        update(ws, "c", {"when": {"timezone": "UTC"}}, now=NOW)
    assert err.value.field == "when.timezone" and "no cron schedule" in err.value.message


def test_update_to_a_resume_assignee_strips_the_runtime_tuple(ws):
    create(ws, {"title": "R", "when": {"kind": "every", "every": "1h"}, "agent": "claude",
                "credential": "deepseek-1", "model": "m", "effort": "low", "timeout": "15m"},
           now=NOW)
    issue, _ = update(ws, "r", {"assignee": "@resume-quiet-iron-owl-abc123"}, now=NOW)
    assert (issue.agent, issue.credential, issue.model, issue.effort) == (None,) * 4
    assert issue.timeout == "15m"
    with pytest.raises(InvalidInput) as err:
        update(ws, "r", {"model": "other"}, now=NOW)
    assert err.value.field == "model"


def test_update_switches_credentials(ws):
    create(ws, {"title": "K", "credential": "abc"}, now=NOW)
    issue, _ = update(ws, "k", {"credentialSource": "native"}, now=NOW)
    assert (issue.credential, issue.credential_source) == (None, "native")
    issue, _ = update(ws, "k", {"credential": "xyz"}, now=NOW)
    assert (issue.credential, issue.credential_source) == ("xyz", None)


def test_update_body_and_unchanged(ws):
    issue = create(ws, {"title": "B"}, "old body", now=NOW)
    issue, changed = update(ws, "b", {}, body="new body\n", now=NOW)
    assert changed and issue.what == "new body" and issue.path.read_text().endswith("---\n\nnew body\n")
    mtime = issue.path.stat().st_mtime_ns
    again, changed = update(ws, "b", {"priority": "none", "title": "B"}, now=NOW)
    assert not changed and again == issue and issue.path.stat().st_mtime_ns == mtime


def test_update_folds_legacy_what(ws):
    path = issues_dir(ws) / "legacy.md"
    path.write_text("---\ntitle: L\nwhat: Do A\n---\nContext B\n\n## Comments\n\n- old\n")
    before = load_issue(ws, "legacy")
    issue, _ = update(ws, "legacy", {"priority": "low"}, now=NOW)
    assert "what:" not in path.read_text()
    assert issue.what == before.what == "Do A\n\n## Context\n\nContext B"
    assert "- old" in path.read_text()


def test_update_refuses_and_writes_nothing(ws):
    create(ws, {"title": "Neighbour"}, now=NOW)
    create(ws, {"title": "E", "when": {"kind": "every", "every": "30m"}}, now=NOW)
    before = snapshot(ws)
    for changes in ({"when": {"kind": "every", "every": "soon"}}, {"status": "nope"},
                    {"assignee": "@new"}, {"timeout": "5m"}, {"title": ""}):
        with pytest.raises(InvalidInput) as err:
            update(ws, "e", changes, now=NOW)
        assert err.value.file.endswith("e.md") and err.value.field
    assert snapshot(ws) == before


def test_update_repairs_an_invalid_file(ws):
    path = issues_dir(ws) / "fixme.md"
    path.write_text("---\ntitle: F\ntimeout: 20m\n---\n")
    issue, changed = update(ws, "fixme", {"timeout": "30m"}, now=NOW)
    assert changed and issue.timeout == "30m"


def test_update_of_unparseable_file_is_refused(ws):
    path = issues_dir(ws) / "broken.md"
    path.write_text("---\ntitle: &x B\n---\n")
    with pytest.raises(InvalidInput) as err:
        update(ws, "broken", {"status": "done"}, now=NOW)
    assert err.value.field == "frontmatter" and "anchors" in err.value.message
    assert path.read_text() == "---\ntitle: &x B\n---\n"
    with pytest.raises(NotFound):
        update(ws, "nope", {"status": "done"}, now=NOW)


def test_update_does_not_follow_a_symlink(ws, tmp_path):
    target = tmp_path / "outside.md"
    target.write_text("---\ntitle: Outside\n---\n")
    os.symlink(target, issues_dir(ws) / "link.md")
    with pytest.raises(InvalidInput) as err:
        update(ws, "link", {"status": "done"}, now=NOW)
    assert "symbolic link" in err.value.message
    assert target.read_text() == "---\ntitle: Outside\n---\n"


def test_writes_refuse_an_issues_dir_outside_the_workspace(tmp_path):
    from .conftest import make_ws
    ws = make_ws(tmp_path / "w")
    os.rmdir(ws.root / ".alice" / "issues")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", ws.root / ".alice" / "issues")
    with pytest.raises(PathEscape):
        create(ws, {"title": "T"}, now=NOW)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_past_at_blocks_updates_until_done(ws):
    path = issues_dir(ws) / "once.md"
    path.write_text("---\ntitle: Once\nwhen: {kind: at, at: '2026-05-01T00:00:00Z'}\n---\n")
    with pytest.raises(InvalidInput) as err:
        update(ws, "once", {"priority": "high"}, now=NOW)
    assert err.value.field == "when.at"
    issue, _ = update(ws, "once", {"status": "done"}, now=NOW)
    assert issue.status == "done"


# -- the scheduler's rewrites ------------------------------------------------

def test_claim_new_then_resume(ws):
    create(ws, {"title": "Own", "when": {"kind": "every", "every": "1h"}, "agent": "claude",
                "model": "sonnet", "effort": "high", "credentialSource": "native", "timeout": "30m"},
           "Prompt", now=NOW)
    path = issues_dir(ws) / "own.md"
    assert claim_new_then_resume(ws, "own", "resume-bright-oak-fox-a1b2c3") is True
    issue = load_issue(ws, "own")
    assert issue.assignee == "@resume-bright-oak-fox-a1b2c3"
    assert (issue.agent, issue.model, issue.effort, issue.credential_source) == (None,) * 4
    assert issue.timeout == "30m" and issue.what == "Prompt"
    text = path.read_text()
    assert claim_new_then_resume(ws, "own", "resume-other-000000") is False
    assert path.read_text() == text


def test_claim_respects_aliases_and_changes(ws):
    (issues_dir(ws) / "alias.md").write_text(
        "---\ntitle: A\nassignee: '@new'\nwhen: {kind: every, every: 1h}\n---\n")
    assert claim_new_then_resume(ws, "alias", "resume-x") is True
    assert load_issue(ws, "alias").assignee == "@resume-x"
    create(ws, {"title": "Each", "when": {"kind": "every", "every": "1h"},
                "assignee": "@new-each-run"}, now=NOW)
    assert claim_new_then_resume(ws, "each", "resume-x") is False
    assert claim_new_then_resume(ws, "missing", "resume-x") is False
    (issues_dir(ws) / "bad.md").write_text("---\ntitle: [\n---\n")
    assert claim_new_then_resume(ws, "bad", "resume-x") is False
    with pytest.raises(InvalidInput):
        claim_new_then_resume(ws, "each", "not a resume id")


def test_claim_after_the_at_has_passed(ws):
    """The claim follows the run, when the one-shot `at` is already past."""
    (issues_dir(ws) / "once.md").write_text(
        "---\ntitle: Once\nwhen: {kind: at, at: '2026-05-01T00:00:00Z'}\n---\n")
    assert claim_new_then_resume(ws, "once", "resume-x") is True
    assert mark_done(ws, "once") is True
    issue = load_issue(ws, "once")
    assert (issue.status, issue.assignee) == ("done", "@resume-x")
    assert mark_done(ws, "once") is False
    assert mark_done(ws, "missing") is False


def test_refusal_lists_every_problem_once_including_the_schedule(ws):
    with pytest.raises(InvalidInput) as err:
        create(ws, {"title": "T", "assignee": "@human", "timeout": "20m",
                    "when": {"kind": "every", "every": "soon"}}, now=NOW)
    fields = [e["field"] for e in err.value.details["errors"]]
    assert fields == ["timeout", "assignee", "when.every"]
    text = str(err.value)
    assert text.startswith(f"{err.value.file}:timeout: must be one of")
    assert "; assignee: `@human` cannot run a schedule" in text and "timeout: timeout" not in text
    assert "; when.every: can never fire" in text


def test_a_refused_create_leaves_an_absent_workspace_absent(tmp_path):
    from .conftest import make_ws
    ws = make_ws(tmp_path / "fresh")
    os.rmdir(ws.root / ".alice" / "issues")
    with pytest.raises(InvalidInput):
        create(ws, {"title": "T", "timeout": "2m"}, now=NOW)
    assert not (ws.root / ".alice" / "issues").exists()


def test_a_cron_without_timezone_means_local_to_the_reader_and_the_writers(ws):
    """One rule: no `timezone` is the machine's zone, whoever reads or writes the file."""
    from openalice.issues import due
    from openalice.issues.board import validate
    from openalice.issues.schedule import schedule_summary

    created = create(ws, {"title": "Nine", "when": {"kind": "cron", "cron": "0 9 * * *"}}, now=NOW)
    assert created.when["timezone"] == "local"
    assert "timezone: local" in created.path.read_text()  # the file says what it means
    # A hand-written file without the key: read as local, updated without complaint.
    path = ws.root / ".alice" / "issues" / "hand.md"
    path.write_text("---\ntitle: Hand\nwhen:\n  kind: cron\n  cron: 0 9 * * *\n---\n\nGo.\n")
    hand = load_issue(ws, "hand")
    assert hand.when["timezone"] == "local"
    updated, changed = update(ws, "hand", {"when": {"kind": "cron", "cron": "30 9 * * *"}}, now=NOW)
    assert changed and updated.when == {"kind": "cron", "cron": "30 9 * * *", "timezone": "local",
                                        "catchUp": True}
    path.write_text("---\ntitle: Hand\nwhen:\n  kind: cron\n  cron: 0 9 * * *\n---\n\nGo.\n")
    updated, changed = update(ws, "hand", {"title": "Hand 2"}, now=NOW)
    assert changed and "timezone" not in path.read_text()  # untouched keys stay as written
    assert validate([ws], NOW).ok
    # The scheduler computes the same next fire as the listing does.
    expected = schedule_summary(load_issue(ws, "hand"), NOW)["nextFireAt"]
    schedule = due.parse_schedule({"kind": "cron", "cron": "0 9 * * *"})
    assert schedule.problem is None and schedule.timezone == "local"
    from openalice.core.clock import to_iso
    assert to_iso(due.next_due(schedule, {"firstSeenAt": to_iso(NOW)}, NOW)) == expected


def test_update_keeps_the_files_bom_and_crlf_line_ends(ws):
    path = ws.root / ".alice" / "issues" / "win.md"
    original = "\ufeff---\r\ntitle: Windows\r\n# a comment\r\npriority: low\r\n---\r\n\r\nLine one\r\nLine two\r\n"
    path.write_bytes(original.encode("utf-8"))
    issue, changed = update(ws, "win", {"priority": "high"}, now=NOW)
    raw = path.read_bytes()
    assert changed and raw.startswith(b"\xef\xbb\xbf---\r\n")
    assert raw.count(b"\n") == raw.count(b"\r\n")              # every line still ends in CRLF
    assert raw == original.replace("priority: low", "priority: high").encode("utf-8")
    # A change that changes nothing writes nothing (the bytes compare equal as written).
    assert update(ws, "win", {"priority": "high"}, now=NOW)[1] is False
    update(ws, "win", {"when": {"kind": "every", "every": "1h"}, "assignee": "@new-each-run"},
           body="New body\nsecond line\n", now=NOW)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and raw.count(b"\n") == raw.count(b"\r\n")
    assert raw.endswith(b"\r\n\r\nNew body\r\nsecond line\r\n")
    assert load_issue(ws, "win").what == "New body\nsecond line"
    # A plain LF file stays LF without a BOM.
    plain = ws.root / ".alice" / "issues" / "unix.md"
    plain.write_text("---\ntitle: Unix\n---\n\nBody\n")
    update(ws, "unix", {"priority": "high"}, now=NOW)
    assert b"\r" not in plain.read_bytes() and not plain.read_bytes().startswith(b"\xef")


def test_the_schedulers_rewrites_keep_bom_and_crlf_too(ws):
    path = ws.root / ".alice" / "issues" / "at.md"
    path.write_bytes("\ufeff---\r\ntitle: Once\r\nwhen: {kind: at, at: '2026-01-01T00:00:00Z'}\r\n"
                     "assignee: \"@new-each-run\"\r\n---\r\n\r\nGo\r\n".encode("utf-8"))
    assert mark_done(ws, "at") is True
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and raw.count(b"\n") == raw.count(b"\r\n") and b"status: done" in raw
