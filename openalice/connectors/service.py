"""``alice connector run``: a foreground sender for low latency.

Each round delivers what is due (:func:`.delivery.deliver`, Telegram polled
with timeout 0), then waits: a Telegram long poll (``getUpdates`` with the
saved offset, which acknowledges nothing, so it is only a wake-up) when a
bound Telegram connector is among those served, else a plain sleep; the wait
ends early when the Inbox grows.  SIGTERM and SIGINT end the service between
sends: during a wait at once, during a send once that part is written down.
systemd and launchd run it through ``alice-schedule install-timer --connectors``.
"""

from __future__ import annotations

import os
import signal
import time

from openalice.core import clock

from . import delivery, records, state
from .admin import pass_line
from .telegram import Bot

__all__ = ["run"]


class _Stop(Exception):
    pass


class _Signals:
    def __init__(self) -> None:
        self.stop = False
        self.interruptible = False
        self._old: dict = {}

    def __enter__(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    def _handle(self, signum, frame) -> None:
        self.stop = True
        if self.interruptible:
            raise _Stop()


def _entries_size() -> int:
    from openalice.inbox import inbox_dir  # lazy

    try:
        return os.stat(inbox_dir() / "entries.jsonl").st_size
    except OSError:
        return -1


def _wait(served: list[dict], poll: int, signals: _Signals) -> None:
    bound = [r for r in served if r["kind"] == "telegram" and r["workspaces"]]
    signals.interruptible = True
    try:
        if signals.stop:
            return
        if bound:
            rec = bound[0]
            doc = state.load(rec["name"]) or {"inbound": {}}
            bot = Bot(rec["telegram"]["apiBase"], records.secret_of(rec["name"], required=True))
            try:
                bot.get_updates(doc["inbound"].get("offset"), timeout=poll)
            except Exception:
                time.sleep(min(poll, 5))
            return
        size = _entries_size()
        deadline = time.monotonic() + poll
        while time.monotonic() < deadline and not signals.stop:
            time.sleep(0.5)
            if _entries_size() != size:
                return
    finally:
        signals.interruptible = False


def run(names: list[str] | None, *, poll: int, once: bool, clock_now, log) -> dict:
    """Deliver until SIGTERM/SIGINT (or one round with ``once``); totals."""
    totals = {"rounds": 0, "sent": 0, "received": 0, "failed": 0}
    with _Signals() as signals:
        try:
            while not signals.stop:
                result = delivery.deliver(now_ms=clock.to_ms(clock_now()), names=names,
                                          stop=lambda: signals.stop)
                totals["rounds"] += 1
                for r in result["connectors"]:
                    totals["sent"] += r["sent"]
                    totals["received"] += r["received"]
                    totals["failed"] += r["failed"]
                    if r["sent"] or r["received"] or r["failed"] or r.get("error"):
                        log(pass_line(r))
                if once or signals.stop:
                    break
                served = records.list_records() if not names else [records.get(n) for n in names]
                _wait([r for r in served if r["enabled"] or names], poll, signals)
        except _Stop:
            pass
    totals["stopped"] = "signal" if signals.stop else "once"
    return totals
