"""Each workspace's settings: the workspace view (#workspace/<ws>) drives the
harness (a skill switched on, its upgrade previewed, a stale plan refused,
the one conflict resolved and applied with the digest), the sticker packs
(enable, switch), Studio (start, stop), the sessions and the connectors (a
webhook added with its secret write-only, tested against a loopback fake)."""

from __future__ import annotations

import hashlib
import http.client
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import tool_path
from tests.connectors.fakes import WebhookReceiver
from tests.helpers.schemas import conforms
from tests.web.test_issues import _no_overflow_at_390

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "tests" / "fixtures" / "studio_app"
MINE = ".agents/skills/file-delivery/SKILL.md"


def _open(page, ws):
    if page.js("return location.hash") == f"#workspace/{ws}":
        page.js("document.getElementById('ws-reload').click()")  # already shown: load it again
    else:
        page.js("location.hash = arguments[0]", f"#workspace/{ws}")
    page.wait(lambda: page.js("return document.getElementById('ws-view').dataset.state") == "ready"
              and page.js("return document.getElementById('ws-select').value") == ws, what="the workspace view")
    page.settle()


def _click(page, selector):
    def click():
        # Found and clicked in one try: a re-render between the two (the view reloads when the
        # journal stream says something changed) makes the element stale, and the next try
        # finds the new one.
        button = [b for b in page.css(selector) if b.is_enabled()][0]
        page.js("arguments[0].scrollIntoView({block: 'center'})", button)  # clear of the sticky header
        button.click()
        return True

    page.wait(click, what=selector)
    page.settle()


def test_apply_a_harness_upgrade_with_one_conflict_resolved_and_a_stale_plan_refused(page):
    notes = page.site.workspaces["notes"]
    (notes / MINE).parent.mkdir(parents=True)
    (notes / MINE).write_text("# my own file-delivery notes\n")
    page.view("inbox")
    nav = page.css("#nav-workspace")[0]
    nav.send_keys("\n")  # the keyboard opens the view; #workspace alone picks the first workspace
    page.wait(lambda: page.js("return location.hash").startswith("#workspace/"), what="the deep link")
    _open(page, "notes")
    rows = {r.get_attribute("data-skill"): r for r in page.css("#ws-harness-body tr[data-skill]")}
    assert set(rows) == {"alice", "file-delivery", "self-scheduling"}
    assert "excluded" in rows["file-delivery"].text
    assert not page.css('input[name="skill-self-scheduling"]')[0].is_enabled()  # always included
    switch = page.css('input[name="skill-file-delivery"]')[0]
    switch.send_keys(" ")  # the switch by keyboard: alice-harness config set skills.file-delivery=true
    page.wait(lambda: page.css('#ws-upgrade-body [data-conflict]'), what="the preview's conflict")
    page.settle()
    assert page.site.json("alice-harness", "config", "show", "--workspace", "notes")["config"]["skills"] == \
        {"file-delivery": True}
    conflict = page.css("#ws-upgrade-body [data-conflict]")[0]
    assert conflict.get_attribute("data-conflict") == MINE and "different content" in conflict.text
    assert not page.css("#ws-apply")[0].is_enabled()  # not before each conflict has a choice
    # the workspace changes after the preview: the digest is stale and the CLI refuses
    (notes / MINE).write_text("# my own file-delivery notes, edited again\n")
    page.css('#ws-upgrade-body input[value="use-template"]')[0].send_keys(" ")
    _click(page, "#ws-apply")
    error = page.wait(lambda: page.css("#ws-upgrade-error")[0].text, what="the stale plan refusal")
    assert "stale_plan" in error and "preview again" in page.css("#ws-upgrade-note")[0].text
    assert "edited again" in (notes / MINE).read_text()
    # preview again, resolve the one conflict with the template's version, apply with the new digest
    _click(page, "#ws-preview")
    page.wait(lambda: page.css('#ws-upgrade-body input[value="use-template"]'), what="the new preview")
    page.css('#ws-upgrade-body input[value="use-template"]')[0].send_keys(" ")
    _click(page, "#ws-apply")
    page.wait(lambda: "applied" in page.css("#ws-upgrade-note")[0].text, what="the applied upgrade")
    assert (notes / MINE).read_bytes() == (REPO / "default" / "skills" / "file-delivery" / "SKILL.md").read_bytes()
    assert (notes / ".claude/skills/file-delivery/SKILL.md").read_bytes() == (notes / MINE).read_bytes()
    status = page.site.json("alice-harness", "status", "--workspace", "notes", check=False)["workspaces"][0]
    assert {s["name"]: s["state"] for s in status["skills"]}["file-delivery"] == "current"
    page.wait(lambda: "current" in page.css('#ws-harness-body tr[data-skill="file-delivery"]')[0].text,
              what="the harness card reloaded")


def test_enable_then_switch_a_sticker_pack_with_thumbnails(page):
    _open(page, "notes")
    assert "no stickers" in page.css("#ws-stickers-state")[0].text
    # the thumbnails come through the sticker file route, as images
    page.wait(lambda: page.js("return [...document.querySelectorAll('[data-thumbs=\"alice-ink\"] img')]"
                              ".filter(i => i.complete && i.naturalWidth > 0).length") >= 3, what="thumbnails")
    _click(page, 'button[data-switch="alice-ink"]')
    _click(page, "#ws-stickers-apply")
    page.wait(lambda: "applied" in page.css("#ws-stickers-note")[0].text, what="alice-ink enabled")
    doc = page.site.json("alice-harness", "stickers", "status", "--workspace", "notes", check=False)["workspaces"][0]
    assert (doc["packId"], doc["enabled"]) == ("alice-ink", True)
    page.wait(lambda: "alice-ink" in page.css("#ws-stickers-state")[0].text, what="the new state")
    _click(page, 'button[data-switch="alice-color"]')  # switch
    _click(page, "#ws-stickers-apply")
    page.wait(lambda: "applied" in page.css("#ws-stickers-note")[0].text, what="the switch")
    doc = page.site.json("alice-harness", "stickers", "status", "--workspace", "notes", check=False)["workspaces"][0]
    assert doc["packId"] == "alice-color"
    page.wait(lambda: page.css('.pack.current[data-pack="alice-color"]'), what="the current pack marked")
    # an owned image changed here: the card says so; a switch lists it as a conflict, kept on request
    notes = page.site.workspaces["notes"]
    wave = notes / "sticker" / "wave.png"
    mine = wave.read_bytes() + b"edited"
    wave.write_bytes(mine)
    _open(page, "notes")
    assert "sticker/wave.png" in page.css("#ws-stickers-current")[0].text
    _click(page, 'button[data-switch="alice-ink"]')
    keep = page.wait(lambda: page.css('#ws-stickers-plan input[data-keep="sticker/wave.png"]'), what="the conflict")[0]
    keep.send_keys(" ")
    _click(page, "#ws-stickers-apply")
    page.wait(lambda: "1 kept" in page.css("#ws-stickers-note")[0].text, what="the switch keeping mine")
    assert wave.read_bytes() == mine
    assert page.site.json("alice-harness", "stickers", "status", "--workspace", "notes",
                          check=False)["workspaces"][0]["packId"] == "alice-ink"
    # Restore: the pack's bytes win over the edit
    _open(page, "notes")
    _click(page, "#ws-stickers-restore")
    _click(page, "#ws-stickers-apply")
    page.wait(lambda: "applied" in page.css("#ws-stickers-note")[0].text, what="the restore")
    ink = page.site.json("alice-harness", "stickers", "cat", "alice-ink", "wave.png")
    assert hashlib.sha256(wave.read_bytes()).hexdigest() == ink["sha256"]
    # Disable: the skill goes, the images stay
    _click(page, "#ws-stickers-disable")
    _click(page, "#ws-stickers-apply")
    page.wait(lambda: "applied" in page.css("#ws-stickers-note")[0].text, what="disabled")
    doc = page.site.json("alice-harness", "stickers", "status", "--workspace", "notes", check=False)["workspaces"][0]
    assert doc["enabled"] is False and wave.exists()
    page.wait(lambda: "disabled" in page.css("#ws-stickers-state")[0].text, what="the disabled state")


@pytest.fixture
def studio_app(page):
    path = page.site.root / "work" / "app"
    shutil.copytree(APP, path)
    page.site.json("alice", "workspace", "init", str(path), "--label", "app")
    page.site.workspaces["app"] = path
    yield path
    page.site.run("alice-harness", "studio", "stop", "--workspace", "app", check=False)


@pytest.fixture
def proxy(page):
    """``alice-harness proxy`` on a free port: the Studio's status then carries its url."""
    child = subprocess.Popen([tool_path("alice-harness"), "proxy", "--port", "0", "--quiet"],
                             env=page.site.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield child
    finally:
        child.terminate()
        child.wait(timeout=15)


def test_start_and_stop_a_studio_app_linked_through_the_proxy(page, studio_app, proxy):
    _open(page, "app")
    assert page.css("#ws-studio-phase")[0].text == "stopped"
    _click(page, "#ws-studio-start")
    page.wait(lambda: page.css("#ws-studio-phase")[0].text == "ready", what="the Studio ready", timeout=60)
    status = page.wait(lambda: (s := page.site.json("alice-harness", "studio", "status", "--workspace", "app"))
                       ["url"] and s, what="the proxy's url")
    assert status["phase"] == "ready" and status["host"] in status["url"]
    if not page.css("#ws-studio-link"):  # the proxy came up after the start answered
        _open(page, "app")
    link = page.css("#ws-studio-link")[0]
    assert link.get_attribute("href") == status["url"] and link.get_attribute("rel") == "noopener noreferrer"
    # the link really reaches the app through the proxy (Host routing on loopback)
    port = int(status["url"].rsplit(":", 1)[1].strip("/"))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/ready", headers={"Host": status["host"]})
    assert conn.getresponse().status == 200
    conn.close()
    page.wait(lambda: "listening" in page.css("#ws-studio-logs")[0].text, what="the log tail")
    assert "[REDACTED]" in page.css("#ws-studio-logs")[0].text  # the CLI's redaction, kept
    _click(page, "#ws-studio-stop")
    page.wait(lambda: page.css("#ws-studio-phase")[0].text == "stopped", what="the Studio stopped", timeout=30)
    assert page.site.json("alice-harness", "studio", "status", "--workspace", "app")["phase"] == "stopped"
    # a workspace without harness.json: start shows the CLI's refusal as it printed it
    _open(page, "research")
    _click(page, "#ws-studio-start")
    error = page.wait(lambda: page.css("#ws-studio-error")[0].text, what="the CLI's refusal")
    assert "declares no Studio" in error and "[missing]" in error


def test_sessions_show_their_binding_and_last_launch(page):
    made = page.site.json("alice", "session", "new", "--agent", "claude", "--workspace", "research")
    _open(page, "research")
    rid = made["session"]["resumeId"] if "session" in made else made["resumeId"]
    row = page.wait(lambda: page.css(f'#ws-sessions-body tr[data-session="{rid}"]'), what="the session")[0]
    assert "claude" in row.text and "native login" in row.text and "never" in row.text


def test_add_and_test_a_webhook_connector_against_a_loopback_fake_secret_write_only(page):
    secret = "whsec-" + "k" * 32
    receiver = WebhookReceiver(secret).start()
    try:
        _open(page, "notes")
        form = page.css("#ws-connector-add")[0]
        form.find_element("css selector", 'input[name="name"]').send_keys("hook")
        form.find_element("css selector", 'input[name="url"]').send_keys(receiver.url)
        form.find_element("css selector", 'input[name="secret"]').send_keys(secret)
        _click(page, "#ws-connector-add-send")
        page.wait(lambda: "added hook (secret set)" in page.css("#ws-connectors-note")[0].text, what="added")
        assert page.css('#ws-connector-add input[name="secret"]')[0].get_attribute("value") == ""
        row = page.wait(lambda: page.css('#ws-connectors-body tr[data-connector="hook"]'), what="the row")[0]
        assert "set" in row.text
        _click(page, 'button[data-test="hook"]')
        answer = page.wait(lambda: page.css('[data-answer="hook"]')[0].text.startswith(("ok", "failed")) and
                           page.css('[data-answer="hook"]')[0].text, what="the test's answer")
        assert answer.startswith("ok"), answer
        assert receiver.requests and receiver.requests[-1]["valid"] is True  # signed with the secret
        assert secret not in page.driver.page_source and secret not in page.served.log
        shown = page.site.json("alice", "connector", "show", "hook")
        assert secret not in str(shown) and shown["connector"]["workspaces"] == ["notes"]
        page.css('input[data-enable="hook"]')[0].send_keys(" ")  # disable by keyboard
        page.settle()
        page.wait(lambda: page.site.json("alice", "connector", "show", "hook")["connector"]["enabled"] is False,
                  what="disabled")
    finally:
        receiver.stop()


def test_the_view_survives_reload_and_fits_390px(page):
    _open(page, "notes")
    page.driver.refresh()
    page.wait(lambda: page.js("return document.getElementById('ws-view').dataset.state") == "ready",
              what="the view after reload")
    page.settle()
    assert page.js("return location.hash") == "#workspace/notes"
    _no_overflow_at_390(page, "the workspace view")


def test_each_route_passes_the_clis_document_through_as_its_schema_says(page):
    """Against the real ``alice serve``: every JSON route of the view answers the
    CLI's own document (spec/), and a thumbnail is the pack's image bytes."""
    get = page.served.get
    conforms("harness-status", get("/api/workspaces/research/harness").json())
    conforms("harness-config", get("/api/workspaces/research/harness/config").json())
    conforms("harness-upgrade", get("/api/workspaces/research/harness/upgrade").json())
    conforms("harness-upgrade", get("/api/workspaces/research/harness/upgrade?template=1").json())
    conforms("stickers-status", get("/api/workspaces/research/stickers").json())
    conforms("stickers-list", get("/api/stickers").json())
    shown = conforms("stickers-show", get("/api/stickers/alice-ink").json())
    conforms("stickers-apply", page.served.post("/api/workspaces/research/stickers",
                                                {"action": "enable", "pack": "alice-ink"}).json())
    conforms("studio-status", get("/api/workspaces/research/studio").json())
    conforms("studio-logs", get("/api/workspaces/research/studio/logs").json())
    conforms("session-list", get("/api/workspaces/research/sessions").json())
    conforms("connector-list", get("/api/connectors").json())
    image = get("/api/stickers/alice-ink/files/" + shown["stickers"][0]["file"])
    assert image.status == 200 and image.header("Content-Type") == "image/png"
    assert hashlib.sha256(image.body).hexdigest() == shown["stickers"][0]["sha256"]


def test_a_change_made_from_the_cli_shows_live(page):
    _open(page, "research")
    page.site.run("alice-harness", "stickers", "enable", "--workspace", "research", "--pack", "alice-color",
                  "--apply")  # the fact stickers.applied reaches the page through the journal stream
    page.wait(lambda: "alice-color" in page.css("#ws-stickers-state")[0].text and
              "enabled" in page.css("#ws-stickers-state")[0].text, what="the sticker card, live")
    page.site.run("alice-harness", "config", "set", "skills.file-delivery=true", "--workspace", "research")
    page.wait(lambda: page.css('input[name="skill-file-delivery"]')[0].is_selected(), what="the switch, live")
