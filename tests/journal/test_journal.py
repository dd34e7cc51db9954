"""The activity journal: registry, record(), reads, counts index, follow (items 58-60)."""

import json
from datetime import datetime, timezone

import pytest

from openalice import journal
from openalice.core.errors import InvalidInput
from openalice.journal import counts as counts_mod
from openalice.journal import registry

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def restore_registry():
    families = dict(registry.FAMILIES)
    owners = dict(registry._TYPE_FAMILY)
    yield
    registry.FAMILIES.clear()
    registry.FAMILIES.update(families)
    registry._TYPE_FAMILY.clear()
    registry._TYPE_FAMILY.update(owners)


def lines():
    return [json.loads(l) for l in journal.journal_path().read_bytes().splitlines()]


def test_registered_families_match_the_contract():
    assert journal.FAMILIES == {
        "agent": ("session.born", "session.opened", "session.closed", "runtime.started", "runtime.stopped", "runtime.spawn_failed",
                  "runtime.rejected", "runtime.turn.text", "runtime.turn.tool",
                  "runtime.turn.error"),
        "inbox": ("inbox.received",),
        "news": ("news.ingested",),
        "conversations": ("comment.added", "comment.delivered", "comment.replied",
                          "comment.failed"),
        "harness": ("harness.upgraded", "harness.recovered", "harness.config.changed",
                    "harness.source.upgraded"),
        "stickers": ("stickers.imported", "stickers.applied", "stickers.recovered"),
        "connectors": ("connector.sent", "connector.failed", "connector.received"),
    }
    assert journal.family_of("runtime.turn.tool") == "agent"
    assert journal.family_of("dev.sonner_test") is None


def test_item_58_born_started_stopped_pages_and_cursor():
    born = journal.record("session.born", {"resumeId": "resume-a"}, now=NOW)
    started = journal.record("runtime.started", {"cause": "issue"}, now=NOW,
                             caused_by=born["seq"])
    journal.record("runtime.stopped", {"status": "done"}, now=NOW)
    assert lines()[1] == {"seq": 2, "ts": "2026-11-30T09:00:00Z", "type": "runtime.started",
                          "payload": {"cause": "issue"}, "causedBy": 1}
    assert started["causedBy"] == born["seq"] == 1
    page = journal.read_page(1, page_size=2)
    assert [r["seq"] for r in page["entries"]] == [3, 2]
    assert (page["total"], page["totalPages"], page["lastSeq"]) == (3, 2, 3)
    assert [r["seq"] for r in journal.read_page(2, page_size=2)["entries"]] == [1]
    assert journal.read_page(3, page_size=2)["entries"] == []
    after = journal.read_after(1)
    assert [r["seq"] for r in after["entries"]] == [2, 3] and after["lastSeq"] == 3


def test_item_59_unregistered_type_is_refused_then_registered_family_is_found(restore_registry):
    with pytest.raises(ValueError):
        journal.record("dev.sonner_test", {}, now=NOW)
    assert not journal.journal_path().exists()  # nothing written
    for i in range(60):
        journal.record("runtime.turn.tool", {"toolId": f"t{i}", "toolName": "bash",
                                             "toolStatus": "completed"}, now=NOW)
    journal.register_family("dev", ["dev.sonner_test"])
    fact = journal.record("dev.sonner_test", {"n": 1}, now=NOW)
    assert fact["seq"] == 61
    news = journal.record("news.ingested", {"newsItemId": "n1"}, now=NOW)
    page = journal.read_page(1, page_size=10, where=journal.make_filter(family="dev"))
    assert [r["seq"] for r in page["entries"]] == [61] and page["total"] == 1
    page = journal.read_page(1, page_size=10, where=journal.make_filter(family="news"))
    assert [r["seq"] for r in page["entries"]] == [news["seq"]] and page["total"] == 1
    cursor = journal.read_after(0, limit=5, where=journal.make_filter(family="news"))
    assert [r["seq"] for r in cursor["entries"]] == [62]
    with pytest.raises(ValueError):
        journal.register_family("other", ["dev.sonner_test"])  # a type has one family


def test_item_60_malformed_middle_line_skipped_and_seq_continues():
    for i in range(3):
        journal.record("runtime.turn.text", {"i": i}, now=NOW)
    path = journal.journal_path()
    raw = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(raw[0] + b"{garbage\n" + raw[1] + raw[2])
    page = journal.read_page(1)
    assert [r["seq"] for r in page["entries"]] == [3, 2, 1] and page["total"] == 3
    assert [p["reason"] for p in page["problems"]] == ["malformed line: JSONDecodeError"]
    assert journal.record("runtime.turn.text", {"i": 3}, now=NOW)["seq"] == 4


def test_torn_last_line_is_repaired_before_the_next_append():
    journal.record("runtime.started", {}, now=NOW)
    path = journal.journal_path()
    with open(path, "ab") as fh:
        fh.write(b'{"seq":2,"ts":"2026-11-30T09:00:00Z","type":"runtime.sto')
    assert [r["seq"] for r in journal.read_after(0)["entries"]] == [1]
    assert journal.read_page(1)["total"] == 1
    stored = journal.record("runtime.stopped", {"status": "done"}, now=NOW)
    assert stored["seq"] == 2
    assert [r["type"] for r in lines()] == ["runtime.started", "runtime.stopped"]
    assert path.with_name(path.name + ".torn").read_bytes().startswith(b'{"seq":2,')


def test_record_failure_is_a_warning_and_none(capsys):
    state = journal.journal_path().parent
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text("a file where the state directory should be")
    assert journal.record("runtime.started", {}, now=NOW) is None
    assert "warning: activity journal not updated (runtime.started)" in capsys.readouterr().err


def test_record_programming_errors_raise():
    with pytest.raises(ValueError):
        journal.record("runtime.started", ["not", "a", "dict"], now=NOW)
    with pytest.raises(ValueError):
        journal.record("runtime.started", {}, now=NOW, caused_by=True)


def test_filters_validate_names():
    with pytest.raises(InvalidInput) as err:
        journal.make_filter(family="bogus")
    assert err.value.code == "unknown_family"
    with pytest.raises(InvalidInput) as err:
        journal.make_filter(type="inbox.deleted")
    assert err.value.code == "unknown_type"
    assert journal.make_filter(family="agent", type="inbox.received")(
        {"type": "inbox.received"}) is False
    with pytest.raises(InvalidInput):
        journal.read_after(0, limit=501)
    with pytest.raises(InvalidInput):
        journal.read_page(1, page_size=101)
    with pytest.raises(InvalidInput):
        journal.read_page(0)


def test_counts_index_extends_incrementally_and_is_rebuilt_when_stale():
    for i in range(5):
        journal.record("runtime.turn.text" if i % 2 else "inbox.received", {"i": i}, now=NOW)
    assert journal.read_page(1)["total"] == 5
    index = counts_mod.counts_path(journal.journal_path())
    data = json.loads(index.read_text())
    assert data["types"] == {"inbox.received": 3, "runtime.turn.text": 2}
    assert data["size"] == journal.journal_path().stat().st_size
    journal.record("inbox.received", {"i": 5}, now=NOW)
    page = journal.read_page(1, where=journal.make_filter(type="inbox.received"))
    assert page["total"] == 4 and [r["seq"] for r in page["entries"]] == [6, 5, 3, 1]
    # A lying index (wrong fingerprint) is not trusted: rebuilt from the file.
    data = json.loads(index.read_text())
    data["types"]["inbox.received"] = 999
    index.write_text(json.dumps(data))
    # (an edit of the index itself is not detected: it is a cache, and ours)
    assert journal.read_page(1)["total"] == 999 + 2
    # An index whose fingerprint no longer matches the file is rebuilt from it.
    data["fingerprint"] = "0" * 64
    index.write_text(json.dumps(data))
    assert journal.read_page(1)["total"] == 6
    # A journal replaced by another file (new inode) invalidates it too.
    path = journal.journal_path()
    body = path.read_bytes()
    path.unlink()
    path.write_bytes(body.splitlines(keepends=True)[0])
    assert journal.read_page(1)["total"] == 1
    index.write_text("{corrupt")
    assert journal.read_page(1)["total"] == 1


def test_the_recorder_keeps_the_counts_index_in_step(monkeypatch):
    """Each append extends an index that was current, so the first page after
    many appends reads no fact twice; an index that is behind is left alone."""
    for i in range(6):
        journal.record("runtime.turn.text" if i % 3 else "inbox.received", {"i": i}, now=NOW)
    index = counts_mod.counts_path(journal.journal_path())
    data = json.loads(index.read_text())
    assert data["size"] == journal.journal_path().stat().st_size   # no read happened
    assert data["types"] == {"inbox.received": 2, "runtime.turn.text": 4}
    read_from = []
    real = counts_mod._load

    def spy(*args):
        counts = real(*args)
        read_from.append(counts.size)
        return counts

    monkeypatch.setattr(counts_mod, "_load", spy)
    assert journal.read_page(1)["total"] == 6
    assert read_from == [data["size"]]            # nothing to extend: O(page)
    # an index that is behind the file (a fact appended by hand) stays behind
    with open(journal.journal_path(), "ab") as fh:
        fh.write(b'{"seq":7,"ts":"2026-11-30T09:00:00Z","type":"runtime.started","payload":{}}\n')
    journal.record("runtime.stopped", {}, now=NOW)
    assert json.loads(index.read_text())["size"] == data["size"]
    monkeypatch.setattr(counts_mod, "_load", real)
    page = journal.read_page(1)
    assert page["total"] == 8 and page["lastSeq"] == 8
    assert json.loads(index.read_text())["size"] == journal.journal_path().stat().st_size


def test_counts_stop_at_a_torn_tail_and_resume_after_repair():
    journal.record("runtime.started", {}, now=NOW)
    with open(journal.journal_path(), "ab") as fh:
        fh.write(b'{"seq":2,"type":"runtime.st')
    assert journal.read_page(1)["total"] == 1
    journal.record("runtime.stopped", {}, now=NOW)
    assert journal.read_page(1)["total"] == 2


def test_follow_yields_new_facts_and_stops_on_until_seq_or_max_wait():
    journal.record("runtime.started", {}, now=NOW)
    naps = []

    def sleep(seconds):
        naps.append(seconds)
        journal.record("inbox.received" if len(naps) % 2 else "runtime.turn.text", {},
                       now=NOW)

    got = list(journal.follow(1, interval=0.5, until_seq=5, clock=lambda: 0, sleep=sleep))
    assert [r["seq"] for r in got] == [2, 3, 4, 5]
    assert all(n == 0.5 for n in naps)
    only_inbox = list(journal.follow(5, where=journal.make_filter(family="inbox"),
                                     until_seq=9, clock=lambda: 0, sleep=sleep))
    assert [r["type"] for r in only_inbox] == ["inbox.received"] * 2
    ticks = iter([0, 0.5, 1.0, 1.5, 2.0, 2.5])
    waits = []
    quiet = list(journal.follow(journal.last_seq(), max_wait=2, interval=0.5,
                                clock=lambda: next(ticks), sleep=waits.append))
    assert quiet == [] and waits == [0.5, 0.5, 0.5]  # deadline 2 reached at the 4th tick
