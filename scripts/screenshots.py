#!/usr/bin/env python3
"""`make screenshots`: each view of the web page, from a real `alice serve`.

Builds a small home in a temp dir through the real CLIs (the same site the
browser tests use: tests/helpers/web_site.py), starts `alice serve --port 0`,
opens the printed URL in headless Chromium (scripts/setup-browser installs
it) and saves docs/img/web-<view>.png.  Nothing outside the temp dir and
docs/img/ is touched.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.conftest import tool_path
from tests.helpers.browser import find_browser, new_driver
from tests.helpers.gateway import Served
from tests.helpers.web_site import Site

VIEWS = ("inbox", "board", "runs", "adapters", "journal", "run", "issue", "issue-form", "workspace")
STUDIO_APP = REPO / "tests" / "fixtures" / "studio_app"
OUT = REPO / "docs" / "img"


def wait(driver, script: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if driver.execute_script(script):
            return
        time.sleep(0.05)
    raise SystemExit(f"screenshots: timed out waiting for: {script}")


def fill_create_form(driver) -> None:
    """The richer create form, submitted for an agent that is not installed: the
    CLI's warning shows beside the agent field."""
    wait(driver, "return document.getElementById('issue-shape').dataset.ready === '1'")
    driver.execute_script("""
      const f = document.getElementById('issue-form'), set = (sel, v) => {
        const n = f.querySelector(sel); n.value = v; n.dispatchEvent(new Event('change'));
        n.dispatchEvent(new Event('input')); };
      set('#issue-title', 'Weekly digest'); set('#issue-when', 'cron');
      set('#issue-when-value', '0 9 * * 1'); set('#issue-timezone', 'Europe/Paris');
      set('[name=agent]', 'pi'); set('[name=model]', 'claude-opus-5'); set('[name=effort]', 'high');
      set('[name=timeout]', '30m'); set('#issue-body', 'Summarize the week in five bullets.');
      f.requestSubmit();""")
    wait(driver, "return !!document.getElementById('issue-created') && window.openaliceBusy === 0")


def main() -> int:
    _, _, why = find_browser()
    if why:
        print(f"screenshots: {why}", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="openalice-shots-") as tmp:
        site = Site(Path(tmp)).build()
        # a run to show: it fails (the stand-in claude replays "not logged in") and says why
        site.engines.behave("failure", name="claude-nologin")
        started = site.json("alice-schedule", "run-now", "daily", "--workspace", "notes")
        task = started["task"]["taskId"]
        site.run("alice-schedule", "run", task, "--wait", "--timeout", "60", check=False)
        site.run("alice-inbox", "read", site.entries[0])
        # the issue view: a second run births the session, which answers a comment
        site.engines.behave("ok")
        again = site.json("alice-schedule", "run-now", "daily", "--workspace", "notes")["task"]["taskId"]
        site.run("alice-schedule", "run", again, "--wait", "--timeout", "60", check=False)
        site.run("alice", "issue", "comment", "daily", "--workspace", "notes", "--via", "web",
                 "--body", "Why is Monday's number lower than last week?", "--wait", "--timeout", "60",
                 check=False)
        (site.engines.bin / "pi").unlink()  # an agent the toolkit knows that is not installed here
        proxy = prepare_workspace(site)
        try:
            shoot(site, task)
        finally:
            site.run("alice-harness", "studio", "stop", "--workspace", "notes", check=False)
            proxy.terminate()
            proxy.wait(timeout=10)
    return 0


def prepare_workspace(site: Site) -> subprocess.Popen:
    """The workspace view of notes: a sticker pack, a session, a connector, a
    skill switched on over a file of the person's own (the upgrade's one
    conflict), and its Studio (the toy app) running behind the proxy."""
    notes = site.workspaces["notes"]
    site.run("alice-harness", "stickers", "enable", "--workspace", "notes", "--pack", "alice-color", "--apply")
    site.run("alice", "session", "new", "--agent", "claude", "--workspace", "notes")
    site.run("alice", "connector", "add", "desktop", "bell", "--workspace", "notes")
    site.run("alice-harness", "config", "set", "skills.file-delivery=true", "--workspace", "notes")
    mine = notes / ".agents" / "skills" / "file-delivery" / "SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("# My own file-delivery notes\n")
    for name in ("harness.json", "server.py", "wrapper.py"):
        shutil.copy(STUDIO_APP / name, notes / name)
    proxy = subprocess.Popen([tool_path("alice-harness"), "proxy", "--port", "0", "--quiet"], env=site.env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    site.run("alice-harness", "studio", "start", "--workspace", "notes")
    return proxy


def shoot(site: Site, task: str) -> None:
    with Served(tool_path("alice"), site.env) as served:
        driver = new_driver(site.root / "downloads", width=1280, height=820)
        try:
            driver.get(served.url)
            wait(driver, "return document.getElementById('live').textContent === 'live'")
            for view in VIEWS:
                # "run" is the run detail view of the run started above
                target = {"run": f"#runs/{task}", "issue": "#issue/notes/daily",
                          "issue-form": "#board", "workspace": "#workspace/notes"}.get(view, "#" + view)
                driver.execute_script("location.hash = arguments[0]", target)
                time.sleep(0.2)
                wait(driver, "return window.openaliceBusy === 0")
                if view == "issue-form":
                    fill_create_form(driver)
                if view == "workspace":  # the upgrade's preview, its one conflict resolved
                    wait(driver, "return document.getElementById('ws-view').dataset.state === 'ready'")
                    driver.execute_script("document.getElementById('ws-preview').click()")
                    wait(driver, "return !!document.querySelector('#ws-upgrade-body [data-conflict]')")
                    driver.execute_script("document.querySelector('#ws-upgrade-body "
                                          "input[value=use-template]').click()")
                    wait(driver, "return [...document.querySelectorAll('.thumbs img')]"
                                 ".every(i => i.complete) && window.openaliceBusy === 0")
                if view == "adapters":
                    wait(driver, "return [...document.querySelectorAll('.health')]"
                                 ".every(h => h.textContent !== 'unknown' || "
                                 "h.closest('.adapter').dataset.adapter === 'local')")
                time.sleep(0.3)  # images decoded, transitions done
                # The whole page, not just the window: grow the viewport to fit it.
                height = driver.execute_script("return document.documentElement.scrollHeight")
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": 1280, "height": max(720, min(height, 2400)),
                    "deviceScaleFactor": 1, "mobile": False})
                time.sleep(0.2)
                path = OUT / f"web-{view}.png"
                driver.save_screenshot(str(path))
                driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
                print(f"screenshots: {path.relative_to(REPO)}")
        finally:
            driver.quit()


if __name__ == "__main__":
    raise SystemExit(main())
