"""Talking to a gateway from tests, benchmarks and the screenshot script.

``Served`` runs a real ``alice serve --port 0`` as a subprocess (its first
stdout line is the URL); ``Client`` speaks HTTP to any gateway with the
headers a browser would send (Bearer or cookie, ``X-OpenAlice-Token`` and
``Origin`` on state changes).
"""

from __future__ import annotations

import http.client
import json
import os
import selectors
import signal
import subprocess
import tempfile
import time
from urllib.parse import urlsplit


class Reply:
    def __init__(self, status: int, headers, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError as exc:
            raise AssertionError(f"not JSON ({exc}): {self.status} {self.body[:500]!r}") from None

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def __repr__(self) -> str:
        return f"Reply({self.status}, {self.body[:300]!r})"


class Client:
    def __init__(self, host: str, port: int, token: str) -> None:
        self.host, self.port, self.token = host, port, token
        self.origin = f"http://{host}:{port}"

    def request(self, method: str, path: str, body=None, *, auth: str | None = "bearer",
                state: bool | None = None, headers: dict | None = None,
                timeout: float = 60) -> Reply:
        """``auth``: "bearer", "cookie" or None.  ``state``: send the token
        header and Origin (default: for every method but GET)."""
        send = {"Host": f"{self.host}:{self.port}"}
        if auth == "bearer":
            send["Authorization"] = f"Bearer {self.token}"
        elif auth == "cookie":
            send["Cookie"] = f"openalice-gateway-{self.port}={self.token}"
        if state if state is not None else method != "GET":
            send["X-OpenAlice-Token"] = self.token
            send["Origin"] = self.origin
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            send["Content-Type"] = "application/json"
        send.update(headers or {})
        send = {k: v for k, v in send.items() if v is not None}
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for k, v in send.items():
                conn.putheader(k, v)
            if data is not None:
                conn.putheader("Content-Length", str(len(data)))
            conn.endheaders(data)
            res = conn.getresponse()
            return Reply(res.status, res.headers, res.read())
        finally:
            conn.close()

    def get(self, path: str, **kw) -> Reply:
        return self.request("GET", path, **kw)

    def post(self, path: str, body=None, **kw) -> Reply:
        return self.request("POST", path, {} if body is None else body, **kw)

    def events(self, path: str, *, until, timeout: float = 20.0) -> list[tuple[str, str]]:
        """Read Server-Sent Events from ``path`` until ``until(events)`` is true;
        returns ``[(event, data), ...]``."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        events: list[tuple[str, str]] = []
        try:
            conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
            conn.putheader("Host", f"{self.host}:{self.port}")
            conn.putheader("Authorization", f"Bearer {self.token}")
            conn.endheaders()
            res = conn.getresponse()
            assert res.status == 200, (res.status, res.read())
            deadline = time.monotonic() + timeout
            name, data = "message", []
            while time.monotonic() < deadline and not until(events):
                line = res.fp.readline().decode("utf-8")
                if not line:
                    break
                line = line.rstrip("\n")
                if not line:
                    if data:
                        events.append((name, "\n".join(data)))
                    name, data = "message", []
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
            return events
        finally:
            conn.close()


class Served(Client):
    """``alice serve --port 0`` as a subprocess; stop() sends SIGTERM."""

    def __init__(self, alice: str, env: dict, *, cwd: str | None = None, args=(),
                 start_timeout: float = 30.0) -> None:
        self.log_file = tempfile.NamedTemporaryFile(prefix="alice-serve-", suffix=".log", delete=False)
        self.proc = subprocess.Popen([alice, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=self.log_file, env=env, cwd=cwd or "/",
                                     start_new_session=True)
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=start_timeout):
            self.stop()
            raise AssertionError(f"alice serve printed no URL in {start_timeout}s: {self.log}")
        self.first_line = self.proc.stdout.readline().decode().strip()
        selector.close()
        if not self.first_line.startswith("http"):
            self.stop()
            raise AssertionError(f"first line is not a URL: {self.first_line!r}\n{self.log}")
        self.url = self.first_line
        parts = urlsplit(self.url)
        token = dict(p.split("=", 1) for p in parts.query.split("&"))["token"]
        super().__init__(parts.hostname, parts.port, token)
        self.base = f"http://{parts.hostname}:{parts.port}"

    @property
    def log(self) -> str:
        with open(self.log_file.name, encoding="utf-8", errors="replace") as fh:
            return fh.read()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                raise AssertionError(f"alice serve ignored signal {sig} for {timeout}s")
        if self.proc.stdout:
            self.proc.stdout.close()
        return self.proc.returncode

    def close(self) -> None:
        self.stop()
        try:
            os.unlink(self.log_file.name)
        except OSError:
            pass

    def __enter__(self) -> "Served":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
