"""The run detail view (why a run failed, Retry now) and reports read in the page
(rendered by the entry renderer: a script in a report never runs)."""

from __future__ import annotations

from tests.helpers.web_site import add_report_with_script


def _failed_run(page) -> dict:
    """notes/daily run for real by the stand-in claude replaying "not logged in"."""
    page.site.engines.behave("failure", name="claude-nologin")
    started = page.site.json("alice-schedule", "run-now", "notes/daily")
    task = started["task"]["taskId"]
    shown = page.site.json("alice-schedule", "run", task, "--wait", "--timeout", "60")
    assert shown["task"]["status"] == "failed", shown["task"]
    return shown


def test_open_a_failed_run_from_the_list_and_read_why(page):
    shown = _failed_run(page)
    task, failure = shown["task"]["taskId"], shown["task"]["failure"]
    page.view("runs")
    link = page.wait(lambda: page.css(f'#runs-table tr[data-task="{task}"] a'), what="the run row")[0]
    link.send_keys("\n")  # the keyboard opens it
    page.wait(lambda: page.js("return location.hash") == f"#runs/{task}", what="the deep link")
    page.wait(lambda: page.css("#run-why"), what="the reason")
    page.settle()
    why = page.css("#run-why")[0].text
    assert failure["message"] in why and failure["reason"] in why
    if failure.get("next"):
        assert failure["next"].replace("`", "") in page.css("#run-next")[0].text  # `x` as <code>
    assert page.css("#run-status")[0].text == "failed"
    assert not page.css("#run-retry")[0].get_attribute("hidden")
    # the deep link survives a reload
    page.driver.refresh()
    page.wait(lambda: page.css("#run-why") and failure["message"] in page.css("#run-why")[0].text,
              what="the reason after reload")
    # the log is a download through the run's own log route
    href = page.css('a[data-log="stderr"]')[0].get_attribute("href")
    assert href.endswith(f"/api/runs/{task}/logs/stderr")
    got = page.js("return fetch(arguments[0]).then(r => Promise.all([r.status, "
                  "r.headers.get('content-disposition'), r.text()]))", href)
    assert got[0] == 200 and got[1].startswith("attachment;")
    assert got[2] == page.site.json("alice-schedule", "log", task)["content"]
    # usable on a 390-pixel-wide window: nothing wider than the window
    size = page.driver.get_window_size()
    try:
        page.driver.set_window_size(390, 844)
        page.wait(lambda: page.js("return document.documentElement.clientWidth") <= 390, what="resize")
        assert page.js("return document.documentElement.scrollWidth <= "
                       "document.documentElement.clientWidth"), "the run view overflows at 390 px"
    finally:
        page.driver.set_window_size(size["width"], size["height"])


def test_retry_a_failed_run_and_see_the_new_run(page):
    shown = _failed_run(page)
    task = shown["task"]["taskId"]
    page.site.engines.behave("ok")
    page.js("location.hash = arguments[0]", f"#runs/{task}")
    button = page.wait(lambda: [b for b in page.css("#run-retry") if b.is_displayed()],
                       what="Retry now")[0]
    button.click()
    started = page.wait(lambda: page.css("#run-started"), what="the new run")[0]
    new = started.get_attribute("href").rsplit("/", 1)[1]
    assert new != task
    record = page.site.json("alice-schedule", "run", new)["task"]
    assert record["retryOfTaskId"] == task
    started.click()
    page.wait(lambda: page.js("return document.getElementById('run-detail').dataset.task") == new,
              what="the new run's view")
    page.wait(lambda: page.css("#run-status")[0].text == "done", timeout=30,
              what="the new run to finish live")
    assert new in page.css("#run-detail")[0].text and task in page.css("#run-detail")[0].text
    assert page.js("return document.getElementById('run-detail').dataset.state") == "ready"
    # and the failed run now links to its retry
    page.js("location.hash = arguments[0]", f"#runs/{task}")
    page.wait(lambda: new in page.css("#run-retries")[0].text, what="the retry link")


def test_an_unknown_run_says_so_and_its_view_is_in_error(page):
    """The run view's state (what the first-render benchmark waits for) is
    'error' when the CLI refuses, with the CLI's message shown."""
    known = _failed_run(page)["task"]["taskId"]
    page.site.engines.behave("ok")
    missing = known[:-4] + ("0000" if not known.endswith("0000") else "1111")
    page.js("location.hash = arguments[0]", f"#runs/{missing}")
    page.wait(lambda: page.js("return document.getElementById('run-detail').dataset.state") == "error",
              what="the error state")
    assert page.wait(lambda: page.css("#run-error")[0].text, what="the CLI's message")
    page.js("location.hash = arguments[0]", f"#runs/{known}")
    page.wait(lambda: page.js("return document.getElementById('run-detail').dataset.state") == "ready",
              what="the known run")


def test_retry_refused_by_the_cli_shows_its_message(page):
    page.site.engines.behave("hang")
    shown = page.site.json("alice-schedule", "runs", "--issue", "notes/daily", "--status", "failed")
    failed = shown["runs"][0]["taskId"]
    live = page.site.json("alice-schedule", "run-now", "notes/daily")["task"]["taskId"]
    try:
        page.js("location.hash = arguments[0]", f"#runs/{failed}")
        page.wait(lambda: page.js("return document.getElementById('run-detail').dataset.task") == failed,
                  what="the failed run")
        page.css("#run-retry")[0].click()
        message = page.wait(lambda: page.css("#run-error")[0].text, what="the refusal")
        assert "running" in message.lower() or live in message
        # The live run ends: its runtime facts make the page reload the run shown, and that
        # background reload keeps the refusal (it once wiped it).
        before = page.served.log.count(f'"GET /api/runs/{failed}"')
        page.site.engines.kill_hanging()
        page.wait(lambda: page.served.log.count(f'"GET /api/runs/{failed}"') > before, what="a reload of the run",
                  timeout=20)
        page.settle()
        assert page.css("#run-error")[0].text == message
    finally:
        page.site.engines.behave("ok")
        page.site.engines.kill_hanging()
        page.site.run("alice-schedule", "run", live, "--wait", "--timeout", "30", "--json", check=False)


def test_a_markdown_report_is_rendered_in_the_page_and_its_script_never_runs(page):
    entry = add_report_with_script(page.site)
    page.view("inbox")
    # displayed, not only present: the inbox view may still be drawing the entry
    read = page.wait(lambda: [e for e in page.css(f'#entry-{entry} a.read-link[data-ref="reports/evil.md"]')
                              if e.is_displayed() and e.is_enabled()], what="the Read link")[0]
    read.send_keys("\n")
    page.wait(lambda: page.css("#report-body h1"), what="the rendered report")
    page.settle()
    body = page.css("#report-body")[0]
    assert body.find_element("css selector", "h1").text == "Evil report"
    assert body.find_element("css selector", "strong").text == "words"
    assert "<script>document.title='ran'" in body.text  # raw HTML is text
    assert page.js("return document.querySelectorAll('#report-body script, #report-body img').length") == 0
    assert page.js("return window.pwned === undefined") and page.driver.title == "OpenAlice"
    external = page.css('#report-body a[href="https://example.invalid/page"]')[0]
    assert external.get_attribute("target") == "_blank" and "noopener" in external.get_attribute("rel")
    assert not page.css('#report-body a[href^="javascript:"]')
    assert page.css("#report-state")[0].text == "as published"
    # a file changed since publication is labelled so
    (page.site.workspaces["notes"] / "reports" / "evil.md").write_text("# Rewritten\n")
    page.driver.refresh()
    page.wait(lambda: page.css("#report-state")[0].text == "changed since publication",
              what="the changed label")
    # the page's CSP forbids inline script: one injected by hand does not run either
    page.js("const s = document.createElement('script'); s.textContent = 'window.pwned = 9';"
            "document.body.append(s)")
    assert page.js("return window.pwned === undefined")


def test_an_html_reference_is_not_offered_for_reading(page):
    page.view("inbox")
    entry = page.site.entries[1]
    assert page.css(f'#entry-{entry} a.read-link[data-ref="reports/close.md"]')
    assert not page.css(f'#entry-{entry} a.read-link[data-ref="reports/close.html"]')
    page.js("location.hash = arguments[0]", f"#report/{entry}/1")
    page.wait(lambda: "not shown in the page" in page.css("#report-body")[0].text,
              what="the download-only note")
