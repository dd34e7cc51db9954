"""Webhook, e-mail and desktop delivery against loopback fakes."""

from __future__ import annotations

import json
import os
import stat

import pytest

from openalice.connectors import admin, delivery, state, webhook
from openalice.core import clock
from openalice.core.errors import InvalidInput, UsageError
from tests.helpers.schemas import conforms

from .conftest import NOW, PASSWORD, SIGNING, at, push


def add(kind, name, secret=None, **options):
    rec = admin.build_record(kind, name, workspace_ids=options.pop("workspace_ids", []), **options)
    return admin.add(rec, secret=secret, backfill=False, replace=False,
                     now=clock.parse_instant(NOW))


def test_webhook_json_is_signed_and_keeps_its_idempotency_key_on_retry(ws, receiver):
    add("webhook", "hook", SIGNING, url=receiver.url, sign=True)
    entry = push(ws, "# Close\n[[charts/nvda.png]] [[missing.pdf]]")
    receiver.statuses = [503]
    r = delivery.deliver(now_ms=at(NOW))["connectors"][0]
    assert r["status"] == "retrying" and "503" in r["error"] and "try later" in r["error"]
    delivery.deliver(now_ms=at(NOW) + 30_000)
    first, second = receiver.requests
    assert first["valid"] is True and second["valid"] is True
    assert first["headers"]["Idempotency-Key"] == second["headers"]["Idempotency-Key"] == entry["id"]
    assert second["headers"]["X-OpenAlice-Timestamp"] == str((at(NOW) + 30_000) // 1000)
    doc = conforms("connector-webhook", second["json"])
    assert doc["entry"]["body"] == entry["body"] and doc["entry"]["id"] == entry["id"]
    files = {f["path"]: f for f in doc["files"]}
    assert files["charts/nvda.png"]["available"] is True and files["charts/nvda.png"]["kind"] == "photo"
    assert files["missing.pdf"]["available"] is False


def test_signature_is_hmac_sha256_of_timestamp_dot_body():
    import hashlib
    import hmac
    body = b'{"a":1}'
    want = "sha256=" + hmac.new(b"k", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert webhook.sign("k", 1700000000, body) == want


def test_slack_and_discord_formats(ws, receiver):
    receiver.secret = None
    add("webhook", "slack", url=receiver.url, fmt="slack")
    add("webhook", "discord", url=receiver.url, fmt="discord")
    body = "\n\n".join(["x" * 1500] * 3)
    push(ws, body)
    delivery.deliver(now_ms=at(NOW))
    docs = [r["json"] for r in receiver.requests]
    slack = [d for d in docs if "text" in d]
    discord = [d for d in docs if "content" in d]
    assert slack == [{"text": body}]
    assert len(discord) == 3 and all(len(d["content"]) <= 2000 for d in discord)
    keys = [r["headers"]["Idempotency-Key"] for r in receiver.requests if "content" in r["json"]]
    assert keys[1].endswith(":1") and keys[2].endswith(":2")


def test_email_plain_text_safe_html_and_attachments(ws, sink):
    add("email", "mail", PASSWORD, smtp=f"127.0.0.1:{sink.port}", sender="alice@example.com",
        to=["me@example.com"], user="alice")
    push(ws, "# Close <script>x</script>\n\nchart [[charts/nvda.png]]")
    r = delivery.deliver(now_ms=at(NOW))["connectors"][0]
    assert r["sent"] == 1, r
    assert sink.logins == [("alice", PASSWORD)]
    msg = sink.messages[0]["message"]
    assert msg["Subject"] == "[Notes] Close <script>x</script>"
    plain = msg.get_body(("plain",)).get_content()
    html = msg.get_body(("html",)).get_content()
    assert "# Close <script>x</script>" in plain
    assert "<script>" not in html and "&lt;script&gt;" in html
    attachments = list(msg.iter_attachments())
    assert attachments[0].get_filename() == "nvda.png"
    assert attachments[0].get_content() == (ws.root / "charts" / "nvda.png").read_bytes()


def test_email_security_rules():
    rec = admin.build_record("email", "m", workspace_ids=[], smtp="127.0.0.1:25",
                             sender="a@example.com", to=["b@example.com"])
    assert rec["email"]["security"] == "plain"
    rec = admin.build_record("email", "m", workspace_ids=[], smtp="smtp.example.com",
                             sender="a@example.com", to=["b@example.com"])
    assert rec["email"]["security"] == "starttls" and rec["email"]["port"] == 587
    rec = admin.build_record("email", "m", workspace_ids=[], smtp="smtp.example.com", ssl=True,
                             sender="a@example.com", to=["b@example.com"])
    assert rec["email"]["port"] == 465
    with pytest.raises(UsageError):
        admin.build_record("email", "m", workspace_ids=[], smtp="smtp.example.com", ssl=True,
                           starttls=True, sender="a@example.com", to=["b@example.com"])


@pytest.mark.parametrize("url", ["http://hooks.example.com/x", "ftp://127.0.0.1/x",
                                 "https://user:pw@example.com/x", "not a url"])
def test_webhook_urls_refused(url):
    with pytest.raises(InvalidInput) as err:
        admin.build_record("webhook", "h", workspace_ids=[], url=url)
    assert err.value.exit_code == 2


def test_plain_http_api_base_only_on_loopback():
    with pytest.raises(InvalidInput) as err:
        admin.build_record("telegram", "t", workspace_ids=[], chat_ids=["1"],
                           api_base="http://bot.example.com")
    assert err.value.code == "insecure_url"


def test_desktop_notification_argv_only(ws, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "notify.log"
    script = bin_dir / "notify-send"
    script.write_text("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n--\\n' \"$a\"; done >> "
                      f"'{log}'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    add("desktop", "bell")
    push(ws, "$(touch /tmp/pwned) `id`; done")
    r = delivery.deliver(now_ms=at(NOW))["connectors"][0]
    assert r["sent"] == 1, r
    args = log.read_text().split("\n--\n")
    assert "OpenAlice: Notes" in args and "$(touch /tmp/pwned) `id`; done" in args


def test_deleted_entry_is_dropped_from_the_queue(ws, receiver):
    from openalice import inbox
    receiver.secret = None
    add("webhook", "hook", url=receiver.url)
    entry = push(ws, "to delete")
    receiver.statuses = [500]
    delivery.deliver(now_ms=at(NOW))
    inbox.delete(inbox.InboxStore(), entry["id"])
    delivery.deliver(now_ms=at(NOW) + 60_000)
    assert len(receiver.requests) == 1 and state.load("hook")["queue"] == []


def test_the_cursor_survives_a_delete_that_rewrote_the_file(ws, receiver):
    from openalice import inbox
    receiver.secret = None
    first = push(ws, "one")
    push(ws, "two", "2026-11-30T09:00:01Z")
    add("webhook", "hook", url=receiver.url)
    inbox.delete(inbox.InboxStore(), first["id"])     # offsets shift
    push(ws, "three", "2026-11-30T09:00:02Z")
    delivery.deliver(now_ms=at(NOW))
    assert [json.loads(r["body"])["entry"]["body"] for r in receiver.requests] == ["three"]


def test_the_bot_token_is_scrubbed_from_any_message():
    from openalice.connectors.http import scrub
    token = "123456789:AAFakeTokenValue_abcdefghijkl"
    text = f"telegram sendMessage: no answer (https://api.telegram.org/bot{token}/sendMessage)"
    assert token not in scrub(text) and "AAFakeTokenValue" not in scrub(text)
    assert "AAFakeTokenValue" not in scrub(f"got {token} back", (token,))


def test_a_hand_edited_record_is_checked_like_one_the_cli_wrote(isolated_homes):
    from openalice.connectors import records
    directory = isolated_homes["OPENALICE_HOME"] / "connectors"
    directory.mkdir()
    bad = {"version": 1, "name": "mail", "kind": "email", "enabled": True, "workspaces": [],
           "email": {"host": "smtp.example.com", "port": 25, "security": "plain",
                     "from": "a@example.com", "to": ["b@example.com"]}}
    (directory / "mail.json").write_text(json.dumps(bad))
    (directory / "tok.json").write_text(json.dumps({**bad, "name": "tok", "token": "x"}))
    found, problems = records.scan_records()
    assert found == []
    reasons = {p["file"].rsplit("/", 1)[-1]: (p["field"], p["message"]) for p in problems}
    assert reasons["mail.json"][0] == "email/security" and "loopback" in reasons["mail.json"][1]
    assert reasons["tok.json"][0] == "token" and "secret" in reasons["tok.json"][1]
