"""Webhook delivery: one signed ``POST`` of a documented JSON document.

Formats (``--format``):

* ``json`` (default): ``{"type": "openalice.inbox.entry", "version": 1,
  "connector", "entry": {id, ts, at, workspaceId, workspaceLabel?, body,
  origin?, silent}, "files": [{path, kind, revision?, available, matches?,
  size?, problem?}]}`` (``spec/connector-webhook.schema.json``);
* ``slack``: ``{"text": body}`` (an incoming-webhook message), files listed
  after the body;
* ``discord``: ``{"content": piece}``, the body split at 2,000 characters on
  paragraph boundaries, one POST per piece.

With a signing secret every request carries ``X-OpenAlice-Timestamp: <unix
seconds>`` and ``X-OpenAlice-Signature: sha256=<lowercase hex HMAC-SHA256 of
"<timestamp>.<body>">``; every request carries ``Idempotency-Key: <entry id>``
(``<entry id>:<n>`` for the n-th Discord piece, n > 0), the same on every
retry, so a receiver can drop a repeat.  A 2xx answer is success; anything
else is a failure carrying the status and the first 300 characters of the
answer (scrubbed).
"""

from __future__ import annotations

import hashlib
import hmac

from openalice.core.output import to_json

from . import http
from .http import SendError

__all__ = ["DISCORD_LIMIT", "sign", "headers_for", "post"]

DISCORD_LIMIT = 2000


def sign(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode("utf-8"), f"{timestamp}.".encode("ascii") + body,
                   hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def headers_for(body: bytes, *, idempotency_key: str, secret: str | None,
                timestamp: int) -> dict:
    out = {"Content-Type": "application/json", "Idempotency-Key": idempotency_key}
    if secret:
        out["X-OpenAlice-Timestamp"] = str(timestamp)
        out["X-OpenAlice-Signature"] = sign(secret, timestamp, body)
    return out


def post(url: str, document: dict, *, idempotency_key: str, secret: str | None,
         timestamp: int, timeout: float) -> str:
    """POST the document; returns what the receiver answered (status and a
    preview).  SendError unless the answer is 2xx."""
    body = to_json(document, compact=True).encode("utf-8")
    headers = headers_for(body, idempotency_key=idempotency_key, secret=secret,
                          timestamp=timestamp)
    secrets = (secret,) if secret else ()
    reply = http.request("POST", url, body=body, headers=headers, timeout=timeout,
                         secrets=secrets, what="webhook")
    answer = f"{reply.status} {reply.preview(secrets)}".rstrip()
    if not 200 <= reply.status < 300:
        retry_after = None
        value = reply.headers.get("Retry-After") if reply.headers else None
        if reply.status == 429 and value and value.isdigit():
            retry_after = min(int(value), 24 * 3600)
        raise SendError(f"webhook: {answer}", status=reply.status, retry_after=retry_after)
    return answer
