"""The delivery state machine of a comment (issues.delivery): who it goes to,
the atomic claim, settling, the explicit reopen, the pending markers."""

from __future__ import annotations

import json
import threading

import pytest

from openalice.core.errors import Conflict, InvalidInput, NotFound
from openalice.issues import comments, delivery
from tests.helpers.schemas import conforms

from .conftest import NOW

OWNER = "resume-calm-amber-river-aaaaaa"
OTHER = "resume-quiet-blue-lake-bbbbbb"


def owned(write, issue_id="talk", assignee=f"@{OWNER}"):
    write(issue_id, f"---\ntitle: Talk\nassignee: \"{assignee}\"\n---\n\nBody.\n")
    return issue_id


def sidecar(ws, issue_id="talk"):
    return json.loads((ws.root / ".alice" / "issues" / f"{issue_id}.comments.json").read_text())


def test_a_person_comment_on_a_session_issue_is_pending_with_a_marker(ws, write):
    owned(write)
    comment, created = comments.add_comment(ws, "talk", "Why is Monday off?", author="human", now=NOW,
                                            via="telegram")
    assert created
    assert comment["delivery"] == {"state": "pending", "targetResumeId": OWNER}
    assert comment["via"] == "telegram"
    assert delivery.marker_path(ws.id, "talk").exists()
    assert delivery.pending_markers() == [(ws.id, "talk")]
    conforms("issue-comments", sidecar(ws))


@pytest.mark.parametrize("assignee", ["@human", "@unassigned"])
def test_issues_without_a_session_owner_keep_comments_without_delivery(ws, write, assignee):
    owned(write, assignee=assignee)
    comment, _ = comments.add_comment(ws, "talk", "hello", author="human", now=NOW)
    assert "delivery" not in comment
    assert not delivery.marker_path(ws.id, "talk").exists()


def test_the_session_itself_never_delivers_to_itself(ws, write):
    owned(write)
    comment, _ = comments.add_comment(ws, "talk", "progress note", author=f"@{OWNER}", now=NOW)
    assert "delivery" not in comment
    other, _ = comments.add_comment(ws, "talk", "from another session", author=f"@{OTHER}", now=NOW)
    assert other["delivery"]["targetResumeId"] == OWNER


def test_an_answer_to_a_question_goes_to_the_session_that_asked(ws, write):
    owned(write, assignee="@unassigned")
    question, _ = comments.add_comment(ws, "talk", "Which CSV?", author=f"@{OTHER}", now=NOW,
                                       question=True)
    answer, _ = comments.add_comment(ws, "talk", "the March one", author="human", now=NOW,
                                     reply_to=question["id"])
    assert answer["delivery"] == {"state": "pending", "targetResumeId": OTHER}


def test_claim_then_settle_replied_appends_the_reply_once(ws, write):
    owned(write)
    comment, _ = comments.add_comment(ws, "talk", "ping", author="human", now=NOW)
    delivery.claim(ws, "talk", comment["id"], "run-AAAAAAAA")
    with pytest.raises(Conflict) as again:
        delivery.claim(ws, "talk", comment["id"], "run-BBBBBBBB")
    assert again.value.code == "not_pending"
    settled, reply, changed = delivery.settle(ws, "talk", comment["id"], "run-AAAAAAAA", now=NOW,
                                              reply="pong")
    assert changed and settled["delivery"] == {"state": "replied", "targetResumeId": OWNER,
                                               "taskId": "run-AAAAAAAA",
                                               "replyCommentId": "reply-run-AAAAAAAA"}
    assert reply == {"id": "reply-run-AAAAAAAA", "author": f"@{OWNER}", "at": "2026-06-01T12:00:00Z",
                     "markdown": "pong", "replyTo": comment["id"], "via": "turn"}
    # settling twice (a reconcile after the turn settled itself) changes nothing
    _c, _r, changed = delivery.settle(ws, "talk", comment["id"], "run-AAAAAAAA", now=NOW, reply="pong")
    assert not changed
    # another task's outcome never touches it
    _c, _r, changed = delivery.settle(ws, "talk", comment["id"], "run-BBBBBBBB", now=NOW, error="x")
    assert not changed
    doc = sidecar(ws)
    assert [c["id"] for c in doc["comments"]] == [comment["id"], "reply-run-AAAAAAAA"]
    conforms("issue-comments", doc)
    assert delivery.clear_marker_if_idle(ws, "talk")
    assert delivery.pending_markers() == []


def test_failed_then_reopen_then_replied(ws, write):
    owned(write)
    comment, _ = comments.add_comment(ws, "talk", "ping", author="human", now=NOW)
    delivery.claim(ws, "talk", comment["id"], "run-AAAAAAAA")
    failed, reply, _ = delivery.settle(ws, "talk", comment["id"], "run-AAAAAAAA", now=NOW,
                                       error="not_logged_in: claude is not logged in")
    assert reply is None
    assert failed["delivery"]["state"] == "failed"
    assert failed["delivery"]["error"] == "not_logged_in: claude is not logged in"
    assert delivery.clear_marker_if_idle(ws, "talk")  # nothing pending: no automatic retry
    with pytest.raises(Conflict):
        delivery.claim(ws, "talk", comment["id"], "run-CCCCCCCC")
    reopened = delivery.reopen(ws, "talk", comment["id"])
    assert reopened["delivery"] == {"state": "pending", "targetResumeId": OWNER, "attempts": 2}
    assert delivery.pending_markers() == [(ws.id, "talk")]
    with pytest.raises(Conflict) as twice:
        delivery.reopen(ws, "talk", comment["id"])
    assert twice.value.code == "not_failed"
    delivery.claim(ws, "talk", comment["id"], "run-CCCCCCCC")
    done, _reply, _ = delivery.settle(ws, "talk", comment["id"], "run-CCCCCCCC", now=NOW, reply="ok")
    assert done["delivery"]["state"] == "replied"
    conforms("issue-comments", sidecar(ws))


def test_reopen_refuses_a_comment_without_delivery_and_unknown_ids(ws, write):
    owned(write, assignee="@human")
    comment, _ = comments.add_comment(ws, "talk", "hi", author="human", now=NOW)
    with pytest.raises(InvalidInput) as none:
        delivery.reopen(ws, "talk", comment["id"])
    assert none.value.code == "no_delivery"
    with pytest.raises(NotFound):
        delivery.reopen(ws, "talk", "comment-nope")


def test_idempotent_append_keeps_one_delivery(ws, write):
    owned(write)
    first, created = comments.add_comment(ws, "talk", "ping", author="human", now=NOW, comment_id="c-1")
    again, created_again = comments.add_comment(ws, "talk", "ping", author="human", now=NOW,
                                                comment_id="c-1")
    assert created and not created_again and again == first
    assert len(sidecar(ws)["comments"]) == 1


def test_a_marker_is_kept_while_anything_is_pending(ws, write):
    owned(write)
    a, _ = comments.add_comment(ws, "talk", "one", author="human", now=NOW)
    comments.add_comment(ws, "talk", "two", author="human", now=NOW)
    delivery.claim(ws, "talk", a["id"], "run-AAAAAAAA")
    delivery.settle(ws, "talk", a["id"], "run-AAAAAAAA", now=NOW, reply="r")
    assert not delivery.clear_marker_if_idle(ws, "talk")
    assert delivery.pending_markers() == [(ws.id, "talk")]


def test_concurrent_claims_give_the_comment_to_exactly_one(ws, write):
    owned(write)
    comment, _ = comments.add_comment(ws, "talk", "ping", author="human", now=NOW)
    wins, losses = [], []

    def claimer(n):
        try:
            delivery.claim(ws, "talk", comment["id"], f"run-CLAIM{n:03d}")
            wins.append(n)
        except Conflict:
            losses.append(n)

    threads = [threading.Thread(target=claimer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1 and len(losses) == 7
    assert sidecar(ws)["comments"][0]["delivery"]["taskId"] == f"run-CLAIM{wins[0]:03d}"


def test_bad_via_and_a_malformed_sidecar_are_refused_and_kept(ws, write):
    owned(write)
    with pytest.raises(InvalidInput):
        comments.add_comment(ws, "talk", "x", author="human", now=NOW, via="Tele gram")
    path = ws.root / ".alice" / "issues" / "talk.comments.json"
    path.write_text("[]")
    with pytest.raises(InvalidInput) as bad:
        delivery.claim(ws, "talk", "comment-x", "run-AAAAAAAA")
    assert bad.value.code in ("invalid_comments_file", "malformed_json")
    assert path.read_text() == "[]"
