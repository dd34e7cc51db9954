"""Conversations: a comment reaches its issue's session, and the reply comes back.

The API the CLI, the scan and tests call (docs/conversations.md):

* :func:`deliver_pending` (now) — the scan's pass: settle ended turns, start
  the next turn of each free session;
* :func:`wait_for_reply` (ws, issue, comment, now, timeout) — ``--wait``;
* :func:`redeliver` (ws, comment id, now) — the explicit retry of a failure;
* :func:`start_turn`, :func:`launch_turn`, :func:`reconcile`,
  :func:`failure_of` — one comment turn as a run (:mod:`.turns`);
* :func:`thread` (ws, issue) — the conversation as one flat list (:mod:`.thread`);
* :func:`ask`, :func:`answer` — a session's question and its answer (:mod:`.ask`).

The delivery state itself (pending → replied | failed, the atomic claim, the
pending markers) is :mod:`openalice.issues.delivery`; a comment is added
with :func:`openalice.issues.add_comment` (``via`` names its channel).
"""

from __future__ import annotations

from openalice.core import lazy

__all__ = ["check_target", "deliver_pending", "wait_for_reply", "redeliver", "find_comment", "start_turn",
           "launch_turn", "reconcile", "failure_of", "thread", "ask", "answer", "question_of"]

_LAZY = {
    "deliver_pending": "deliver", "wait_for_reply": "deliver", "redeliver": "deliver",
    "find_comment": "deliver", "check_target": "deliver", "start_turn": "turns", "launch_turn": "turns",
    "reconcile": "turns", "failure_of": "turns", "thread": "thread", "ask": "ask",
    "answer": "ask", "question_of": "ask",
}


__getattr__ = lazy.exports(__name__, globals(), _LAZY)
