"""Doctor's timer line: is a scan timer installed for THIS home, and does it fire?

"Installed" means a definition ``install-timer`` wrote whose ``OPENALICE_HOME`` is
this home (:mod:`openalice.schedule.timer_homes`): another home's crontab line
scans that home.  "Fires" means its own heartbeat (``heartbeat.<kind>``, renewed
only by scans the timer started: the line sets ``OPENALICE_SCAN_TIMER``) is at
most two periods old; a scan started by hand renews only the plain heartbeat and
never makes a timer look alive.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from openalice.core import clock, homes
from openalice.schedule import fastpath, timer_homes, timers

__all__ = ["check_timers"]


def _where(found: list[dict]) -> str:
    return ", ".join(f"{t['kind']} ({t['where']})" for t in found)


def check_timers(add: Callable[[str, str], None], env: Mapping[str, str], now, live_scheduled: int,
                 ago: Callable[[float], str]) -> None:
    """Add the ``timers`` finding(s) through ``add(status, message)``."""
    try:
        found = timer_homes.survey(env)
    except Exception as exc:
        add("attention", f"cannot list installed timers: {exc}")
        found = []
    here = homes.openalice_home(env)
    ours = [t for t in found if t["ours"]]
    others = [t for t in found if not t["ours"]]
    now_ms = clock.to_ms(now)
    limit_ms = 2 * timers.PERIOD_SECONDS * 1000

    def age(ms: int) -> str:
        return ago(max(0, now_ms - ms) / 1000)

    any_ms = fastpath.read_heartbeat()
    if ours:
        fired = [ms for ms in (fastpath.read_heartbeat(t["kind"]) for t in ours) if ms is not None]
        latest = max(fired, default=None)
        if latest is not None and now_ms - latest <= limit_ms:
            add("ok", f"scan timer installed: {_where(ours)}; it fires (last scan {age(latest)})")
            return
        logs = "; ".join(f"its log: {timers.log_hint(t['kind'], env)}" for t in ours)
        if latest is None:
            message = (f"scan timer installed: {_where(ours)}, but it has not started a scan yet "
                       f"(wait a minute; else {logs}; is the service manager running?)")
        else:
            message = (f"scan timer installed: {_where(ours)}, but the last scan it started was {age(latest)} "
                       f"(more than {2 * timers.PERIOD_SECONDS} s): the timer is not firing ({logs}; is the "
                       "service manager running?)")
        if any_ms is not None and (latest is None or any_ms > latest):
            message += f"; the last scan ({age(any_ms)}) was started by hand, not by the timer"
        unmarked = [t for t in ours if not t["marks"]]
        if unmarked:
            message += (f"; {_where(unmarked)} was written by an older version whose scans are not marked: "
                        "write it again (" + ", ".join(f"alice-schedule install-timer --{t['kind']} --write"
                                                       for t in unmarked) + ")")
        add("attention", message)
        return
    elsewhere = ""
    if others:
        elsewhere = ("; a timer is installed for another home: " + ", ".join(
            f"{t['kind']} ({t['where']}) scans {t['home']}" for t in others) + f", not this one ({here})")
    by_hand = f"; the last scan ({age(any_ms)}) was started by hand" if any_ms is not None else ""
    setup = "'alice-schedule install-timer --cron --write' sets one up"
    if live_scheduled:
        add("attention", f"{live_scheduled} scheduled issue(s) but no scan timer for this home: nothing will "
                         f"run them ({setup}){elsewhere}{by_hand}")
    elif others:
        add("info", f"no scan timer for this home ({setup}){elsewhere}{by_hand}")
    else:
        add("info", f"no scan timer installed ({setup}){by_hand}")
