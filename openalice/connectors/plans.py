"""The parts of one delivery, per connector kind, each with a stable key and a
``send()`` that returns what the far side answered.

Keys: Telegram ``c<chat>:t<n>`` (the n-th text piece) and ``c<chat>:f:<path>``
(a file, or the note sent in its place); webhook ``post`` (Discord:
``post<n>``); e-mail ``mail``; desktop ``notify``.  Delivery records a key once
its part was acknowledged and never sends it again.
"""

from __future__ import annotations

from . import desktop, parts, smtp, webhook
from .http import SendError

__all__ = ["Part", "Delivery", "entry_delivery", "reply_delivery", "test_delivery",
           "telegram_parts", "webhook_parts", "email_parts", "desktop_parts", "webhook_document",
           "SendError"]


class Part:
    __slots__ = ("key", "send", "size")

    def __init__(self, key: str, send, size: int) -> None:
        self.key = key
        self.send = send
        self.size = size


class Delivery:
    """What to send for one queue item: its text, its references and where
    they are read from (``root``; ``published`` revisions for an entry)."""

    def __init__(self, *, item_id: str, body: str, refs: list[str], root, published: dict | None,
                 title: str, record: dict | None = None, reply_to: dict | None = None) -> None:
        self.item_id = item_id
        self.body = body
        self.refs = refs
        self.root = root
        self.published = published
        self.title = title
        self.record = record
        self.reply_to = reply_to  # {"chat", "messageId"} for a reply comment

    def load(self, rel: str, cap: int) -> parts.LoadedFile:
        if self.published is None:
            return parts.load_file(self.root, rel, None, cap=cap, require_revision=False)
        return parts.load_file(self.root, rel, self.published.get(rel), cap=cap)


def entry_delivery(record: dict, root) -> Delivery:
    refs, _silent = parts.references(record["body"])
    return Delivery(item_id=record["id"], body=record["body"], refs=refs, root=root,
                    published=record.get("fileRevisions") or {},
                    title=f"OpenAlice: {record.get('workspaceLabel') or record['workspaceId']}",
                    record=record)


def reply_delivery(comment_id: str, markdown: str, root, *, chat: str, message_id: int) -> Delivery:
    refs, _silent = parts.references(markdown)
    return Delivery(item_id=comment_id, body=markdown, refs=refs, root=root, published=None,
                    title="OpenAlice reply", reply_to={"chat": chat, "messageId": message_id})


def test_delivery(name: str) -> Delivery:
    return Delivery(item_id="test", body=f"OpenAlice: test message from connector '{name}'.",
                    refs=[], root=None, published={}, title="OpenAlice test")


# -- Telegram ------------------------------------------------------------------------------
def telegram_parts(rec: dict, bot, d: Delivery) -> list[Part]:
    chats = [d.reply_to["chat"]] if d.reply_to else rec["telegram"]["chatIds"]
    reply_to = d.reply_to["messageId"] if d.reply_to else None
    out: list[Part] = []
    for chat in chats:
        for n, piece in enumerate(parts.split_text(d.body)):
            out.append(Part(f"c{chat}:t{n}", _tg_text(bot, chat, piece, reply_to),
                            len(piece.encode("utf-8"))))
        for rel in d.refs:
            out.append(Part(f"c{chat}:f:{rel}", _tg_file(bot, chat, d, rel, reply_to), 0))
    return out


def _tg_text(bot, chat: str, text: str, reply_to):
    def send() -> str:
        return f"message {bot.send_text(chat, text, reply_to=reply_to)}"
    return send


def _tg_file(bot, chat: str, d: Delivery, rel: str, reply_to):
    def send() -> str:
        kind = parts.file_kind(rel)
        loaded = d.load(rel, parts.CAPS[kind])
        if loaded.data is None:
            return f"note {bot.send_text(chat, parts.note_for(loaded), reply_to=reply_to)}"
        name = rel.rsplit("/", 1)[-1]
        message = bot.send_file(chat, kind, name, parts.content_type(rel), loaded.data,
                                reply_to=reply_to)
        return f"{kind} {message}"
    return send


# -- webhook ---------------------------------------------------------------------------------
def webhook_document(name: str, d: Delivery, at_iso: str | None = None) -> dict:
    files = []
    for rel in d.refs:
        kind = parts.file_kind(rel, stickers=True)
        item: dict = {"path": rel, "kind": kind}
        published = (d.published or {}).get(rel)
        if published is not None:
            item["revision"] = published
        loaded = d.load(rel, parts.CAPS["document"])
        item["available"] = loaded.data is not None
        if loaded.data is not None:
            item["size"] = len(loaded.data)
        else:
            item["problem"] = loaded.problem
        files.append(item)
    rec = d.record or {"id": d.item_id, "ts": 0, "workspaceId": "", "body": d.body}
    entry = {k: rec[k] for k in ("id", "ts", "workspaceId", "workspaceLabel", "body", "origin")
             if k in rec}
    if at_iso is not None:
        entry["at"] = at_iso
    entry["silent"] = parts.references(d.body)[1]
    return {"type": "openalice.inbox.entry", "version": 1, "connector": name, "entry": entry,
            "files": files}


def webhook_parts(rec: dict, secret, d: Delivery, *, timeout, timestamp, at_iso) -> list[Part]:
    url, fmt = rec["webhook"]["url"], rec["webhook"]["format"]

    def post(document: dict, key: str):
        return lambda: webhook.post(url, document, idempotency_key=key, secret=secret,
                                    timestamp=timestamp(), timeout=timeout())

    if fmt == "json":
        return [Part("post", post(webhook_document(rec["name"], d, at_iso), d.item_id),
                     len(d.body.encode("utf-8")))]
    listing = "".join(f"\n[[{rel}]]" for rel in d.refs if f"[[{rel}]]" not in d.body)
    if fmt == "slack":
        return [Part("post", post({"text": d.body + listing}, d.item_id),
                     len(d.body.encode("utf-8")))]
    pieces = parts.split_text(d.body + listing, webhook.DISCORD_LIMIT)
    return [Part(f"post{n}", post({"content": piece}, d.item_id if n == 0 else f"{d.item_id}:{n}"),
                 len(piece.encode("utf-8"))) for n, piece in enumerate(pieces)]


# -- e-mail and desktop ------------------------------------------------------------------------
def email_parts(rec: dict, password, d: Delivery, *, timeout, date_s) -> list[Part]:
    settings = rec["email"]

    def send() -> str:
        attachments, notes = [], []
        for rel in d.refs:
            loaded = d.load(rel, parts.CAPS["attachment"])
            if loaded.data is None:
                notes.append(parts.note_for(loaded))
            else:
                attachments.append((rel.rsplit("/", 1)[-1], parts.content_type(rel), loaded.data))
        body = d.body + ("\n\n" + "\n".join(notes) if notes else "")
        label = (d.record or {}).get("workspaceLabel") or (d.record or {}).get("workspaceId")
        msg = smtp.build_message(sender=settings["from"], to=settings["to"],
                                 subject=smtp.subject_of(d.body, label), body=body,
                                 message_id=f"<{d.item_id}.{rec['name']}@openalice.invalid>",
                                 attachments=attachments, date_s=date_s())
        return smtp.send(settings, msg, password=password, timeout=timeout())
    return [Part("mail", send, len(d.body.encode("utf-8")))]


def desktop_parts(rec: dict, d: Delivery) -> list[Part]:
    return [Part("notify", lambda: desktop.notify(d.title, d.body), len(d.body.encode("utf-8")))]

