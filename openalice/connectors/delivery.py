"""Delivering the Inbox: the due work of every connector within a time budget.

One pass per connector, under its sender lock (:func:`.state.delivery_lock`,
not waited for: a connector another process is sending for is skipped and
reported ``busy``):

1. Telegram connectors bound to a workspace poll their chat first
   (:mod:`.inbound`: messages become comments, reply comments join the queue);
2. new Inbox entries are **taken** in batches of :data:`BATCH`: the cursor
   moves past them and the ones the filter keeps join the queue, in one write;
3. each due queue item is sent part by part; each acknowledged part is
   written down before the next is sent, so a resend after a crash never
   repeats a part the server acknowledged (a crash between the server's
   answer and that write can repeat that one part: the webhook's
   ``Idempotency-Key`` lets a receiver drop it);
4. a failure sets the item's next try by :data:`BACKOFF` (a server's
   ``retry_after`` is honoured when longer) and ends the connector's pass,
   so an outage costs one request per pass, never a storm; an item still
   failing :data:`GIVE_UP_MS` after its first try is moved to ``failed``
   (health and ``alice doctor`` show it) and journalled ``connector.failed``.

A pass records one ``connector.sent`` fact per connector listing what it
delivered (ids, part counts and sizes; a journal write costs more than a
send, so not one per entry).

Items wait in id order, but an item waiting for its retry never holds back
the ones behind it.  ``now`` (epoch ms) is the caller's clock (``ALICE_NOW``
honoured); the budget is wall time.
"""

from __future__ import annotations

import time

from openalice.core import clock
from openalice.core.crash import crash_point
from openalice.core.errors import AliceError, Busy
from openalice.inbox import InboxStore
from openalice.inbox import files as inbox_files
from openalice.inbox.store import entry_problem

from . import cursor as cursor_mod
from . import plans, records, state
from .http import SendError
from .telegram import Bot

__all__ = ["BACKOFF", "GIVE_UP_MS", "BATCH", "deliver", "deliver_one", "send_test", "transport"]

# Seconds before the n-th retry (then the last step again), capped by the give-up.
BACKOFF = (30, 60, 120, 300, 600, 1800, 3600, 7200)
GIVE_UP_MS = 24 * 3600 * 1000
BATCH = 20
REQUEST_TIMEOUT = 30.0
JOURNAL_ITEMS = 100   # items listed in one connector.sent fact (the count says how many)


def backoff_ms(tries: int, retry_after: int | None) -> int:
    step = BACKOFF[min(max(tries, 1), len(BACKOFF)) - 1]
    if retry_after is not None:
        step = max(step, retry_after) if retry_after > BACKOFF[0] else max(retry_after, 1)
    return step * 1000


class Budget:
    """Wall time left for a pass; ``stop()`` (a signal arrived) spends it at once."""

    def __init__(self, seconds: float | None, stop=None) -> None:
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.stop = stop

    def left(self) -> float:
        return REQUEST_TIMEOUT if self.deadline is None else self.deadline - time.monotonic()

    def spent(self) -> bool:
        if self.stop is not None and self.stop():
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def timeout(self) -> float:
        return max(1.0, min(REQUEST_TIMEOUT, self.left()))


class Transport:
    """The parts of a delivery for one connector (its secret loaded once)."""

    def __init__(self, rec: dict, budget: Budget, now_ms: int) -> None:
        self.rec = rec
        self.budget = budget
        self.now_ms = now_ms
        self.secret = records.secret_of(rec["name"], required=records.NEEDS_SECRET[rec["kind"]])
        self.delivered: list[dict] = []   # this pass's items, for one connector.sent fact
        self.bot = None
        if rec["kind"] == "telegram":
            self.bot = Bot(rec["telegram"]["apiBase"], self.secret, timeout=budget.timeout())

    def parts(self, d: plans.Delivery) -> list[plans.Part]:
        kind = self.rec["kind"]
        if kind == "telegram":
            self.bot.timeout = self.budget.timeout()
            return plans.telegram_parts(self.rec, self.bot, d)
        if kind == "webhook":
            return plans.webhook_parts(self.rec, self.secret, d, timeout=self.budget.timeout,
                                       timestamp=lambda: self.now_ms // 1000,
                                       at_iso=clock.to_iso(clock.from_ms(d.record["ts"]))
                                       if d.record else None)
        if kind == "email":
            return plans.email_parts(self.rec, self.secret, d, timeout=self.budget.timeout,
                                     date_s=lambda: self.now_ms // 1000)
        return plans.desktop_parts(self.rec, d)


def transport(rec: dict, *, now_ms: int, budget_s: float | None = None) -> Transport:
    return Transport(rec, Budget(budget_s), now_ms)


def _journal(kind: str, payload: dict, now_ms: int) -> None:
    from openalice.journal import record  # lazy: only a delivery that happened journals

    record(kind, payload, now=clock.from_ms(now_ms))


def _resolve(item: dict, store: InboxStore, roots: dict) -> plans.Delivery | None:
    """The delivery an item stands for, or None when its entry is gone."""
    if item.get("kind") == "reply":
        from .inbound import reply_source  # lazy: only replies read comments

        return reply_source(item, roots)
    # Where the entry's line was when it was taken (one short read), else a lookup
    # by id (a delete rewrote the file meanwhile).
    record = store.file.record_at(item["line"]) if isinstance(item.get("line"), int) else None
    if not isinstance(record, dict) or record.get("id") != item["id"] or entry_problem(record):
        entry = store.find(item["id"])
        if entry is None:
            return None
        record = entry.record
    ws = record["workspaceId"]
    if ws not in roots:
        roots[ws] = inbox_files.workspace_root(ws)
    return plans.entry_delivery(record, roots[ws])


def _send_item(name: str, doc: dict, item: dict, tr: Transport, d: plans.Delivery,
               now_ms: int) -> tuple[bool, SendError | None]:
    """Send the parts not yet done; (finished, the failure if any)."""
    sent_bytes = 0
    todo = [part for part in tr.parts(d) if part.key not in item["done"]]
    for n, part in enumerate(todo):
        if tr.budget.spent():
            return False, None
        try:
            part.send()
        except SendError as err:
            return False, err
        sent_bytes += part.size
        if n < len(todo) - 1:  # the last part is written down with the item's removal
            state.note(name, doc, {"op": "part", "id": item["id"], "key": part.key})
            crash_point("connector-part")
        else:
            item["done"].append(part.key)
    state.note(name, doc, {"op": "sent", "id": item["id"]})
    tr.delivered.append({"item": item.get("kind", "entry"), "id": item["id"],
                         "parts": len(item["done"]), "bytes": sent_bytes})
    crash_point("connector-part")
    return True, None


def _fail(name: str, doc: dict, item: dict, err: SendError, now_ms: int) -> None:
    item["tries"] = item.get("tries", 0) + 1
    item["lastError"] = err.message[:300]
    if err.status is not None:
        item["lastStatus"] = err.status
    next_at = now_ms + backoff_ms(item["tries"], err.retry_after)
    if next_at - item["firstAt"] > GIVE_UP_MS:
        doc["queue"].remove(item)
        doc["failed"].append({"kind": item.get("kind", "entry"), "id": item["id"], "at": now_ms,
                              "tries": item["tries"], "error": item["lastError"]})
        state.save(name, doc)
        _journal("connector.failed", {"connector": name, "id": item["id"],
                                      "tries": item["tries"], "status": err.status}, now_ms)
        return
    item["nextAt"] = next_at
    state.save(name, doc)


def deliver_one(rec: dict, *, now_ms: int, budget: Budget, store: InboxStore) -> dict:
    """One connector's pass (the caller holds nothing; this takes its lock)."""
    name = rec["name"]
    summary = {"name": name, "kind": rec["kind"], "status": "ok", "sent": 0, "failed": 0,
               "taken": 0, "received": 0, "pending": 0}
    try:
        with state.delivery_lock(name):
            doc = state.load(name)
            if doc is None:  # added before this state existed: start at the end
                doc = state.new_state(cursor_mod.end_position(store))
                state.save(name, doc)
            tr = Transport(rec, budget, now_ms)
            if rec["kind"] == "telegram" and rec["workspaces"]:
                from . import inbound  # lazy: only a bound Telegram connector polls

                try:
                    summary["received"] = inbound.poll(rec, tr.bot, doc, now_ms=now_ms,
                                                       budget=budget)
                except (SendError, AliceError) as err:  # outbound still runs
                    summary["inboundError"] = err.message
            try:
                _run_queue(rec, doc, tr, store, now_ms, summary)
            finally:
                if state.progress_path(name).exists():  # fold the progress log in
                    state.save(name, doc)
                if tr.delivered:
                    _journal("connector.sent", {
                        "connector": name, "kind": rec["kind"], "count": len(tr.delivered),
                        "bytes": sum(i["bytes"] for i in tr.delivered),
                        "items": tr.delivered[:JOURNAL_ITEMS]}, now_ms)
            summary["pending"] = len(doc["queue"])
            summary["nextAt"] = min((i["nextAt"] for i in doc["queue"]), default=None)
    except Busy:
        summary["status"] = "busy"
    except (SendError, AliceError) as err:  # this connector only: the others still run
        summary["status"] = "error"
        summary["error"] = f"{err.file}: {err.message}" if getattr(err, "file", None) \
            else err.message
    return summary


def _run_queue(rec, doc, tr, store, now_ms, summary) -> None:
    name = rec["name"]
    roots: dict = {}
    while True:
        taken = cursor_mod.take(rec, doc, store, now_ms=now_ms, limit=BATCH)
        if taken:
            state.save(name, doc)
            summary["taken"] += taken
        due = [i for i in doc["queue"] if i["nextAt"] <= now_ms]
        for item in due:
            if tr.budget.spent():
                summary["status"] = "budget"
                return
            d = _resolve(item, store, roots)
            if d is None:  # deleted from the Inbox meanwhile: the person wanted it gone
                doc["queue"].remove(item)
                state.save(name, doc)
                continue
            finished, err = _send_item(name, doc, item, tr, d, now_ms)
            if err is not None:
                before = len(doc["failed"])
                _fail(name, doc, item, err, now_ms)
                summary["failed"] += len(doc["failed"]) - before
                summary["error"] = err.message
                summary["status"] = "retrying"
                return
            if not finished:
                summary["status"] = "budget"
                return
            summary["sent"] += 1
        if not taken:
            return


def deliver(*, now_ms: int, names: list[str] | None = None,
            budget_s: float | None = None, stop=None) -> dict:
    """Every enabled connector's due work (or the named ones, enabled or not).
    ``stop()`` True ends the pass before the next part (``connector run``)."""
    budget = Budget(budget_s, stop)
    store = InboxStore()
    all_recs, problems = records.scan_records()
    if names:
        by_name = {r["name"]: r for r in all_recs}
        chosen = [by_name.get(n) or records.get(n) for n in names]
    else:
        chosen = [r for r in all_recs if r["enabled"]]
    results = []
    complete = names is None or not names
    for rec in chosen:
        if budget.spent():
            results.append({"name": rec["name"], "kind": rec["kind"], "status": "budget",
                            "sent": 0, "failed": 0, "taken": 0, "received": 0, "pending": 0})
            complete = False
            continue
        results.append(deliver_one(rec, now_ms=now_ms, budget=budget, store=store))
    if complete and not problems and all(r["status"] in ("ok", "retrying") for r in results):
        dues = [r["nextAt"] for r in results if r.get("nextAt") is not None]
        inbound = any(r["kind"] == "telegram" and r["workspaces"] for r in chosen)
        state.write_quiet(store.entries_path, min(dues) if dues else None, inbound)
    else:
        state.clear_quiet()
    return {"connectors": results, "problems": problems,
            "now": clock.to_iso(clock.from_ms(now_ms))}


def send_test(rec: dict, *, now_ms: int) -> str:
    """Send one test message now; what the other side answered (SendError if not)."""
    tr = Transport(rec, Budget(REQUEST_TIMEOUT), now_ms)
    d = plans.test_delivery(rec["name"])
    if rec["kind"] == "webhook":
        d.record = {"id": f"test-{now_ms}", "ts": now_ms, "workspaceId": "", "body": d.body}
        d.item_id = d.record["id"]
    answers = [part.send() for part in tr.parts(d)]
    return "; ".join(answers)
