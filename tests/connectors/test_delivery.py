"""Outbound delivery against the loopback fakes (API level, in process)."""

from __future__ import annotations

from openalice.connectors import admin, delivery, state
from openalice.core import clock

from .conftest import NOW, TOKEN, at, push


def add_telegram(telegram, *, name="phone", workspaces=(), backfill=False, chats=("111",)):
    rec = admin.build_record("telegram", name, workspace_ids=list(workspaces),
                             chat_ids=list(chats), api_base=telegram.api_base)
    return admin.add(rec, secret=TOKEN, backfill=backfill, replace=False,
                     now=clock.parse_instant(NOW))


def deliver(when=NOW, **kw):
    return delivery.deliver(now_ms=at(when), **kw)


def test_report_with_image_and_sticker_reaches_telegram_with_the_right_bytes(ws, telegram):
    add_telegram(telegram)
    body = "# Close\n\nSee [[charts/nvda.png]] and [[reports/close.pdf]] [[sticker/wave.webp]]"
    entry = push(ws, body)
    result = deliver()
    assert result["connectors"][0]["sent"] == 1, result
    methods = [c["method"] for c in telegram.sent()]
    assert methods == ["sendMessage", "sendPhoto", "sendDocument", "sendSticker"]
    text, photo, document, sticker = telegram.sent()
    assert text["params"]["text"] == body and text["params"]["chat_id"] == "111"
    assert "parse_mode" not in text["params"]
    assert photo["files"]["photo"] == ("nvda.png", "image/png",
                                       (ws.root / "charts" / "nvda.png").read_bytes())
    assert document["files"]["document"][2] == b"%PDF-1.4 close report"
    assert sticker["files"]["sticker"][2] == (ws.root / "sticker" / "wave.webp").read_bytes()
    # delivered once: a second pass sends nothing
    deliver()
    assert len(telegram.sent()) == 4
    doc = state.load("phone")
    assert doc["queue"] == [] and doc["sent"] == 1 and doc["cursor"]["afterId"] == entry["id"]


def test_older_entries_are_not_backfilled_unless_asked(ws, telegram):
    push(ws, "old report")
    add_telegram(telegram, name="fresh")
    add_telegram(telegram, name="back", backfill=True, chats=("222",))
    push(ws, "new report", "2026-11-30T09:01:00Z")
    deliver("2026-11-30T09:01:00Z")
    got = [(c["params"]["chat_id"], c["params"]["text"]) for c in telegram.sent()]
    assert sorted(got) == [("111", "new report"), ("222", "new report"), ("222", "old report")]


def test_a_file_changed_since_publication_is_named_not_sent(ws, telegram):
    add_telegram(telegram)
    push(ws, "chart [[charts/nvda.png]]")
    (ws.root / "charts" / "nvda.png").write_bytes(b"\x89PNG changed")
    deliver()
    methods = [c["method"] for c in telegram.sent()]
    assert methods == ["sendMessage", "sendMessage"]
    assert telegram.sent()[1]["params"]["text"] == (
        "[file not sent] charts/nvda.png: changed since it was published")


def test_long_bodies_split_at_paragraph_boundaries(ws, telegram):
    add_telegram(telegram)
    paragraphs = [("p%d " % i) * 300 for i in range(6)]  # ~1,200-1,500 chars each
    body = "\n\n".join(p.strip() for p in paragraphs)
    push(ws, body)
    deliver()
    pieces = [c["params"]["text"] for c in telegram.sent()]
    assert len(pieces) > 1 and all(len(p) <= 4096 for p in pieces)
    assert "\n\n".join(pieces) == body


def test_429_retry_after_is_honoured_and_nothing_is_repeated(ws, telegram):
    add_telegram(telegram)
    push(ws, "text then [[charts/nvda.png]]")
    telegram.fail("sendPhoto", 429, retry_after=120)
    r = deliver()["connectors"][0]
    assert r["status"] == "retrying" and "429" in r["error"] and TOKEN not in r["error"]
    item = state.load("phone")["queue"][0]
    assert item["nextAt"] == at(NOW) + 120_000 and item["done"] == ["c111:t0"]
    deliver("2026-11-30T09:01:59Z")          # not yet
    assert [c["method"] for c in telegram.sent()] == ["sendMessage"]
    deliver("2026-11-30T09:02:00Z")
    assert [c["method"] for c in telegram.sent()] == ["sendMessage", "sendPhoto"]


def test_an_outage_backs_off_then_gives_up_within_24_hours(ws, telegram):
    add_telegram(telegram)
    entry = push(ws, "will fail")
    telegram.fail("sendMessage", 502, times=10_000)
    now = at(NOW)
    delivery.deliver(now_ms=now)
    tries = 1
    while state.load("phone")["queue"]:
        item = state.load("phone")["queue"][0]
        now = max(now, item["nextAt"])
        delivery.deliver(now_ms=now)
        tries += 1
        assert tries < 40
    doc = state.load("phone")
    assert doc["failed"][0]["id"] == entry["id"] and now - at(NOW) <= delivery.GIVE_UP_MS
    attempts = [c for c in telegram.calls if c.get("failed")]
    assert len(attempts) == tries          # one request per pass: no storm
    view = admin.show("phone")["connector"]["delivery"]
    assert view["failed"] == 1 and "502" in view["failedItems"][0]["error"]
    from openalice.journal import open_journal
    facts = [f for f in open_journal().tail(50) if f["type"] == "connector.failed"]
    assert facts[0]["payload"] == {"connector": "phone", "id": entry["id"], "tries": tries,
                                   "status": 502}


def test_unreachable_server_keeps_the_entry_queued(ws, telegram):
    add_telegram(telegram)
    push(ws, "queued")
    telegram.stop()
    r = deliver()["connectors"][0]
    assert r["status"] == "retrying" and "no answer" in r["error"]
    assert TOKEN not in r["error"] and TOKEN.split(":")[1] not in r["error"]
    assert len(state.load("phone")["queue"]) == 1


def test_the_scan_sees_nothing_to_send_from_the_quiet_marker(ws, telegram):
    from openalice.schedule import fastpath

    assert fastpath.connectors_quiet(at(NOW))                 # no connector at all
    add_telegram(telegram)
    assert not fastpath.connectors_quiet(at(NOW))             # added: look once
    deliver()
    assert fastpath.connectors_quiet(at(NOW))                 # the full pass wrote the marker
    push(ws, "new")
    assert not fastpath.connectors_quiet(at(NOW))             # the Inbox grew
    telegram.fail("sendMessage", 500)
    deliver()
    due = state.load("phone")["queue"][0]["nextAt"]
    assert fastpath.connectors_quiet(due - 1) and not fastpath.connectors_quiet(due)
    admin.set_enabled("phone", False, now=clock.parse_instant(NOW))
    assert not fastpath.connectors_quiet(at(NOW))             # a record changed


def test_a_bound_telegram_connector_always_looks(ws, telegram):
    from openalice.schedule import fastpath

    add_telegram(telegram, workspaces=[ws.id])
    deliver()
    assert not fastpath.connectors_quiet(at(NOW))


def test_one_broken_connector_does_not_stop_the_others(ws, telegram, isolated_homes):
    add_telegram(telegram, name="broken")
    add_telegram(telegram, name="good", chats=("222",))
    (isolated_homes["OPENALICE_HOME"] / "vault" / "connectors" / "broken.env").unlink()
    push(ws, "to the good one")
    by_name = {r["name"]: r for r in deliver()["connectors"]}
    assert by_name["broken"]["status"] == "error"
    assert "no secret" in by_name["broken"]["error"]
    assert by_name["good"]["sent"] == 1
