"""Loopback fakes the connector tests start: a Telegram Bot API server, an SMTP
sink (the stdlib ``smtpd`` is gone) and a webhook receiver that checks the
signature.  Each binds 127.0.0.1 on a free port and records what it got."""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import hmac
import json
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server:
    def start(self):
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    @property
    def port(self) -> int:
        return self.server.server_address[1]


def parse_multipart(content_type: str, body: bytes) -> tuple[dict, dict]:
    """(fields, files {field: (filename, content type, bytes)}); AssertionError
    when the body is not well-formed multipart/form-data."""
    assert content_type.startswith("multipart/form-data; boundary="), content_type
    msg = email.message_from_bytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body,
                                   policy=email.policy.HTTP)
    assert msg.is_multipart(), "not multipart"
    assert body.endswith(b"--\r\n"), "no closing boundary"
    fields, files = {}, {}
    for part in msg.iter_parts():
        disposition = part.get("Content-Disposition", "")
        assert disposition.startswith("form-data"), disposition
        name = part.get_param("name", header="content-disposition")
        filename = part.get_filename()
        data = part.get_payload(decode=True)
        if filename is not None:
            files[name] = (filename, part.get_content_type(), data)
        else:
            fields[name] = data.decode("utf-8")
    return fields, files


class FakeTelegram(_Server):
    """Records every call as ``{method, params, files}``.  ``fail(method, status,
    retry_after=None, times=1)`` answers the next calls of a method with an
    error; ``updates`` is served by getUpdates from the offset asked for;
    ``downloads`` maps file ids to bytes for getFile."""

    def __init__(self, token: str):
        self.token = token
        self.calls: list[dict] = []
        self.failures: list[dict] = []
        self.updates: list[dict] = []
        self.downloads: dict[str, bytes] = {}
        self.next_message_id = 1000
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                prefix = f"/file/bot{fake.token}/"
                if self.path.startswith(prefix):
                    file_id = self.path[len(prefix):].split("/", 1)[-1]
                    data = fake.downloads.get(file_id)
                    if data is not None:
                        self._send(200, data, "application/octet-stream")
                        return
                self._send(404, b'{"ok":false,"error_code":404,"description":"Not Found"}')

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                prefix = f"/bot{fake.token}/"
                if not self.path.startswith(prefix):
                    self._json(401, {"ok": False, "error_code": 401,
                                     "description": "Unauthorized"})
                    return
                method = self.path[len(prefix):]
                ctype = self.headers.get("Content-Type", "")
                files = {}
                if ctype.startswith("multipart/"):
                    params, files = parse_multipart(ctype, body)
                else:
                    params = json.loads(body or b"{}")
                self._json(*fake.answer(method, params, files))

            def _json(self, status, doc):
                self._send(status, json.dumps(doc).encode())

            def _send(self, status, data, ctype="application/json"):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def fail(self, method: str, status: int, *, retry_after: int | None = None, times: int = 1):
        self.failures.append({"method": method, "status": status, "retry_after": retry_after,
                              "times": times})

    def answer(self, method, params, files):
        with self.lock:
            for f in self.failures:
                if f["method"] in (method, "*") and f["times"] > 0:
                    f["times"] -= 1
                    doc = {"ok": False, "error_code": f["status"],
                           "description": "Too Many Requests" if f["status"] == 429
                           else "Internal Server Error"}
                    if f["retry_after"] is not None:
                        doc["parameters"] = {"retry_after": f["retry_after"]}
                    self.calls.append({"method": method, "params": params, "files": files,
                                       "failed": f["status"]})
                    return f["status"], doc
            if method == "getUpdates":
                offset = params.get("offset") or 0
                result = [u for u in self.updates if u["update_id"] >= offset]
                if not result and params.get("timeout"):
                    self.lock.release()          # a long poll: hold the answer a little
                    try:
                        time.sleep(min(params["timeout"], 0.5))
                    finally:
                        self.lock.acquire()
                self.calls.append({"method": method, "params": params, "files": {}})
                return 200, {"ok": True, "result": result}
            if method == "getFile":
                return 200, {"ok": True, "result": {"file_id": params["file_id"],
                                                    "file_path": f"docs/{params['file_id']}"}}
            if method == "getMe":
                return 200, {"ok": True, "result": {"id": 42, "is_bot": True,
                                                    "username": "alice_test_bot"}}
            self.next_message_id += 1
            self.calls.append({"method": method, "params": params, "files": files,
                               "message_id": self.next_message_id})
            return 200, {"ok": True, "result": {"message_id": self.next_message_id,
                                                "chat": {"id": params.get("chat_id")}}}

    def sent(self, method: str | None = None) -> list[dict]:
        return [c for c in self.calls if not c.get("failed") and c["method"] not in
                ("getUpdates", "getFile", "getMe") and (method is None or c["method"] == method)]


class WebhookReceiver(_Server):
    """Checks ``X-OpenAlice-Signature`` against ``secret``; answers
    ``statuses.pop(0)`` when set, else 200."""

    def __init__(self, secret: str | None = None):
        self.secret = secret
        self.requests: list[dict] = []
        self.statuses: list[int] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k: v for k, v in self.headers.items()}
                valid = None
                if fake.secret is not None:
                    ts = self.headers.get("X-OpenAlice-Timestamp", "")
                    want = "sha256=" + hmac.new(fake.secret.encode(), f"{ts}.".encode() + body,
                                                hashlib.sha256).hexdigest()
                    valid = hmac.compare_digest(want, self.headers.get("X-OpenAlice-Signature", ""))
                status = fake.statuses.pop(0) if fake.statuses else 200
                fake.requests.append({"headers": headers, "body": body, "valid": valid,
                                      "status": status, "json": json.loads(body)})
                data = b'{"received":true}' if status < 300 else b'{"error":"try later"}'
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"


class SmtpSink(_Server):
    """A minimal SMTP server: EHLO, AUTH PLAIN/LOGIN, MAIL, RCPT, DATA, NOOP, RSET, QUIT."""

    def __init__(self):
        self.messages: list[dict] = []
        self.logins: list[tuple[str, str]] = []
        sink = self

        class Handler(socketserver.StreamRequestHandler):
            def reply(self, line: str):
                self.wfile.write((line + "\r\n").encode())

            def handle(self):
                self.reply("220 sink ready")
                mail_from, rcpts = None, []
                while True:
                    raw = self.rfile.readline()
                    if not raw:
                        return
                    line = raw.decode("utf-8", "replace").rstrip("\r\n")
                    verb = line.split(" ", 1)[0].upper()
                    arg = line[len(verb):].strip()
                    if verb in ("EHLO", "HELO"):
                        self.wfile.write(b"250-sink\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n")
                    elif verb == "AUTH":
                        mech, _, rest = arg.partition(" ")
                        if mech.upper() == "PLAIN":
                            if not rest:
                                self.reply("334 ")
                                rest = self.rfile.readline().decode().strip()
                            _, user, password = base64.b64decode(rest).decode().split("\x00")
                        else:
                            self.reply("334 VXNlcm5hbWU6")
                            user = base64.b64decode(self.rfile.readline().strip()).decode()
                            self.reply("334 UGFzc3dvcmQ6")
                            password = base64.b64decode(self.rfile.readline().strip()).decode()
                        sink.logins.append((user, password))
                        self.reply("235 ok")
                    elif verb == "MAIL":
                        mail_from, rcpts = arg, []
                        self.reply("250 ok")
                    elif verb == "RCPT":
                        rcpts.append(arg)
                        self.reply("250 ok")
                    elif verb == "DATA":
                        self.reply("354 go on")
                        lines = []
                        while True:
                            data = self.rfile.readline()
                            if data in (b".\r\n", b".\n", b""):
                                break
                            if data.startswith(b".."):
                                data = data[1:]
                            lines.append(data)
                        raw_msg = b"".join(lines)
                        sink.messages.append({"from": mail_from, "to": rcpts, "raw": raw_msg,
                                              "message": email.message_from_bytes(
                                                  raw_msg, policy=email.policy.default)})
                        self.reply("250 queued")
                    elif verb in ("NOOP", "RSET"):
                        self.reply("250 ok")
                    elif verb == "QUIT":
                        self.reply("221 bye")
                        return
                    else:
                        self.reply("502 unknown")

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
