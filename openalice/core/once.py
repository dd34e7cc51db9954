"""Answers reused inside one report: ``with once.report():``.

A report over every scheduled issue (``alice-schedule health``) asks the same
questions once per issue: the workspace's settings (about 0.1 ms a read),
whether the agent's executable is on ``PATH`` (a ``stat`` of every ``PATH``
directory: 0.15 ms).  Inside a :class:`report` block, :func:`remembered`
computes each answer once and hands the same object to every later caller
(read-only callers only: the answers are shared), so a change made meanwhile
is seen by the next report, as if it had been read at the block's start.
Outside a block nothing is remembered.  Blocks nest: the outer one keeps the
answers.  Domain-free: the callers name their questions.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from collections.abc import Callable, Hashable

__all__ = ["report", "remembered"]

_answers: dict | None = None


class report:
    """``with report():`` -- the block inside which :func:`remembered` remembers."""

    def __enter__(self) -> "report":
        global _answers
        self._outer = _answers is not None
        if not self._outer:
            _answers = {}
        return self

    def __exit__(self, *exc) -> None:
        global _answers
        if not self._outer:
            _answers = None


def remembered(question: str, key: Hashable, compute: Callable[[], object]) -> object:
    """``compute()``, once per ``(question, key)`` inside a :class:`report` block
    (every time outside one).  An exception is not remembered: it propagates."""
    if _answers is None:
        return compute()
    slot = (question, key)
    try:
        return _answers[slot]
    except KeyError:
        found = _answers[slot] = compute()
        return found
