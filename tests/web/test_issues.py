"""Issues you can shape: the issue detail view (fields, next fires, runs, the
thread with a reply box) and the richer create / edit forms, whose CLI
warnings and errors show beside the field they name."""

from __future__ import annotations

import json

import pytest

ISSUE = "notes/daily"


@pytest.fixture(scope="module")
def born(page):
    """notes/daily run once by the stand-in claude: its session owns the issue."""
    page.site.engines.behave("ok")
    task = page.site.json("alice-schedule", "run-now", ISSUE)["task"]["taskId"]
    shown = page.site.json("alice-schedule", "run", task, "--wait", "--timeout", "60")
    assert shown["task"]["status"] == "done", shown["task"]
    return task


def _open_issue(page, ws="notes", issue="daily"):
    page.js("location.hash = arguments[0]", f"#issue/{ws}/{issue}")
    page.wait(lambda: page.js("return document.getElementById('issue-view').dataset.state") in
              ("ready", "error"), what="the issue view")
    page.settle()


def _no_overflow_at_390(page, what):
    size = page.driver.get_window_size()
    try:
        page.driver.set_window_size(390, 844)
        page.wait(lambda: page.js("return document.documentElement.clientWidth") <= 390, what="resize")
        assert page.js("return document.documentElement.scrollWidth <= "
                       "document.documentElement.clientWidth"), f"{what} overflows at 390 px"
    finally:
        page.driver.set_window_size(size["width"], size["height"])


def test_open_an_issue_from_the_board_and_see_fields_next_fires_and_runs(page, born):
    page.view("board")
    link = page.wait(lambda: page.css(f'a[data-open-issue="{ISSUE}"]'), what="the issue's link")[0]
    link.send_keys("\n")  # the keyboard opens it
    page.wait(lambda: page.js("return location.hash") == f"#issue/{ISSUE}", what="the deep link")
    page.wait(lambda: page.js("return document.getElementById('issue-view').dataset.state") == "ready",
              what="the issue detail")
    page.settle()
    shown = page.site.json("alice", "issue", "show", "daily", "--workspace", "notes")
    assert page.css("#issue-heading")[0].text == "Daily report"
    fields = page.css("#issue-fields")[0].text
    assert "high" in fields and shown["assignee"] in fields
    nxt = page.site.json("alice-schedule", "next", ISSUE)
    fires = page.css("#issue-fires tbody tr")
    # "every" counts from now for an issue that never fired: compare to the day
    assert len(fires) == 5 and nxt["instants"][0]["utc"][:10] in fires[0].text
    row = page.wait(lambda: page.css(f'#issue-runs-table tr[data-task="{born}"] a'), what="the run")[0]
    assert row.get_attribute("href").endswith(f"#runs/{born}")
    # the deep link survives a reload, and the view is usable on a phone-wide window
    page.driver.refresh()
    page.wait(lambda: page.css("#issue-heading") and page.css("#issue-heading")[0].text == "Daily report",
              what="the issue after reload")
    page.settle()
    _no_overflow_at_390(page, "the issue view")
    # the run opens in the run view, which links back to the issue
    page.css(f'#issue-runs-table tr[data-task="{born}"] a')[0].send_keys("\n")
    page.wait(lambda: page.js("return document.getElementById('run-detail').dataset.task") == born,
              what="the run view")
    assert page.css(f'#run-detail a[href="#issue/{ISSUE}"]')


def test_create_a_scheduled_issue_for_an_agent_not_installed_shows_the_cli_warning(page):
    (page.site.engines.bin / "pi").unlink()  # pi is known to the toolkit but not on PATH now
    page.driver.refresh()
    page.view("board")
    agent = page.wait(lambda: page.css('#issue-shape select[name="agent"]'), what="the agent field")[0]
    options = {o.get_attribute("value"): o.text for o in agent.find_elements("css selector", "option")}
    assert "not installed" in options["pi"] and "not installed" not in options["claude"]
    assert "local" in options  # the adapter catalog's engines are listed too
    form = page.css("#issue-form")[0]
    form.find_element("css selector", "#issue-title").send_keys("Weekly pi digest")
    form.find_element("css selector", "#issue-id").send_keys("pi-digest")
    from selenium.webdriver.support.ui import Select

    Select(form.find_element("css selector", "#issue-when")).select_by_value("every")
    form.find_element("css selector", "#issue-when-value").send_keys("24h")
    Select(agent).select_by_value("pi")
    assert "not installed" in page.css("#issue-shape [data-agent-state]")[0].text
    model = form.find_element("css selector", '#issue-shape input[name="model"]')
    model.send_keys("claude-opus-5")
    hint = page.css("#issue-shape [data-model-hint]")[0].text
    assert "Adaptive reasoning" in hint  # the model's semantics from the model table
    efforts = [o.get_attribute("value") for o in
               form.find_elements("css selector", '#issue-shape select[name="effort"] option')]
    assert efforts == ["", "low", "medium", "high", "xhigh", "max"]  # that model's ladder
    Select(form.find_element("css selector", '#issue-shape select[name="effort"]')).select_by_value("high")
    Select(form.find_element("css selector", '#issue-shape select[name="timeout"]')).select_by_value("30m")
    form.find_element("css selector", "#issue-create").click()
    page.wait(lambda: page.css("#issue-created"), what="the created issue")
    page.settle()
    warning = page.css('#issue-form .field-msg[data-msg-for="agent"]')[0]
    assert "warn" in warning.get_attribute("class") and "not on PATH" in warning.text
    assert warning.find_element("css selector", "[data-code]").get_attribute("data-code") == "agent_not_installed"
    made = page.site.json("alice", "issue", "show", "pi-digest", "--workspace", "notes")
    assert (made["agent"], made["model"], made["effort"], made["timeout"]) == \
        ("pi", "claude-opus-5", "high", "30m")
    # an invalid combination: each of the CLI's errors lands beside its field, nothing is written
    form.find_element("css selector", "#issue-title").send_keys("Broken owner")
    owner = form.find_element("css selector", '#issue-shape input[name="assignee"]')
    owner.send_keys("@resume-quiet-owl-aaaaaa")  # a session owns its runtime: agent/model/effort refused
    form.find_element("css selector", "#issue-create").click()
    for field in ("agent", "model", "effort"):
        bad = page.wait(lambda: [m for m in page.css(f'#issue-form .field-msg[data-msg-for="{field}"]')
                                 if "owns its runtime" in m.text], what=f"the {field} error")[0]
        assert "bad" in bad.get_attribute("class")
    assert not page.css("#board-error")[0].text  # placed beside the fields, not repeated
    assert page.site.run("alice", "issue", "show", "broken-owner", "--workspace", "notes", "--json",
                         check=False).returncode == 2
    _no_overflow_at_390(page, "the board with the create form")


def test_reply_in_the_thread_and_see_the_reply_arrive(page, born):
    _open_issue(page)
    box = page.css("#issue-reply-body")[0]
    box.send_keys("Why is Monday's number off?")
    from selenium.webdriver.common.keys import Keys

    box.send_keys(Keys.CONTROL, Keys.ENTER)  # the keyboard sends it
    resume = page.site.json("alice", "issue", "show", "daily", "--workspace", "notes")["assignee"][1:]
    expected = page.site.engines.expected_text("claude", "resume-stream")
    reply = page.wait(lambda: page.css(f'#issue-thread article.comment[data-author="@{resume}"]'),
                      timeout=60, what="the session's reply")[0]
    assert expected.strip().splitlines()[0][:40] in reply.text
    page.wait(lambda: page.css('#issue-thread article.comment[data-author="human"] [data-delivery]')[0]
              .text.startswith("replied"), what="the delivery state")
    thread = page.site.json("alice", "issue", "thread", "daily", "--workspace", "notes")
    human = [c for c in thread["comments"] if c["author"] == "human"][-1]
    assert human["via"] == "web" and human["delivery"]["state"] == "replied"
    # The thread is re-read while the POST (the CLI's --wait) is still out, so the reply can
    # show before the POST returns; the box is emptied when it does.
    page.wait(lambda: page.css("#issue-reply-body")[0].get_attribute("value") == "",
              what="the reply box emptied once the comment was posted")


def test_edit_refusal_is_shown_beside_the_field(page, born):
    _open_issue(page)
    from selenium.webdriver.support.ui import Select

    Select(page.css('#issue-edit-shape select[name="agent"]')[0]).select_by_value("codex")
    page.css("#issue-save")[0].click()
    msg = page.wait(lambda: [m for m in page.css('#issue-edit .field-msg[data-msg-for="agent"]') if m.text],
                    what="the agent error")[0]
    assert "owns its runtime" in msg.text and "bad" in msg.get_attribute("class")
    # a change the CLI accepts is saved and shown
    Select(page.css('#issue-edit-shape select[name="agent"]')[0]).select_by_value("")
    Select(page.css('#issue-edit select[name="priority"]')[0]).select_by_visible_text("low")
    page.css("#issue-save")[0].click()
    page.wait(lambda: page.css("#issue-edit-note")[0].text == "saved", what="saved")
    assert "low" in page.css("#issue-fields")[0].text
    assert page.site.json("alice", "issue", "show", "daily", "--workspace", "notes")["priority"] == "low"


def test_an_invalid_issue_file_keeps_its_error_list(page):
    _open_issue(page, "notes", "broken")
    items = page.wait(lambda: page.css("#issue-invalid-list li"), what="the error list")
    assert any(i.get_attribute("data-field") == "status" for i in items)
    assert "invalid" in page.css("#issue-error")[0].text.lower()


def test_a_failed_reply_shows_the_cli_message(page, born):
    page.site.engines.behave("exit", exitCode=1)
    try:
        _open_issue(page)
        box = page.css("#issue-reply-body")[0]
        box.send_keys("Try again?")
        page.css("#issue-reply-send")[0].click()
        message = page.wait(lambda: page.css("#issue-reply-error")[0].text, timeout=60,
                            what="the failure")
        assert message
        page.wait(lambda: any(s.text.startswith("failed") for s in
                              page.css('#issue-thread article.comment[data-author="human"] [data-delivery]')),
                  what="the failed state")
    finally:
        page.site.engines.behave("ok")
    thread = page.site.json("alice", "issue", "thread", "daily", "--workspace", "notes")
    mine = [c for c in thread["comments"] if c["markdown"] == "Try again?"]
    assert mine and mine[0]["delivery"]["state"] == "failed", json.dumps(mine)


def test_a_run_started_elsewhere_appears_live_in_the_issue_view(page, born):
    _open_issue(page)
    before = {r.get_attribute("data-task") for r in page.css("#issue-runs-table tr[data-task]")}
    task = page.site.json("alice-schedule", "run-now", ISSUE)["task"]["taskId"]  # from the CLI
    assert task not in before
    page.wait(lambda: page.css(f'#issue-runs-table tr[data-task="{task}"]'), timeout=30,
              what="the new run, from the journal stream")
    page.site.run("alice-schedule", "run", task, "--wait", "--timeout", "60", "--json")


def test_the_board_links_an_invalid_file_to_its_error_list(page):
    page.view("board")
    link = page.wait(lambda: page.css('li.invalid-file[data-file="notes/broken"] a'), what="the link")[0]
    link.send_keys("\n")
    page.wait(lambda: page.css("#issue-invalid-list li"), what="the error list")


def test_the_credential_choice_lists_the_vault_and_the_native_login(page):
    page.site.run("alice", "credential", "add", "work-key", "-", "--vendor", "anthropic",
                  input="sk-ant-test-0123456789")
    page.driver.refresh()
    page.view("board")
    cred = page.wait(lambda: page.css('#issue-shape select[name="credential"]'), what="the field")[0]
    options = {o.get_attribute("value"): o.text for o in cred.find_elements("css selector", "option")}
    assert options["work-key"] == "work-key (anthropic)" and "@native" in options
    assert "sk-ant" not in page.driver.page_source  # a key never reaches the page
    from selenium.webdriver.support.ui import Select

    page.css("#issue-title")[0].send_keys("Native login run")
    page.css("#issue-id")[0].send_keys("native-run")
    Select(cred).select_by_value("@native")
    page.css("#issue-create")[0].click()
    page.wait(lambda: page.css("#issue-created"), what="the created issue")
    made = page.site.json("alice", "issue", "show", "native-run", "--workspace", "notes")
    assert made["credentialSource"] == "native" and made["credential"] is None
    # the detail view's edit form switches it to the vault credential
    page.js("location.hash = arguments[0]", "#issue/notes/native-run")
    page.wait(lambda: page.js("return document.getElementById('issue-view').dataset.state") == "ready",
              what="the issue")
    page.settle()
    Select(page.css('#issue-edit-shape select[name="credential"]')[0]).select_by_value("work-key")
    page.css("#issue-save")[0].click()
    page.wait(lambda: page.css("#issue-edit-note")[0].text in ("saved", "unchanged") or
              page.css("#issue-edit-other")[0].text or
              page.css('#issue-edit .field-msg[data-msg-for="credential"]')[0].text, what="the answer")
    page.settle()
    after = page.site.json("alice", "issue", "show", "native-run", "--workspace", "notes")
    assert page.css("#issue-edit-note")[0].text == "saved", page.css("#issue-edit")[0].text
    assert after["credential"] == "work-key"
