"""The scan as the timer runs it: under the scan lock, the cache-only answer
when nothing is due (:mod:`.fastpath`), else the full scanner (:mod:`.scan`),
then the comments waiting for delivery (docs/conversations.md: only when a
pending marker exists), then the heartbeat.

This module is on the per-minute path: it imports only :mod:`.fastpath`; the
full scanner, the clock module and the admission rule load only when needed.
"""

from __future__ import annotations

import os

from . import fastpath

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the per-minute path imports nothing it does not use
    from collections.abc import Callable

__all__ = ["parse_capacity", "scan_report"]


def parse_capacity(text: str) -> int | None:
    """A run capacity written as plain digits, 0-1000; None if it is not one."""
    if not (text.isascii() and text.isdigit()) or len(text) > 4 or int(text) > 1000:
        return None
    return int(text)


def scan_report(*, dry_run: bool, now_text: str | None, capacity: int | None = None,
                warn: Callable[[str], None] | None = None) -> dict:
    """The scan as the tool runs it: the cache-only answer when nothing is
    due (:mod:`openalice.schedule.fastpath`), else the full scanner.

    ``warn`` hears about a heartbeat that could not be written (the scan ran
    all the same)."""
    env_capacity = os.environ.get("OPENALICE_RUN_CAPACITY")
    if capacity is None and env_capacity and parse_capacity(env_capacity) is None:
        # not plain digits: let the one rule judge it (and refuse it) before the
        # nothing-due answer could ignore it
        from openalice.runs.admission import default_capacity  # lazy: only for a malformed setting

        default_capacity()
    quick = fastpath.quick_now(now_text)  # the usual clock without datetime
    if quick is not None:
        now_ms, now_iso = quick
        now = None
    else:
        now = fastpath.parse_now(now_text)
        if now is None:  # let the clock module judge (and explain) the text
            from openalice.core import clock  # lazy: the fast clock parser handles the usual text

            now = clock.parse_clock(now_text, field="--now") if now_text else clock.now()
            now = clock.floor_ms(now)
        now_ms, now_iso = fastpath.epoch_ms(now), fastpath.iso(now)
    if not dry_run and not fastpath.take_lock():
        from .scan import busy_result  # lazy: only when another scan holds the lock

        return busy_result(now or _instant(now_ms))
    try:
        cache = fastpath.load_cache()
        report = fastpath.quick_scan(cache, now_ms=now_ms, now_iso=now_iso, dry_run=dry_run)
        if report is None:
            from .scan import scan  # lazy: the full scanner, only when something may be due

            now = now or _instant(now_ms)
            report = scan(now=now, dry_run=dry_run, capacity=capacity, lock_held=not dry_run,
                          cache=cache)
        if not dry_run and fastpath.comments_pending():
            from openalice.conversations import deliver_pending  # lazy: only when a comment waits

            report["comments"] = deliver_pending(now=now or _instant(now_ms), capacity=capacity)
        if not dry_run:
            _heartbeat(now_ms, warn)
    finally:
        fastpath.release_lock()
    if not dry_run:
        _connectors(report, now_ms, warn)
    return report


def _instant(ms: int):
    from openalice.core import clock  # lazy: the full scanner and the deliveries take a datetime

    return clock.from_ms(ms)


def _connectors(report: dict, now_ms: int, warn: Callable[[str], None] | None) -> None:
    """The connectors' due deliveries, after scheduling and outside the scan
    lock, within a bounded time (docs/connectors.md); "nothing to send" is
    two stat calls (:func:`.fastpath.connectors_quiet`).  A failure is a
    warning: the scan ran."""
    if fastpath.connectors_quiet(now_ms):
        return
    from openalice.connectors.scan_pass import run_due  # lazy: only when a connector has work

    summary, problem = run_due(now_ms)
    if summary:
        report["connectors"] = summary
    if problem and warn is not None:
        warn(problem)


def _heartbeat(now_ms: int, warn: Callable[[str], None] | None) -> None:
    """Renew the heartbeat; a failure is reported, never fatal (the scan ran)."""
    try:
        fastpath.write_heartbeat(now_ms, os.environ.get(fastpath.TIMER_VAR))  # a timer's scan says so
    except OSError as exc:
        if warn is not None:
            warn(f"cannot write the scan heartbeat {fastpath.heartbeat_file()}: "
                 f"{exc.strerror or exc}")
