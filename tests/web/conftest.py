"""Browser tests: Debian's Chromium (headless, through Selenium and the
system chromedriver) against a real ``alice serve`` over a temp home.

One site, one server and one browser per module.  Without Chromium the tests
skip with the reason — except where ``OPENALICE_REQUIRE_BROWSER=1`` (CI sets
it in ``.ci/run``, after ``scripts/setup-browser``), where they fail.
"""

from __future__ import annotations

import os
import time

import pytest

from tests.conftest import tool_path
from tests.helpers.browser import REQUIRE_ENV, find_browser, new_driver
from tests.helpers.gateway import Served
from tests.helpers.web_site import Site


def _need_browser() -> None:
    _, _, why = find_browser()
    if why:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {why}")
        pytest.skip(why)


class Page:
    """The site, its gateway and a logged-in browser."""

    def __init__(self, site: Site, served: Served, driver, downloads) -> None:
        self.site, self.served, self.driver, self.downloads = site, served, driver, downloads

    def wait(self, predicate, timeout: float = 10.0, what: str = "condition"):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = predicate()
            except Exception as exc:  # the DOM is still changing
                last = exc
            if last and not isinstance(last, Exception):
                return last
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}: {last!r}\nbrowser log: "
                             f"{self.console()}\ngateway log:\n{self.served.log[-3000:]}")

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def css(self, selector: str):
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def view(self, name: str) -> None:
        """Show a view and wait until its data has arrived (no API call in flight)."""
        self.js("location.hash = arguments[0]", "#" + name)
        self.wait(lambda: self.js("return !document.getElementById('view-' + arguments[0]).hidden",
                                  name), what=f"view {name}")
        self.settle()

    def settle(self) -> None:
        self.wait(lambda: self.js("return window.openaliceBusy === 0"), what="API calls to finish")

    def console(self) -> list:
        try:
            return [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]
        except Exception:
            return []


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    _need_browser()
    root = tmp_path_factory.mktemp("site")
    site = Site(root).build()
    downloads = root / "downloads"
    downloads.mkdir()
    served = Served(tool_path("alice"), site.env)
    driver = None
    try:
        driver = new_driver(downloads)
        driver.set_page_load_timeout(30)
        driver.get(served.url)
        p = Page(site, served, driver, downloads)
        p.wait(lambda: p.js("return document.getElementById('live').textContent") == "live",
               what="the live stream")
        yield p
    finally:
        if driver is not None:
            driver.quit()
        served.close()
