"""The issue file contract, field by field (reference §1 and §6 items 3-15, 19-24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openalice.core import frontmatter
from openalice.issues.declaration import Issue, alias_problem, declare, id_problem, slug_of, what_of


def judge(text: str):
    doc = frontmatter.parse(text)
    return declare(doc.data, doc.body, issue_id="x", path=Path("/w/.alice/issues/x.md"))


def ok(text: str) -> Issue:
    issue, errors = judge(text)
    assert errors == [] and issue is not None, errors
    return issue


def bad(text: str) -> list[str]:
    issue, errors = judge(text)
    assert issue is None and errors, "expected the file to be invalid"
    return [str(e) for e in errors]


def fm(*lines: str, body: str = "") -> str:
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def test_title_only_gets_the_defaults():                       # item 3
    issue = ok(fm("title: X"))
    assert (issue.status, issue.priority, issue.assignee) == ("todo", "none", "@unassigned")
    assert issue.what == "X" and issue.when is None
    assert not issue.is_scheduled and not issue.is_terminal
    assert issue.timeout is None and issue.timeout_seconds is None


def test_scheduled_without_assignee_is_new_then_resume():      # item 4
    issue = ok(fm("title: X", "when: {kind: every, every: 30m}"))
    assert issue.assignee == "@new-then-resume" and issue.is_scheduled
    assert issue.when == {"kind": "every", "every": "30m"}


def test_read_only_aliases_resolve_when_read():                 # item 5 (read side)
    assert ok(fm("title: X", "assignee: '@workspace'", "when: {kind: every, every: 1h}")).assignee \
        == "@new-each-run"
    assert ok(fm("title: X", "assignee: '@workspace'")).assignee == "@unassigned"
    assert ok(fm("title: X", "assignee: '@new'", "when: {kind: every, every: 1h}")).assignee \
        == "@new-then-resume"


@pytest.mark.parametrize("value", ["@workspace", "workspace", "@WORKSPACE", "@new", "NEW", " @New "])
def test_writers_refuse_the_aliases_with_a_hint(value):         # item 5 (write side)
    problem = alias_problem(value)
    assert problem and "deprecated" in problem and "use `@new-" in problem


def test_aliases_problem_is_none_for_real_assignees():
    for value in ("@new-then-resume", "@human", "@resume-abc", None, 3):
        assert alias_problem(value) is None


def test_when_with_human_or_unassigned_is_invalid():           # item 6
    for who in ("@human", "@unassigned"):
        errors = bad(fm("title: X", f"assignee: '{who}'", "when: {kind: every, every: 30m}"))
        assert errors[0].startswith("assignee: ") and who in errors[0]


def test_new_policies_need_a_schedule():                       # item 7
    for who in ("@new-each-run", "@new-then-resume"):
        assert bad(fm("title: X", f"assignee: '{who}'")) == [
            f"assignee: `{who}` needs a schedule (add when, or assign @human or @unassigned)"]


def test_session_assignee_owns_its_runtime():                   # item 8
    errors = bad(fm("title: X", "assignee: '@resume-x'", "model: m", "agent: claude",
                    "effort: high", "credentialSource: native"))
    fields = sorted(e.split(":")[0] for e in errors)
    assert fields == ["agent", "credentialSource", "effort", "model"]
    assert all("session assignee owns its runtime" in e for e in errors)
    issue = ok(fm("title: X", "assignee: '@resume-x'", "timeout: 30m"))
    assert issue.timeout == "30m" and issue.timeout_seconds == 1800


def test_credential_excludes_credential_source():               # item 9
    errors = bad(fm("title: X", "credential: deepseek-1", "credentialSource: native"))
    assert errors == ["credentialSource: cannot be combined with credential; keep one of them"]
    assert ok(fm("title: X", "credential: deepseek-1")).credential == "deepseek-1"
    issue = ok(fm("title: X", "credentialSource: native"))
    assert issue.credential_source == "native" == issue.credentialSource


def test_credential_must_be_a_vault_slug_and_source_native():
    assert bad(fm("title: X", "credential: Deep Seek"))[0].startswith("credential: ")
    assert bad(fm("title: X", "credentialSource: vault"))[0].startswith("credentialSource: must be")


def test_timeout_is_one_of_four():                              # item 10
    assert bad(fm("title: X", "timeout: 20m")) == [
        "timeout: must be one of 15m, 30m, 45m, 60m (got `20m`)"]
    for value, seconds in (("15m", 900), ("45m", 2700), ("60m", 3600)):
        assert ok(fm("title: X", f"timeout: {value}")).timeout_seconds == seconds


def test_catch_up_must_be_boolean():                            # item 11
    errors = bad(fm("title: X", "when: {kind: cron, cron: '* * * * *', catchUp: sometimes}"))
    assert len(errors) == 1 and errors[0].startswith("when.catchUp:") and "catchUp" in errors[0]
    assert bad(fm("title: X", "when: {kind: cron, cron: '* * * * *', catchUp: 'true'}"))


def test_timezone_must_be_local_or_iana():                       # item 12
    errors = bad(fm("title: X", "when: {kind: cron, cron: '* * * * *', timezone: New York-ish}"))
    assert len(errors) == 1
    import re
    assert re.search(r"timezone.*IANA", errors[0])
    issue = ok(fm("title: X", "when: {kind: cron, cron: '0 9 * * *', timezone: America/New_York}"))
    assert issue.when == {"kind": "cron", "cron": "0 9 * * *", "timezone": "America/New_York",
                          "catchUp": True}


def test_omitted_timezone_is_local_and_catch_up_defaults_true():  # item 26 (read side)
    issue = ok(fm("title: X", "when: {kind: cron, cron: '0 9 * * *'}"))
    assert issue.when["timezone"] == "local" and issue.when["catchUp"] is True
    issue = ok(fm("title: X", "when: {kind: cron, cron: '0 9 * * *', catchUp: false}"))
    assert issue.when["catchUp"] is False


def test_telegram_connector_is_literal_true():                   # item 13 (one file)
    assert bad(fm("title: X", "telegramConnector: false")) == [
        "telegramConnector: must be true (remove the key to turn it off)"]
    assert ok(fm("title: X", "telegramConnector: true")).telegram_connector is True


def test_execution_key_is_retired():                             # item 14
    for value in ("{}", "headless", "null", "[]"):
        errors = bad(fm("title: X", f"execution: {value}"))
        assert errors[0].startswith("execution: is retired")


def test_frontmatter_id_is_an_unknown_key():                     # item 15
    issue = ok(fm("title: X", "id: other"))
    assert issue.id == "x" and issue.extra == {"id": "other"}


def test_unknown_keys_are_kept_in_order():
    issue = ok(fm("zeta: 1", "title: X", "alpha: [a, b]", "nested: {k: v}"))
    assert list(issue.extra) == ["zeta", "alpha", "nested"]
    assert issue.extra["alpha"] == ["a", "b"]


def test_legacy_what_is_folded():                                 # item 19
    assert ok(fm("title: X", "what: A", body="B\n")).what == "A\n\n## Context\n\nB"
    assert ok(fm("title: X", "what: A", body="A\n")).what == "A"
    assert ok(fm("title: X", "what: A")).what == "A"
    assert ok(fm("title: X")).what == "X"
    assert ok(fm("title: X", body="\n\n   \n")).what == "X"
    assert ok(fm("title: X", "what: A")).legacy_what is True
    assert bad(fm("title: X", "what: [1]"))[0].startswith("what: must be a string")


def test_legacy_comments_section_is_cut_from_what():               # item 20
    body = "Do the thing.\n\n## Comments\n\n- old comment\n"
    assert ok(fm("title: X", body=body)).what == "Do the thing."
    assert what_of("a\n##  Comments  \nb", None, "t") == "a"
    assert what_of("a\n### Comments\nb", None, "t") == "a\n### Comments\nb"


def test_title_rules():                                           # item 21 (title: 2026)
    assert bad(fm("title: 2026")) == ['title: must be a string, not an integer (quote it: title: "2026")']
    assert ok(fm("title: '2026'")).title == "2026"
    assert bad(fm("status: todo")) == ["title: is required"]
    assert bad(fm("title: ''")) == ["title: must not be empty"]
    assert bad(fm("title:")) == ["title: is required"]
    assert bad(fm("title: true"))[0].startswith("title: must be a string, not a boolean")


def test_block_when_equals_flow_when():                            # item 22
    block = ok(fm("title: X", "when:", "  kind: cron", "  cron: 0 9 * * 1-5",
                  "  timezone: Europe/Paris"))
    flow = ok(fm("title: X", "when: {kind: cron, cron: '0 9 * * 1-5', timezone: Europe/Paris}"))
    assert block.when == flow.when


def test_when_values_are_not_judged_by_the_reader():               # item 24
    assert ok(fm("title: X", "when: {kind: every, every: soon}")).when["every"] == "soon"
    assert ok(fm("title: X", "when: {kind: cron, cron: '0 0 9 * * *'}")).when["cron"] == "0 0 9 * * *"
    assert ok(fm("title: X", "when: {kind: at, at: garbage}")).when == {"kind": "at", "at": "garbage"}


def test_when_shape_errors():
    assert bad(fm("title: X", "when: daily")) == [
        "when: must be a mapping with kind: at, every or cron (e.g. when: {kind: every, every: 30m})"]
    assert bad(fm("title: X", "when: {every: 30m}")) == ["when.kind: is required: at, every or cron"]
    assert bad(fm("title: X", "when: {kind: weekly}"))[0].startswith("when.kind: must be at")
    assert bad(fm("title: X", "when: {kind: every}")) == ["when.every: is required for kind every"]
    assert bad(fm("title: X", "when: {kind: every, every: 30}")) == [
        "when.every: must be a string, not an integer"]


def test_enums():
    assert bad(fm("title: X", "status: doing"))[0] == (
        "status: must be one of backlog, todo, in_progress, done, canceled (got `doing`)")
    assert bad(fm("title: X", "priority: p1"))[0].startswith("priority: must be one of urgent")
    assert bad(fm("title: X", "effort: extreme"))[0].startswith("effort: must be one of none")
    for status in ("done", "canceled"):
        assert ok(fm("title: X", f"status: {status}")).is_terminal


def test_assignee_errors_hint_the_at_sign():
    errors = bad(fm("title: X", "assignee: human"))
    assert "did you mean `@human`" in errors[0]
    assert bad(fm("title: X", "assignee: '@resume- x'"))
    assert ok(fm("title: X", "assignee: '@resume-bright-oak-fox-a1b2c3'")).assignee \
        == "@resume-bright-oak-fox-a1b2c3"


def test_comment_prompt_rules():
    ok(fm("title: X", "commentPrompt: 'Reply to {author}: {comment} (issue {id})'"))
    assert bad(fm("title: X", "commentPrompt: 'no token'")) == [
        "commentPrompt: must contain the {comment} token"]
    assert bad(fm("title: X", "commentPrompt: '{comment} {nope}'"))[0].startswith(
        "commentPrompt: unknown token {nope}")
    long = "{comment}" + "x" * 8000
    assert bad(fm("title: X", f"commentPrompt: '{long}'"))[0].startswith("commentPrompt: is longer")


def test_empty_values_count_as_absent_but_blank_strings_do_not():
    issue = ok(fm("title: X", "model:", "agent: ~"))
    assert issue.model is None and issue.agent is None
    assert bad(fm("title: X", "model: ' '")) == ["model: must not be empty (remove the key instead)"]


def test_every_error_is_reported_not_just_the_first():
    errors = bad(fm("title: 2026", "status: x", "priority: y", "timeout: 1m", "execution: 1"))
    assert [e.split(":")[0] for e in errors] == ["title", "status", "priority", "timeout", "execution"]


def test_ids_and_slugs():
    assert id_problem("daily-report_2") is None
    assert "not a file name" in id_problem("../x")
    assert "not a file name" in id_problem("a/b")
    assert id_problem("") == "is empty"
    assert "longer than 128" in id_problem("a" * 129)
    assert id_problem("a" * 128) is None
    assert "must start with a letter or digit" in id_problem("-x")
    assert "must start with a letter or digit" in id_problem("My File")
    assert slug_of("  Fix the Login bug!! ") == "fix-the-login-bug"
    assert slug_of("日本語") == ""
    assert len(slug_of("x" * 200)) == 64
