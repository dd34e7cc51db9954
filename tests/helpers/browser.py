"""Debian's Chromium driven by Selenium (tests/web, scripts/screenshots.py).

No browser is ever downloaded: the binary and its matching chromedriver come
from the system (``scripts/setup-browser`` installs them with apt).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REQUIRE_ENV = "OPENALICE_REQUIRE_BROWSER"


def find_browser() -> tuple[str | None, str | None, str]:
    """``(chromium, chromedriver, why-not)``."""
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    if driver is None and Path("/usr/lib/chromium/chromedriver").exists():
        driver = "/usr/lib/chromium/chromedriver"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return browser, driver, "selenium is not installed (pip install -e '.[test]')"
    if browser is None or driver is None:
        return browser, driver, ("no Chromium/chromedriver on PATH: run scripts/setup-browser as root "
                                 "(apt-get install chromium chromium-driver)")
    return browser, driver, ""


def new_driver(download_dir: Path | None = None, *, width: int = 1280, height: int = 860):
    """A headless Chromium; downloads land in ``download_dir`` without a prompt."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver, why = find_browser()
    if why:
        raise RuntimeError(why)
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--metrics-recording-only", "--hide-scrollbars",
                "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    if download_dir is not None:
        opts.add_experimental_option("prefs", {
            "download.default_directory": str(download_dir),
            "download.prompt_for_download": False,
            "download.directory_upgrade": True,
            "safebrowsing.enabled": False,
        })
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=driver, log_output=os.devnull)
    return webdriver.Chrome(service=service, options=opts)
