"""``alice inbox VERB``: the same verbs as ``alice-inbox``."""

from __future__ import annotations

from . import alice_issue_talk, inbox_verbs


def register(sub, common) -> None:
    group = sub.add_parser(
        "inbox", help="publish and read Inbox reports (the verbs of alice-inbox)",
        description="Publish and read Inbox reports: the same verbs as 'alice-inbox', and "
                    "'answer' (a session's question, docs/conversations.md).",
        epilog="examples:\n  alice inbox push --body 'Done. See [[reports/run.md]]'\n"
               "  alice inbox list --unread\n  alice inbox mark-all-read\n")
    verbs = group.add_subparsers(dest="inbox_verb", metavar="VERB", required=True)
    inbox_verbs.register_verbs(verbs, common, prog="alice inbox")
    alice_issue_talk.register_answer(verbs, common)
