"""Each view of the page renders real data from the CLIs, and the page's
actions round-trip through the gateway to the state files."""

from __future__ import annotations

import time


def badge(page) -> str:
    return page.js("const b = document.getElementById('unread-badge');"
                   "return b.classList.contains('zero') ? '' : b.textContent")


def test_the_token_url_left_the_address_bar(page):
    assert page.driver.current_url == page.served.base + "/"
    cookies = {c["name"]: c for c in page.driver.get_cookies()}
    cookie = cookies[f"openalice-gateway-{page.served.port}"]
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
    assert page.js("return document.cookie") == ""  # HttpOnly: not readable by scripts


def test_inbox_renders_the_reports_newest_first_with_the_server_count(page):
    page.view("inbox")
    ids = page.wait(lambda: page.js("return [...document.querySelectorAll('article.entry')]"
                                    ".map(a => a.dataset.id)"), what="entries")
    assert ids == list(reversed(page.site.entries))
    unread = page.site.json("alice-inbox", "count")["unread"]
    assert unread == 2 and badge(page) == "2"
    newest = page.css(f"#entry-{page.site.entries[-1]}")[0]
    assert newest.find_element("css selector", "h1").text == "Nightly close"
    assert newest.find_element("css selector", "strong").text == "Revenue"
    # raw HTML is text, not elements
    assert "<b>bold</b> <img src=x onerror=alert(1)>" in newest.text
    assert page.js("return arguments[0].querySelectorAll('.md b, .md img:not([src^=\"/api/\"])')"
                   ".length", newest) == 0
    # a reference in code stays literal; a missing file is still a file block, marked unavailable
    assert "[[in/code.md]]" in newest.find_element("css selector", "code").text
    state = f"#entry-{page.site.entries[0]} .file-block .state"
    page.wait(lambda: page.css(state)[0].text == "missing", what="the missing file's state")


def test_a_report_image_is_shown_inline(page):
    page.view("inbox")
    entry = page.site.entries[-1]
    size = page.wait(lambda: page.js(
        "const img = document.querySelector('#entry-' + arguments[0] + ' .file-image img');"
        "return img && img.complete && img.naturalWidth ? [img.naturalWidth, img.naturalHeight] : null",
        entry), what="the image to load")
    assert size == [240, 110]
    src = page.js("return document.querySelector('#entry-' + arguments[0] + ' .file-image img')"
                  ".getAttribute('src')", entry)
    assert src == f"/api/inbox/{entry}/files/0"


def test_an_html_file_reference_is_downloaded_not_rendered(page):
    page.view("inbox")
    entry = page.site.entries[-1]
    link = page.css(f'#entry-{entry} a.file-block[data-ref="reports/close.html"]')[0]
    handles = page.driver.window_handles
    before = page.driver.current_url
    link.click()
    target = page.downloads / "close.html"
    page.wait(lambda: target.exists() and target.stat().st_size > 0, what="the download")
    assert target.read_bytes() == (page.site.workspaces["notes"] / "reports" / "close.html").read_bytes()
    time.sleep(0.3)
    assert page.driver.window_handles == handles and page.driver.current_url == before
    assert page.driver.title == "OpenAlice"  # the report's script never ran here
    assert page.js("return document.getElementById('pwned')") is None
    # and fetched directly, it is an attachment in a sandbox
    headers = page.js("""
        return fetch(arguments[0]).then(r => [r.headers.get('content-type'),
            r.headers.get('content-disposition'), r.headers.get('content-security-policy'),
            r.headers.get('x-content-type-options')]);""", link.get_attribute("href"))
    assert headers[0] == "application/octet-stream" and headers[1].startswith("attachment;")
    assert headers[2].startswith("sandbox") and headers[3] == "nosniff"


def test_a_pushed_report_arrives_live(page):
    page.view("inbox")
    count = len(page.css("article.entry"))
    entry = page.site.push(page.site.workspaces["research"], "## Live one\n\nArrived while you watched.")
    page.wait(lambda: page.css(f"#entry-{entry}"), what="the live entry")
    assert len(page.css("article.entry")) == count + 1
    assert page.js("return document.querySelector('article.entry').dataset.id") == entry
    page.wait(lambda: badge(page) == "3", what="the badge to count it")


def test_mark_all_read_updates_the_badge_with_the_server_count(page):
    page.view("inbox")
    assert badge(page) == "3"
    page.css("#mark-all-read")[0].click()
    page.wait(lambda: badge(page) == "", what="the badge to clear")
    assert page.site.json("alice-inbox", "count")["unread"] == 0
    assert "0 unread of 3" in page.css("#inbox-counts")[0].text
    page.wait(lambda: not page.css("article.entry.unread"), what="entries drawn as read")
    # one back to unread from the page
    entry = page.site.entries[0]
    page.css(f"#entry-{entry} .entry-actions button")[0].click()
    page.wait(lambda: badge(page) == "1", what="the badge after mark unread")
    assert page.site.json("alice-inbox", "count")["unread"] == 1


def test_board_shows_issues_by_status_and_invalid_files(page):
    page.view("board")
    page.wait(lambda: page.css('.column[data-status="todo"] .issue'), what="the board")
    columns = page.js("""return Object.fromEntries([...document.querySelectorAll('.column')].map(c =>
        [c.dataset.status, [...c.querySelectorAll('.issue')].map(i => i.dataset.issue)]))""")
    assert columns["todo"] == ["notes/daily", "research/papers"]
    assert columns["in_progress"] == ["notes/login-bug"]
    assert columns["done"] == ["research/archive-2025"]
    invalid = page.css('.invalid-file[data-file="notes/broken"]')
    assert invalid and "status" in invalid[0].text
    options = page.js("return [...document.querySelectorAll('#issue-workspace option')].map(o => o.value)")
    assert options == ["notes", "research"]


def test_create_an_issue_from_the_page(page):
    page.view("board")
    page.wait(lambda: page.js("return document.querySelectorAll('#issue-workspace option').length"),
              what="workspaces in the form")
    page.css("#issue-title")[0].send_keys("Written in the browser")
    page.js("document.getElementById('issue-workspace').value = 'research'")
    page.css("#issue-id")[0].send_keys("from-web")
    page.js("document.getElementById('issue-when').value = 'every'")
    page.css("#issue-when-value")[0].send_keys("12h")
    page.css("#issue-body")[0].send_keys("Check the feeds")
    page.css("#issue-create")[0].click()
    page.wait(lambda: page.css('.issue[data-issue="research/from-web"]'), what="the new issue")
    shown = page.site.json("alice", "issue", "show", "from-web", "--workspace", "research")
    assert shown["title"] == "Written in the browser" and shown["when"] == {"kind": "every", "every": "12h"}
    assert shown["body"].strip() == "Check the feeds"
    # a refused create shows the CLI's reason, and writes nothing
    page.css("#issue-title")[0].send_keys("Duplicate")
    page.css("#issue-id")[0].send_keys("from-web")
    page.css("#issue-create")[0].click()
    # the CLI names the field (id): its reason is shown beside that field
    msg = page.wait(lambda: page.css('#issue-form .field-msg[data-msg-for="id"]')[0].text, what="the error")
    assert "from-web" in msg


def test_run_now_starts_a_run_that_the_runs_view_lists(page):
    page.view("board")
    button = page.wait(lambda: page.css('button[data-run="notes/daily"]'), what="Run now")[0]
    button.click()
    note = page.wait(lambda: page.js(
        "return document.querySelector('.issue[data-issue=\"notes/daily\"] .small.muted').textContent"),
        what="the run note")
    assert note.startswith("started run-")
    task = note.split()[1]
    page.view("runs")
    page.wait(lambda: page.css(f'#runs-table tr[data-task="{task}"]'), what="the run row")
    page.wait(lambda: page.css('#health-table tr[data-issue="notes/daily"]'), what="health row")
    health_text = page.css('#health-table tr[data-issue="notes/daily"]')[0].text
    assert "Daily report" in health_text
    runs = page.site.json("alice-schedule", "runs")["runs"]
    assert task in [r["taskId"] for r in runs]


def test_adapters_toggle_round_trips_and_health_says_why(page):
    page.view("adapters")
    toggle = page.wait(lambda: page.css('input[data-adapter-toggle="codex"]'), what="adapters")[0]
    assert toggle.is_selected() is False
    assert page.css('input[data-adapter-toggle="claude"]')[0].is_selected() is True
    toggle.click()
    page.wait(lambda: page.site.json("harness-adapter", "show", "codex")["enabled"] is True,
              what="codex enabled in the state file")
    page.driver.refresh()
    page.view("adapters")
    toggle = page.wait(lambda: page.css('input[data-adapter-toggle="codex"]'), what="adapters")[0]
    assert toggle.is_selected() is True
    toggle.click()
    page.wait(lambda: page.site.json("harness-adapter", "show", "codex")["enabled"] is False,
              what="codex disabled again")
    # the probe's reason is shown, redacted
    page.wait(lambda: page.js("return document.querySelector('[data-health=\"codex\"]').textContent")
              == "down", what="the probe")
    detail = page.css('.adapter[data-adapter="codex"] .health-detail')[0].text
    assert "auth failed" in detail and "sk-LEAKED" not in detail


def test_the_model_picker_and_the_write_only_secret(page):
    page.view("adapters")
    card = page.wait(lambda: page.css('.adapter[data-adapter="claude"]'), what="claude")[0]
    boxes = card.find_elements("css selector", ".models input")
    assert [b.get_attribute("value") for b in boxes] == ["claude-sonnet-4-6", "claude-opus-5",
                                                          "claude-haiku-4-5"]
    boxes[1].click()
    boxes[2].click()
    card.find_element("xpath", ".//button[text()='Save models']").click()
    page.wait(lambda: page.site.json("harness-adapter", "show", "claude")["models"]
              == ["claude-sonnet-4-6"], what="models narrowed")
    page.settle()     # the card is drawn again once the save's answer arrives: find the field after that
    secret = "sk-ant-CANARY-in-browser-91f3"
    card = page.css('.adapter[data-adapter="claude"]')[0]
    field = card.find_element("css selector", 'input[data-secret="claude:ANTHROPIC_API_KEY"]')
    assert field.get_attribute("type") == "password"
    field.send_keys(secret)
    field.find_element("xpath", "following-sibling::button").click()
    page.wait(lambda: page.js("return document.querySelector('[data-secret-state=\"claude:ANTHROPIC_API_KEY\"]')"
                              ".textContent") == "set", what="the secret stored")
    env_file = page.site.root / "catalog" / "secrets" / "CLAUDE.env"
    assert secret in env_file.read_text()
    assert secret not in page.driver.page_source
    assert page.js("return [...document.querySelectorAll('input')].some(i => i.value === arguments[0])",
                   secret) is False
    assert secret not in page.served.log


def test_journal_lists_facts_and_streams_new_ones(page):
    page.view("journal")
    rows = page.wait(lambda: page.css("#journal-table tbody tr[data-seq]"), what="journal rows")
    last = page.site.json("alice", "journal", "--limit", "1")["lastSeq"]
    seqs = [int(r.get_attribute("data-seq")) for r in rows]
    assert seqs[0] == last and seqs == sorted(seqs, reverse=True)
    entry = page.site.push(page.site.workspaces["notes"], "Journal check")
    page.wait(lambda: page.css(f'#journal-table tbody tr[data-seq="{last + 1}"]'), what="the live fact")
    row = page.css(f'#journal-table tbody tr[data-seq="{last + 1}"]')[0]
    assert "inbox.received" in row.text and "Journal check" in row.text
    assert entry
    # family filter goes to the server
    page.js("const s = document.getElementById('journal-family'); s.value = 'agent';"
            "s.dispatchEvent(new Event('change'))")
    page.wait(lambda: all("inbox." not in r.text for r in page.css("#journal-table tbody tr[data-seq]")),
              what="agent facts only")


def test_no_script_errors(page):
    """Refused requests (the duplicate create above) log as network errors;
    nothing else may: no script error, no CSP violation."""
    errors = [e for e in page.console() if e.get("source") != "network"]
    assert errors == []
