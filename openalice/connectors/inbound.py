"""Telegram inbound: the chat is a conversation with the workspace.

For a Telegram connector with a workspace (the first ``--workspace`` is the
conversation's), that workspace's ``telegramConnector: true`` issue is the
thread.  Each pass reads ``getUpdates`` from the persisted offset (timeout 0
from the scan, long-polled by ``connector run``):

* a message from an allowed chat id becomes a comment ``via: "telegram"``,
  author ``human``, with the fixed id ``tg-<connector>-<chat>-<message id>``
  (so a pass killed before it saved the offset adds nothing twice), through
  :func:`openalice.issues.comments.add_comment`; the conversations part
  delivers it to the issue's session.  Photos and documents the person sent
  are saved under ``<workspace>/inbox/telegram/<message id>-<name>`` and
  referenced in the comment as ``[[inbox/telegram/...]]``;
* a message from any other chat never becomes a comment and gets no answer:
  it is counted (``inbound.strangers``) and logged to
  ``state/connectors/<name>/inbound.jsonl`` with its chat id and update id,
  never its text;
* a later comment whose ``replyTo`` is one of those comments is queued as a
  ``reply`` item and sent to the chat as a reply to the person's message,
  with its ``[[path]]`` files and stickers (read below the workspace root).

Inbound text is data: it reaches an agent only as a comment.
"""

from __future__ import annotations

from openalice.core import clock, fs, jsonl, patterns
from openalice.core.errors import AliceError

from . import plans, state
from .http import SendError

__all__ = ["INBOX_FOLDER", "FILE_CAP", "poll", "reply_source", "conversation", "SendError"]

INBOX_FOLDER = "inbox/telegram"
FILE_CAP = 20 * 1024 * 1024   # what the Bot API lets a bot download
_SAFE = patterns.compile(r"[^A-Za-z0-9._-]+")


def conversation(ws_id: str):
    """``(workspace, issue id)`` of the workspace's Telegram thread, or None."""
    from openalice import issues, workspaces  # lazy: only a bound connector reads them

    try:
        ws = workspaces.get(ws_id)
    except AliceError:
        return None
    found = issues.read_issues(ws)
    for issue in found.issues:
        if issue.telegram_connector:
            return ws, issue.id
    return None


def _log(name: str, record: dict) -> None:
    jsonl.JsonlFile(state.state_dir(name) / "inbound.jsonl", durable=False).append(record)


def _comment_id(name: str, chat: str, message_id: int) -> str:
    return f"tg-{name}-{chat.replace('@', '')}-{message_id}"


def _save_file(bot, ws, message_id: int, file_id: str, filename: str) -> str:
    """Save a file the person sent; its workspace path (a note when it cannot
    be had: too large, refused; no answer at all propagates, to retry)."""
    try:
        data = bot.download(file_id, cap=FILE_CAP)
    except SendError as err:
        if err.status is None and "too large" not in err.message:
            raise
        return f"![file not saved: {err.message[:200]}]"
    safe = _SAFE.sub("_", filename).strip("._") or "file"
    rel = f"{INBOX_FOLDER}/{message_id}-{safe[:80]}"
    fs.atomic_write_bytes(rel, data, root=ws.root, mode=0o644, dir_mode=0o755)
    return rel


def _message_comment(bot, ws, msg: dict) -> tuple[str, list[str]]:
    text = msg.get("text") or msg.get("caption") or ""
    saved: list[str] = []
    message_id = msg["message_id"]
    photos = msg.get("photo")
    if isinstance(photos, list) and photos:
        best = max((p for p in photos if isinstance(p, dict)),
                   key=lambda p: p.get("file_size") or p.get("width", 0), default=None)
        if best and isinstance(best.get("file_id"), str):
            saved.append(_save_file(bot, ws, message_id, best["file_id"], "photo.jpg"))
    doc = msg.get("document")
    if isinstance(doc, dict) and isinstance(doc.get("file_id"), str):
        saved.append(_save_file(bot, ws, message_id, doc["file_id"],
                                str(doc.get("file_name") or "document")))
    sticker = msg.get("sticker")
    if not text and isinstance(sticker, dict):
        text = f"[sticker {sticker.get('emoji') or ''}]".replace(" ]", "]")
    lines = [text] if text else []
    lines += [rel[1:] if rel.startswith("!") else f"[[{rel}]]" for rel in saved]
    return "\n\n".join(lines), [rel for rel in saved if not rel.startswith("!")]


def poll(rec: dict, bot, doc: dict, *, now_ms: int, budget, wait: int = 0) -> int:
    """Read the chat's new updates; the number of comments created.  Queues
    reply comments for the queue pass.  ``doc`` is saved as it goes."""
    name = rec["name"]
    found = conversation(rec["workspaces"][0])
    if found is None:
        return 0
    ws, issue_id = found
    inbound = doc["inbound"]
    allowed = set(rec["telegram"]["chatIds"])
    received = 0
    updates = bot.get_updates(inbound.get("offset"), timeout=wait)
    for update in updates:
        if not isinstance(update, dict) or type(update.get("update_id")) is not int:
            continue
        msg = update.get("message")
        if isinstance(msg, dict) and type(msg.get("message_id")) is int:
            chat_obj = msg.get("chat") or {}
            chat = str(chat_obj.get("id"))
            username = chat_obj.get("username")
            if chat in allowed or (username and f"@{username}" in allowed):
                received += _receive(rec, bot, ws, issue_id, msg, chat, doc, now_ms)
            else:
                inbound["strangers"] = inbound.get("strangers", 0) + 1
                inbound["strangerLastAt"] = now_ms
                _log(name, {"at": clock.to_iso(clock.from_ms(now_ms)), "event": "stranger",
                            "chatId": chat, "updateId": update["update_id"]})
        inbound["offset"] = update["update_id"] + 1
        state.save(name, doc)
    _queue_replies(rec, ws, issue_id, doc, now_ms)
    return received


def _receive(rec, bot, ws, issue_id, msg, chat, doc, now_ms) -> int:
    from openalice.issues.comments import add_comment  # lazy: only a message writes one

    name = rec["name"]
    markdown, saved = _message_comment(bot, ws, msg)
    if not markdown.strip():
        return 0
    comment_id = _comment_id(name, chat, msg["message_id"])
    comment, created = add_comment(ws, issue_id, markdown[:60000], author="human",
                                   now=clock.from_ms(now_ms), comment_id=comment_id,
                                   via="telegram")
    doc["inbound"]["messages"][comment["id"]] = {"chat": chat, "messageId": msg["message_id"]}
    if created:
        from openalice.journal import record  # lazy: only a received message journals

        record("connector.received", {"connector": name, "workspaceId": ws.id,
                                      "issueId": issue_id, "commentId": comment["id"],
                                      "chars": len(markdown), "files": len(saved)},
               now=clock.from_ms(now_ms))
    return 1 if created else 0


def _queue_replies(rec, ws, issue_id, doc, now_ms) -> None:
    from openalice.issues.comments import list_comments  # lazy: only a bound connector reads

    inbound = doc["inbound"]
    messages = inbound["messages"]
    if not messages:
        return
    replied = set(inbound["replied"])
    changed = False
    for comment in list_comments(ws, issue_id):
        target = messages.get(comment.get("replyTo"))
        if target is None or comment["id"] in replied or comment.get("via") == "telegram":
            continue
        doc["queue"].append({"kind": "reply", "id": comment["id"], "firstAt": now_ms, "tries": 0,
                             "nextAt": now_ms, "done": [],
                             "reply": {"workspaceId": ws.id, "issueId": issue_id,
                                       "chat": target["chat"], "messageId": target["messageId"]}})
        inbound["replied"].append(comment["id"])
        changed = True
    if changed:
        state.save(rec["name"], doc)


def reply_source(item: dict, roots: dict) -> plans.Delivery | None:
    """The reply comment an item stands for (None when it is gone)."""
    from openalice import workspaces  # lazy
    from openalice.issues.comments import list_comments  # lazy

    reply = item["reply"]
    try:
        ws = workspaces.get(reply["workspaceId"])
        comments = list_comments(ws, reply["issueId"])
    except AliceError:
        return None
    for comment in comments:
        if comment.get("id") == item["id"]:
            return plans.reply_delivery(item["id"], comment["markdown"], ws.root,
                                        chat=reply["chat"], message_id=reply["messageId"])
    return None

