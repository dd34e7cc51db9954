"""Concurrency: scanners at once fire each issue once; inbox writers at once lose nothing."""

from tests.reliability.conftest import assert_zero
from tests.reliability.suite import concurrent_inbox, concurrent_scans


def test_eight_scanners_at_once_give_exactly_one_run_per_issue(base):
    figures = concurrent_scans(base, scanners=8, issues=12, rounds=2)
    assert figures["runs"] == 24, dict(figures.counts)
    assert_zero(figures)


def test_inbox_writers_at_once_lose_no_entry(base):
    figures = concurrent_inbox(base, writers=6, entries=15)
    assert figures["entries pushed"] == 90
    assert_zero(figures, "lost records", "duplicate records", "torn files", "tracebacks")
