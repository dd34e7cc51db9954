"""`alice serve --open`: the browser gets a one-time code, never the token, and no process's
command line ever holds the token (sampled from /proc while the browser runs)."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time

import pytest

from tests.conftest import tool_path
from tests.helpers.gateway import Served

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")

# The fake browser: webbrowser runs "$BROWSER URL" (GenericBrowser) and waits for it. It records
# its argv, uses the URL once (following the 303 by hand, with the cookie it got), waits a while
# on its own command line (so the sampler sees it), then tries the same URL again.
FAKE_BROWSER = r'''#!{python}
import http.client, json, sys, time
from urllib.parse import urlsplit
url = sys.argv[1]
parts = urlsplit(url)
def get(path, cookie=None):
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {{"Cookie": cookie}} if cookie else {{}}
    conn.request("GET", path, headers=headers)
    r = conn.getresponse()
    r.read()
    conn.close()
    return r.status, r.getheader("Set-Cookie"), r.getheader("Location")
target = parts.path + "?" + parts.query
first, cookie, location = get(target)
page = get(location or "/", (cookie or "").split(";")[0])[0]
time.sleep(1.0)
again = get(target)[0]
with open({record!r}, "w") as fh:
    json.dump({{"argv": sys.argv, "first": first, "location": location, "page": page,
               "again": again, "cookie": cookie}}, fh)
'''


def _sample(stop: threading.Event, seen: list[bytes]) -> None:
    me = os.getpid()
    while not stop.is_set():
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == me:
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as fh:
                    line = fh.read()
            except OSError:
                continue
            if line and line not in seen:
                seen.append(line)
        time.sleep(0.01)


def test_open_gives_the_browser_a_one_time_code_and_no_command_line_holds_the_token(
        cli, tmp_path):
    record = tmp_path / "browser.json"
    browser = tmp_path / "fake-browser"
    browser.write_text(FAKE_BROWSER.format(python=sys.executable, record=str(record)))
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
    env = {**cli.env, "BROWSER": str(browser)}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    stop, seen = threading.Event(), []
    sampler = threading.Thread(target=_sample, args=(stop, seen), daemon=True)
    sampler.start()
    try:
        with Served(tool_path("alice"), env, args=("--open",)) as served:
            deadline = time.monotonic() + 30
            while not record.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert record.exists(), served.log
            result = json.loads(record.read_text())
            token = served.token
            # serve still prints the token URL first on stdout, as scripts expect
            assert served.first_line == f"{served.base}/?token={token}"
    finally:
        stop.set()
        sampler.join(5)
    # The sampler saw the browser's command line (so it was looking), and the token on none.
    assert any(str(browser).encode() in line for line in seen), seen[-20:]
    leaked = [line for line in seen if token.encode() in line]
    assert leaked == []
    url = result["argv"][1]
    assert token not in url and "token=" not in url and "code=" in url
    # The code worked once: a 303 to / with the session cookie, and the page opened with it ...
    assert result["first"] == 303 and result["location"] == "/"
    assert result["cookie"].split(";")[0].endswith("=" + token)
    assert result["page"] == 200
    # ... and was refused the second time.
    assert result["again"] == 401
