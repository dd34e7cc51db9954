"""The Telegram Bot API, as a connector uses it.

``POST <apiBase>/bot<token>/<method>``: JSON for text, ``multipart/form-data``
for uploads (:func:`openalice.connectors.http.multipart`).  Text is sent as
**plain text** (no ``parse_mode``), so the Markdown shows exactly as the
author wrote it: nothing to escape, nothing Telegram could reject as bad
entities.  An answer ``{"ok": false, "error_code": 429, "parameters":
{"retry_after": N}}`` becomes a :class:`SendError` carrying ``retry_after``.

The token is in the URL path; it never leaves this module in a message
(:func:`openalice.connectors.http.scrub`).
"""

from __future__ import annotations

import json

from . import http
from .http import SendError

__all__ = ["Bot", "SendError", "UPLOAD_METHODS"]

# file kind -> (method, form field)
UPLOAD_METHODS = {"photo": ("sendPhoto", "photo"), "document": ("sendDocument", "document"),
                  "sticker": ("sendSticker", "sticker")}


class Bot:
    def __init__(self, api_base: str, token: str, *, timeout: float = 30.0) -> None:
        self.api_base = api_base.rstrip("/")
        self._token = token
        self.timeout = timeout

    def _url(self, method: str) -> str:
        return f"{self.api_base}/bot{self._token}/{method}"

    def call(self, method: str, params: dict | None = None, *,
             upload: tuple[str, str, str, bytes] | None = None,
             timeout: float | None = None):
        """The ``result`` of one Bot API call; SendError on any failure."""
        params = params or {}
        if upload is None:
            body = json.dumps(params, ensure_ascii=False).encode("utf-8")
            ctype = "application/json"
        else:
            fields = [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in params.items()]
            body, ctype = http.multipart(fields, [upload])
        wait = self.timeout if timeout is None else timeout
        reply = http.request("POST", self._url(method), body=body,
                             headers={"Content-Type": ctype}, timeout=wait,
                             secrets=(self._token,), what=f"telegram {method}")
        return self._result(method, reply)

    def _result(self, method: str, reply: http.Reply):
        try:
            doc = json.loads(reply.body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            doc = None
        if isinstance(doc, dict) and doc.get("ok") is True and reply.status == 200:
            return doc.get("result")
        status = reply.status
        description = reply.preview((self._token,))
        retry_after = None
        if isinstance(doc, dict):
            if isinstance(doc.get("error_code"), int):
                status = doc["error_code"]
            if isinstance(doc.get("description"), str):
                description = http.scrub(doc["description"][:300], (self._token,))
            params = doc.get("parameters")
            if isinstance(params, dict) and isinstance(params.get("retry_after"), int):
                retry_after = max(0, min(params["retry_after"], 24 * 3600))
        if retry_after is None and status == 429:
            header = reply.headers.get("Retry-After") if reply.headers else None
            if header and header.isdigit():
                retry_after = min(int(header), 24 * 3600)
        message = f"telegram {method}: {status} {description}".rstrip()
        raise SendError(message, status=status, retry_after=retry_after)

    # -- what connectors send --------------------------------------------------------
    def send_text(self, chat_id: str, text: str, *, reply_to: int | None = None) -> int:
        params: dict = {"chat_id": chat_id, "text": text, "disable_web_page_preview": True}
        if reply_to is not None:
            params["reply_to_message_id"] = reply_to
            params["allow_sending_without_reply"] = True
        return _message_id(self.call("sendMessage", params))

    def send_file(self, chat_id: str, kind: str, filename: str, content_type: str, data: bytes,
                  *, reply_to: int | None = None) -> int:
        method, field = UPLOAD_METHODS[kind]
        params: dict = {"chat_id": chat_id}
        if reply_to is not None:
            params["reply_to_message_id"] = str(reply_to)
            params["allow_sending_without_reply"] = "true"
        return _message_id(self.call(method, params,
                                     upload=(field, filename, content_type, data)))

    def get_me(self) -> dict:
        result = self.call("getMe")
        return result if isinstance(result, dict) else {}

    def get_updates(self, offset: int | None, *, timeout: int = 0) -> list:
        params: dict = {"timeout": timeout, "allowed_updates": ["message"]}
        if offset is not None:
            params["offset"] = offset
        result = self.call("getUpdates", params, timeout=timeout + self.timeout)
        return result if isinstance(result, list) else []

    def download(self, file_id: str, *, cap: int) -> bytes:
        """The bytes of a file the person sent (at most ``cap``)."""
        info = self.call("getFile", {"file_id": file_id})
        path = info.get("file_path") if isinstance(info, dict) else None
        if not isinstance(path, str) or not path or ".." in path.split("/"):
            raise SendError("telegram getFile: no usable file_path")
        size = info.get("file_size")
        if isinstance(size, int) and size > cap:
            raise SendError(f"telegram getFile: file too large ({size} bytes)")
        reply = http.request("GET", f"{self.api_base}/file/bot{self._token}/{path}",
                             timeout=self.timeout, secrets=(self._token,),
                             what="telegram file download", max_bytes=cap + 1)
        if reply.status != 200:
            raise SendError(f"telegram file download: {reply.status} "
                            f"{reply.preview((self._token,))}", status=reply.status)
        if len(reply.body) > cap:
            raise SendError("telegram file download: file too large")
        return reply.body


def _message_id(result) -> int:
    if isinstance(result, dict) and isinstance(result.get("message_id"), int):
        return result["message_id"]
    raise SendError("telegram: the answer has no message_id")
