"""What the ``alice connector`` verbs (and the gateway, through them) ask for:
building a record from options, listings with delivery state, test, deliver."""

from __future__ import annotations

from datetime import datetime

from openalice.core import clock, fs
from openalice.core.errors import InvalidInput, UsageError

from . import cursor, delivery, records, state
from .http import SendError

__all__ = ["build_record", "needs_secret", "add", "listing", "show", "remove", "set_enabled",
           "test", "deliver_now", "pass_line", "delivery_view"]

_KIND_OPTIONS = {
    "telegram": {"chat_ids", "api_base"},
    "webhook": {"url", "fmt", "sign"},
    "email": {"smtp", "sender", "to", "starttls", "ssl", "user"},
    "desktop": set(),
}
_FLAG = {"chat_ids": "--chat-id", "api_base": "--api-base", "url": "--url", "fmt": "--format",
         "sign": "--sign", "smtp": "--smtp", "sender": "--from", "to": "--to",
         "starttls": "--starttls", "ssl": "--ssl", "user": "--user"}


def needs_secret(kind: str, *, sign: bool = False, user: str | None = None) -> bool:
    return kind == "telegram" or (kind == "webhook" and sign) or (kind == "email" and bool(user))


def _split_smtp(text: str, ssl: bool) -> tuple[str, int]:
    host, port = text, 465 if ssl else 587
    if text.startswith("["):
        end = text.find("]")
        host, rest = text[:end + 1], text[end + 1:]
        if rest.startswith(":"):
            port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    try:
        port = int(port)
    except ValueError:
        raise InvalidInput(f"--smtp {text!r}: the port is not a number", field="--smtp",
                           code="bad_connector") from None
    return host, port


def build_record(kind: str, name: str, *, workspace_ids: list[str], skip_silent: bool = False,
                 **options) -> dict:
    """A record from command-line options; a flag of another kind is exit 2."""
    records.check_name(name)
    for key, value in options.items():
        if value not in (None, False, [], "") and key not in _KIND_OPTIONS[kind]:
            raise UsageError(f"{_FLAG[key]} does not apply to a {kind} connector",
                             field=_FLAG[key], code="bad_option")
    rec: dict = {"version": 1, "name": name, "kind": kind, "enabled": True,
                 "workspaces": list(dict.fromkeys(workspace_ids)), "skipSilent": skip_silent}
    if kind == "telegram":
        if not options.get("chat_ids"):
            raise UsageError("a telegram connector needs --chat-id (see docs/connectors.md: "
                             "finding the chat id)", field="--chat-id", code="missing_option")
        rec["telegram"] = {"chatIds": list(dict.fromkeys(options["chat_ids"])),
                           "apiBase": (options.get("api_base") or records.TELEGRAM_API).rstrip("/")}
    elif kind == "webhook":
        if not options.get("url"):
            raise UsageError("a webhook connector needs --url", field="--url",
                             code="missing_option")
        rec["webhook"] = {"url": options["url"], "format": options.get("fmt") or "json"}
    elif kind == "email":
        for key in ("smtp", "sender", "to"):
            if not options.get(key):
                raise UsageError(f"an email connector needs {_FLAG[key]}", field=_FLAG[key],
                                 code="missing_option")
        if options.get("starttls") and options.get("ssl"):
            raise UsageError("--starttls and --ssl exclude each other", field="--ssl",
                             code="bad_option")
        host, port = _split_smtp(options["smtp"], bool(options.get("ssl")))
        if options.get("ssl"):
            security = "ssl"
        elif options.get("starttls") or not records.is_loopback_url(f"smtp://{host}"):
            security = "starttls"
        else:
            security = "plain"
        rec["email"] = {"host": host, "port": port, "security": security,
                        "from": options["sender"], "to": list(dict.fromkeys(options["to"]))}
        if options.get("user"):
            rec["email"]["user"] = options["user"]
    else:
        rec["desktop"] = {}
    try:
        records.validate(rec)
    except InvalidInput as exc:
        raise InvalidInput(exc.message, field=exc.field, code=exc.code) from None
    return rec


def add(rec: dict, *, secret: str | None, backfill: bool, replace: bool, now: datetime) -> dict:
    """Store the record and its secret, and remember the Inbox position."""
    from openalice.inbox import InboxStore  # lazy: only add needs the position

    stored = records.add(rec, secret=secret, now=now, replace=replace)
    name = stored["name"]
    with state.delivery_lock(name):
        old = state.load(name) if replace else None
        if old is None or backfill:
            start = dict(cursor.START) if backfill else cursor.end_position(InboxStore())
            state.save(name, state.new_state(start))
    state.clear_quiet()
    return {**records.public_view(stored), "delivery": delivery_view(name)}


def delivery_view(name: str, *, full: bool = False) -> dict:
    doc = None
    try:
        doc = state.load(name)
    except InvalidInput as exc:
        return {"problem": f"{exc.file}: {exc.message}", "sent": 0, "pending": 0, "failed": 0}
    if doc is None:
        return {"sent": 0, "pending": 0, "failed": 0}
    out = {"sent": doc.get("sent", 0), "pending": len(doc["queue"]), "failed": len(doc["failed"]),
           "cursor": doc["cursor"], "strangers": doc["inbound"].get("strangers", 0)}
    due = min((i["nextAt"] for i in doc["queue"]), default=None)
    if due is not None:
        out["nextAt"] = clock.to_iso(clock.from_ms(due))
    if full:
        out["queue"] = [{"id": i["id"], "kind": i.get("kind", "entry"), "tries": i.get("tries", 0),
                         "done": len(i["done"]), "nextAt": clock.to_iso(clock.from_ms(i["nextAt"])),
                         **({"lastError": i["lastError"]} if i.get("lastError") else {})}
                        for i in doc["queue"]]
        out["failedItems"] = [{"id": i["id"], "kind": i.get("kind", "entry"),
                               "at": clock.to_iso(clock.from_ms(i["at"])), "tries": i["tries"],
                               "error": i["error"]} for i in doc["failed"]]
        if doc["inbound"].get("offset") is not None:
            out["inboundOffset"] = doc["inbound"]["offset"]
    return out


def listing() -> dict:
    found, problems = records.scan_records()
    return {"connectors": [{**records.public_view(r), "delivery": delivery_view(r["name"])}
                           for r in found], "problems": problems}


def show(name: str) -> dict:
    rec = records.get(name)
    return {"connector": {**records.public_view(rec), "delivery": delivery_view(name, full=True)}}


def remove(name: str) -> dict:
    rec = records.remove(name)
    directory = state.state_dir(name)
    if directory.is_dir():
        for leaf in ("state.json", "inbound.jsonl"):
            fs.remove_file(directory / leaf)
    state.clear_quiet()
    return {"name": rec["name"], "kind": rec["kind"]}


def set_enabled(name: str, enabled: bool, *, now: datetime) -> dict:
    rec = records.set_enabled(name, enabled, now=now)
    state.clear_quiet()
    return {**records.public_view(rec), "delivery": delivery_view(name)}


def test(name: str, *, now: datetime) -> dict:
    rec = records.get(name)
    try:
        answer = delivery.send_test(rec, now_ms=clock.to_ms(now))
        return {"name": name, "kind": rec["kind"], "ok": True, "answer": answer}
    except SendError as err:
        return {"name": name, "kind": rec["kind"], "ok": False, "answer": err.message,
                **({"status": err.status} if err.status is not None else {})}


def retry_failed(name: str, *, now_ms: int) -> int:
    """Put the connector's failed items back in its queue (a fresh 24 hours each)."""
    records.get(name)
    with state.delivery_lock(name):
        doc = state.load(name)
        if doc is None or not doc["failed"]:
            return 0
        queued = {i["id"] for i in doc["queue"]}
        count = 0
        for item in doc["failed"]:
            if item["id"] in queued or item.get("kind", "entry") != "entry":
                continue
            doc["queue"].append({"kind": "entry", "id": item["id"], "firstAt": now_ms, "tries": 0,
                                 "nextAt": now_ms, "done": []})
            count += 1
        doc["failed"] = []
        state.save(name, doc)
    state.clear_quiet()
    return count


def deliver_now(names: list[str] | None, *, now: datetime, budget_s: float | None,
                retry: bool = False) -> dict:
    now_ms = clock.to_ms(now)
    if retry:
        for name in names or [r["name"] for r in records.list_records()]:
            retry_failed(name, now_ms=now_ms)
    return delivery.deliver(now_ms=now_ms, names=names, budget_s=budget_s)


def pass_line(r: dict) -> str:
    line = (f"{r['name']}: {r['status']}: sent {r['sent']}, received {r['received']}, "
            f"pending {r['pending']}")
    if r.get("failed"):
        line += f", failed {r['failed']}"
    if r.get("error"):
        line += f" ({r['error']})"
    return line
